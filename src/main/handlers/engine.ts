// The integrity, replay and report engines as the session uses them: the session's chain, its
// candidate keys (the rotation detector and the row checks need them), and its replay checks.
import type { IntegrityOptions, IntegrityRun } from '../../shared/integrity-types'
import { Readable } from 'node:stream'
import type {
  ReplayBatchItem,
  ReplayBatchSummary,
  ReplayCheck,
  ReplayCheckRequest,
} from '../../shared/replay-types'
import { REPLAY_BATCH_KEEP, type AuditReport } from '../../shared/report-types'
import { runIntegrity } from '../integrity/analyze'
import { checkReplay, verifyRow, type RowVerification } from '../replay/check'
import { AuditError } from '../base/errors'
import type { KeyMaterial } from '../chain/keys'
import type { Opened } from '../session/opened'
import { jsonlLines, type BatchLine } from '../replay/batch-lines'
import { BatchTally, decideBatch, planBatch } from '../replay/batch'
import { KeptChecks } from '../replay/kept-checks'
import { signReport } from '../custody/sign'
import { buildAuditReport } from '../audit/build-report'
import { announceSigned, custodyOf } from '../session/custody-state'
import type { JobContext } from '../session/jobs'
import type { AuditSession } from '../session/session'

/**
 * The integrity monitor over the session's chain with `keys` (those held when the caller asked);
 * `adopt`: kept as the chain's run (flags, the page's panel) — only when the chain and the key set
 * it was made with are still the session's: a run that ends after another chain was opened, after
 * the keys were replaced (its key and rotation notes are the old keys'), or in a job cancelled
 * meanwhile, is the caller's answer only.
 */
export async function runIntegrityFor(
  session: AuditSession,
  opts: IntegrityOptions,
  how: { job?: JobContext; adopt?: boolean; keys?: AuditSession['keys'] } = {},
): Promise<IntegrityRun> {
  const { job, adopt = false, keys = session.keys } = how
  const opened = await session.ready()
  const options = {
    ...opts,
    keys,
    ...(session.verdict && !session.verdict.range ? { wholeChainVerdict: session.verdict } : {}),
    ...(job
      ? {
          onProgress: (d: number, t: number, phase?: string) => job.progress(d, t, phase),
          signal: job.signal,
        }
      : {}),
  }
  const run = await opened.chain.read((source) => runIntegrity(source, options))
  if (adopt && !job?.signal.aborted && session.chain === opened && session.keys === keys)
    session.setIntegrity(run)
  return run
}

/**
 * The key set each held replay check's row part (row_verified, row_detail: "HMAC reproduced by key
 * #N", "hmac_hash mismatch") was worded with. Those words are about the keys, not the replay: after
 * the keys are replaced they are brought up to date before anyone reads them (heldReplayChecks).
 */
const wordedWith = new WeakMap<ReplayCheck, readonly KeyMaterial[]>()

/** Keep `checks`, made over `opened` with `keys`, as the session's — unless another chain is held now. */
function keepChecks(
  session: AuditSession,
  opened: Opened,
  keys: readonly KeyMaterial[],
  checks: ReplayCheck[],
  batch: KeptChecks | null = null,
): void {
  if (session.chain !== opened) return
  for (const c of checks) wordedWith.set(c, keys)
  // A batch is recorded with where its checks are and how many it made and did not keep: a report
  // listing only the kept ones would not say that others were made (round 11).
  if (batch !== null) session.replayBatches.push(batch.record(session.replayChecks.length))
  session.replayChecks.push(...checks)
}

/**
 * The session's replay checks with each row part as the keys held NOW word it: a check made under a
 * key typed wrong said "row does NOT verify" of a row the right key verifies, and "key #2" named a
 * key since removed. The replay's own verdict (hashes, match) needs no key and stays as made. Every
 * reader of the list (listReplayChecks, the report) goes through here.
 */
export async function heldReplayChecks(session: AuditSession): Promise<ReplayCheck[]> {
  for (let tries = 0; tries < 4; tries++) {
    const opened = session.chain
    const keys = session.keys
    const held = session.replayChecks
    const stale = held.filter((c) => wordedWith.get(c) !== keys)
    if (opened === null || stale.length === 0) return held
    const rows = await opened.chain.read(async (source) => {
      const bySeq = new Map<number, RowVerification>()
      for (const c of stale) if (!bySeq.has(c.seq)) bySeq.set(c.seq, await verifyRow(source, keys, c.seq))
      return bySeq
    })
    // Replaced again while these were read: word them with the newer keys.
    if (session.chain !== opened || session.keys !== keys) continue
    for (const c of stale) {
      const row = rows.get(c.seq)!
      c.row_verified = row.row_verified
      c.row_detail = row.row_detail
      wordedWith.set(c, keys)
    }
    return held
  }
  throw new AuditError(
    'unavailable',
    'the keys or the chain kept changing while the replay checks were checked again: ask again',
  )
}

