// Many replay checks in one go (issue 37): the batch's lines are already hashes (./batch-lines.ts);
// the chain is read ONCE — one streamed pass in scan order through the reading layer, keeping only
// the bodies of the seqs the batch names — and each line then gets the verdict the single-entry
// check gives it (./check.ts: the same ReplayResult, prompt check and, with a key, row check — the
// row checks made inside the same pass, ./batch-rows.ts, each row once however many lines name
// it). A seq the whole pass did not meet is missing: the pass ends by confirming it saw every row
// SQLite counts.
import type {
  ReplayBatchItem,
  ReplayBatchStatus,
  ReplayBatchSummary,
  ReplayCheck,
} from '../../shared/replay-types'
import type { KeyMaterial } from '../chain/keys'
import { AuditError } from '../base/errors'
import type { RowSource } from '../chain/source/row-source'
import { streamRows } from '../chain/source/stream'
import { isBad, type BadLine, type BatchEntry, type BatchLine } from './batch-lines'
import { BatchRowChecks } from './batch-rows'
import { comparePrompt, type RowVerification } from './check'
import { REASON_NO_METADATA, replayResultFor } from './verifier'

export const BATCH_STATUSES: readonly ReplayBatchStatus[] = [
  'matched',
  'mismatch_seeded',
  'mismatch_unseeded',
  'no_metadata',
  'row_not_verified',
  'prompt_differs',
  'seq_missing',
  'bad_line',
]

/** Statuses that fail the batch (exit 3): what the single-entry command exits 3 for, but drift. */
const FAILING: ReadonlySet<ReplayBatchStatus> = new Set([
  'mismatch_seeded',
  'no_metadata',
  'row_not_verified',
  'prompt_differs',
])

export function badItem(l: BadLine): ReplayBatchItem {
  return { line: l.line, name: l.name, seq: l.seq, status: 'bad_line', reason: l.error, check: null }
}

/** The status of a decided check, in the order the single-entry command's exit 3 weighs them. */
export function statusOf(check: ReplayCheck): ReplayBatchStatus {
  const r = check.result
  if (check.row_verified === false) return 'row_not_verified'
  if (!r.match) {
    // By the reason, as printed: a falsy sealed output_hash (0, false) shows no hash, yet was compared.
    if (r.reason === REASON_NO_METADATA) return 'no_metadata'
    return r.deterministic ? 'mismatch_seeded' : 'mismatch_unseeded'
  }
  return check.prompt_match === false ? 'prompt_differs' : 'matched'
}

/**
 * One pass over the chain: the canonical_body of each seq in `wanted` that the chain holds, and —
 * given `rows` (a keyed batch) — each such row's check, made as the pass meets it.
 */
export async function bodiesOf(
  source: RowSource,
  wanted: ReadonlySet<number>,
  signal?: { aborted: boolean },
  rows?: BatchRowChecks,
): Promise<Map<number, Buffer>> {
  const bodies = new Map<number, Buffer>()
  if (wanted.size === 0) return bodies
  const body = source.col('canonical_body')
  const columns = rows?.columns ?? ['canonical_body']
  await streamRows(source, { columns, ...(signal ? { signal } : {}) }, (r) => {
    rows?.row(r)
    if (r.rowidBig !== null || !wanted.has(r.rowid)) return
    const b = r.castBlob(body)
    bodies.set(r.rowid, b === null ? Buffer.alloc(0) : Buffer.from(b))
  })
  return bodies
}

/** The verdict of one entry given its row's body and row check (as `checkReplayInput` decides it). */
function decide(e: BatchEntry, body: Buffer, row: RowVerification): ReplayCheck {
  const prompt =
    e.prompt === null ? { prompt_match: null, prompt_detail: null } : comparePrompt(body, e.prompt)
  return {
    seq: e.seq,
    result: replayResultFor(body, e.replayHash),
    row_verified: row.row_verified,
    row_detail: row.row_detail,
    prompt_match: prompt.prompt_match,
    prompt_detail: prompt.prompt_detail,
    source: e.source,
    checked_at: new Date().toISOString(),
  }
}

/**
 * Decides `entries` against the chain and passes each item to `emit` as it is decided, in the
 * batch's order. `skip`: lines already emitted (a read redone through the copy emits each line once).
 * Given `planned` (a batch read a second time, see planBatch), `entries` may be any iterable of its
 * lines: its bad lines were emitted by the plan and are passed over, and the lines are decided as
 * they are read, never held (memory follows the chain's rows asked for, not the batch's lines).
 */
