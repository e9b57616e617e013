// The bits of CPython behaviour that BIJOTEL's output, hashes and messages depend on, emulated
// exactly, for both users: the integrity report (byte-equal to Python's `integrity --json` and text,
// reference §5.4, §12.5) and the writer and replay checks (JSON-stringified span attributes §2.2, the
// replay prompt hash §6.1, the reason text §6.2). `json.loads`, `json.dumps` in its two spellings,
// float `repr`, `round()` and `format(x, '.nf')`, `repr()` of JSON values, and `sorted()` on str.
//
// JS has one number type where Python has int and float. Integral JS numbers within ±(2^53−1) are
// Python ints, BigInt is an int of any size; where a float must print as one (`94.0`), it is a
// `PyFloat`. Rounding works on the exact binary value of a double (every finite double is a finite
// decimal m × 2^e = m × 5^-e / 10^-e), half-even on exact ties, as CPython's dtoa-based `round()`
// and `format()` do; JS `toFixed` rounds exact ties up (0.125 → "0.13"; Python "0.12").
import { compareCodePoints } from '../../shared/code-point-order'

/** A number that is a Python float (printed with repr: `94.0`, `1e-05`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

export function pyFloat(x: number): PyFloat {
  return new PyFloat(x)
}

/**
 * A Python dict whose distinct keys print as one JSON key (the string "1" and the int 1): json.dumps
 * writes each of them, so the same key stands twice in the output. Its items in dict order.
 */
export class PyDictItems {
  constructor(readonly items: [string, PyValue][]) {}
}

/** Python values as `json.dumps` sees them. Plain numbers are ints; Maps keep their key order. */
export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | PyValue[]
  | Map<string, PyValue>
  | PyDictItems
  | { [key: string]: PyValue }

// ---- numbers ----------------------------------------------------------------------------------

interface ExactDecimal {
  negative: boolean
  /** |x| = digits / 10^scale, exactly. */
  digits: bigint
  scale: number
}

const f64 = new Float64Array(1)
const u64 = new BigUint64Array(f64.buffer)

/** The exact decimal value of a finite double (IEEE 754 binary64: sign, 11-bit exponent, 52 bits). */
function exactDecimal(x: number): ExactDecimal {
  f64[0] = x
  const bits = u64[0]!
  const negative = bits >> 63n === 1n
  const biased = Number((bits >> 52n) & 0x7ffn)
  const fraction = bits & 0xfffffffffffffn
  // Subnormals have no implicit bit and the exponent of the smallest normal.
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n)
  const exp2 = (biased === 0 ? 1 : biased) - 1075
  if (exp2 >= 0) return { negative, digits: mantissa << BigInt(exp2), scale: 0 }
  return { negative, digits: mantissa * 5n ** BigInt(-exp2), scale: -exp2 }
}

/** Round |x| to `n` decimals (n may be negative), half-even on exact ties: |result| = q / 10^n. */
function roundedDigits(d: ExactDecimal, n: number): bigint {
  if (d.scale <= n) return d.digits * 10n ** BigInt(n - d.scale)
  const div = 10n ** BigInt(d.scale - n)
  const q = d.digits / div
  const twice = (d.digits % div) * 2n
  if (twice > div || (twice === div && q % 2n === 1n)) return q + 1n
  return q
}

function digitsToFixed(q: bigint, n: number): string {
  if (n <= 0) return (q * 10n ** BigInt(-n)).toString()
  const s = q.toString().padStart(n + 1, '0')
  return `${s.slice(0, s.length - n)}.${s.slice(s.length - n)}`
}

function checkDigits(n: number, what: string): void {
  if (!Number.isInteger(n)) throw new TypeError(`${what}: ndigits must be an integer, got ${n}`)
}

/** Python `round(x, n)` for a float `x`: correctly rounded, half-even on exact ties. */
export function pyRound(x: number, n: number): number {
  checkDigits(n, 'pyRound')
  if (!Number.isFinite(x)) return x
  // Beyond 17 significant digits nothing changes (CPython returns x itself there too).
  if (n > 330) return x
  const d = exactDecimal(x)
  const q = roundedDigits(d, n)
  return Number(`${d.negative ? '-' : ''}${digitsToFixed(q, n)}`)
}