/** One replay check over the session's chain, kept for it and worded with the keys held when it lands. */
export async function checkReplayFor(session: AuditSession, req: ReplayCheckRequest): Promise<ReplayCheck> {
  const opened = await session.ready()
  const keys = session.keys
  const check = await opened.chain.read((source) => checkReplay(source, keys, req))
  keepChecks(session, opened, keys, [check])
  // The keys replaced while it ran: its row words are brought up to date (the same object is held).
  if (session.keys !== keys && session.chain === opened) await heldReplayChecks(session)
  return check
}

/**
 * A replay batch (JSON Lines, issue 37) against the session's chain: each item to `emit` as it is
 * decided (bad lines first, then the batch's order), each check kept for the report. Files are never
 * named here (the caller sends their bytes as output_base64): the server reads no client path.
 */
export async function checkReplayBatchFor(
  session: AuditSession,
  jsonl: string | Buffer,
  emit: (item: ReplayBatchItem) => void,
  keep: number = MAX_KEPT_BATCH_CHECKS,
): Promise<ReplayBatchSummary & { not_kept: number }> {
  const tally = new BatchTally()
  const out = (item: ReplayBatchItem): void => {
    tally.add(item)
    emit(item)
  }
  const bytes = typeof jsonl === 'string' ? Buffer.from(jsonl, 'utf8') : jsonl
  const read = (): AsyncGenerator<BatchLine> =>
    jsonlLines(Readable.from([bytes]), { baseDir: null, raw: false })
  // Read twice, as the CLI reads a batch (planBatch, then decideBatch): the body is held (bounded by
  // the call's limit) but its lines never are — 10^5 held lines took 260 MB, and a body of short
  // lines holds millions.
  const planned = await planBatch(read(), out)
  const opened = await session.ready()
  const keys = session.keys
  // A read redone through the copy emits each line once: lines are emitted in the batch's order.
  let last = 0
  const skip = { has: (line: number): boolean => line <= last }
  const kept = new KeptChecks(keep)
  await opened.chain.read((source) =>
    decideBatch(
      source,
      keys,
      read(),
      (item) => {
        last = item.line
        if (item.check) kept.add(item.check)
        out(item)
      },
      { skip, planned },
    ),
  )
  keepChecks(session, opened, keys, kept.checks, kept)
  return { ...tally.summary(), not_kept: kept.notKept }
}

/**
 * Checks of one batch kept for the session (the list and the report) and listed in the app's
 * answer; the rest are counted in the summary and said to be not kept (a body of short lines holds
 * millions of them, each check ≈1 KB).
 */
export const MAX_KEPT_BATCH_CHECKS = REPLAY_BATCH_KEEP

/**
 * The report, signed with the auditor's key when one is held and `sign` says the caller may have it
 * signed (the desktop app; in web mode only a request carrying the API key). Every signature made
 * is announced to the session's listeners (the UI's `reportSigned`, the server's stderr).
 */
export async function buildReportFor(
  session: AuditSession,
  opts: IntegrityOptions,
  sign: boolean,
): Promise<AuditReport> {
  const opened = await session.ready()
  const replayChecks = await heldReplayChecks(session)
  const report = await buildAuditReport({
    chain: opened.chain,
    keys: session.keys,
    integrityOptions: opts,
    replayChecks,
    // Read with the checks (nothing awaited between): a batch record and the checks it points at.
    replayBatches: session.replayBatches.filter((b) => b.first + b.kept <= replayChecks.length),
  })
  const signing = custodyOf(session).signing
  if (!signing || !sign) return report
  const signed = signReport(report, signing.key)
  announceSigned(session, { fingerprint: signing.info.fingerprint, generated_at: signed.generated_at })
  return signed
}

/** Whether a call may have a report signed with the auditor's key (issue 34). */
export function maySign(ctx: { transport: 'ipc' | 'http'; apiKey?: boolean }): boolean {
  return ctx.transport === 'ipc' || ctx.apiKey === true
}
