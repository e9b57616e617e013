// The few bits of CPython behaviour that BIJOTEL's hashes and messages depend on, emulated exactly:
// `json.loads` (used on the three JSON-stringified span attributes, reference §2.2, and on bodies),
// `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)` (the replay prompt hash,
// §6.1), float `repr`, and `repr()` of JSON values (the replay reason text, §6.2).
//
// JS has one number type where Python has int and float. Integral JS numbers within ±(2^53−1) are
// treated as Python ints (that is what a JCS body or a JSON document parsed by Python gives), other
// numbers as floats; BigInt is an int of any size.

/** Raised by `pyJsonLoads` where Python raises `json.JSONDecodeError`. */
export class PyJsonDecodeError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(`${message}: char ${pos}`)
    this.name = 'PyJsonDecodeError'
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d])

/** A JSON object as Python would hold it: own keys only, so `__proto__` is an ordinary key. */
function newObject(): Record<string, unknown> {
  return {}
}

function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true })
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y

/**
 * Python's `json.loads` on a str: standard JSON plus `NaN`, `Infinity`, `-Infinity`; integers of any
 * size (BigInt beyond ±(2^53−1), so canonicalization later refuses them as Python's rfc8785 does);
 * lone surrogate escapes kept; a leading BOM, control characters in strings, trailing data and
 * anything else invalid raise `PyJsonDecodeError`. Nesting deeper than `maxDepth` raises too
 * (Python would hit its recursion limit).
 */
export function pyJsonLoads(text: string, maxDepth = 1000): unknown {
  let i = 0
  const n = text.length
  if (text.charCodeAt(0) === 0xfeff)
    throw new PyJsonDecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0)

  const skipWs = (): void => {
    while (i < n && WS.has(text.charCodeAt(i))) i++
  }

  const parseString = (): string => {
    // text[i] === '"'
    const start = i
    i++
    let out = ''
    let chunk = i
    for (;;) {
      if (i >= n) throw new PyJsonDecodeError('Unterminated string starting at', start)
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        out += text.slice(chunk, i)
        i++
        return out
      }
      if (c < 0x20) throw new PyJsonDecodeError('Invalid control character at', i)
      if (c !== 0x5c) {
        i++
        continue
      }
      out += text.slice(chunk, i)
      const e = text[i + 1]
      switch (e) {
        case '"':
          out += '"'
          break
        case '\\':
          out += '\\'
          break
        case '/':
          out += '/'
          break
        case 'b':
          out += '\b'
          break
        case 'f':
          out += '\f'
          break
        case 'n':
          out += '\n'
          break
        case 'r':
          out += '\r'
          break
        case 't':
          out += '\t'
          break
        case 'u': {
          const hex = text.slice(i + 2, i + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PyJsonDecodeError('Invalid \\uXXXX escape', i + 1)
          // String.fromCharCode keeps a lone surrogate as Python does; a following escaped low
          // surrogate joins it into one code point, as in Python.
          out += String.fromCharCode(parseInt(hex, 16))
          i += 6
          chunk = i
          continue
        }
        default:
          throw new PyJsonDecodeError('Invalid \\escape', i)
      }
      i += 2
      chunk = i
    }
  }

  const parseNumber = (): unknown => {
    NUMBER.lastIndex = i
    const m = NUMBER.exec(text)
    if (!m) throw new PyJsonDecodeError('Expecting value', i)
    const lit = m[0]
    i += lit.length
    if (m[1] === undefined && m[2] === undefined) {
      if (lit.length <= 15) return Number(lit)
      const b = BigInt(lit)
      return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b
    }
    return Number(lit)
  }

  const parseValue = (depth: number): unknown => {
    if (depth > maxDepth) throw new PyJsonDecodeError('maximum recursion depth exceeded', i)
    skipWs()
    if (i >= n) throw new PyJsonDecodeError('Expecting value', i)
    const c = text[i]
    if (c === '"') return parseString()
    if (c === '{') {
      i++
      const o = newObject()
      skipWs()
      if (text[i] === '}') {
        i++
        return o
      }
      for (;;) {
        skipWs()
        if (text[i] !== '"')
          throw new PyJsonDecodeError('Expecting property name enclosed in double quotes', i)
        const k = parseString()
        skipWs()
        if (text[i] !== ':') throw new PyJsonDecodeError("Expecting ':' delimiter", i)
        i++
        setKey(o, k, parseValue(depth + 1))
        skipWs()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === '}') {
          i++
          return o
        }
        throw new PyJsonDecodeError("Expecting ',' delimiter", i)
      }
    }
    if (c === '[') {
      i++
      const a: unknown[] = []
      skipWs()
      if (text[i] === ']') {
        i++
        return a
      }
      for (;;) {
        a.push(parseValue(depth + 1))
        skipWs()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === ']') {
          i++
          return a
        }
        throw new PyJsonDecodeError("Expecting ',' delimiter", i)
      }
    }
    if (text.startsWith('null', i)) {
      i += 4
      return null
    }
    if (text.startsWith('true', i)) {
      i += 4
      return true
    }
    if (text.startsWith('false', i)) {
      i += 5
      return false
    }
    if (text.startsWith('NaN', i)) {
      i += 3
      return NaN
    }
    if (text.startsWith('Infinity', i)) {
      i += 8
      return Infinity
    }
    if (text.startsWith('-Infinity', i)) {
      i += 9
      return -Infinity
    }
    return parseNumber()
  }

  const v = parseValue(0)
  skipWs()
  if (i !== n) throw new PyJsonDecodeError('Extra data', i)
  return v
}

