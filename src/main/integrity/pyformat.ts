// Python-identical number formatting and JSON, for output that must equal Python BIJOTEL's byte for
// byte (reference §12.5). JS has one number type, Python two: `100.0` (float) and `100` (int) print
// differently there, so floats are modelled explicitly with `PyFloat`; a plain JS number given to
// `pyJsonDumps` is a Python int and must be an integer.
//
// Rounding works on the exact binary value of a double (every finite double is a finite decimal
// m × 2^e = m × 5^-e / 10^-e), with round-half-even on exact ties, as CPython's dtoa-based
// `round()` and `format()` do. JS `toFixed` rounds exact ties up (0.125 → "0.13"; Python "0.12").

/** A number that is a Python float (printed with repr: `94.0`, `1e-05`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

export function pyFloat(x: number): PyFloat {
  return new PyFloat(x)
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
  | { [key: string]: PyValue }

interface ExactDecimal {
  negative: boolean
  /** |x| = digits / 10^scale, exactly. */
  digits: bigint
  scale: number
}

const f64 = new Float64Array(1)
const u64 = new BigUint64Array(f64.buffer)

/** The exact decimal value of a finite double. */
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
  const text = `${d.negative ? '-' : ''}${digitsToFixed(q, n)}`
  return Number(text)
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
  // (V8 and CPython both implement that), in fixed or exponent form.
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)))
  if (!m) throw new Error(`unexpected number text for ${x}`)
  const intPart = m[1]!
  const frac = m[2] ?? ''
  const exp = m[3] ? Number(m[3]) : 0
  let all = intPart + frac
  let decpt = intPart.length + exp
  const lead = /^0*/.exec(all)![0].length
  all = all.slice(lead)
  decpt -= lead
  all = all.replace(/0+$/, '')
  return { digits: all, decpt }
}

/** Python `repr(x)` for a float: `100.0`, `-75.0`, `0.1`, `1e-05`, `1e+16`, `1.5e+16`, `inf`, `nan`. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const sign = x < 0 ? '-' : ''
  const { digits, decpt } = shortestDigits(x)
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

function floatJson(x: number): string {
  // json.dumps uses float.__repr__, with allow_nan's JavaScript spellings for the non-finite values.
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity'
  return pyFloatRepr(x)
}

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
  if (value instanceof PyFloat) return floatJson(value.value)
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(',')}]`
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value)
  return `{${entries.map(([k, v]) => `${pyJsonString(k)}:${pyJsonDumps(v)}`).join(',')}}`
}

/**
 * Python `json.loads`: a number token with a fraction or an exponent is a float (PyFloat), any
 * other number an int (a bigint beyond 2^53); objects become Maps in document order. Used to
 * re-dump expected Python output textually without losing `94.0` to JSON.parse's `94`.
 */
export function pyJsonLoads(text: string): PyValue {
  let i = 0
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const fail = (what: string): never => {
    throw new SyntaxError(`pyJsonLoads: ${what} at offset ${i}`)
  }
  const value = (): PyValue => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      const m = new Map<string, PyValue>()
      ws()
      if (text[i] === '}') {
        i++
        return m
      }
      for (;;) {
        ws()
        if (text[i] !== '"') fail('expected a key')
        const k = str()
        ws()
        if (text[i++] !== ':') fail("expected ':'")
        m.set(k, value())
        ws()
        const sep = text[i++]
        if (sep === '}') return m
        if (sep !== ',') fail("expected ',' or '}'")
      }
    }
    if (c === '[') {
      i++
      const a: PyValue[] = []
      ws()
      if (text[i] === ']') {
        i++
        return a
      }
      for (;;) {
        a.push(value())
        ws()
        const sep = text[i++]
        if (sep === ']') return a
        if (sep !== ',') fail("expected ',' or ']'")
      }
    }
    if (c === '"') return str()
    for (const [lit, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
      ['NaN', new PyFloat(NaN)],
      ['Infinity', new PyFloat(Infinity)],
      ['-Infinity', new PyFloat(-Infinity)],
    ] as const) {
      if (text.startsWith(lit, i)) {
        i += lit.length
        return v
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))
    if (!m) return fail('unexpected character')
    i += m[0].length
    if (m[1] !== undefined || m[2] !== undefined) return new PyFloat(Number(m[0]))
    const big = BigInt(m[0])
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(big)
      : big
  }
  const str = (): string => {
    const start = i
    i++
    for (;;) {
      const c = text[i]
      if (c === undefined) fail('unterminated string')
      if (c === '"') break
      i += c === '\\' ? 2 : 1
    }
    i++
    return JSON.parse(text.slice(start, i)) as string
  }
  const v = value()
  ws()
  if (i !== text.length) fail('trailing data')
  return v
}

/** Compare strings by code point, as Python's `sorted()` on str does (JS sorts by UTF-16 unit). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]()
  const ib = b[Symbol.iterator]()
  for (;;) {
    const x = ia.next()
    const y = ib.next()
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1
    const cx = x.value.codePointAt(0)!
    const cy = y.value.codePointAt(0)!
    if (cx !== cy) return cx - cy
  }
}
