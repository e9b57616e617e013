// `bijotel verify` as the command table sees it; the code that verifies is in ./verify, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'

export const EXIT = { valid: 0, unreadable: 1, usage: 2, broken: 3 } as const

const HELP = `usage: bijotel verify --db PATH (--secret-hex HEX | --secret-text TEXT | --secret-file PATH | --secret-stdin)... [options]
       bijotel verify --db PATH --keyless [options]

Verify every row of a BIJOTEL chain.db: body hash, link to the previous row, HMAC under the candidate
keys, seq contiguity, and the unsealed columns against the sealed span body. Every finding is reported,
merged into ranges. The chain file is read in place, read-only, by the direct file reader (files it
declines are read by SQLite on a verified private copy); it is never modified.

The files are also searched for rows they still remember (freed pages, free space, old page versions,
WAL frames). A recovered row belongs to this chain only when sealed links join it to the live rows
(its prev_hash is a placed row's hmac_hash, or the other way round; a rowid proves nothing). Such a
row that a candidate key proves is a finding — truncated (the chain went on after its head),
rewritten (a seq's live row differs from a proven earlier version) or deleted. Rows no link places
(unplaced: another chain's, or one cleared from the file) and rows before the live chain (archived or
deleted: give --segment to tell) are never findings. Recovered rows are listed after the findings
(--json: "recovered"; see bijotel recover).

options:
  --db PATH            chain.db to verify (its -wal file, if any, is read too)
  --secret-hex HEX     candidate key as hex (Python BIJOTEL); repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (the Go collector's non-hex fallback); repeatable
${KEY_SOURCE_OPTIONS}
                       (without any of these, BIJOTEL_HMAC_SECRET is read as hex; an empty
                       --secret-hex is refused, never replaced by it)
  --range A:B          verify seq A..B (either side may be empty: 5:, :9; \`:\` is the whole chain,
                       printed as a segment)
  --last N             verify the last N rows (N >= 1); takes precedence over --range, as in Python
  --since YYYY-MM-DD   first row whose timestamp_ns is on or after that UTC day (a real calendar
                       date; 2023-1-5 is read as Python reads it)
  --until YYYY-MM-DD   last row whose timestamp_ns is on or before the end of that UTC day
  --prior FILE         an earlier verdict (this command's --json): fail if its head is gone
                       (truncation); or an exported report (bijotel report, JSON or HTML): also
                       fail if any row it covered is gone or now differs (rewritten, deleted). A
                       signed report must still match its signature
  --segment PATH       an archive segment of this chain (bijotel archive's output); repeatable.
                       Recovered rows found in a segment are archived, never findings; rows before
                       the live chain in no segment given are then deleted
  --no-recover         do not search the files for deleted and earlier rows
  --keyless            first look without a key: body hashes, links, seqs and columns only; says plainly
                       that the HMACs were not checked (--json: "hmac_checked": false); exit 3 on a break
  --json               print the verdict as JSON
  -h, --help           show this help

An option's value may begin with '-' (--range -5:10); one that begins with '--' is given as
--opt=VALUE.

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 valid, 1 DB missing or not a readable chain, 2 argument or secret error, 3 broken`

export const verifyInfo: CommandInfo = {
  name: 'verify',
  summary: 'verify every row of a chain (hash, link, HMAC, seq, columns)',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
