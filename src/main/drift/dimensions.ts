// F12 payload-drift dimensions (reference §8): the value a span contributes to each, read from its
// sealed attributes as Python BIJOTEL's `_extract_dimension_value` reads them — `float(v)` of the
// attribute, the cost from the price table, the cache and reasoning ratios — and null where the
// reference gives no datapoint. Where Python would raise on a value it cannot convert (a word where
// a token count belongs), the row gives no datapoint here.
import type { DriftDimension } from '../../shared/drift-types'
import { DRIFT_DIMENSIONS } from '../../shared/drift-rules'
import { PRICES } from '../python/py-body'
import { PyFloat, pyJsonLoads, type PyValue } from '../python/pyformat'

export const DIMENSIONS: readonly DriftDimension[] = DRIFT_DIMENSIONS

export type Attrs = Record<string, unknown>

const utf8 = new TextDecoder('utf-8', { fatal: true })

function plain(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value
  if (typeof v === 'bigint') return Number(v)
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
  try {
    return JSON.parse(text) as unknown
  } catch {
    try {
      return plain(pyJsonLoads(text, { typed: true }))
    } catch {
      return null
    }
  }
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

/** Python's `float(v)` for a JSON value; null where Python would raise (or for None). */
export function pyFloatOf(v: unknown): number | null {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string') {
    const t = v.trim()
    if (!PY_FLOAT_TEXT.test(t)) return null
    const s = t.replace(/_/g, '').toLowerCase()
    if (/^[+-]?inf(inity)?$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity
    if (/^[+-]?nan$/.test(s)) return NaN
    return Number(s)
  }
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
