// `bijotel demo` as the command table sees it; the writer is in ./demo, loaded on use.
import type { CommandInfo } from '../command'

// Copies of writer/demo's constants, so that help does not load the writer (a test keeps them equal).
export const DEMO_SECRET_HEX = Buffer.from('bijotel-demo-secret-not-for-prod', 'utf8').toString('hex')
export const DEMO_ROTATED_SECRET_HEX = Buffer.from('bijotel-demo-rotated-key-2-test!', 'utf8').toString('hex')
export const DEMO_DEFAULT_SEED = 'bijotel-demo'

const HELP = `usage: bijotel demo --db PATH --count N [options]

Write a realistic, deterministic sample chain.db: chat calls to anthropic, openai, google, xai and
mistral models with GenAI input/output messages, token usage, bijotel.cost_usd / latency_ms, about
20 calls an hour, replay metadata on ~45% of the rows (a seed on half of those), a few errors —
sealed exactly as Python BIJOTEL's span processor seals spans. Same seed and count, same rows.

options:
  --db PATH                  file to create (refused if it exists, unless --force)
  --count N                  number of rows
  --secret-hex HEX           HMAC key, at least 16 bytes (default: the documented demo secret
                             ${DEMO_SECRET_HEX})
  --seed S                   PRNG seed (default: ${DEMO_DEFAULT_SEED})
  --rotate-at SEQ            seal rows from SEQ on with a second key (secret rotation)
  --rotated-secret-hex HEX   that second key (default: ${DEMO_ROTATED_SECRET_HEX})
  --secret-file PATH         read the key from a file instead (the key-file format of verify: hex, or
                             text: for raw UTF-8 bytes); with --rotate-at, a second key in it is
                             the rotated key. Keeps a real key out of the process list
  --secret-stdin             read them from stdin, in the same format
  --replay-samples DIR       also write sample-replay-*.txt files for some rows (match, mismatch,
                             drift, CRLF, no metadata) and sample-replay.json describing them
  --force                    replace an existing file (and its -wal/-shm)
  -h, --help                 show this help

exit codes: 0 written, 1 cannot write, 2 argument error`

export const demoInfo: CommandInfo = {
  name: 'demo',
  summary: 'write a realistic, deterministic sample chain (seeded; for trying the tool and benchmarks)',
  help: HELP,
  chainFileExit: 1,
}
