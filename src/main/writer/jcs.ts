// RFC 8785 JSON Canonicalization Scheme, as Python's `rfc8785.dumps` (what BIJOTEL seals, §2.4):
// object keys sorted by UTF-16 code units, no whitespace, ES6 number formatting, UTF-8 output,
// minimal string escaping (\" \\ \b \f \n \r \t, other C0 controls as \u00xx, everything else
// literal including U+2028/U+2029). Refused, with a `CanonicalizationError`, where Python raises:
// NaN and ±Infinity, integers outside ±(2^53−1) (given as BigInt; a JS number is always a double),
// lone surrogates (not encodable as UTF-8), non-string keys, and any other type (Date, Map, typed
// arrays, functions…). `undefined` is treated as JSON.stringify does: an object member holding it is
// left out, an array element becomes null.

import { hasLoneSurrogate } from './python'

export class CanonicalizationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CanonicalizationError'
  }
}

const INT_MAX = BigInt(Number.MAX_SAFE_INTEGER)
const INT_MIN = -INT_MAX
const MAX_DEPTH = 10_000

function serializeString(s: string): string {
  if (hasLoneSurrogate(s)) throw new CanonicalizationError('input contains non-UTF-8 codepoints (lone surrogate)')
  // For well-formed strings JSON.stringify escapes exactly what RFC 8785 §3.2.2.2 requires and
  // leaves everything else (U+007F, U+2028, U+2029, non-ASCII) literal.
  return JSON.stringify(s)
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

function write(v: unknown, out: string[], depth: number, seen: Set<object>): void {
  switch (typeof v) {
    case 'string':
      out.push(serializeString(v))
      return
    case 'number':
      out.push(serializeNumber(v))
      return
    case 'boolean':
      out.push(v ? 'true' : 'false')
      return
    case 'bigint':
      if (v < INT_MIN || v > INT_MAX) throw new CanonicalizationError(`${v} exceeds safe integer domain for JSON floats`)
      out.push(v.toString())
      return
    case 'object': {
      if (v === null) {
        out.push('null')
        return
      }
      if (depth > MAX_DEPTH) throw new CanonicalizationError('nesting too deep')
      if (seen.has(v)) throw new CanonicalizationError('circular reference')
      if (Array.isArray(v)) {
        seen.add(v)
        out.push('[')
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out.push(',')
          const e: unknown = v[i]
          if (e === undefined) out.push('null')
          else write(e, out, depth + 1, seen)
        }
        out.push(']')
        seen.delete(v)
        return
      }
      if (!isPlainRecord(v)) {
        throw new CanonicalizationError(`unsupported type: ${(v as { constructor?: { name?: string } }).constructor?.name ?? 'object'}`)
      }
      seen.add(v)
      const rec = v as Record<string, unknown>
      // Array.prototype.sort without a comparator orders strings by UTF-16 code units: RFC 8785 §3.2.3.
      const keys = Object.keys(rec).sort()
      out.push('{')
      let first = true
      for (const k of keys) {
        const x = rec[k]
        if (x === undefined) continue
        if (!first) out.push(',')
        first = false
        out.push(serializeString(k), ':')
        write(x, out, depth + 1, seen)
      }
      out.push('}')
      seen.delete(v)
      return
    }
    case 'undefined':
      throw new CanonicalizationError('unsupported type: undefined')
    default:
      throw new CanonicalizationError(`unsupported type: ${typeof v}`)
  }
}

/** The canonical JSON text of `value`. */
export function canonicalize(value: unknown): string {
  const out: string[] = []
  write(value, out, 0, new Set())
  return out.join('')
}

/** The canonical UTF-8 bytes of `value` (what `rfc8785.dumps` returns). */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalize(value), 'utf8')
}
