// `bijotel integrity`: runs the six detectors on a chain (straight from the file when the direct
// reader takes it, else SQLite on a verified copy). Loaded only when the command runs.
import type { IntegrityRun } from '../../../shared/integrity-types'
import { INTEGRITY_COLUMNS, REQUIRED_COLUMNS } from '../../chain/table'
import { runIntegrity } from '../../integrity/analyze'
import { reportJson } from '../../integrity/report'
import { integrityText } from '../../integrity/text'
import type { EvidenceStatement } from '../../../shared/custody-types'
import type { RowSource } from '../../chain/source/row-source'
import { parse, requireString, UsageError } from '../args'
import type { Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { EXIT } from './integrity-info'
import { INTEGRITY_OPTIONS, integrityOptionsFromFlags } from './integrity-options'
import { readChainForCli } from './open-chain'
import { progressLine } from './progress-line'
import { printable } from '../../../shared/printable'

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    json: { type: 'boolean' },
    evidence: { type: 'boolean' },
    ...SECRET_OPTIONS,
    ...INTEGRITY_OPTIONS,
  })
  const db = requireString(values, 'db')
  // --json is Python's line byte for byte; the evidence statement has no place in it.
  if (values['json'] && values['evidence'])
    throw new UsageError('argument --evidence: not allowed with argument --json')
  const options = integrityOptionsFromFlags(values)
  // The key and evidence code (node:crypto, the file hasher) is loaded only when used: a keyless
  // window from a cron job then starts in about Node's own start-up time.
  const inputs = await secretInputsFrom(values, io, { useEnv: false })
  const keyCode = inputs.length > 0 ? await import('../../chain/keys') : null
  const keys = keyCode ? keyCode.parseSecrets(inputs) : []
  const runOpts = { ...options, keys, onProgress: progressLine(io) }
  // The text is the reference's, ending at `Rate:` (or the Rotation lines with keys); the evidence
  // judged — a SHA-256 of the whole file, seconds on a large chain — only when asked for.
  const infos = keyCode ? keys.map(keyCode.keyInfo) : []
  const stated = values['evidence'] === true ? await import('../../chain/statement') : null
  let statement: EvidenceStatement | null = null
  // Read in place, the file is hashed on its own threads while the detectors read it.
  const analyse = async (source: RowSource): Promise<IntegrityRun> => {
    if (!stated) return runIntegrity(source, runOpts)
    const stating = stated.startStating(source)
    let run: IntegrityRun
    try {
      run = await runIntegrity(source, runOpts)
    } catch (e) {
      stating.abort()
      throw e
    }
    const r = run.report
    const ts = stated.timestampsOf(source, r.first_seq, r.last_seq)
    statement = stated.buildStatement(await stating.done(), { ...r, entries: r.window }, ts, infos)
    return run
  }
  const t0 = performance.now()
  let timing = ''
  const analysis: IntegrityRun = await readChainForCli(
    db,
    io,
    analyse,
    (reader) => (timing = `reader ${reader}, open ${(performance.now() - t0).toFixed(0)} ms`),
    // Without keys only the monitor's five columns are read (Python's own test tables have no
    // more); with keys the rotation detector verifies the range and needs them all.
    keys.length > 0 ? REQUIRED_COLUMNS : INTEGRITY_COLUMNS,
  )
  io.progress(null)
  if (io.env['BIJOTEL_TIMING']) io.err(`timing: ${timing}, total ${(performance.now() - t0).toFixed(0)} ms\n`)
  const made: EvidenceStatement | null = statement
  io.out(
    values['json']
      ? `${reportJson(analysis.report)}\n`
      : printable(integrityText(analysis), '\n') + (stated && made ? `${stated.evidenceLine(made)}\n` : ''),
  )
  return analysis.report.clean ? EXIT.clean : EXIT.anomalies
}
