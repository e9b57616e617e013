// Requests arrive from a renderer or over HTTP: untrusted. Each handler validates its own fields with
// these helpers, at the edge: every number is checked against the range the engine can take (seqs
// and counts as safe integers, ns timestamps within SQLite's 64-bit INTEGER — sqlite3.c
// sqlite3VdbeMemIntegerify / the "INTEGER" storage class of https://sqlite.org/datatype3.html), so
// an out-of-range value is a one-line `bad_argument` naming the field, never an engine failure.
import { AuditError } from '../base/errors'
import type { CallContext } from './handler-types'

export type Obj = Record<string, unknown>

/** SQLite INTEGER (and the `timestamp_ns` column) is a signed 64-bit integer. */
export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n

/** Where a nested object sits in the request (`range`, `filter`, `thresholds`), for error messages. */
const paths = new WeakMap<object, string>()

/** The field's name as the client wrote it: `range.since_ns`, `thresholds.rate_tol`, `seq`. */
export function fieldName(o: Obj, key: string): string {
  const p = paths.get(o)
  return p ? `${p}.${key}` : key
}

/** Strings shown back in an error: those that look like a number (a secret never does). */
const NUMBER_LIKE = /^\s*[+-]?(?:[\d.eExX_]*|NaN|Infinity)\s*$/

/**
 * A short, one-line rendering of a rejected value. A string is shown only when it looks like a
 * number (`"1e3"`, `"NaN"`, `"99999999999999999999"`): anything else could be a secret sent in the
 * wrong place, and errors never echo one (docs/server.md, secrets policy).
 */
export function shown(v: unknown): string {
  if (typeof v === 'number') return String(v)
  if (typeof v === 'string')
    return v.length <= 40 && NUMBER_LIKE.test(v) ? JSON.stringify(v) : `a string of ${v.length} characters`
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : typeof v
}

function bad(message: string): AuditError {
  return new AuditError('bad_argument', message)
}

export function obj(req: unknown, name?: string): Obj {
  if (req === undefined || req === null) return {}
  if (typeof req !== 'object' || Array.isArray(req))
    throw bad(`${name ?? 'request'} must be a JSON object, got ${shown(req)}`)
  if (name) paths.set(req, name)
  return req as Obj
}

export interface IntRange {
  min?: number
  max?: number
}

/**
 * An integer field within [min, max] (default: the safe integers, ±(2^53 − 1), all of which are
 * int64 and exact in JSON). Fractions, exponents beyond the range, NaN/Infinity (which JSON cannot
 * carry), strings, booleans and null are refused with the range in the message.
 */
export function int(o: Obj, key: string, range: IntRange = {}): number {
  const min = range.min ?? -Number.MAX_SAFE_INTEGER
  const max = range.max ?? Number.MAX_SAFE_INTEGER
  const v = o[key]
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
    throw bad(`${fieldName(o, key)} must be an integer from ${min} to ${max}, got ${shown(v)}`)
  return v
}

export function optInt(o: Obj, key: string, range: IntRange = {}): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : int(o, key, range)
}

/** A finite number within [min, max] (the integrity thresholds). */
export function num(o: Obj, key: string, range: { min: number; max?: number; integer?: boolean }): number {
  const v = o[key]
  const max = range.max ?? (range.integer ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE)
  const ok =
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (!range.integer || Number.isSafeInteger(v)) &&
    v >= range.min &&
    v <= max
  if (!ok) {
    const what = range.integer ? 'an integer' : 'a number'
    const upper = range.max === undefined ? '' : ` and <= ${max}`
    throw bad(`${fieldName(o, key)} must be ${what} >= ${range.min}${upper}, got ${shown(v)}`)
  }
  return v as number
}

export function str(o: Obj, key: string, maxLen = 1_000_000): string {
  const v = o[key]
  if (typeof v !== 'string') throw bad(`${fieldName(o, key)} must be a string, got ${shown(v)}`)
  if (v.length > maxLen) throw bad(`${fieldName(o, key)} is longer than ${maxLen} characters`)
  return v
}

export function optStr(o: Obj, key: string, maxLen = 1_000_000): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : str(o, key, maxLen)
}

const DECIMAL = /^-?\d{1,20}$/

/** Whether `text` is a plain decimal integer within int64. */
export function isInt64Text(text: string): boolean {
  if (!DECIMAL.test(text)) return false
  const b = BigInt(text)
  return b >= INT64_MIN && b <= INT64_MAX
}

/**
 * A ns timestamp: a decimal string (exact beyond 2^53) within int64, the range of the
 * `timestamp_ns` column. With `numbers`, a JSON integer is taken too (the reference routes).
 */
export function optNs(o: Obj, key: string, opts: { numbers?: boolean } = {}): string | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string' && isInt64Text(v)) return BigInt(v).toString()
  if (opts.numbers && typeof v === 'number' && Number.isSafeInteger(v)) return String(v)
  const form = opts.numbers ? 'an integer or a decimal string' : 'a decimal integer string'
  throw bad(`${fieldName(o, key)} must be ${form} of ns from ${INT64_MIN} to ${INT64_MAX}, got ${shown(v)}`)
}

export function optBool(o: Obj, key: string): boolean | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'boolean') throw bad(`${fieldName(o, key)} must be a boolean, got ${shown(v)}`)
  return v
}

export function optEnum<T extends string>(o: Obj, key: string, allowed: readonly T[]): T | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw bad(`${fieldName(o, key)} must be one of ${allowed.join(', ')}, got ${shown(v)}`)
  }
  return v as T
}

export function optObj(o: Obj, key: string): Obj | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  return obj(v, fieldName(o, key))
}

/** Secrets and signing keys are taken from the local app only (docs/server.md, secrets policy). */
export function requireTrusted(ctx: CallContext, what: string): void {
  if (!ctx.trusted) throw new AuditError('bad_argument', `${what} is only accepted from the local app`)
}
