// `bijotel report verify` (issue 25 item 4): an exported report checked again, field by field,
// against the chain file it names. The signature (against the auditor's key, or only the report's
// own), the evidence files re-hashed, the chain's extent, the verdict re-run with the same key set,
// the integrity run with the same mode, window and thresholds, each replay check from its recorded
// output hash, the recovered rows (the files searched again), and the coverage (statement and rows
// digest): what reproduces and what does not.
import type { KeyObject } from 'node:crypto'
import type { Evidence } from '../../shared/chain-types'
import type {
  EvidenceStatement,
  ReportCheckResult,
  ReportSubject,
  RowsDigest,
} from '../../shared/custody-types'
import type { IntegrityOptions, IntegrityRun } from '../../shared/integrity-types'
import type { ReplayCheck } from '../../shared/replay-types'
import type { AuditReport } from '../../shared/report-types'
import type { KeyInfo, VerifyVerdict } from '../../shared/verify-types'
import type { HeldChain } from '../chain/source/held-chain'
import { OpenedChain } from '../chain/source/opened-chain'
import type { SnapshotOptions } from '../chain/snapshot'
import { AuditError } from '../base/errors'
import { runIntegrity } from '../integrity/analyze'
import { replayBodyAt, verifyRow } from '../replay/check'
import { replayResultFor } from '../replay/verifier'
import { chainSummary, verificationNote } from './build-report'
import { verifyOpened } from './verify-file'
import { keyInfo, type KeyMaterial } from '../chain/keys'
import { FieldList } from './check-fields'
import { checkVerdictExtras } from './check-verdict-extras'
import { checkReplayBatches } from './check-replay-batches'
import { checkRecovery, rerunRecovery, verdictWithRecovery } from './check-recovery'
import { reportCoverage } from './coverage'
import { isReport, rowsDigestOf, type ReadReport } from '../custody/report-file'
import { priorRowFindings } from '../chain/rows-digest'
import { checkReportSignature } from '../custody/sign'
import { reportSubject } from './report-subject'
import { requireCheckableReport } from './report-shape'
import { evidenceLine } from '../chain/statement'

/** The Evidence line of a recorded statement, or null when it is not one that can be written. */
function lineOf(s: EvidenceStatement): string | null {
  try {
    return evidenceLine(s)
  } catch {
    return null
  }
}

export interface CheckReportInput {
  read: ReadReport
  reportPath: string
  dbPath: string
  keys: KeyMaterial[]
  /** The auditor's copy of the signer's public key. */
  publicKey?: KeyObject
  copy?: SnapshotOptions
  /**
   * The chain already held (the app's: read in place, its evidence hashed once), read instead of
   * opening `dbPath` again through a private copy; the caller keeps it open.
   */
  chain?: HeldChain
  onProgress?: (done: number, total: number, phase?: string) => void
}

const VERDICT_FIELDS = [
  'valid',
  'entries',
  'first_seq',
  'last_seq',
  'head_hmac',
  'first_bad_seq',
  'findings',
  'key_segments',
  'boundary',
  'range',
  'prior_check',
] as const

const INTEGRITY_FIELDS = [
  'window',
  'first_seq',
  'last_seq',
  'clean',
  'anomaly_count',
  'sequence_gaps',
  'timestamp_anomalies',
  'hash_anomalies',
  'provider_shift',
  'rate_anomalies',
] as const

function checkEvidence(f: FieldList, reported: Evidence | undefined, now: Evidence): void {
  const file = (name: 'db' | 'wal', r: Evidence['db'] | null | undefined, n: Evidence['db'] | null): void => {
    if (!r || !n) {
      f.compare(`evidence.${name}`, r ?? null, n ? { size: n.size, sha256: n.sha256 } : null)
      return
    }
    f.compare(`evidence.${name}.size`, r.size, n.size)
    f.compare(`evidence.${name}.sha256`, r.sha256, n.sha256)
    if (r.path === n.path) f.compare(`evidence.${name}.path`, r.path, n.path)
    else
      f.notChecked(
        `evidence.${name}.path`,
        r.path,
        `read now from ${n.path} (a copy may live elsewhere)`,
        true,
      )
    f.notChecked(
      `evidence.${name}.mtime`,
      r.mtime,
      `now ${n.mtime}; a copy has its own mtime, the bytes are what count`,
      true,
    )
  }
  file('db', reported?.db, now.db)
  file('wal', reported?.wal, now.wal)
  // Shown on the page too: said here as what they are, records of the time of the report, so the
  // list of fields names everything the page states (issue 38), not only what reproduces.
  const sides: unknown = reported?.side_files
  if (Array.isArray(sides))
    sides.forEach((side, i) =>
      f.notChecked(
        `evidence.side_files[${i}]`,
        side,
        'a side file (rollback journal, -shm) as recorded then; SQLite rewrites the -shm, so it is not compared',
        true,
      ),
    )
  else if (sides !== undefined) f.compare('evidence.side_files', sides, now.side_files)
  if (reported?.method !== undefined)
    f.notChecked(
      'evidence.method',
      reported.method,
      `how the report read the file; read now: ${now.method}`,
      true,
    )
}

