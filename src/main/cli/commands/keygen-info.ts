// `bijotel keygen` as the command table sees it; the key writer is in ./keygen, loaded on use.
import type { CommandInfo } from '../command'

export const EXIT = { ok: 0, failed: 1, exists: 2 } as const

const HELP = `usage: bijotel keygen [--output-dir DIR] [--force]

Generate an Ed25519 keypair, exactly as Python BIJOTEL's keygen does: bijotel_private.pem
(PKCS#8, unencrypted, mode 0600: keep it secret) and bijotel_public.pem (SubjectPublicKeyInfo:
give it to auditors) in DIR, and print the key's fingerprint (first 16 hex of SHA-256 of the raw
32-byte public key). The same files sign a report (bijotel report --sign-key bijotel_private.pem)
and check it (bijotel report verify REPORT --public-key bijotel_public.pem).

options:
  --output-dir DIR   folder for the two files, created if needed (default ./keys)
  --force            replace an existing private key (this rotates the signing key: earlier
                     signatures no longer carry a matching key)
  -h, --help         show this help

exit codes: 0 keypair written, 1 the folder or files cannot be written, 2 a private key already
exists there (without --force) or an argument error`

export const keygenInfo: CommandInfo = {
  name: 'keygen',
  summary: 'generate an Ed25519 keypair for signing reports (Python BIJOTEL compatible)',
  help: HELP,
  chainFileExit: EXIT.failed,
}
