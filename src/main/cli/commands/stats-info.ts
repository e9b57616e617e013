// `bijotel stats` as the command table sees it; the code is in ./stats, loaded on use.
import type { CommandInfo } from '../command'

export const EXIT = { ok: 0, unreadable: 1, usage: 2 } as const

const HELP = `usage: bijotel stats --db PATH

Summary of a chain, as Python BIJOTEL's stats prints it: the rows by policy status (ALLOWED, WARN,
BLOCKED), the CAS table's unique bodies, references and dedup factor, and the last 7 days of the
policy's daily token state. The rows are streamed (the reference loads every body at once).

options:
  --db PATH            chain.db (read in place, read-only)
  -h, --help           show this help

exit codes: 0 shown, 1 DB missing or not a readable chain, 2 argument error`

export const statsInfo: CommandInfo = {
  name: 'stats',
  summary: 'rows by policy status, CAS dedup, policy daily state (streamed)',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
