// Proving a clean row on its record bytes, where it lies in the page (the direct reader's rows):
// what `RowChecker.push` would find, decided without building a string per column. Anything short
// of proof leaves the row to `push`, which decides it as for any other row.
import { HEAD, literalEnd, restOfSpanAt } from '../chain/body'
import type { RecordBytes } from '../chain/source/row-source'

/** Whether column `col` is TEXT (serial type ≥ 13 and odd: file format §2.1). */
function isText(c: RecordBytes, col: number): boolean {
  const t = c.types[col]!
  return t >= 13 && (t & 1) === 1
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
function plainTextLength(c: RecordBytes, col: number): number {
  if (!isText(c, col)) return -1
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
function quotedColumnAt(b: Buffer, p: number, c: RecordBytes, col: number, len: number): number {
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
export function textIsAscii(c: RecordBytes, col: number, s: string): boolean {
  if (col < 0 || !isText(c, col) || (c.types[col]! - 13) >> 1 !== s.length) return false
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
  c: RecordBytes,
  body: Buffer,
  tsText: string,
  name: number,
  kind: number,
): boolean {
  if (body.length <= HEAD.length || literalEnd(body, 0, HEAD) < 0) return false
  const nameLen = plainTextLength(c, name)
  if (nameLen < 0) return false
  const kindNull = kind < 0 || c.types[kind] === 0
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
