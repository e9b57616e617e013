// A canonical body as Python BIJOTEL's read-only commands see it (reference §4.10; its CLI helpers
// `_parse_canonical_body`, `_detect_status`, `_calc_cost`): `json.loads` of the UTF-8 bytes, `{}` when
// they are not UTF-8 JSON; the span attributes; the policy status; the cost string from the price
// table (./prices.json). Where Python would raise (a non-object body or attributes, a number where a
// model name is expected), the answer here is what the row plainly holds: no attributes, `?5`.
import { PyFloat, pyFixed, pyFloatRepr, pyJsonLoads, type PyValue } from './pyformat'
import { pyIsoFromNs } from '../../shared/time'
import PRICE_TABLE from './prices.json'
import { pyStr } from './repr'
import { pyTruthy } from './truthy'

export type PyDict = Map<string, PyValue>

const EMPTY: PyDict = new Map()
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** `json.loads(body.decode('utf-8'))`, or `{}` (an empty Map) when that fails. */
export function pyParseBody(body: Uint8Array | null | undefined): PyValue {
  if (!body) return new Map()
  try {
    return pyJsonLoads(utf8.decode(body), { typed: true })
  } catch {
    // Not UTF-8, not JSON, or nested deeper than this parser goes (Python's RecursionError).
    return new Map()
  }
}

/** `body.get("attributes", {})`, as a dict (anything else: no attributes). */
export function pyAttributes(body: PyValue): PyDict {
  if (!(body instanceof Map)) return EMPTY
  const a = body.get('attributes')
  return a instanceof Map ? a : EMPTY
}

/** Python's number for an int, float or bool (bool is an int there); null for anything else. */
export function pyNumber(v: PyValue | undefined): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  if (v instanceof PyFloat) return v.value
  if (typeof v === 'boolean') return v ? 1 : 0
  return null
}

/**
 * `str(v)` of a model attribute, whatever JSON value it is: Python's spelling of floats (`1e-05`,
 * `1e+16`, `inf`), of lists and dicts (`['a', 1]`, `{'k': None}`), True/False/None (./repr).
 */
export function pyText(v: PyValue | undefined): string {
  return pyStr(v ?? null)
}

/** The first `n` characters (code points, as Python slices). */
export function pySlice(s: string, n: number): string {
  const cps = Array.from(s)
  return cps.length <= n ? s : cps.slice(0, n).join('')
}

export type PolicyStatus = 'BLOCKED' | 'WARN' | 'ALLOWED'

/** BLOCKED iff `bijotel.blocked` is true; WARN iff `bijotel.policy.warning` is present. */
export function policyStatus(attrs: PyDict): PolicyStatus {
  if (attrs.get('bijotel.blocked') === true) return 'BLOCKED'
  if (attrs.has('bijotel.policy.warning')) return 'WARN'
  return 'ALLOWED'
}

/**
 * A body's policy status without parsing it when it cannot be anything but ALLOWED: neither key
 * appears in its bytes, and no `\u` escape could spell one (JSON has no other escape for a letter
 * or a dot).
 */
export function policyStatusOfBytes(body: Buffer | null | undefined): PolicyStatus {
  if (
    !body ||
    (body.indexOf('bijotel.blocked') < 0 &&
      body.indexOf('bijotel.policy.warning') < 0 &&
      body.indexOf('\\u') < 0)
  )
    return 'ALLOWED'
  return policyStatus(pyAttributes(pyParseBody(body)))
}

export interface Price {
  input: number
  output: number
}

export const PRICES: ReadonlyMap<string, Price> = new Map(Object.entries(PRICE_TABLE.prices))
export const PRICES_DATE: string = PRICE_TABLE.date
export const PRICES_SOURCE: string = PRICE_TABLE.source

