// `bijotel report` as the command table sees it; the report builder is in ./report, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'
import { INTEGRITY_OPTIONS_HELP } from './integrity-options'

export const EXIT = { ok: 0, unreadable: 1, differs: 1, usage: 2 } as const

const HELP = `usage: bijotel report --db PATH -o FILE [keys] [--window N | --all] [thresholds]
                      [--format json|html] [--sign-key PEM] [--replay SEQ=FILE]... [--replay-batch FILE]
       bijotel report verify REPORT --db PATH [keys] [--public-key PEM] [--json]

Write the audit report as JSON (schema/integrity-report.schema.json): the evidence record (SHA-256,
size and mtime of the chain file and its -wal), the chain's extent, the verification verdict when a
key is given, the integrity monitor's run (with rotation boundaries when keys are given), the
replay checks, the rows the files still remember (deleted rows, earlier versions: "recovery",
proven with the keys; their findings join the verdict), and what it covered: the evidence line and
a digest of every row's (seq, hmac_hash), so the report can be the next audit's prior (bijotel
verify --prior REPORT). The chain file is read through a verified private copy and never modified.

options:
  --db PATH            chain.db to report on
  -o, --output FILE    where to write the report; '-' writes it to stdout. Never the evidence file.
  --format FMT         json (default), or html: one self-contained page (no external resources,
                       printable) that embeds the same JSON, which report verify also takes
  --sign-key PEM       sign the report with this Ed25519 private key (bijotel keygen): the
                       signature covers the RFC 8785 canonical form of the report without its
                       signature block, which names the algorithm, public key and fingerprint
  --replay SEQ=FILE    add a replay check: FILE is the replayed output of row SEQ, read as
                       replay --output-file reads it (repeatable)
  --replay-batch FILE  add every line of a replay batch (JSONL or a folder, as replay --batch
                       reads it); a line that cannot be checked is an argument error
  --segment PATH       an archive segment of this chain (repeatable): recovered rows found in it are
                       archived, never findings
  --secret-hex HEX     candidate key as hex (Python BIJOTEL); repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (Go fallback); repeatable
${KEY_SOURCE_OPTIONS}
                       (without any of these, BIJOTEL_HMAC_SECRET is read as hex, as verify does;
                       with no key at all the report says the chain was not verified)
${INTEGRITY_OPTIONS_HELP}
  -h, --help           show this help

report verify: check an exported report (JSON or HTML) again against the chain file: the
signature (against --public-key PEM; without it, only against the key the report carries, which
proves it unchanged but not who signed it), the evidence files re-hashed, the verdict re-run with
the same key set (give the report's keys), the integrity run with the same window and thresholds,
each replay check from its recorded output hash, and the rows it covered. Prints, field by field,
what reproduces and what does not (--json: the same as JSON).

${KEYS_OFF_COMMAND_LINE}

exit codes (report): 0 report written (whatever it found), 1 DB missing or not a readable chain,
2 argument or secret error (including an output path that cannot be written)
exit codes (report verify): 0 every field reproduces and the signature holds (or the report is
unsigned and no --public-key was given), 1 anything differs, the signature fails, or the DB is
missing or unreadable, 2 argument error`

export const reportInfo: CommandInfo = {
  name: 'report',
  summary: 'write the audit report (JSON or HTML, optionally signed); report verify checks one again',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