function integrityOptionsOf(run: IntegrityRun): IntegrityOptions {
  const opts: IntegrityOptions = { thresholds: run.thresholds }
  if (run.mode === 'all') opts.all = true
  // Reports before window_requested: the rows analysed, which asks for the same rows of the same chain.
  else opts.window = run.window_requested ?? Math.min(10000, Math.max(2, run.report.window))
  return opts
}

function checkIntegrity(f: FieldList, r: IntegrityRun, now: IntegrityRun, rotationCheckable: boolean): void {
  f.compare('integrity.mode', r.mode, now.mode)
  f.compare('integrity.thresholds', r.thresholds, now.thresholds)
  for (const k of INTEGRITY_FIELDS) f.compare(`integrity.report.${k}`, r.report[k], now.report[k])
  if (rotationCheckable) {
    f.compare(
      'integrity.report.rotation_boundaries',
      r.report.rotation_boundaries,
      now.report.rotation_boundaries,
    )
    f.compare('integrity.rotation_note', r.rotation_note, now.rotation_note)
  } else {
    const why = 'the report ran the rotation detector with its keys; no key was given now'
    f.notChecked('integrity.report.rotation_boundaries', r.report.rotation_boundaries, why)
    f.notChecked('integrity.rotation_note', r.rotation_note, why)
  }
}

async function checkReplay(
  f: FieldList,
  i: number,
  r: ReplayCheck,
  chain: HeldChain,
  keys: KeyMaterial[],
  keyed: boolean,
): Promise<void> {
  const at = `replay_checks[${i}]`
  let body: Buffer
  try {
    body = chain.readNow((source) => replayBodyAt(source, r.seq))
  } catch (e) {
    f.compare(`${at}.result`, r.result, null, e instanceof AuditError ? e.message : String(e))
    return
  }
  const now = replayResultFor(body, r.result.replay_hash)
  f.compare(
    `${at}.result`,
    r.result,
    now,
    `seq ${r.seq}, recorded output hash ${r.result.replay_hash.slice(0, 16)}\u2026`,
  )
  if (keyed || r.row_verified === null) {
    const row = await chain.read((source) => verifyRow(source, keys, r.seq))
    f.compare(`${at}.row_verified`, r.row_verified, row.row_verified)
    // The words the page's "Row" column shows: held to the row as it verifies now, like the flag.
    f.compare(`${at}.row_detail`, r.row_detail, row.row_detail)
  } else {
    const why = "the row was checked with the report's keys; no key was given now"
    f.notChecked(`${at}.row_verified`, r.row_verified, why)
    f.notChecked(`${at}.row_detail`, r.row_detail, why)
  }
  if (r.prompt_match !== null)
    f.notChecked(
      `${at}.prompt_match`,
      r.prompt_match,
      'the prompt is not in the report: it cannot be checked again',
      true,
    )
}

function checkCoverage(
  f: FieldList,
  doc: Record<string, unknown>,
  label: string,
  now: Awaited<ReturnType<typeof reportCoverage>>,
): void {
  const c = doc['coverage'] as AuditReport['coverage']
  if (c === undefined) {
    f.notChecked(
      'coverage',
      undefined,
      'the report has no coverage block (written before schema 1.2.0)',
      true,
    )
    return
  }
  const s = c.statement
  f.compare('coverage.statement.db.size', s.db.size, now.statement.db.size)
  f.compare('coverage.statement.db.sha256', s.db.sha256, now.statement.db.sha256)
  f.compare(
    'coverage.statement.wal',
    s.wal ? { size: s.wal.size, sha256: s.wal.sha256 } : null,
    now.statement.wal ? { size: now.statement.wal.size, sha256: now.statement.wal.sha256 } : null,
  )
  for (const k of [
    'entries',
    'first_seq',
    'last_seq',
    'first_timestamp_ns',
    'last_timestamp_ns',
    'key_fingerprints',
  ] as const)
    f.compare(`coverage.statement.${k}`, s[k], now.statement[k])
  const rows: RowsDigest | null = rowsDigestOf(doc, label)
  if (rows === null) return
  const located = priorRowFindings(rows, now.rows)[0]
  f.compare(
    'coverage.rows.digest',
    rows.digest,
    now.rows.digest,
    located
      ? `rows differ: first change in seq ${located.from_seq}-${located.to_seq} (${located.kind})`
      : undefined,
  )
  // The blocks locate a change for the next audit (verify --prior) and tell report verify which
  // chain a report is about: they are the chain's as much as the whole digest is.
  for (const k of ['first_seq', 'last_seq', 'count', 'head_hmac', 'block_size', 'blocks'] as const)
    f.compare(`coverage.rows.${k}`, rows[k], now.rows[k])
  // The page shows the line as the evidence line for a case file: it must be the line of the
  // statement compared above (its own paths, which may differ on this machine), word for word.
  f.compare(
    'coverage.line',
    c.line,
    lineOf(s),
    'the Evidence line of the statement the report records (its paths as recorded)',
  )
}

