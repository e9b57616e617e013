// `bijotel export` as the command table sees it; the code is in ./export, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'

/** The reference's codes (§4.6: every error is 2), and 3 for rows that do not verify. */
export const EXIT = { written: 0, error: 2, broken: 3 } as const

const HELP = `usage: bijotel export --db PATH -o FILE (--secret-hex HEX | --secret-file PATH | ...) [--sign-key PEM] [range options]

Export a chain (or a segment of it) as Python BIJOTEL's export file: bijotel-chain-v1 JSON with
base64 bodies and a chain_signature (HMAC of "chain:<head_hash>:<entries_count>"), a segment block
for a range, and with --sign-key the v2 Ed25519 signature over the chain_signature text. Python's
\`bijotel verify-export\` and \`bijotel verify-export\` here accept it.

The rows are verified first (body hashes, links, HMACs, seqs, columns; a range's first row against
its predecessor in the file) and nothing is written unless they verify. The file is streamed (flat
memory on any chain size) into a temporary file beside FILE and renamed into place when complete.
FILE may not be, or resolve to, the chain file or its -wal, -shm or -journal.

options:
  --db PATH            chain.db to export (read in place, read-only)
  -o, --output FILE    the export file to write
  --secret-hex HEX     HMAC secret as hex (BIJOTEL_HMAC_SECRET without the flag); repeat for rotated
                       keys (every row must verify under one; the head row's key signs the file)
  --secret-text TEXT   HMAC secret as raw UTF-8 bytes; repeatable
${KEY_SOURCE_OPTIONS}
  --sign-key PEM       Ed25519 private key (PKCS#8 PEM, as bijotel keygen writes it): a v2 export
  --range A:B          export seq A..B (either side may be empty)
  --last N             export the last N rows (N >= 1); takes precedence over --range
  --since YYYY-MM-DD   from the first row on or after that UTC day
  --until YYYY-MM-DD   to the last row on or before the end of that UTC day (a time window is
                       exported as the contiguous seq range from its first to its last row)
  -h, --help           show this help

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 written, 2 any error (no secret, DB missing or unreadable, key file, range flags,
output refused or not writable), 3 the rows do not verify (nothing written)`

export const exportInfo: CommandInfo = {
  name: 'export',
  summary: 'export a chain or segment as a verifiable JSON file (v2 with an Ed25519 key)',
  help: HELP,
  chainFileExit: EXIT.error,
}