/** Python `f"{x:.{n}f}"` (with `sign: true`, `f"{x:+.{n}f}"`). */
export function pyFixed(x: number, n: number, opts: { sign?: boolean } = {}): string {
  checkDigits(n, 'pyFixed')
  if (n < 0) throw new RangeError('pyFixed: precision must be >= 0')
  const plus = opts.sign ? '+' : ''
  if (Number.isNaN(x)) return `${plus}nan`
  if (!Number.isFinite(x)) return x > 0 ? `${plus}inf` : '-inf'
  const d = exactDecimal(x)
  return `${d.negative ? '-' : plus}${digitsToFixed(roundedDigits(d, n), n)}`
}

/** Shortest round-trip digits of |x| (x finite, non-zero) and the decimal point position. */
function shortestDigits(x: number): { digits: string; decpt: number } {
  // Number::toString yields the shortest digits that round-trip, the closest when several do
  // (V8 and CPython's repr both implement that), in fixed or exponent form.
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)))
  if (!m) throw new Error(`unexpected number text for ${x}`)
  const intPart = m[1]!
  let all = intPart + (m[2] ?? '')
  let decpt = intPart.length + (m[3] ? Number(m[3]) : 0)
  const lead = /^0*/.exec(all)![0].length
  all = all.slice(lead)
  decpt -= lead
  return { digits: all.replace(/0+$/, ''), decpt }
}

/** Python `repr(x)` for a float: `100.0`, `-75.0`, `0.1`, `1e-05`, `1e+16`, `1.5e+16`, `inf`, `nan`. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const sign = x < 0 ? '-' : ''
  const { digits, decpt } = shortestDigits(x)
  // repr writes exponent notation when the decimal exponent is < -4 or >= 16.
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`
  }
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
  const e = decpt - 1
  return `${sign}${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`
}

/** Python `str(x)` of a float is its repr (Python 3). */
export const pyFloatStr = pyFloatRepr

/** A JS number that is a Python int (integral and exact); others print as floats. */
export const isPyInt = (x: number): boolean => Number.isSafeInteger(x)

/** A number as `json.dumps` writes it: an int plainly, a float by repr, NaN/Infinity spelled as JS. */
function jsonNumber(x: number, float: boolean): string {
  if (!float && isPyInt(x)) return String(x === 0 ? 0 : x)
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity'
  return pyFloatRepr(x)
}

// ---- strings ----------------------------------------------------------------------------------

// Code-point order lives in src/shared (the renderer sorts with it too): one of it, exported here.
export { compareCodePoints }

const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** True when `s` holds a surrogate that is not part of a pair (not encodable as UTF-8). */
export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s)
}

/** A JSON string literal as Python `json.dumps(..., ensure_ascii=True)` writes it. */
export function pyJsonString(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // Python escapes everything outside ' '..'~' (so DEL too); JS strings are UTF-16 code units,
    // so astral characters come out as their surrogate pair, as Python writes them.
    if (c === 0x22) out += '\\"'
    else if (c === 0x5c) out += '\\\\'
    else if (c >= 0x20 && c <= 0x7e) out += s[i]
    else if (c === 0x0a) out += '\\n'
    else if (c === 0x0d) out += '\\r'
    else if (c === 0x09) out += '\\t'
    else if (c === 0x08) out += '\\b'
    else if (c === 0x0c) out += '\\f'
    else out += `\\u${c.toString(16).padStart(4, '0')}`
  }
  return out + '"'
}

/**
 * A JSON string as `json.dumps(..., ensure_ascii=False)` writes it: only `"`, `\\` and C0 escaped
 * (Python's ESCAPE_DCT: `\\n \\r \\t \\b \\f`, the rest as lowercase `\\u00xx`), everything else
 * literal. A lone surrogate stays in the result as it does in the `str` CPython returns; whether
 * that is an error is the caller's to say, as it is in Python (`.encode("utf-8")` raises; see
 * `pyJsonDumpsSorted`).
 */
export function pyJsonStringUnicode(s: string): string {
  let out = '"'
  let from = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue
    out += s.slice(from, i)
    from = i + 1
    if (c === 0x22) out += '\\"'
    else if (c === 0x5c) out += '\\\\'
    else if (c === 0x0a) out += '\\n'
    else if (c === 0x0d) out += '\\r'
    else if (c === 0x09) out += '\\t'
    else if (c === 0x08) out += '\\b'
    else if (c === 0x0c) out += '\\f'
    else out += `\\u${c.toString(16).padStart(4, '0')}`
  }
  return out + s.slice(from) + '"'
}

