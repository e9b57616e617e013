// F12 payload-drift dimensions (reference §8): the value a span contributes to each, read from its
// sealed attributes as Python BIJOTEL's `_extract_dimension_value` reads them — `float(v)` of the
// attribute, the cost from the price table, the cache and reasoning ratios — and null where the
// reference gives no datapoint. Where Python would raise on a value it cannot convert (a word where
// a token count belongs), the row gives no datapoint here.
import type { DriftDimension } from '../../shared/drift-types'
import { DRIFT_DIMENSIONS } from '../../shared/drift-rules'
import { PRICES } from '../python/py-body'
import { PyFloat, pyJsonLoads, type PyValue } from '../python/pyformat'
import { pyAsciiNumberText } from '../python/py-int'

export const DIMENSIONS: readonly DriftDimension[] = DRIFT_DIMENSIONS

export type Attrs = Record<string, unknown>

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * An int past the double range: Python's `float()` of it raises OverflowError ("int too large to
 * convert to float"), and so does the int × float of the cost; it is no datapoint (no number at all,
 * so neither pyFloatOf nor pyArith reads one). JSON.parse reads such digits as Infinity, a value.
 */
const INT_PAST_DOUBLE = Object.freeze({ intPastDouble: true })

/** The longest integer literal whose nearest double is finite has 309 digits (≈1.8 × 10^308). */
const LONG_DIGITS = /\d{309}/

function plain(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value
  if (typeof v === 'bigint') {
    const x = Number(v)
    return Number.isFinite(x) ? x : INT_PAST_DOUBLE
  }
  if (Array.isArray(v)) return v.map(plain)
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plain(x)]))
  return v
}

/**
 * The body as `json.loads(body.decode('utf-8'))` gives it, or null when that fails (the detector
 * skips such rows). JSON.parse first (the same doubles Python's float() gives); Python's extra
 * literals (NaN, Infinity) through the Python-faithful parser.
 */
export function parseBodyPy(body: Uint8Array | null | undefined): unknown {
  if (!body) return null
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    return null
  }
  const exact = (otherwise: unknown): unknown => {
    try {
      return plain(pyJsonLoads(text, { typed: true }))
    } catch {
      return otherwise
    }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text) as unknown
  } catch {
    return exact(null)
  }
  // Digits enough for an int past the double range: read as Python reads ints.
  return LONG_DIGITS.test(text) ? exact(parsed) : parsed
}

/** `body.get("attributes", {})` of an object body; null when the body is not an object. */
export function attributesPy(body: unknown): Attrs | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null
  const a = (body as Record<string, unknown>)['attributes']
  if (a === undefined) return {}
  return a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Attrs) : null
}

const PY_FLOAT_TEXT =
  /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i

/**
 * Python's `float(text)`: CPython first writes every Unicode decimal digit as its ASCII digit and
 * every Unicode space as ' ' (`float('١٢')` is 12.0, `float('１２')` too: ../python/py-int.ts), strips
 * C's white space at both ends (not U+001C–U+001F, which float() refuses), then reads the ASCII literal.
 */
function pyFloatText(v: string): number | null {
  const ascii = pyAsciiNumberText(v)
  if (ascii === null) return null
  const t = ascii.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '')
  if (!PY_FLOAT_TEXT.test(t)) return null
  const s = t.replace(/_/g, '').toLowerCase()
  if (/^[+-]?inf(inity)?$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity
  if (/^[+-]?nan$/.test(s)) return NaN
  return Number(s)
}

/** Python's `float(v)` for a JSON value; null where Python would raise (or for None). */
export function pyFloatOf(v: unknown): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string') return pyFloatText(v)
  return null
}

/** A raw attribute in Python arithmetic (int, float, bool); null for anything else. */
function pyArith(v: unknown): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  return null
}

/** The dimension's value for a row's attributes, or null (no datapoint). */
export function dimensionValue(attrs: Attrs, dim: DriftDimension): number | null {
  const get = (k: string): unknown => (Object.prototype.hasOwnProperty.call(attrs, k) ? attrs[k] : undefined)
  const present = (v: unknown): boolean => v !== undefined && v !== null
  switch (dim) {
    case 'input_tokens':
    case 'output_tokens': {
      const v = get(`gen_ai.usage.${dim}`)
      return present(v) ? pyFloatOf(v) : null
    }
    case 'cost': {
      const model = get('gen_ai.request.model')
      const price = typeof model === 'string' ? PRICES.get(model) : undefined
      const tin = pyArith(get('gen_ai.usage.input_tokens'))
      const tout = pyArith(get('gen_ai.usage.output_tokens'))
      if (!price || tin === null || tout === null) return null
      return (tin * price.input + tout * price.output) / 1000
    }
    case 'cache_ratio':
    case 'reasoning_ratio': {
      const [baseKey, partKey] =
        dim === 'cache_ratio'
          ? ['gen_ai.usage.input_tokens', 'gen_ai.usage.cache_read.input_tokens']
          : ['gen_ai.usage.output_tokens', 'gen_ai.usage.reasoning.output_tokens']
      const b = get(baseKey)
      const p = get(partKey)
      if (!present(b) || !present(p)) return null
      const fb = pyFloatOf(b)
      const fp = pyFloatOf(p)
      if (fb === null || fp === null) return null
      const denom = fb + fp
      if (!(denom > 0)) return null
      return fp / denom
    }
    case 'ttfc_ms': {
      const v = get('gen_ai.response.time_to_first_chunk')
      return present(v) ? pyFloatOf(v) : null
    }
  }
}

