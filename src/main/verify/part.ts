// Verifying one run of rows of any source: every row goes to the one RowChecker, fed the same
// values whichever source read it. Where the row has a record (the direct reader's bytes, or the
// values SQLite returned for the copy written as one), a clean row may be proven on it first — by
// the native row prover, or in TypeScript (./record-proof.ts) — which leaves exactly the state
// `push` would.
import type { ChainRow, Place, Predecessor, ResolvedRange, RowSource } from '../chain/source/row-source'
import { rowProver } from '../chain/addon/row-prover'
import { DirectSource } from '../chain/source/direct-source'
import { BodyNotText } from '../chain/source/sql-row'
import { sha256Hex } from '../chain/seal'
import { RowChecker, type PartitionResult, type PartitionSpec, type VerifyHooks } from './partition'
import { columnsAgreeOnBytes, textIsAscii } from './record-proof'
import type { KeyMaterial } from '../chain/keys'

const MAX_SAFE = Number.MAX_SAFE_INTEGER

/** The columns verification reads (a SQLite source selects only these). */
export const VERIFY_COLUMNS = [
  'timestamp_ns',
  'span_name',
  'span_kind',
  'canonical_body',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
] as const

/** The source's positions of the columns verification reads (-1: absent). */
export interface VerifyCols {
  ts: number
  name: number
  kind: number
  body: number
  ch: number
  prev: number
  mac: number
}

export function verifyColumnsOf(source: RowSource): VerifyCols {
  return {
    ts: source.col('timestamp_ns'),
    name: source.col('span_name'),
    kind: source.col('span_kind'),
    body: source.col('canonical_body'),
    ch: source.col('canonical_hash'),
    prev: source.col('prev_hash'),
    mac: source.col('hmac_hash'),
  }
}

/** What a row's checks start from: timestamp_ns as text, the body, and column agreement proven on the bytes. */
export interface RowValues {
  tsText: string | null
  bodyBytes: Buffer | null
  proven: boolean
}

export function rowValues(c: ChainRow, k: VerifyCols): RowValues {
  const tsText = c.isInt(k.ts) ? c.intBig(k.ts)!.toString() : null
  const bodyBytes = c.castBlob(k.body)
  const rec = c.record
  const proven =
    rec !== null &&
    bodyBytes !== null &&
    tsText !== null &&
    k.name >= 0 &&
    columnsAgreeOnBytes(rec, bodyBytes, tsText, k.name, k.kind)
  return { tsText, bodyBytes, proven }
}

/**
 * A row to the checker's full checks (`RowChecker.push`): the way every row not proven clean is
 * decided, here and by the replay batch's row checks (../replay/batch.ts).
 */
export function pushRow(checker: RowChecker, c: ChainRow, k: VerifyCols, v: RowValues): void {
  const big = c.rowidBig
  // The name and kind values are only read when agreement is not proven on the bytes.
  checker.push(
    c.rowid,
    big === null ? null : big.toString(),
    v.tsText,
    !v.proven && k.name >= 0 ? c.value(k.name) : null,
    !v.proven && k.kind >= 0 ? c.value(k.kind) : null,
    v.bodyBytes,
    c.text(k.ch),
    c.text(k.prev),
    c.text(k.mac),
    v.proven,
  )
}

export function verifyPart(
  source: RowSource,
  keys: KeyMaterial[],
  range: ResolvedRange,
  place: Place,
  spec: PartitionSpec,
  hooks: VerifyHooks = {},
): PartitionResult {
  const cols = verifyColumnsOf(source)
  const { ts, name, kind, body, ch, prev, mac } = cols
  const has = { span_name: name >= 0, span_kind: kind >= 0 }

  // The checker needs the run's predecessor; where the source finds it in the run's own walk (the
  // copy), it is made when the walk hands it over, before the first row.
  let checker: RowChecker = null as unknown as RowChecker
  const start = (pred: Predecessor | null): void => {
    checker = new RowChecker(keys, has, spec, pred, hooks)
  }
  const inOneWalk = source.scanWithPredecessor !== undefined
  if (!inOneWalk) start(source.predecessor(place, range))
  // Rows of the copy offer their values written as a record (../chain/source/sql-record.ts), so the
  // prover takes them as it takes the direct reader's.
  const prover =
    name >= 0
      ? rowProver({
          body,
          canonicalHash: ch,
          prevHash: prev,
          hmacHash: mac,
          timestampNs: ts,
          spanName: name,
          spanKind: kind,
        })
      : null
  const each = (c: ChainRow): void => {
    const big = c.rowidBig
    const rec = c.record
    // The native prover proves a clean row on the record where it lies, before any value is read
    // into JavaScript; a row it does not prove is decided below like any other.
    if (
      prover !== null &&
      rec !== null &&
      big === null &&
      checker.proverHoldsLink(c.rowid, prover) &&
      prover.proveRow(rec.buf, rec.types, rec.offs)
    ) {
      checker.pushProvenByProver(c.rowid)
      return
    }
    const v = rowValues(c, cols)
    const { bodyBytes, proven } = v
    if (proven && rec !== null && bodyBytes !== null && big === null && prover === null) {
      // A clean row is proven on the page bytes, without a string per hash column; anything else
      // (or any doubt) goes to push.
      const link = checker.provableLink(c.rowid)
      if (link !== null) {
        const digest = sha256Hex(bodyBytes)
        if (textIsAscii(rec, ch, digest) && textIsAscii(rec, prev, link)) {
          const seal = checker.sealUnderLastKey(link, digest)
          if (textIsAscii(rec, mac, seal)) {
            checker.pushProven(c.rowid, seal)
            return
          }
        }
      }
    }
    pushRow(checker, c, cols, v)
  }
  if (inOneWalk) {
    // The body as text first (the copy: cheaper to read than bytes), else the run again as bytes.
    try {
      source.scanWithPredecessor!(place, range, start, each, VERIFY_COLUMNS, 'text')
    } catch (e) {
      if (!(e instanceof BodyNotText)) throw e
      source.scanWithPredecessor!(place, range, start, each, VERIFY_COLUMNS, 'bytes')
    }
  } else if (prover !== null && prover.byLeaf && source instanceof DirectSource) {
    // Runs of clean rows proven a leaf at a time where they lie: one call, no cell decoded in
    // JavaScript; the first row of a run, and any row not proven, goes through `each`.
    const last = Math.max(Math.min(Number(range.toSeq), MAX_SAFE), -MAX_SAFE)
    // The prover takes rows from the next seq while it may hold the link; the rows it proved are pushed.
    const proven = (prove: (next: number) => number): number => {
      const next = checker.nextSeq()
      if (next === null || next > last || !checker.proverHoldsLink(next, prover)) return 0
      const n = prove(next)
      for (let k = 0; k < n; k++) checker.pushProvenByProver(next + k)
      return n
    }
    const leaf = (page: Buffer, header: number, from: number, layout: Int32Array): number =>
      proven((next) => prover.proveLeaf(page, header, from, next, last, layout))
    // A read window of leaves at a time where the addon offers it: one call, not one per leaf.
    const leaves = prover.byWindow
      ? (window: Buffer, pages: Int32Array, at: number, geometry: Int32Array, out: Int32Array): void =>
          void proven((next) => prover.proveLeaves(window, pages, at, geometry, next, last, out))
      : undefined
    source.scanLeafFirst(place, range, leaf, each, leaves)
  } else source.scan(place, range, each, VERIFY_COLUMNS)
  const result = checker.finish()
  if (place.to === Infinity && source.countAfterRun !== undefined)
    result.counted = source.countAfterRun(range)
  return result
}
