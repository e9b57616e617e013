// `bijotel recover` as the command table sees it; the search is in ./recover, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'

/**
 * 0: nothing recovered; 1: DB missing or not a chain the carver reads; 2: argument or secret error;
 * 3: proven rows recovered (what verify reports as findings); 4: rows recovered, none proven (no key,
 * or no candidate key reproduces their HMAC), or rows only in WAL frames after the last commit.
 */
export const EXIT = { none: 0, unreadable: 1, usage: 2, proven: 3, unproven: 4 } as const

const HELP = `usage: bijotel recover --db PATH [--secret-hex HEX | --secret-text TEXT | --secret-file PATH | --secret-stdin]... [--json] [--out DIR]

List every row of the chain table that the files still remember but the live chain no longer has
as it was: deleted rows and earlier versions of rewritten rows, carved from freed pages, free space
in pages, pages that WAL frames supersede and every WAL frame (older versions, frames after the last
commit, frames of earlier checkpoint generations). Each row is checked: sha256(body) against its
canonical_hash, its HMAC under each candidate key (a reproduced HMAC proves a key holder sealed it in
this chain), and what its prev_hash links to. Copies of live rows are counted, not listed. The files
are read in place through read-only descriptors, never by SQLite, and never modified.

options:
  --db PATH            chain.db to search (its -wal file, if any, is searched too)
  --secret-hex HEX     candidate key as hex; repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes; repeatable
${KEY_SOURCE_OPTIONS}
                       (without any of these, BIJOTEL_HMAC_SECRET is read as hex; with no key at all
                       the rows are listed unproven)
  --json               print {summary, rows, uncommitted, keys} as JSON (bodies as body_b64)
  --out DIR            also write the case file: DIR/recovered.csv, DIR/recovered.jsonl and each body as
                       DIR/bodies/<seq>-<hmac prefix>.body; DIR must be new or empty and may not be in
                       the evidence's folder
  -h, --help           show this help

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 nothing recovered, 1 DB missing or not a chain the carver reads, 2 argument or secret
error, 3 proven rows recovered that sealed links place in this chain (findings), 4 rows recovered
but none of them a finding (unproven; not linked to this chain; before the live chain; or only rows
in WAL frames after the last commit)`

export const recoverInfo: CommandInfo = {
  name: 'recover',
  summary: 'list deleted and earlier versions of rows the files still hold, proven by the key',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
