// Requests arrive from a renderer or over HTTP: untrusted. Each handler validates its own fields.
import { AuditError } from '../errors'

export type Obj = Record<string, unknown>

export function obj(req: unknown): Obj {
  if (req === undefined || req === null) return {}
  if (typeof req !== 'object' || Array.isArray(req))
    throw new AuditError('bad_argument', 'request must be a JSON object')
  return req as Obj
}

export function int(o: Obj, key: string, opts: { min?: number; max?: number } = {}): number {
  const v = o[key]
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new AuditError('bad_argument', `${key} must be an integer`)
  if (opts.min !== undefined && v < opts.min)
    throw new AuditError('bad_argument', `${key} must be >= ${opts.min}`)
  if (opts.max !== undefined && v > opts.max)
    throw new AuditError('bad_argument', `${key} must be <= ${opts.max}`)
  return v
}

export function optInt(o: Obj, key: string, opts: { min?: number; max?: number } = {}): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : int(o, key, opts)
}

export function str(o: Obj, key: string, maxLen = 1_000_000): string {
  const v = o[key]
  if (typeof v !== 'string') throw new AuditError('bad_argument', `${key} must be a string`)
  if (v.length > maxLen) throw new AuditError('bad_argument', `${key} is longer than ${maxLen} characters`)
  return v
}

export function optStr(o: Obj, key: string, maxLen = 1_000_000): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : str(o, key, maxLen)
}

/** A ns timestamp given as a decimal string (exact beyond 2^53). */
export function optNs(o: Obj, key: string): string | undefined {
  const v = optStr(o, key, 40)
  if (v !== undefined && !/^-?\d{1,20}$/.test(v))
    throw new AuditError('bad_argument', `${key} must be a decimal integer string`)
  return v
}

export function optBool(o: Obj, key: string): boolean | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'boolean') throw new AuditError('bad_argument', `${key} must be a boolean`)
  return v
}

export function optEnum<T extends string>(o: Obj, key: string, allowed: readonly T[]): T | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new AuditError('bad_argument', `${key} must be one of ${allowed.join(', ')}`)
  }
  return v as T
}

export function optObj(o: Obj, key: string): Obj | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  return obj(v)
}
