// `bijotel report` as the command table sees it; the report builder is in ./report, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'
import { INTEGRITY_OPTIONS_HELP } from './integrity-options'

export const EXIT = { ok: 0, unreadable: 1, usage: 2 } as const

const HELP = `usage: bijotel report --db PATH -o FILE [keys] [--window N | --all] [thresholds]

Write the audit report as JSON (schema/integrity-report.schema.json): the evidence record (SHA-256,
size and mtime of the chain file and its -wal), the chain's extent, the verification verdict when a
key is given, the integrity monitor's run (with rotation boundaries when keys are given), the
replay checks, and the rows the files still remember (deleted rows, earlier versions: "recovery",
proven with the keys; their findings join the verdict). The chain file is read through a verified
private copy and never modified.

options:
  --db PATH            chain.db to report on
  -o, --output FILE    where to write the report; '-' writes it to stdout. Never the evidence file.
  --secret-hex HEX     candidate key as hex (Python BIJOTEL); repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (Go fallback); repeatable
${KEY_SOURCE_OPTIONS}
                       (without any of these, BIJOTEL_HMAC_SECRET is read as hex, as verify does;
                       with no key at all the report says the chain was not verified)
${INTEGRITY_OPTIONS_HELP}
  -h, --help           show this help

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 report written (whatever it found), 1 DB missing or not a readable chain,
2 argument or secret error (including an output path that cannot be written)`

export const reportInfo: CommandInfo = {
  name: 'report',
  summary: 'write the JSON audit report (evidence, verdict, integrity, replay checks)',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
