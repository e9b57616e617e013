// `bijotel report verify REPORT --db PATH`: an exported report (JSON or HTML) checked again against
// the chain, field by field (issue 25 item 4). Loaded only when the sub-command runs.
import type { ReportCheckResult } from '../../../shared/custody-types'
import { checkReport } from '../../audit/check-report'
import { loadPublicKey } from '../../custody/ed25519'
import { readReportFile } from '../../custody/report-file'
import { parseSecrets } from '../../chain/keys'
import { parse, requireString, UsageError } from '../args'
import type { Run } from '../command'
import { toJson } from '../format'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { progressLine } from './progress-line'
import { EXIT } from './report-info'
import { printable } from '../../../shared/printable'

const STATUS = { reproduces: 'REPRODUCES ', differs: 'DIFFERS    ', not_checked: 'NOT CHECKED' } as const

export function checkText(r: ReportCheckResult, schema: string, generated: string): string {
  const s = r.signature
  const sig =
    s.status === 'valid'
      ? 'VALID'
      : s.status === 'unsigned'
        ? s.key === 'provided'
          ? 'INVALID'
          : 'NOT SIGNED'
        : 'INVALID'
  const lines = [`Report: ${r.report_path} (${r.format}, schema ${schema}, generated ${generated})`]
  // Which chain the report is about comes first: with no rows in common, nothing else is compared.
  if (r.subject) {
    const word = {
      same_file: 'THIS FILE',
      same_chain: 'THIS CHAIN',
      no_common_rows: 'NOT THIS CHAIN',
      unknown: 'UNKNOWN',
    }
    lines.push(`About: ${word[r.subject.status]} \u2014 ${r.subject.detail}`)
  }
  lines.push(`Signature: ${sig} \u2014 ${s.detail}`)
  for (const f of r.fields) {
    const value = f.status === 'differs' ? `report ${f.reported} | now ${f.now}` : f.reported
    const note = f.note ? ` (${f.note})` : ''
    lines.push(`  ${f.informational ? 'INFO       ' : STATUS[f.status]} ${f.field}: ${value}${note}`)
  }
  lines.push(`Report verify: ${r.ok ? 'OK' : 'FAILED'} \u2014 ${r.summary}.`)
  // Each line shows the report's text as data: no control, override or line break of its own.
  return lines.map((l) => printable(l)).join('\n') + '\n'
}

export const run: Run = async (argv, io) => {
  const { values, positionals } = parse(
    argv,
    {
      db: { type: 'string' },
      'public-key': { type: 'string' },
      json: { type: 'boolean' },
      ...SECRET_OPTIONS,
    },
    true,
  )
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'the following arguments are required: REPORT'
        : `unrecognized arguments: ${positionals.slice(1).join(' ')}`,
    )
  const reportPath = positionals[0]!
  const db = requireString(values, 'db')
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: true }))
  const publicKey = typeof values['public-key'] === 'string' ? loadPublicKey(values['public-key']) : undefined
  const read = readReportFile(reportPath)
  const result = await checkReport({
    read,
    reportPath,
    dbPath: db,
    keys,
    ...(publicKey ? { publicKey } : {}),
    onProgress: progressLine(io),
  })
  io.progress(null)
  if (values['json']) io.out(toJson(result) + '\n')
  else {
    const str = (v: unknown): string => (typeof v === 'string' ? v : '?')
    io.out(checkText(result, str(read.doc['schema_version']), str(read.doc['generated_at'])))
  }
  if (!result.ok && !values['json']) io.err(`Report verify FAILED: ${printable(result.summary)}\n`)
  return result.ok ? EXIT.ok : EXIT.differs
}
