// `bijotel verify-continuity` as the command table sees it; the code is in ./verify-continuity.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'

export const EXIT = { continuous: 0, broken: 1, usage: 2 } as const

const HELP = `usage: bijotel verify-continuity DB [DB ...] [keys] [--json]

Check that archive segments and the live chain join into one chain, in the order given: each segment
is verified from its own rows (body hashes, links, seqs, and HMACs under the candidate keys when a
secret is given), and each segment's last hmac_hash must be the next one's first prev_hash, with the
next seq following the last. A segment that starts inside an earlier one's seqs (the same rows cut
twice) joins it when its first prev_hash is the hmac_hash of the earlier one's row before it and both
hold the same rows on every seq they share (counted once); different rows there are two versions of
the chain, and the first such seq is named. The archive_meta table is not trusted (it is not sealed).
Every file is read in place, read-only.

options:
  --secret-hex HEX     candidate key as hex; repeat for rotated keys (BIJOTEL_HMAC_SECRET is read
                       as hex without any key option). Without a key the HMACs are not checked.
  --secret-text TEXT   candidate key as raw UTF-8 bytes; repeatable
${KEY_SOURCE_OPTIONS}
  --json               print {valid, hmac_checked, segments, boundaries} as JSON
  -h, --help           show this help

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 continuous, 1 a segment invalid, missing or unreadable, or a boundary broken,
2 argument or secret error`

export const verifyContinuityInfo: CommandInfo = {
  name: 'verify-continuity',
  summary: 'check that archive segments and the live chain join into one chain',
  help: HELP,
  chainFileExit: EXIT.broken,
}
