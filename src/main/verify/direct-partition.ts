// Verifying one run of leaf pages read directly from the file (no SQLite): the same RowChecker as
// the SQLite path, fed the same values (`rowQuery`'s columns), so the two paths cannot disagree.
import { HEAD, REST_OF_SPAN } from '../chain/body'
import type { CellReader } from '../chain/direct/btree'
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

const TAIL = Buffer.from(',"end_time_ns":"')
const KIND = Buffer.from('","kind":')
const NAME = Buffer.from(',"name":')
const START = Buffer.from(',"start_time_ns":')
const NULL = Buffer.from('null')
const expected = Buffer.alloc(4096)

/** Whether a TEXT column's bytes are written by JSON.stringify as themselves (printable ASCII, no `"` `\`). */
function plainText(c: CellReader, col: number): boolean {
  if (!c.isText(col)) return false
  const o = c.offs[col]!
  const e = o + ((c.types[col]! - 13) >> 1)
  const buf = c.buf
  for (let i = o; i < e; i++) {
    const b = buf[i]!
    if (b < 0x20 || b > 0x7e || b === 0x22 || b === 0x5c) return false
  }
  return true
}

/**
 * `spanColumnsAgreeFast` on bytes: the body's tail is exactly
 * `,"end_time_ns":"<ts>","kind":<kind>,"name":<name>,"start_time_ns":…` with the columns' own bytes.
 * Proves agreement only for plain ASCII names and kinds (every real chain); otherwise false, and
 * the RowChecker decides as on the SQLite path.
 */
function columnsAgreeOnBytes(
  c: CellReader,
  body: Buffer,
  tsText: string,
  name: number,
  kind: number,
): boolean {
  if (body.length <= HEAD.length || body.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0) return false
  if (!plainText(c, name)) return false
  const kindNull = kind < 0 || c.isNull(kind)
  if (!kindNull && !plainText(c, kind)) return false
  const at = body.lastIndexOf(TAIL)
  if (at < 0) return false
  let n = TAIL.copy(expected, 0)
  n += expected.write(tsText, n, 'latin1')
  n += KIND.copy(expected, n)
  const put = (col: number): void => {
    const o = c.offs[col]!
    expected[n++] = 0x22
    n += c.buf.copy(expected, n, o, o + ((c.types[col]! - 13) >> 1))
    expected[n++] = 0x22
  }
  if (kindNull) n += NULL.copy(expected, n)
  else put(kind)
  n += NAME.copy(expected, n)
  if (n + (c.types[name]! >> 1) + START.length > expected.length) return false
  put(name)
  n += START.copy(expected, n)
  if (at + n > body.length || body.compare(expected, 0, n, at, at + n) !== 0) return false
  return REST_OF_SPAN.test(body.toString('latin1', at + n))
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
    const tsText = c.isInt(ts) ? c.intBig(ts)!.toString() : null
    const bodyBytes = c.castBlob(body)
    const proven =
      bodyBytes !== null &&
      tsText !== null &&
      name >= 0 &&
      columnsAgreeOnBytes(c, bodyBytes, tsText, name, kind)
    // The name and kind values are only read when agreement is not proven on the bytes.
    checker.push(
      c.rowid,
      big === null ? null : big.toString(),
      tsText,
      !proven && name >= 0 ? c.value(name) : null,
      !proven && kind >= 0 ? c.value(kind) : null,
      bodyBytes,
      c.text(ch),
      c.text(prev),
      c.text(mac),
      proven,
    )
    return true
  })
  return (checker ?? new RowChecker(keys, has, spec, pred, hooks)).finish()
}
