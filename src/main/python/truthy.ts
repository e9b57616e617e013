// Python's truth value (`bool(x)`) of a JSON value, for both value models the engines hold: what
// `JSON.parse` gives (plain objects, numbers) and what `pyJsonLoads(..., { typed: true })` gives
// (Maps, BigInt, PyFloat). Empty str, list and dict, `0`, `0.0`, `-0.0`, `False` and `None` are
// false; everything else (NaN included, as in CPython) is true.
import { PyFloat } from './pyformat'

export function pyTruthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return false
  if (typeof v === 'number') return v !== 0
  if (typeof v === 'bigint') return v !== 0n
  if (v instanceof PyFloat) return v.value !== 0
  if (Array.isArray(v)) return v.length > 0
  if (v instanceof Map) return v.size > 0
  if (typeof v === 'object') return Object.keys(v).length > 0
  return true
}
