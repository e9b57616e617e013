// Timestamps as the reference REST API writes and reads them (§7).
//
// Writing: Python `datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat()` with `+00:00` → `Z`. The
// ns value goes through a double and is rounded half-even to microseconds, as CPython does
// (`_PyTime_ObjectToTimeval`); microseconds are shown only when non-zero.
// Reading (`since`/`until`): ISO-8601 parsed exactly to ns (the reference goes through a float and
// reads naive times in the server's local zone, §11.11; here a naive time is UTC).

function roundHalfEven(x: number): number {
  const r = Math.round(x)
  // Math.round rounds .5 up; CPython's ROUND_HALF_EVEN takes the even neighbour.
  if (Math.abs(x - Math.trunc(x)) === 0.5) return 2 * Math.round(x / 2)
  return r
}

/** `2023-11-14T22:13:20.100000Z` for 1700000000100000000, `2023-11-14T22:13:20Z` for ...000000000. */
export function pyIsoFromNs(ns: bigint): string {
  const d = Number(ns) / 1e9
  let sec = Math.trunc(d)
  let us = roundHalfEven((d - sec) * 1e6)
  if (us >= 1e6) {
    us -= 1e6
    sec += 1
  } else if (us < 0) {
    us += 1e6
    sec -= 1
  }
  const date = new Date(sec * 1000)
  if (Number.isNaN(date.getTime())) return `(out of range: ${ns} ns)`
  const base = date.toISOString().slice(0, 19)
  return us === 0 ? `${base}Z` : `${base}.${String(us).padStart(6, '0')}Z`
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/

/** Exact ns since epoch of an ISO-8601 date or instant; null when it is not one. */
export function parseIsoNs(text: string): bigint | null {
  const m = ISO.exec(text.trim())
  if (!m) return null
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  const check = new Date(ms)
  if (
    Number.isNaN(ms) ||
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCHours() !== Number(h) ||
    check.getUTCMinutes() !== Number(mi) ||
    check.getUTCSeconds() !== Number(s)
  ) {
    return null
  }
  let offsetMin = 0
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const oh = Number(digits.slice(0, 2))
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0
    if (oh > 23 || om > 59) return null
    offsetMin = sign * (oh * 60 + om)
  }
  const nanos = BigInt(frac.padEnd(9, '0') || '0')
  return (BigInt(ms) - BigInt(offsetMin) * 60_000n) * 1_000_000n + nanos
}
