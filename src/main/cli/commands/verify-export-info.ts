// `bijotel verify-export` as the command table sees it; the code is in ./verify-export.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'

export const EXIT = { valid: 0, invalid: 1, usage: 2 } as const

const HELP = `usage: bijotel verify-export PATH [keys] [--public-key PEM]

Verify a Python BIJOTEL export file (bijotel-chain-v1 or -v2 JSON): its chain_signature under the
secret, each entry's body hash, HMAC and link, and with --public-key the Ed25519 signature of a v2
export against the auditor's copy of the key. The checks, their order and their reasons are the
reference's. Every candidate key is tried, so an export of a rotated chain verifies. With the public
key alone, only the signature over chain_signature is checked: the entries are then not
authenticated, and the output says so.

options:
  --secret-hex HEX     HMAC secret as hex (BIJOTEL_HMAC_SECRET without the flag); repeat for rotated keys
  --secret-text TEXT   HMAC secret as raw UTF-8 bytes; repeatable
${KEY_SOURCE_OPTIONS}
  --public-key PEM     the auditor's copy of the exporter's Ed25519 public key (auditor mode, v2 only)
  -h, --help           show this help

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 valid, 1 unreadable or invalid export (or a key alone on a v1 export), 2 no secret
and no key, or an argument or secret error`

export const verifyExportInfo: CommandInfo = {
  name: 'verify-export',
  summary: 'verify an exported chain (JSON): chain signature, entries, Ed25519 signature',
  help: HELP,
  chainFileExit: EXIT.invalid,
}