/**
 * Why a row gives no value for a dimension (issue 35: "cost: 0 values" beside rows that carry
 * `bijotel.cost_usd`). The cost dimension is the reference's (§8): tokens × the price table's
 * per-1K prices for `gen_ai.request.model`; a model the table has no price for gives no datapoint,
 * whatever cost the row records (Python BIJOTEL's `regression` reads no recorded cost either).
 */
export type NoValueReason = 'unpriced' | 'no_tokens' | 'absent' | 'not_a_number'

export function noValueReason(attrs: Attrs, dim: DriftDimension): NoValueReason {
  const has = (k: string): boolean =>
    Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== undefined && attrs[k] !== null
  if (dim === 'cost') {
    const model = attrs['gen_ai.request.model']
    if (typeof model !== 'string' || !PRICES.get(model)) return 'unpriced'
    return 'no_tokens'
  }
  const keys: Record<Exclude<DriftDimension, 'cost'>, string[]> = {
    input_tokens: ['gen_ai.usage.input_tokens'],
    output_tokens: ['gen_ai.usage.output_tokens'],
    cache_ratio: ['gen_ai.usage.input_tokens', 'gen_ai.usage.cache_read.input_tokens'],
    reasoning_ratio: ['gen_ai.usage.output_tokens', 'gen_ai.usage.reasoning.output_tokens'],
    ttfc_ms: ['gen_ai.response.time_to_first_chunk'],
  }
  return keys[dim].every(has) ? 'not_a_number' : 'absent'
}

const ATTRIBUTE_WORDS: Record<Exclude<DriftDimension, 'cost'>, string> = {
  input_tokens: 'gen_ai.usage.input_tokens',
  output_tokens: 'gen_ai.usage.output_tokens',
  cache_ratio: 'gen_ai.usage.cache_read.input_tokens (with gen_ai.usage.input_tokens)',
  reasoning_ratio: 'gen_ai.usage.reasoning.output_tokens (with gen_ai.usage.output_tokens)',
  ttfc_ms: 'gen_ai.response.time_to_first_chunk',
}

/** What the rows without a value had, counted per reason, for the one-line note. */
export interface NoValueTally {
  unpriced: number
  no_tokens: number
  absent: number
  not_a_number: number
  /** Rows without a value that record `bijotel.cost_usd` (cost only). */
  recorded_cost: number
  /** The unpriced models seen (at most a few kept). */
  models: Set<string>
}

export const emptyTally = (): NoValueTally => ({
  unpriced: 0,
  no_tokens: 0,
  absent: 0,
  not_a_number: 0,
  recorded_cost: 0,
  models: new Set(),
})

/** Count one row without a value. */
export function tallyNoValue(t: NoValueTally, attrs: Attrs, dim: DriftDimension): void {
  const why = noValueReason(attrs, dim)
  t[why]++
  if (dim !== 'cost') return
  if (typeof attrs['bijotel.cost_usd'] === 'number') t.recorded_cost++
  const model = attrs['gen_ai.request.model']
  if (why === 'unpriced' && t.models.size < 4) t.models.add(typeof model === 'string' ? model : '(none)')
}

const rows = (n: number): string => `${n} row${n === 1 ? '' : 's'}`

/** One line: why rows of a dimension gave no value (null when every row gave one). */
export function noValueNote(t: NoValueTally, dim: DriftDimension): string | null {
  const parts: string[] = []
  if (dim === 'cost') {
    if (t.unpriced > 0) {
      const models = [...t.models].join(', ')
      parts.push(
        `${rows(t.unpriced)}: no price for ${models}${t.models.size >= 4 ? ', …' : ''} in the reference price table`,
      )
    }
    if (t.no_tokens > 0) parts.push(`${rows(t.no_tokens)}: a token count missing or not a number`)
    const note = parts.join('; ')
    if (note === '') return null
    const recorded =
      t.recorded_cost > 0
        ? `; ${rows(t.recorded_cost)} of them record bijotel.cost_usd, which this dimension does not read`
        : ''
    return `no value for ${note}${recorded} (cost = tokens × price per 1K tokens, as Python BIJOTEL's regression computes it)`
  }
  const attr = ATTRIBUTE_WORDS[dim]
  if (t.absent > 0) parts.push(`${rows(t.absent)} without ${attr}`)
  if (t.not_a_number > 0)
    parts.push(`${rows(t.not_a_number)} where it is not a number (or the ratio's sum is 0)`)
  return parts.length > 0 ? `no value for ${parts.join('; ')}` : null
}