/** Digits and decimal exponent of the shortest round-trip form (x finite, > 0): x = 0.d1d2… × 10^(exp+1). */
function shortestDigits(x: number): { digits: string; exp: number } {
  const s = String(x) // ES Number::toString: shortest round-trip digits, like Python's repr
  const [mant, e] = s.split('e') as [string, string | undefined]
  let exp10 = e === undefined ? 0 : parseInt(e, 10)
  const dot = mant.indexOf('.')
  const intPart = dot < 0 ? mant : mant.slice(0, dot)
  const frac = dot < 0 ? '' : mant.slice(dot + 1)
  let digits = intPart + frac
  // position of the decimal point after the first digit of `digits`
  exp10 += intPart.length - 1
  const lead = digits.length - digits.replace(/^0+/, '').length
  digits = digits.slice(lead)
  exp10 -= lead
  digits = digits.replace(/0+$/, '') || '0'
  return { digits, exp: exp10 }
}

/** Python's `repr(float)`: `1.0`, `0.1`, `1e+16`, `1.5e-07`, `inf`, `nan`. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (x === Infinity) return 'inf'
  if (x === -Infinity) return '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const sign = x < 0 ? '-' : ''
  const { digits, exp } = shortestDigits(Math.abs(x))
  if (exp >= -5 + 1 && exp < 16) {
    // repr switches to exponent notation when the exponent is < -4 or >= 16
    if (exp >= 0) {
      const ip = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
      const fp = digits.slice(exp + 1)
      return `${sign}${ip}.${fp === '' ? '0' : fp}`
    }
    return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
  const ae = Math.abs(exp)
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`
}

function isPyInt(x: number): boolean {
  return Number.isSafeInteger(x)
}

/** Python's order of str: by code point (not UTF-16 code unit, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // A surrogate (U+D800–DFFF, i.e. part of a code point ≥ U+10000) sorts after U+E000–FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff
    const ys = y >= 0xd800 && y <= 0xdfff
    if (xs && !ys && y >= 0xe000) return 1
    if (ys && !xs && x >= 0xe000) return -1
    return x - y
  }
  return a.length - b.length
}

function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const p = Object.getPrototypeOf(v) as unknown
  return p === Object.prototype || p === null
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u

/** True when `s` holds a surrogate that is not part of a pair (not encodable as UTF-8). */
export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s)
}

/** Python's JSON string encoding with ensure_ascii=False, then `.encode("utf-8")`'s refusal of lone surrogates. */
function pyJsonString(s: string): string {
  if (hasLoneSurrogate(s)) throw new TypeError("'utf-8' codec can't encode a lone surrogate")
  // JSON.stringify escapes exactly \" \\ \b \f \n \r \t and other C0 as \u00xx (lowercase): Python's ESCAPE_DCT.
  return JSON.stringify(s)
}

/**
 * `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`: keys sorted by code
 * point, floats as Python `repr` (`1.0`, `1e+16`, `NaN`, `Infinity`), non-ASCII literal. Throws where
 * Python would raise (lone surrogates at the UTF-8 encode, unsupported types).
 */
export function pyJsonDumpsSorted(value: unknown): string {
  const out: string[] = []
  const seen = new Set<object>()
  const walk = (v: unknown): void => {
    if (v === null || v === undefined) {
      out.push('null')
    } else if (typeof v === 'boolean') {
      out.push(v ? 'true' : 'false')
    } else if (typeof v === 'bigint') {
      out.push(v.toString())
    } else if (typeof v === 'number') {
      if (isPyInt(v)) out.push(String(v === 0 ? 0 : v))
      else if (Number.isNaN(v)) out.push('NaN')
      else if (v === Infinity) out.push('Infinity')
      else if (v === -Infinity) out.push('-Infinity')
      else out.push(pyFloatRepr(v))
    } else if (typeof v === 'string') {
      out.push(pyJsonString(v))
    } else if (Array.isArray(v)) {
      if (seen.has(v)) throw new TypeError('Circular reference detected')
      seen.add(v)
      out.push('[')
      v.forEach((e, idx) => {
        if (idx > 0) out.push(',')
        walk(e)
      })
      out.push(']')
      seen.delete(v)
    } else if (isRecord(v)) {
      if (seen.has(v)) throw new TypeError('Circular reference detected')
      seen.add(v)
      out.push('{')
      Object.keys(v)
        .sort(compareCodePoints)
        .forEach((k, idx) => {
          if (idx > 0) out.push(',')
          out.push(pyJsonString(k), ':')
          walk(v[k])
        })
      out.push('}')
      seen.delete(v)
    } else {
      throw new TypeError(`Object of type ${typeof v} is not JSON serializable`)
    }
  }
  walk(value)
  return out.join('')
}

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0')
}

/** Python's `repr(str)`: single quotes unless the text has a `'` and no `"`; escapes as CPython. */
export function pyReprStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = quote
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number
    if (ch === quote || ch === '\\') out += '\\' + ch
    else if (ch === '\t') out += '\\t'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2)
    else if (cp < 0x7f) out += ch
    else if (ch !== ' ' && NOT_PRINTABLE.test(ch)) {
      if (cp < 0x100) out += '\\x' + hex(cp, 2)
      else if (cp < 0x10000) out += '\\u' + hex(cp, 4)
      else out += '\\U' + hex(cp, 8)
    } else out += ch
  }
  return out + quote
}

/** Python's `repr()` of a value parsed from JSON (str, int, float, bool, None, list, dict). */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') return isPyInt(v) ? String(v === 0 ? 0 : v) : pyFloatRepr(v)
  if (typeof v === 'string') return pyReprStr(v)
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyReprStr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`
  }
  return String(v)
}

/** Python's `str()` of such a value (what an f-string `{x}` prints). */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v)
}
