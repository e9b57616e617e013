// The row checks of a keyed replay batch, made inside the batch's one pass over the chain (issue
// 37). `replay --seq N` verifies its row as the chain verifier's range N..N: one RowChecker given
// the row before N in scan order as its predecessor, fed row N (../verify/part.ts). A pass in scan
// order meets that predecessor just before row N, so each named row gets the same checker, fed the
// same values, with the same predecessor — and its verdict is worded by the same words
// (./check.ts rowVerdictWords). What the single-entry range adds on top — placing the range and
// confirming it against SQLite's count of the whole tree — the pass does once for every row
// (streamRows confirms it saw every row SQLite counts), instead of once per named row.
import type { ChainRow, Predecessor, RowSource } from '../chain/source/row-source'
import type { KeyMaterial } from '../chain/keys'
import { RowChecker } from '../verify/partition'
import { pushRow, rowValues, verifyColumnsOf, VERIFY_COLUMNS, type VerifyCols } from '../verify/part'
import { assembleVerdict } from '../verify/verdict'
import { rowVerdictWords, rowUncheckable, type RowVerification } from './check'

/** The row checks of the seqs a batch names, fed every row of the pass in scan order. */
export class BatchRowChecks {
  private readonly cols: VerifyCols
  private readonly has: { span_name: boolean; span_kind: boolean }
  /** The row before the current one in scan order: the predecessor the range seq..seq is checked against. */
  private pred: Predecessor | null = null
  private readonly done = new Map<number, RowVerification>()
  /** When the table lacks a column the check reads: what every row check says (as verifyRow says it). */
  private readonly uncheckable: RowVerification | null

  constructor(
    source: RowSource,
    private readonly keys: KeyMaterial[],
    private readonly wanted: ReadonlySet<number>,
  ) {
    this.cols = verifyColumnsOf(source)
    this.has = { span_name: this.cols.name >= 0, span_kind: this.cols.kind >= 0 }
    this.uncheckable = rowUncheckable(source, keys)
  }

  /** The columns the pass reads for them (none beyond the body when they cannot run). */
  get columns(): readonly string[] {
    return this.uncheckable === null ? VERIFY_COLUMNS : ['canonical_body']
  }

  /** One row of the pass (the whole chain, in scan order). */
  row(c: ChainRow): void {
    const big = c.rowidBig
    if (big === null && this.uncheckable === null && this.wanted.has(c.rowid) && !this.done.has(c.rowid)) {
      const seq = c.rowid
      // As verifyRows runs the range seq..seq on this thread: one run, the range's first, ordinals from 0.
      const checker = new RowChecker(this.keys, this.has, { firstOrd: 0, first: true }, this.pred)
      pushRow(checker, c, this.cols, rowValues(c, this.cols))
      const range = { seq_start: seq, seq_end: seq }
      const verdict = assembleVerdict([checker.finish()], () => undefined, { range }, 0)
      this.done.set(seq, rowVerdictWords(verdict, this.keys, seq))
    }
    if (this.uncheckable === null) this.pred = { seq: big ?? BigInt(c.rowid), hmac: c.text(this.cols.mac) }
  }

  /** The row check of `seq`, a row the pass met (undefined: not met). */
  get(seq: number): RowVerification | undefined {
    return this.uncheckable ?? this.done.get(seq)
  }
}
