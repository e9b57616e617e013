// The reference's REST routes are FastAPI: an `int` field of a JSON body, a query parameter and a
// path segment are all read by pydantic v2 in lax mode, which takes more than JSON integers — a
// JSON number with no fraction (1.0, 1e0), a boolean (true is 1), and a string of ASCII digits with
// an optional sign, single underscores between digits (leading zeros and underscores taken as
// pydantic-core strips them) and a fraction of zeros ('1', ' +1_000.00 ', '0__1'),
// trimmed of Unicode White_Space (pydantic-core trims with Rust's str::trim, so U+0085 is trimmed
// and U+FEFF is not). Anything else is its 422. Checked against pydantic 2.13 by
// test/main/server/lax-int.test.ts.

const WHITE_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/

/** `s` without White_Space at either end, in one pass (a regex's `\s*$` retries from every space). */
function trimmed(s: string): string {
  let a = 0
  let b = s.length
  while (a < b && WHITE_SPACE.test(s[a]!)) a++
  while (b > a && WHITE_SPACE.test(s[b - 1]!)) b--
  return s.slice(a, b)
}
const SIGNED = /^([+-]?)([0-9_]+)(?:\.0+)?$/
const PY_DIGITS = /^\d+(?:_\d+)*$/

/**
 * pydantic-core's strip_leading_zeros: a leading '0' takes every '0' and '_' after it up to the
 * first other digit ('0__1' is 1 where '1__1' is refused); all zeros and underscores leave the last
 * character ('0__00' is 0, '0_' is refused).
 */
function leadingZerosStripped(body: string): string {
  if (!body.startsWith('0')) return body
  const i = body.search(/[1-9]/)
  return i < 0 ? body.slice(-1) : body.slice(i)
}

/** A value pydantic reads as an int but beyond what this tool reads exactly (a JSON number's 2^53). */
export const OUT_OF_RANGE = 'out_of_range'

/**
 * `v` read as pydantic's lax `int`: a safe integer, OUT_OF_RANGE for an integer pydantic takes but
 * past ±(2^53 − 1), or null where pydantic answers 422.
 */
export function laxInt(v: unknown): number | typeof OUT_OF_RANGE | null {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return null
    return Number.isSafeInteger(v) ? v + 0 : OUT_OF_RANGE // -0 is 0
  }
  if (typeof v !== 'string') return null
  const m = SIGNED.exec(trimmed(v))
  if (!m) return null
  const body = leadingZerosStripped(m[2]!)
  if (!PY_DIGITS.test(body)) return null
  // Leading zeros dropped before the length check: BigInt or Number of a megabyte of digits would
  // take seconds where 17 digits already say "past the range".
  const digits = body.replace(/_/g, '').replace(/^0+(?=\d)/, '')
  if (digits.length > 16) return OUT_OF_RANGE
  const n = Number(digits)
  if (!Number.isSafeInteger(n)) return OUT_OF_RANGE
  return m[1] === '-' ? -n || 0 : n
}