/** `(in × price_in + out × price_out) / 1000`, or null (tokens missing or not numbers, model unpriced). */
export function costUsd(attrs: PyDict): number | null {
  const model = attrs.get('gen_ai.request.model')
  const price = typeof model === 'string' ? PRICES.get(model) : undefined
  const tin = pyNumber(attrs.get('gen_ai.usage.input_tokens'))
  const tout = pyNumber(attrs.get('gen_ai.usage.output_tokens'))
  if (!price || tin === null || tout === null) return null
  return (tin * price.input + tout * price.output) / 1000
}

/**
 * Token counts that are present (so not `-`, which says they are missing) but that Python's
 * `tokens × price` cannot take: a text ("100" × 0.003 is a TypeError), a list or an object, an int
 * past the double range (OverflowError). Python's `list`/`inspect` die with a traceback there; the
 * line says what the row holds instead, in words no cost figure or model name can read as.
 */
export const COST_TOKENS_NOT_NUMBERS = '(token counts not numbers)'
export const COST_TOKENS_TOO_LARGE = '(token count past float range)'

function tokensUnpriceable(v: PyValue): string | null {
  if (typeof v === 'bigint') return Number.isFinite(Number(v)) ? null : COST_TOKENS_TOO_LARGE
  return pyNumber(v) === null ? COST_TOKENS_NOT_NUMBERS : null
}

/**
 * The cost string: `-` without both token counts, `?<model>` (first 30 characters) or `?(none)` for
 * a model not in the table, `$0.0000` for exactly 0, `<$0.0001` below that, else `$` and 4 decimals.
 * Token counts Python cannot multiply (COST_TOKENS_*) are said as such, never as `-`.
 */
export function costText(attrs: PyDict): string {
  const tin = attrs.get('gen_ai.usage.input_tokens')
  const tout = attrs.get('gen_ai.usage.output_tokens')
  if (tin === undefined || tin === null || tout === undefined || tout === null) return '-'
  const model = attrs.get('gen_ai.request.model')
  if (typeof model !== 'string' || !PRICES.has(model)) {
    return pyTruthy(model) ? `?${pySlice(pyText(model), 30)}` : '?(none)'
  }
  // Python multiplies the input count first; either one it cannot take stops it.
  const unpriceable = tokensUnpriceable(tin) ?? tokensUnpriceable(tout)
  if (unpriceable !== null) return unpriceable
  const cost = costUsd(attrs)
  if (cost === null) return '-'
  if (cost === 0) return '$0.0000'
  if (cost < 0.0001) return '<$0.0001'
  return `$${pyFixed(cost, 4)}`
}

/**
 * `_format_time(ts)`: `datetime.fromtimestamp(ts / 1e9, UTC).strftime('%Y-%m-%dT%H:%M:%SZ')` — the
 * ns through a double, rounded half-even to microseconds as CPython does, then cut to the second.
 */
export function pyFormatTime(ts: unknown): string {
  const ns =
    typeof ts === 'bigint'
      ? ts
      : typeof ts === 'number' && Number.isFinite(ts)
        ? BigInt(Math.trunc(ts))
        : null
  if (ns === null) return `(not a timestamp: ${String(ts)})`
  const iso = pyIsoFromNs(ns)
  return iso.startsWith('(') ? iso : `${iso.slice(0, 19)}Z`
}

/** Python's `str()` of a column value as sqlite3 returns it (None, str, int, float, bytes). */
export function pyColumnStr(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'string') return v
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') return pyFloatRepr(v)
  if (Buffer.isBuffer(v)) return pyBytesRepr(v)
  return String(v)
}

/** Python's repr of bytes: b'...' with \\xNN for what is not printable ASCII. */
function pyBytesRepr(b: Buffer): string {
  const quote = b.includes(0x27) && !b.includes(0x22) ? '"' : "'"
  let out = `b${quote}`
  for (const c of b) {
    if (c === 0x5c) out += '\\\\'
    else if (c === quote.charCodeAt(0)) out += `\\${quote}`
    else if (c === 0x09) out += '\\t'
    else if (c === 0x0a) out += '\\n'
    else if (c === 0x0d) out += '\\r'
    else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c)
    else out += `\\x${c.toString(16).padStart(2, '0')}`
  }
  return out + quote
}
