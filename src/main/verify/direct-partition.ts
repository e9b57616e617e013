// Verifying one run of leaf pages read directly from the file (no SQLite): the same RowChecker as
// the SQLite path, fed the same values (`rowQuery`'s columns), so the two paths cannot disagree.
import type { RowScanner } from '../chain/direct/scan'
import { RowChecker, type PartitionResult, type Predecessor, type VerifyHooks } from './partition'
import type { KeyMaterial } from './secrets'

export interface DirectPartitionSpec {
  /** Leaves [leafFrom, leafTo) of the chain table. */
  leafFrom: number
  leafTo: number
  /** Inclusive seq bounds of the rows to verify within those leaves. */
  fromSeq: bigint
  toSeq: bigint
  firstOrd: number
  first: boolean
}

/** The last row before leaf `leaf` (empty leaves skipped), or null at the start of the table. */
export function rowBeforeLeaf(scanner: RowScanner, leaf: number, hmacCol: number): Predecessor | null {
  let pred: Predecessor | null = null
  scanner.scanBackward(0, leaf, (c) => {
    pred = { seq: c.rowidBig ?? BigInt(c.rowid), hmac: c.text(hmacCol) }
    return false
  })
  return pred
}

export function verifyDirectPartition(
  scanner: RowScanner,
  keys: KeyMaterial[],
  spec: DirectPartitionSpec,
  hooks: VerifyHooks = {},
): PartitionResult {
  const col = (n: string): number => scanner.col(n)
  const ts = col('timestamp_ns')
  const name = col('span_name')
  const kind = col('span_kind')
  const body = col('canonical_body')
  const ch = col('canonical_hash')
  const prev = col('prev_hash')
  const mac = col('hmac_hash')
  const has = { span_name: name >= 0, span_kind: kind >= 0 }

  let pred = rowBeforeLeaf(scanner, spec.leafFrom, mac)
  let checker: RowChecker | null = null
  // A safe integer compares with a BigInt bound exactly through Number(bound), so the common case
  // (every real chain: seqs far below 2^53) needs no BigInt per row.
  const lo = Number(spec.fromSeq)
  const hi = Number(spec.toSeq)
  scanner.scan(spec.leafFrom, spec.leafTo, (c) => {
    const big = c.rowidBig
    if (big === null ? c.rowid < lo : big < spec.fromSeq) {
      pred = { seq: big ?? BigInt(c.rowid), hmac: c.text(mac) }
      return true
    }
    if (big === null ? c.rowid > hi : big > spec.toSeq) return false
    checker ??= new RowChecker(keys, has, spec, pred, hooks)
    checker.push(
      c.rowid,
      big === null ? null : big.toString(),
      c.isInt(ts) ? c.intBig(ts)!.toString() : null,
      name >= 0 ? c.value(name) : null,
      kind >= 0 ? c.value(kind) : null,
      c.castBlob(body),
      c.text(ch),
      c.text(prev),
      c.text(mac),
    )
    return true
  })
  return (checker ?? new RowChecker(keys, has, spec, pred, hooks)).finish()
}
