// `bijotel integrity` as the command table sees it; the analysis is in ./integrity, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'
import { INTEGRITY_OPTIONS_HELP } from './integrity-options'

export const EXIT = { clean: 0, anomalies: 1, unreadable: 2, usage: 2 } as const

const HELP = `usage: bijotel integrity --db PATH [--window N | --all] [--json | --evidence] [keys] [thresholds]

Structural integrity monitor (Python BIJOTEL's six detectors): sequence gaps, timestamps going
backward, large gaps and bursts, duplicate canonical hashes, provider distribution shift and rate
change between the older and the newer half, and rotation boundaries. Hashes are not verified here
(use bijotel verify). The chain file is read in place, read-only, by the direct file reader (or by
SQLite on a verified private copy for files it declines); it is never modified.

Without keys the text is Python's, line for line, ending at the Rate: line (the rotation detector
needs keys; Python's is a stub). With keys, Rotation: lines follow: the key changes found, or
none. --json is Python's in both cases (rotation_boundaries is filled only with keys).

options:
  --db PATH            chain.db to analyse (its -wal file, if any, is read too)
${INTEGRITY_OPTIONS_HELP}
  --json               one compact JSON line, byte for byte what Python BIJOTEL's integrity --json prints
  --evidence           end the text with verify's Evidence: line (the SHA-256 and size of chain.db and
                       its -wal, the rows analysed); it hashes the whole file. bijotel report always
                       carries it
  --secret-hex HEX     candidate key as hex; with keys the analysed range is verified and every change
                       of sealing key is reported as a rotation boundary (Python never fills that list);
                       repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (the Go collector's non-hex fallback); repeatable
${KEY_SOURCE_OPTIONS}
                       (BIJOTEL_HMAC_SECRET is not read by this command: without a key option, no key)
  -h, --help           show this help

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 clean (an empty chain is clean), 1 anomalies found, 2 DB missing or not a readable
chain, or an argument error (window outside 2..10000 included)`

export const integrityInfo: CommandInfo = {
  name: 'integrity',
  summary: 'structural integrity monitor: gaps, timestamps, duplicates, provider/rate shifts, rotation',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
