// Reading what is sealed inside a canonical body. Bodies are untrusted bytes: they may be invalid
// UTF-8, not JSON, not an object, or an event rather than a span (reference §2.5).
//
// Why this reads bodies with `JSON.parse` while python/py-body.ts uses `pyJsonLoads` (two body
// models, kept on purpose): the engines here (verify's column check, integrity's provider, replay)
// have always answered from JSON.parse, and pyJsonLoads would answer differently where the two
// parsers differ — `NaN`/`Infinity` literals (json.loads takes them, JSON.parse refuses the body),
// integers past 2^53 (BigInt there, a rounded double here), nesting past pyJsonLoads' depth (its
// RecursionError), and key order (a Map keeps the file's order; the object model puts integer-like
// keys first) — so one model serving both would change verdicts and printed output, which issue 33
// forbids. py-body keeps Python's exact values for the commands that print them (inspect, list);
// this one stays native for the per-row verify path, where the body is parsed once a row.

import { pyTruthy } from '../python/truthy'
import { PyFloat, pyJsonLoads, type PyValue } from '../python/pyformat'
import { pyJsonNumberKey } from '../python/repr'
import { stringProviderKey, valueProviderKey } from './provider-key'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Python's `bytes.decode('utf-8')` + `json.loads`: null when either fails. */
export function parseBody(body: Buffer | Uint8Array): unknown {
  let text: string
  try {
    text = strictUtf8.decode(body)
  } catch {
    return undefined
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** `attributes` of a body, or `{}` as Python's `body.get("attributes", {}) or {}` gives. */
export function attributesOf(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) return {}
  const a = body['attributes']
  return isPlainObject(a) ? a : {}
}

/**
 * The integrity monitor's provider: `gen_ai.provider.name` if truthy, else `gen_ai.system`, else
 * `unknown`. Python keeps a numeric provider as a number (it becomes a JSON key string: an int's
 * digits, a float's repr — `numberKey` gives it from the body's literal where the caller has it,
 * providerOfBytes); a list or object crashes Python's detector — here it counts as `unknown`. The
 * answer is a provider key (./provider-key.ts): a number or `true` is kept apart from a string.
 */
export function providerOf(
  body: unknown,
  numberKey: (key: string, v: number) => string | null = (_, v) => String(v),
): string {
  const attrs = attributesOf(body)
  for (const key of ['gen_ai.provider.name', 'gen_ai.system']) {
    const v = attrs[key]
    if (!pyTruthy(v)) continue
    if (typeof v === 'string') return stringProviderKey(v)
    if (typeof v === 'number') {
      const k = numberKey(key, v)
      if (k === null) continue
      return valueProviderKey(k)
    }
    if (typeof v === 'boolean') return valueProviderKey('true')
    return 'unknown'
  }
  return 'unknown'
}

/**
 * `providerOf` of a body JSON.parse read (`parsed`), a numeric provider taken from its literal as
 * `json.loads` reads it (JSON.parse rounds `12345678901234567891` and reads `1.0` as `1`; Python's
 * keys are `12345678901234567891` and `1.0`).
 */
export function providerOfBytes(body: Uint8Array, parsed: unknown): string {
  if (parsed === undefined) return providerOfPython(body)
  return providerOf(parsed, (key, v) => {
    try {
      const d = pyJsonLoads(strictUtf8.decode(body), { typed: true })
      const a = d instanceof Map ? d.get('attributes') : undefined
      const x = a instanceof Map ? a.get(key) : undefined
      if (x instanceof PyFloat) return pyJsonNumberKey(pyJsonNumberLiteral(x.value))
      if (typeof x === 'bigint' || typeof x === 'number') return pyJsonNumberKey(x.toString())
    } catch {
      // a body JSON.parse took and this reader did not (nesting depth): the number as JSON.parse read it
    }
    return String(v)
  })
}

/**
 * The provider of a body JSON.parse refused, as json.loads reads it: Python also takes `NaN`,
 * `Infinity` and `-Infinity` (json.loads' parse_constant), so a body holding one anywhere still
 * names its provider there (here it read `unknown`, a provider shift Python never saw). Bodies
 * neither reads: `unknown`.
 */
function providerOfPython(body: Uint8Array): string {
  let d: PyValue
  try {
    d = pyJsonLoads(strictUtf8.decode(body), { typed: true })
  } catch {
    return 'unknown'
  }
  const a = d instanceof Map ? d.get('attributes') : undefined
  const attrs = a instanceof Map ? a : new Map<string, PyValue>()
  for (const key of ['gen_ai.provider.name', 'gen_ai.system']) {
    const v = attrs.get(key)
    if (!pyTruthy(v)) continue
    if (typeof v === 'string') return stringProviderKey(v)
    if (v === true) return valueProviderKey('true')
    let k: string | null = null
    if (v instanceof PyFloat)
      k = Number.isNaN(v.value) ? 'NaN' : pyJsonNumberKey(pyJsonNumberLiteral(v.value))
    else if (typeof v === 'bigint' || typeof v === 'number') k = pyJsonNumberKey(v.toString())
    else return 'unknown'
    if (k !== null) return valueProviderKey(k)
  }
  return 'unknown'
}

/** A float's value as a literal pyJsonNumberKey reads as a float (never as an int). */
function pyJsonNumberLiteral(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? '1e999' : '-1e999'
  const t = String(x)
  return /[.eE]/.test(t) ? t : `${t}.0`
}

export function modelOf(body: unknown): string | null {
  const attrs = attributesOf(body)
  for (const key of ['gen_ai.response.model', 'gen_ai.request.model', 'bijotel.replay.model_version']) {
    const v = attrs[key]
    if (typeof v === 'string' && v.length > 0) return v
  }
  return null
}

/** The sealed fields the unsealed columns must agree with. */
export interface SealedSpanFields {
  name: unknown
  kind: unknown
  start_time_ns: unknown
  end_time_ns: unknown
}

const TAIL_KEYS = ['end_time_ns', 'kind', 'name', 'start_time_ns', 'status_code', 'status_description']
const TAIL_NEEDLE = Buffer.from(',"end_time_ns":')
export const HEAD = Buffer.from('{"attributes":')

function fromObject(o: unknown): SealedSpanFields | null {
  if (!isPlainObject(o)) return null
  if (!('name' in o && 'kind' in o && 'end_time_ns' in o && 'start_time_ns' in o)) return null
  return {
    name: o['name'],
    kind: o['kind'],
    start_time_ns: o['start_time_ns'],
    end_time_ns: o['end_time_ns'],
  }
}

/**
 * The span fields of a body, or null when the body is not a span. A canonical span body ends with
 * its top-level keys after `attributes` (JCS sorts them), and `,"end_time_ns":` with bare quotes
 * cannot occur inside a JSON string, so the last occurrence is the top-level key: parsing only that
 * tail avoids decoding kilobytes of messages per row. Anything unexpected falls back to a full parse.
 */
export function sealedSpanFields(body: Buffer): SealedSpanFields | null {
  if (body.length > HEAD.length && body.subarray(0, HEAD.length).equals(HEAD)) {
    const at = body.lastIndexOf(TAIL_NEEDLE)
    if (at > 0) {
      try {
        const tail = JSON.parse('{' + body.toString('utf8', at + 1)) as unknown
        if (isPlainObject(tail)) {
          const keys = Object.keys(tail)
          if (keys.length === TAIL_KEYS.length && TAIL_KEYS.every((k) => k in tail)) return fromObject(tail)
        }
      } catch {
        // fall through to the full parse
      }
    }
  }
  return fromObject(parseBody(body))
}

/** Which unsealed columns disagree with the sealed body (empty when all agree). */
export function columnMismatches(
  fields: SealedSpanFields,
  timestampNs: bigint | null,
  spanName: unknown,
  spanKind: unknown,
  has: { span_name: boolean; span_kind: boolean },
): string[] {
  const out: string[] = []
  // Go writers store the start time when a span has no end time (reference §1.1).
  const end = fields.end_time_ns
  const sealedTs = end === null || end === '0' || end === undefined ? fields.start_time_ns : end
  if (!(
    typeof sealedTs === 'string' &&
    /^-?\d+$/.test(sealedTs) &&
    timestampNs !== null &&
    BigInt(sealedTs) === timestampNs
  )) {
    out.push('timestamp_ns')
  }
  if (has.span_name && !(typeof fields.name === 'string' && fields.name === spanName)) out.push('span_name')
  if (has.span_kind) {
    const kind = fields.kind ?? null
    const col = spanKind ?? null
    if (kind !== col) out.push('span_kind')
  }
  return out
}

const START_KEY = ',"start_time_ns":'
/** Strings JSON.stringify writes as themselves between quotes (printable ASCII, no `"` or `\\`). */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
const STATUS_CODE = Buffer.from(',"status_code":')
const STATUS_DESCRIPTION = Buffer.from(',"status_description":')

/** End of the JSON string or `null` at `p` (strings as the regex `"(?:[^"\\]|\\.)*"` reads them), or -1. */
function valueEnd(b: Uint8Array, p: number): number {
  const end = b.length
  if (b[p] === 0x6e) return b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c ? p + 4 : -1
  if (b[p] !== 0x22) return -1
  for (p++; p < end; p++) {
    const x = b[p]
    if (x === 0x22) return p + 1
    if (x === 0x5c) {
      // `\\.`: any character but a line terminator may follow the backslash.
      const y = b[++p]
      if (y === undefined || y === 0x0a || y === 0x0d) return -1
    }
  }
  return -1
}

/** The position after `lit` if `b` holds it at `p`, else -1 (also for a negative `p`). */
export function literalEnd(b: Uint8Array, p: number, lit: Uint8Array): number {
  if (p < 0 || p + lit.length > b.length) return -1
  for (let i = 0; i < lit.length; i++) if (b[p + i] !== lit[i]) return -1
  return p + lit.length
}

/**
 * Whether `b` from `p` to its end is what follows `"start_time_ns":` in a canonical span body:
 * `V,"status_code":V,"status_description":V}` with V a JSON string or null. Byte by byte, since it
 * runs once per verified row.
 */
export function restOfSpanAt(b: Uint8Array, p: number): boolean {
  p = valueEnd(b, p)
  p = literalEnd(b, p, STATUS_CODE)
  if (p < 0) return false
  p = literalEnd(b, valueEnd(b, p), STATUS_DESCRIPTION)
  if (p < 0) return false
  p = valueEnd(b, p)
  return p === b.length - 1 && b[p] === 0x7d
}

function isAsciiText(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false
  return true
}

const jsonOf = (v: unknown): string | null =>
  v === null || v === undefined ? 'null' : typeof v === 'string' ? JSON.stringify(v) : null

/**
 * Fast proof that a canonical span body agrees with its unsealed columns: the body's top-level tail
 * must be byte-for-byte `,"end_time_ns":"<ts>","kind":<kind>,"name":<name>,"start_time_ns":…` as
 * JCS (= ES2015 JSON.stringify for strings) writes it, ending the object. Returns true when proven,
 * null when the body takes another shape (Go writer, events, tampering): the caller then decides with
 * the full parse (`sealedSpanFields` + `columnMismatches`). Runs once per verified row, so the
 * comparison is done piecewise on the bytes rather than by building the expected text.
 */
export function spanColumnsAgreeFast(
  body: Buffer,
  tsText: string | null,
  spanName: unknown,
  spanKind: unknown,
): true | null {
  if (tsText === null || typeof spanName !== 'string') return null
  if (body.length <= HEAD.length || body.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0) return null
  const at = body.lastIndexOf(TAIL_NEEDLE)
  if (at < 0) return null
  const kindJson = jsonOf(spanKind)
  if (kindJson === null) return null
  const plainName = PLAIN_JSON_STRING.test(spanName)
  const nameJson = plainName ? `"${spanName}"` : JSON.stringify(spanName)
  let p = at + TAIL_NEEDLE.length
  // ASCII pieces compare as latin1 (one byte, one char); others as UTF-8 text.
  const piece = (text: string, ascii: boolean): boolean => {
    const enc = ascii ? 'latin1' : 'utf8'
    const n = ascii ? text.length : Buffer.byteLength(text, 'utf8')
    if (p + n > body.length || body.toString(enc, p, p + n) !== text) return false
    p += n
    return true
  }
  if (!piece(`"${tsText}","kind":`, true)) return null
  if (!piece(kindJson, isAsciiText(kindJson))) return null
  if (!piece(',"name":', true)) return null
  if (!piece(nameJson, plainName)) return null
  if (!piece(START_KEY, true)) return null
  return restOfSpanAt(body, p) ? true : null
}
