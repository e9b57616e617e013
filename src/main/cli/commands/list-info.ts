// `bijotel list` as the command table sees it; the code is in ./list, loaded on use.
import type { CommandInfo } from '../command'

export const EXIT = { ok: 0, unreadable: 1, usage: 2 } as const

const HELP = `usage: bijotel list --db PATH [--blocked] [--rule R] [--model M] [--since YYYY-MM-DD] [--limit 50] [--offset 0]

List the chain's rows newest first, as Python BIJOTEL's list does: seq, timestamp, trace_id, model,
policy status (ALLOWED, WARN, BLOCKED) and cost. Unlike the reference, which applies LIMIT and OFFSET
before its filters (a page can come back short or empty while matching rows exist), every filter
is applied first. Nothing is verified (see bijotel verify).

options:
  --db PATH            chain.db (read in place, read-only)
  --blocked            only rows whose bijotel.blocked attribute is true
  --rule R             only rows whose bijotel.policy.rule or bijotel.policy.warning is R
  --model M            only rows whose gen_ai.request.model is M
  --since YYYY-MM-DD   only rows whose timestamp_ns is on or after that UTC day
  --limit N            at most N rows (default 50; negative: all)
  --offset N           skip the first N matching rows (default 0)
  -h, --help           show this help

exit codes: 0 listed (also when nothing matches), 1 DB missing or not a readable chain, 2 argument
error (a bad --since included)`

export const listInfo: CommandInfo = {
  name: 'list',
  summary: 'list rows newest first, filtered before the page is cut (model, status, cost)',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