export async function checkReport(input: CheckReportInput): Promise<ReportCheckResult> {
  const { read, keys } = input
  const doc = read.doc
  const label = input.reportPath
  if (!isReport(doc)) throw new AuditError('bad_argument', `${label}: not a BIJOTEL Auditor audit report`)
  requireCheckableReport(doc, label)
  const report = doc as unknown as AuditReport
  const signature = checkReportSignature(doc, input.publicKey)
  const f = new FieldList()
  const progress = input.onProgress
  const chain: HeldChain =
    input.chain ?? (await OpenedChain.open(input.dbPath, input.copy ? { copy: input.copy } : {}))
  const release = (): void => {
    if (chain !== input.chain) chain.close()
  }
  let subject: ReportSubject
  try {
    subject = await reportSubject(doc, chain, label)
  } catch (e) {
    release()
    throw e
  }
  if (subject.status === 'no_common_rows') {
    release()
    return {
      ok: false,
      report_path: input.reportPath,
      format: read.format,
      subject,
      signature,
      fields: [],
      summary: subject.detail,
    }
  }
  try {
    f.notChecked('generated_at', report.generated_at, 'when the report was written', true)
    f.notChecked('tool', report.tool, 'the tool that wrote it', true)
    checkEvidence(f, report.evidence, await chain.hashed())
    const summary = chain.readNow(chainSummary)
    f.compareMembers('chain', report.chain, summary, ['entries', 'first_seq', 'last_seq'])

    const given: KeyInfo[] = keys.map(keyInfo)
    const v = report.verification
    const keyed = v !== null && v !== undefined
    let verdict: VerifyVerdict | null = null
    let liveVerdict: VerifyVerdict | null = null
    // Recovery is re-run as the report ran it: proven rows join the verdict's findings.
    const search = await rerunRecovery(doc, chain, keyed ? keys : [])
    if (!keyed) {
      f.compare(
        'verification',
        null,
        null,
        'the report was written without a key: the chain was not verified',
      )
    } else {
      f.compare('verification.keys', v.keys, given, keys.length === 0 ? 'no key given now' : undefined)
      if (keys.length === 0) {
        for (const k of VERDICT_FIELDS)
          if (v.verdict[k] !== undefined)
            f.notChecked(
              `verification.verdict.${k}`,
              v.verdict[k],
              'no key given: the verdict cannot be re-run',
            )
        checkVerdictExtras(f, v.verdict as unknown as Record<string, unknown>, null, VERDICT_FIELDS)
      } else {
        liveVerdict = await verifyOpened(
          chain,
          keys,
          progress ? { onProgress: (d, t) => progress(d, t, 'verify') } : {},
        )
        verdict = verdictWithRecovery(liveVerdict, search)
        for (const k of VERDICT_FIELDS)
          if (v.verdict[k] !== undefined || verdict[k] !== undefined)
            f.compare(`verification.verdict.${k}`, v.verdict[k], verdict[k])
        checkVerdictExtras(f, v.verdict as unknown as Record<string, unknown>, verdict, VERDICT_FIELDS)
      }
    }
    if (!keyed || verdict)
      f.compare('verification_note', report.verification_note, verificationNote(verdict, keys.length))
    else
      f.notChecked(
        'verification_note',
        report.verification_note,
        'no key given: the verdict cannot be re-run',
      )

    const rotationCheckable = !keyed || keys.length > 0
    const integrityOpts = {
      ...integrityOptionsOf(report.integrity),
      keys: keyed ? keys : [],
      ...(liveVerdict ? { wholeChainVerdict: liveVerdict } : {}),
      ...(progress ? { onProgress: progress } : {}),
    }
    const integrity = await chain.read((source) => runIntegrity(source, integrityOpts))
    checkIntegrity(f, report.integrity, integrity, rotationCheckable)

    const replays = Array.isArray(report.replay_checks) ? report.replay_checks : []
    for (const [i, r] of replays.entries())
      await checkReplay(f, i, r, chain, keyed ? keys : [], keyed ? keys.length > 0 : true)
    checkReplayBatches(f, doc)

    checkRecovery(f, doc, search)

    checkCoverage(f, doc, label, await reportCoverage(chain, summary, keyed ? given : []))
  } finally {
    release()
  }
  const failing = f.failing
  const signatureOk = signature.status === 'valid' || (signature.status === 'unsigned' && !input.publicKey)
  const checked = f.fields.filter((x) => !x.informational).length
  const words =
    failing.length === 0
      ? `every checked field reproduces (${checked} fields)`
      : `${failing.length} of ${checked} fields do not reproduce: ${failing.map((x) => x.field).join(', ')}`
  const sigWords =
    signature.status === 'valid'
      ? signature.key === 'provided'
        ? 'signature valid against the given key'
        : 'signature valid against its own key only (self-consistent)'
      : signature.status === 'unsigned'
        ? 'not signed'
        : 'signature INVALID'
  return {
    ok: failing.length === 0 && signatureOk,
    report_path: input.reportPath,
    format: read.format,
    subject,
    signature,
    fields: f.fields,
    summary: `${words}; ${sigWords}`,
  }
}
