// Python's `repr()` and `str()` of the values BIJOTEL prints from JSON (str, int, float, bool, None,
// list, dict), as CPython writes them: the one spelling for every message that quotes a value (the
// export verdicts §9.2, the replay reason §6.2).
import { isPyInt, PyFloat, pyFloatRepr } from './pyformat'

const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u

const hex = (cp: number, width: number): string => cp.toString(16).padStart(width, '0')

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
  if (v instanceof PyFloat) return pyFloatRepr(v.value)
  if (typeof v === 'string') return pyReprStr(v)
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`
  if (typeof v === 'object') {
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as Record<string, unknown>)
    return `{${entries.map(([k, x]) => `${pyReprStr(String(k))}: ${pyRepr(x)}`).join(', ')}}`
  }
  return String(v)
}

/** Python's `str()` of such a value (what an f-string `{x}` prints). */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v)
}

/**
 * The key a JSON number becomes in Python's `json.dumps` of a dict after `json.loads` read it
 * (integrity's provider-shift keys): an integer literal is a Python int, its digits exactly (JSON.parse
 * rounds past 2^53); any other literal is a float, written by `float.__repr__` (`1.0`, `1e+16`;
 * `Infinity` past the double range, json's own spelling). Null when the value is falsy (0, -0, 0.0):
 * the provider falls through to the next attribute. Python refuses an int of more than 4300 digits
 * (ValueError, `sys.int_info.str_digits_check_threshold`): the body reads as not JSON → `unknown`.
 */
export function pyJsonNumberKey(literal: string): string | null {
  const lit = literal.trim()
  if (/^-?\d+$/.test(lit)) {
    if (lit.replace(/^-/, '').length > 4300) return 'unknown'
    const b = BigInt(lit)
    return b === 0n ? null : b.toString()
  }
  const x = Number(lit)
  if (x === 0) return null
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity'
  return pyFloatRepr(x)
}
