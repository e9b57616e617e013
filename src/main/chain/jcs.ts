// RFC 8785 JSON Canonicalization Scheme, as Python's `rfc8785.dumps` (what BIJOTEL seals, §2.4):
// object keys sorted by UTF-16 code units, no whitespace, ES6 number formatting, UTF-8 output,
// minimal string escaping (\" \\ \b \f \n \r \t, other C0 controls as \u00xx, everything else
// literal including U+2028/U+2029). Refused, with a `CanonicalizationError`, where Python raises:
// NaN and ±Infinity, integers outside ±(2^53−1) (given as BigInt; a JS number is always a double),
// lone surrogates (not encodable as UTF-8), non-string keys, and any other type (Date, Map, typed
// arrays, functions…). `undefined` is treated as JSON.stringify does: an object member holding it is
// left out, an array element becomes null.

import { hasLoneSurrogate } from '../python/pyformat'

export class CanonicalizationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CanonicalizationError'
  }
}

const INT_MAX = BigInt(Number.MAX_SAFE_INTEGER)
const INT_MIN = -INT_MAX
/** Python's recursion limit is about this deep too; a circular structure ends here as well. */
const MAX_DEPTH = 1000

const keyCache = new Map<string, string>()

function serializeString(s: string): string {
  // For well-formed strings JSON.stringify escapes exactly what RFC 8785 §3.2.2.2 requires and
  // leaves everything else (U+007F, U+2028, U+2029, non-ASCII) literal. It writes a lone surrogate
  // as a \udxxx escape, so the exact (slower) check is needed only when the output has one.
  const j = JSON.stringify(s)
  if (j.includes('\\u') && hasLoneSurrogate(s)) {
    throw new CanonicalizationError('input contains non-UTF-8 codepoints (lone surrogate)')
  }
  return j
}

/** Object keys repeat across rows (attribute names): their serialization is cached. */
export function serializeKey(k: string): string {
  let v = keyCache.get(k)
  if (v === undefined) {
    v = serializeString(k)
    if (keyCache.size < 4096 && k.length <= 128) keyCache.set(k, v)
  }
  return v
}

function serializeNumber(x: number): string {
  if (!Number.isFinite(x)) throw new CanonicalizationError(`${x} is not representable in JCS`)
  // ES6 Number::toString, which RFC 8785 §3.2.2.3 adopts; -0 becomes "0".
  return JSON.stringify(x)
}

function isPlainRecord(v: object): boolean {
  const p = Object.getPrototypeOf(v) as unknown
  return p === Object.prototype || p === null
}

/** The canonical text of a value that is not an object or array (null included). */
function scalar(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return serializeString(v)
    case 'number':
      return serializeNumber(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'bigint':
      if (v < INT_MIN || v > INT_MAX)
        throw new CanonicalizationError(`${v} exceeds safe integer domain for JSON floats`)
      return v.toString()
    case 'object':
      return 'null'
    case 'undefined':
      throw new CanonicalizationError('unsupported type: undefined')
    default:
      throw new CanonicalizationError(`unsupported type: ${typeof v}`)
  }
}

/** `v`'s canonical text, handed to `put` piece by piece in order: the one walk of RFC 8785 here. */
function emit(v: unknown, depth: number, put: (piece: string) => void): void {
  if (typeof v !== 'object' || v === null) {
    put(scalar(v))
    return
  }
  if (depth > MAX_DEPTH)
    throw new CanonicalizationError(`nesting deeper than ${MAX_DEPTH} levels (or a circular reference)`)
  if (Array.isArray(v)) {
    put('[')
    for (let i = 0; i < v.length; i++) {
      if (i > 0) put(',')
      const e: unknown = v[i]
      if (e === undefined) put('null')
      else emit(e, depth + 1, put)
    }
    put(']')
    return
  }
  if (!isPlainRecord(v)) {
    throw new CanonicalizationError(
      `unsupported type: ${(v as { constructor?: { name?: string } }).constructor?.name ?? 'object'}`,
    )
  }
  const rec = v as Record<string, unknown>
  // Array.prototype.sort without a comparator orders strings by UTF-16 code units: RFC 8785 §3.2.3.
  const keys = Object.keys(rec).sort()
  put('{')
  let first = true
  for (const k of keys) {
    const x = rec[k]
    if (x === undefined) continue
    if (!first) put(',')
    first = false
    put(serializeKey(k))
    put(':')
    emit(x, depth + 1, put)
  }
  put('}')
}

/** The canonical JSON text of `value`. */
export function canonicalize(value: unknown): string {
  let out = ''
  emit(value, 0, (piece) => void (out += piece))
  return out
}

/**
 * The canonical UTF-8 bytes of a large `value` (a report: what its signature covers), the same bytes
 * as canonicalBytes(), written piece by piece into one growing buffer. canonicalize() builds its text
 * by concatenation: for a 54 MB report the millions of pieces stay alive, as one rope, until the text
 * is flattened at the end, and the garbage collector marked them again and again (most of the 6–11 s
 * a signed report took to check). Here each piece is dead once copied.
 */
export function canonicalBytesOf(value: unknown): Buffer {
  const sink = new Sink()
  sink.value(value)
  return sink.bytes()
}

class Sink {
  private buf = Buffer.allocUnsafe(64 * 1024)
  private n = 0
  /** Pieces joined until 32K units, then copied at once: one native write a chunk, not a piece. */
  private pending = ''

  private put(s: string): void {
    this.pending += s
    if (this.pending.length >= 32 * 1024) this.flush()
  }

  private flush(): void {
    const s = this.pending
    this.pending = ''
    // At most 3 UTF-8 bytes a UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    const need = this.n + s.length * 3
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2))
      this.buf.copy(grown, 0, 0, this.n)
      this.buf = grown
    }
    this.n += this.buf.write(s, this.n, 'utf8')
  }

  bytes(): Buffer {
    this.flush()
    return Buffer.from(this.buf.subarray(0, this.n))
  }

  value(v: unknown): void {
    emit(v, 0, (piece) => this.put(piece))
  }
}

/** The canonical UTF-8 bytes of `value` (what `rfc8785.dumps` returns). */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalize(value), 'utf8')
}