export async function decideBatch(
  source: RowSource,
  keys: KeyMaterial[],
  entries: readonly BatchEntry[] | AsyncIterable<BatchLine> | Iterable<BatchLine>,
  emit: (item: ReplayBatchItem) => void,
  opts: {
    signal?: { aborted: boolean }
    skip?: { has(line: number): boolean }
    planned?: BatchPlan
  } = {},
): Promise<void> {
  const wanted = opts.planned?.wanted ?? new Set((entries as readonly BatchEntry[]).map((e) => e.seq))
  // Without a key too: a body hash or a link that fails needs no key to be seen (as replay --seq).
  const rows = new BatchRowChecks(source, keys, wanted)
  const bodies = await bodiesOf(source, wanted, opts.signal, rows)
  let decided = 0
  for await (const l of entries) {
    if (isBad(l)) {
      // A line whose named file failed: the plan read opened no file, counted it, and left it to
      // this read to report (in the batch's order, like every decided line).
      if (opts.planned && l.named) {
        decided++
        if (!wanted.has(l.seq ?? NaN)) throw batchChanged(l.line)
        if (!opts.skip?.has(l.line)) emit(badItem(l))
      }
      continue
    }
    const e = l
    decided++
    // The plan's seqs are the ones the pass looked for: a line read differently the second time
    // would read "not found in chain" of a seq the chain may hold.
    if (opts.planned && !wanted.has(e.seq)) throw batchChanged(e.line)
    if (opts.skip?.has(e.line)) continue
    const body = bodies.get(e.seq)
    if (body === undefined) {
      emit({
        line: e.line,
        name: e.name,
        seq: e.seq,
        status: 'seq_missing',
        reason: `seq ${e.seq} not found in chain`,
        check: null,
      })
      continue
    }
    // A row the pass kept the body of is a row it checked.
    const check = decide(e, body, rows.get(e.seq)!)
    const status = statusOf(check)
    const reason =
      status === 'row_not_verified'
        ? check.row_detail
        : status === 'prompt_differs'
          ? check.prompt_detail
          : check.result.reason
    emit({ line: e.line, name: e.name, seq: e.seq, status, reason, check })
  }
  if (opts.planned && decided !== opts.planned.entries) throw batchChanged(null)
}

function batchChanged(line: number | null): AuditError {
  return new AuditError(
    'io',
    `the batch changed while it was read a second time${line === null ? '' : ` (line ${line})`}: the lines after the change were not checked`,
  )
}

/** What a first read of a batch keeps: the seqs its checkable lines ask for, and how many there are. */
export interface BatchPlan {
  wanted: Set<number>
  entries: number
}

/**
 * The first of two reads of a batch (a file or a folder, read again by decideBatch): bad lines are
 * emitted as they are read, the rest only counted, so a batch of millions of lines is never held
 * (10^5 lines held took 260 MB, 3·10^5 550 MB: an out-of-memory abort, not an answer, further on).
 */
export async function planBatch(
  lines: AsyncIterable<BatchLine> | Iterable<BatchLine>,
  emit: (item: ReplayBatchItem) => void,
): Promise<BatchPlan> {
  const wanted = new Set<number>()
  let entries = 0
  for await (const l of lines) {
    if (isBad(l)) emit(badItem(l))
    else {
      wanted.add(l.seq)
      entries++
    }
  }
  return { wanted, entries }
}

/** Splits read lines into bad ones (emitted at once) and entries to decide. */
export async function collectBatch(
  lines: AsyncIterable<BatchLine> | Iterable<BatchLine>,
  emit: (item: ReplayBatchItem) => void,
): Promise<BatchEntry[]> {
  const entries: BatchEntry[] = []
  for await (const l of lines) {
    if (isBad(l)) emit(badItem(l))
    else entries.push(l)
  }
  return entries
}

/** Counts of every status, per model, and the exit code of the batch. */
export class BatchTally {
  private readonly counts = Object.fromEntries(BATCH_STATUSES.map((s) => [s, 0])) as Record<
    ReplayBatchStatus,
    number
  >
  /**
   * By the sealed model_version: the chain's text, so a Map — on `{}` a model called `__proto__`
   * or `constructor` read Object's own members, and the counts were written onto Object.prototype
   * (every object of the process then had a `matched`) instead of the summary.
   */
  private readonly models = new Map<string, Partial<Record<ReplayBatchStatus, number>>>()
  private lines = 0

  add(item: ReplayBatchItem): void {
    this.lines++
    this.counts[item.status]++
    if (item.check === null) return
    const model = item.check.result.model_version ?? '(unknown)'
    let m = this.models.get(model)
    if (m === undefined) this.models.set(model, (m = {}))
    m[item.status] = (m[item.status] ?? 0) + 1
  }

  summary(): ReplayBatchSummary {
    const failing = BATCH_STATUSES.some((s) => FAILING.has(s) && this.counts[s] > 0)
    const unchecked = this.counts.bad_line + this.counts.seq_missing > 0
    // fromEntries defines each member (CreateDataProperty): `__proto__` stays an ordinary key.
    const models = Object.fromEntries(
      [...this.models].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    )
    return { lines: this.lines, counts: { ...this.counts }, models, exit: failing ? 3 : unchecked ? 1 : 0 }
  }
}
