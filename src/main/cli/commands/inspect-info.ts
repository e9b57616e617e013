// `bijotel inspect` as the command table sees it; the code is in ./inspect, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS } from '../secret-help'

export const EXIT = { ok: 0, notFound: 1, usage: 2, broken: 3 } as const

const HELP = `usage: bijotel inspect --db PATH ID [--secret-hex HEX | --secret-file PATH | ...]

Show one row in full, as Python BIJOTEL's inspect does: its metadata, policy status, cost (from the
dated price table shipped with bijotel; ?<model> for a model not in it), the decoded canonical body and
its CAS entry. ID is a seq (all digits) or a span_id (the first row with it). Given candidate keys,
also whether the row verifies: body hash, link to the row before it, HMAC, sealed columns.

options:
  --db PATH            chain.db (read in place, read-only)
  --secret-hex HEX     candidate key as hex; repeatable (BIJOTEL_HMAC_SECRET is not read here)
  --secret-text TEXT   candidate key as raw UTF-8 bytes; repeatable
${KEY_SOURCE_OPTIONS}
  -h, --help           show this help

exit codes: 0 shown, 1 DB missing, not a readable chain, or no such row, 2 argument or key error,
3 (only with a key) the row does not verify`

export const inspectInfo: CommandInfo = {
  name: 'inspect',
  summary: 'show one row in full (metadata, status, cost, body); with a key, whether it verifies',
  help: HELP,
  chainFileExit: EXIT.notFound,
}