/** `ensure_ascii=False`'s string, then the `.encode("utf-8")` that refuses a lone surrogate. */
function pyJsonStringUtf8(s: string): string {
  if (hasLoneSurrogate(s)) throw new TypeError("'utf-8' codec can't encode a lone surrogate")
  return pyJsonStringUnicode(s)
}

// ---- json.dumps -------------------------------------------------------------------------------

/** Python `json.dumps(value, separators=(',', ':'))` (ensure_ascii, allow_nan: the defaults). */
export function pyJsonDumps(value: PyValue): string {
  if (value === null) return 'null'
  if (value === true) return 'true'
  if (value === false) return 'false'
  if (typeof value === 'string') return pyJsonString(value)
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) {
      throw new TypeError(`pyJsonDumps: ${value} is not an int; wrap floats in PyFloat`)
    }
    return BigInt(value).toString()
  }
  if (value instanceof PyFloat) return jsonNumber(value.value, true)
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(',')}]`
  const entries =
    value instanceof Map
      ? [...value.entries()]
      : value instanceof PyDictItems
        ? value.items
        : Object.entries(value)
  return `{${entries.map(([k, v]) => `${pyJsonString(k)}:${pyJsonDumps(v)}`).join(',')}}`
}

function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const p = Object.getPrototypeOf(v) as unknown
  return p === Object.prototype || p === null
}

/**
 * `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`: keys sorted by code
 * point, floats as Python `repr` (`1.0`, `1e+16`, `NaN`, `Infinity`), non-ASCII literal. Throws where
 * Python would raise (lone surrogates at the UTF-8 encode, unsupported types).
 */
export function pyJsonDumpsSorted(value: unknown): string {
  const out: string[] = []
  const seen = new Set<object>()
  const enter = (v: object): void => {
    if (seen.has(v)) throw new TypeError('Circular reference detected')
    seen.add(v)
  }
  const walk = (v: unknown): void => {
    if (v === null || v === undefined) out.push('null')
    else if (typeof v === 'boolean') out.push(v ? 'true' : 'false')
    else if (typeof v === 'bigint') out.push(v.toString())
    else if (typeof v === 'number') out.push(jsonNumber(v, false))
    else if (v instanceof PyFloat) out.push(jsonNumber(v.value, true))
    else if (typeof v === 'string') out.push(pyJsonStringUtf8(v))
    else if (Array.isArray(v)) {
      enter(v)
      out.push('[')
      v.forEach((e, idx) => {
        if (idx > 0) out.push(',')
        walk(e)
      })
      out.push(']')
      seen.delete(v)
    } else if (isRecord(v)) {
      enter(v)
      out.push('{')
      Object.keys(v)
        .sort(compareCodePoints)
        .forEach((k, idx) => {
          if (idx > 0) out.push(',')
          out.push(pyJsonStringUtf8(k), ':')
          walk(v[k])
        })
      out.push('}')
      seen.delete(v)
    } else throw new TypeError(`Object of type ${typeof v} is not JSON serializable`)
  }
  walk(value)
  return out.join('')
}

// ---- json.loads -------------------------------------------------------------------------------

/** Raised by `pyJsonLoads` where Python raises `json.JSONDecodeError`. */
export class PyJsonDecodeError extends SyntaxError {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(`${message}: char ${pos}`)
    this.name = 'PyJsonDecodeError'
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d])
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}
const LITERALS: [string, unknown, number | null][] = [
  ['null', null, null],
  ['true', true, null],
  ['false', false, null],
  ['NaN', NaN, NaN],
  ['Infinity', Infinity, Infinity],
  ['-Infinity', -Infinity, -Infinity],
]

export interface LoadsOptions {
  /** Nesting deeper than this raises (Python would hit its recursion limit). */
  maxDepth?: number
  /**
   * Keep Python's types: floats (a fraction, an exponent, NaN, Infinity) as `PyFloat`, objects as
   * Maps in document order, so the value re-dumps exactly (`94.0` stays a float). Without it, plain
   * numbers and own-key records (`__proto__` an ordinary key).
   */
  typed?: boolean
}

/**
 * Python's `json.loads` on a str: standard JSON plus `NaN`, `Infinity`, `-Infinity`; integers of any
 * size (BigInt beyond ±(2^53−1), so canonicalization later refuses them as Python's rfc8785 does);
 * lone surrogate escapes kept; a leading BOM, control characters in strings, trailing data and
 * anything else invalid raise `PyJsonDecodeError`.
 */
export function pyJsonLoads(text: string, opts: LoadsOptions & { typed: true }): PyValue
export function pyJsonLoads(text: string, opts?: LoadsOptions): unknown
export function pyJsonLoads(text: string, opts: LoadsOptions = {}): unknown {
  const maxDepth = opts.maxDepth ?? 1000
  const typed = opts.typed === true
  let i = 0
  const n = text.length
  if (text.charCodeAt(0) === 0xfeff)
    throw new PyJsonDecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0)
  const skipWs = (): void => {
    while (i < n && WS.has(text.charCodeAt(i))) i++
  }
  const parseString = (): string => {
    const start = i++
    let out = ''
    let chunk = i
    for (;;) {
      if (i >= n) throw new PyJsonDecodeError('Unterminated string starting at', start)
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        i++
        return out + text.slice(chunk, i - 1)
      }
      if (c < 0x20) throw new PyJsonDecodeError('Invalid control character at', i)
      if (c !== 0x5c) {
        i++
        continue
      }
      out += text.slice(chunk, i)
      const e = text[i + 1]!
      if (e === 'u') {
        const hex = text.slice(i + 2, i + 6)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PyJsonDecodeError('Invalid \\uXXXX escape', i + 1)
        // fromCharCode keeps a lone surrogate as Python does; a following escaped low surrogate
        // joins it into one code point, as in Python.
        out += String.fromCharCode(parseInt(hex, 16))
        i += 6
      } else {
        const plain = ESCAPES[e]
        if (plain === undefined) throw new PyJsonDecodeError('Invalid \\escape', i)
        out += plain
        i += 2
      }
      chunk = i
    }
  }
  const parseNumber = (): unknown => {
    NUMBER.lastIndex = i
    const m = NUMBER.exec(text)
    if (!m) throw new PyJsonDecodeError('Expecting value', i)
    const lit = m[0]
    i += lit.length
    if (m[1] !== undefined || m[2] !== undefined) return typed ? new PyFloat(Number(lit)) : Number(lit)
    if (lit.length <= 15) return Number(lit)
    const b = BigInt(lit)
    return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b
  }
  const container = (depth: number, close: string, item: () => void): void => {
    i++
    skipWs()
    if (text[i] === close) {
      i++
      return
    }
    for (;;) {
      item()
      skipWs()
      const sep = text[i]
      if (sep === close) {
        i++
        return
      }
      if (sep !== ',') throw new PyJsonDecodeError("Expecting ',' delimiter", i)
      i++
    }
  }
  const parseValue = (depth: number): unknown => {
    if (depth > maxDepth) throw new PyJsonDecodeError('maximum recursion depth exceeded', i)
    skipWs()
    if (i >= n) throw new PyJsonDecodeError('Expecting value', i)
    const c = text[i]
    if (c === '"') return parseString()
    if (c === '{') {
      const map = typed ? new Map<string, unknown>() : null
      const rec: Record<string, unknown> = {}
      container(depth, '}', () => {
        skipWs()
        if (text[i] !== '"')
          throw new PyJsonDecodeError('Expecting property name enclosed in double quotes', i)
        const k = parseString()
        skipWs()
        if (text[i] !== ':') throw new PyJsonDecodeError("Expecting ':' delimiter", i)
        i++
        const v = parseValue(depth + 1)
        if (map !== null) map.set(k, v)
        // An own property, so `__proto__` is an ordinary key as in a Python dict.
        else Object.defineProperty(rec, k, { value: v, writable: true, enumerable: true, configurable: true })
      })
      return map ?? rec
    }
    if (c === '[') {
      const a: unknown[] = []
      container(depth, ']', () => a.push(parseValue(depth + 1)))
      return a
    }
    for (const [lit, value, float] of LITERALS) {
      if (text.startsWith(lit, i)) {
        i += lit.length
        return typed && float !== null ? new PyFloat(float) : value
      }
    }
    return parseNumber()
  }
  const v = parseValue(0)
  skipWs()
  if (i !== n) throw new PyJsonDecodeError('Extra data', i)
  return v
}
