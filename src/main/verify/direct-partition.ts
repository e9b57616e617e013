// Verifying one run of leaf pages read directly from the file (no SQLite): the same RowChecker as
// the SQLite path, fed the same values (`rowQuery`'s columns), so the two paths cannot disagree.
import { HEAD, literalEnd, restOfSpanAt } from '../chain/body'
import type { CellReader } from '../chain/direct/btree'
import type { RowScanner } from '../chain/direct/scan'
import { rowProver } from '../native/row-prover'
import { RowChecker, type PartitionResult, type Predecessor, type VerifyHooks } from './partition'
import { sha256Hex } from './hmac'
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

const END_KEY = Buffer.from(',"end_time_ns":"')
const KIND_KEY = Buffer.from('","kind":')
const NAME_KEY = Buffer.from(',"name":')
const START_KEY = Buffer.from(',"start_time_ns":')
const NULL = Buffer.from('null')
const COMMA = 0x2c

/**
 * Length of a TEXT column that JSON.stringify writes as itself between quotes (printable ASCII, no
 * `"` `\`), else -1.
 */
function plainTextLength(c: CellReader, col: number): number {
  if (!c.isText(col)) return -1
  const o = c.offs[col]!
  const len = (c.types[col]! - 13) >> 1
  const buf = c.buf
  for (let i = o; i < o + len; i++) {
    const b = buf[i]!
    if (b < 0x20 || b > 0x7e || b === 0x22 || b === 0x5c) return -1
  }
  return len
}

/** Whether `b` holds `"<column bytes>"` at `p`; the position after it, or -1. */
function quotedColumnAt(b: Buffer, p: number, c: CellReader, col: number, len: number): number {
  if (b[p] !== 0x22) return -1
  const src = c.buf
  const o = c.offs[col]!
  for (let i = 0; i < len; i++) if (b[p + 1 + i] !== src[o + i]) return -1
  return b[p + 1 + len] === 0x22 ? p + len + 2 : -1
}

/**
 * Whether column `col` is TEXT holding exactly the bytes of `s`, which must be ASCII: then it reads
 * as `s`. One latin1 slice and a string compare: a JS loop over the characters cost three times more.
 */
function textIsAscii(c: CellReader, col: number, s: string): boolean {
  if (col < 0 || !c.isText(col) || (c.types[col]! - 13) >> 1 !== s.length) return false
  const o = c.offs[col]!
  return c.buf.toString('latin1', o, o + s.length) === s
}

/**
 * `spanColumnsAgreeFast` on bytes, without building strings: the body ends exactly with
 * `,"end_time_ns":"<ts>","kind":<kind>,"name":<name>,"start_time_ns":<rest of span>` holding the
 * columns' own bytes. Anchored on the last `,"start_time_ns":`, which the rest of a span cannot
 * contain (its strings end at an unescaped quote, and no key there is followed by another). Proves
 * agreement only for plain ASCII names and kinds (every real chain); otherwise false, and the
 * RowChecker decides as on the SQLite path.
 */
export function columnsAgreeOnBytes(
  c: CellReader,
  body: Buffer,
  tsText: string,
  name: number,
  kind: number,
): boolean {
  if (body.length <= HEAD.length || literalEnd(body, 0, HEAD) < 0) return false
  const nameLen = plainTextLength(c, name)
  if (nameLen < 0) return false
  const kindNull = kind < 0 || c.isNull(kind)
  const kindLen = kindNull ? 0 : plainTextLength(c, kind)
  if (kindLen < 0) return false
  let q = body.length - START_KEY.length
  while (q >= HEAD.length && (body[q] !== COMMA || literalEnd(body, q, START_KEY) < 0)) q--
  const segment =
    END_KEY.length +
    tsText.length +
    KIND_KEY.length +
    (kindNull ? 4 : kindLen + 2) +
    NAME_KEY.length +
    nameLen +
    2
  let p = literalEnd(body, q - segment, END_KEY)
  if (q < HEAD.length || q - segment < HEAD.length || p < 0) return false
  for (let i = 0; i < tsText.length; i++) if (body[p++] !== tsText.charCodeAt(i)) return false
  p = literalEnd(body, p, KIND_KEY)
  if (p < 0) return false
  p = kindNull ? literalEnd(body, p, NULL) : quotedColumnAt(body, p, c, kind, kindLen)
  if (p < 0 || (p = literalEnd(body, p, NAME_KEY)) < 0) return false
  p = quotedColumnAt(body, p, c, name, nameLen)
  return p === q && restOfSpanAt(body, q + START_KEY.length)
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
    // The native prover proves a clean row on the record where it lies, before any value is read
    // into JavaScript; a row it does not prove is decided below like any other.
    if (
      prover !== null &&
      big === null &&
      checker.proverHoldsLink(c.rowid, prover) &&
      prover.proveRow(c.buf, c.types, c.offs)
    ) {
      checker.pushProvenByProver(c.rowid)
      return true
    }
    const tsText = c.isInt(ts) ? c.intBig(ts)!.toString() : null
    const bodyBytes = c.castBlob(body)
    const proven =
      bodyBytes !== null &&
      tsText !== null &&
      name >= 0 &&
      columnsAgreeOnBytes(c, bodyBytes, tsText, name, kind)
    if (proven && big === null && prover === null) {
      // A clean row is proven on the page bytes, without a string per hash column; anything else
      // (or any doubt) goes to push, which decides it as on the SQLite path.
      const link = checker.provableLink(c.rowid)
      if (link !== null) {
        const digest = sha256Hex(bodyBytes)
        if (textIsAscii(c, ch, digest) && textIsAscii(c, prev, link)) {
          const seal = checker.sealUnderLastKey(link, digest)
          if (textIsAscii(c, mac, seal)) {
            checker.pushProven(c.rowid, seal)
            return true
          }
        }
      }
    }
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
