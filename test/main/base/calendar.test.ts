// utcInstantMs: written fields name an instant only when the calendar has it (leap years by the
// Gregorian rule, years 1–99 kept as written), checked against a count of days made independently.
import { describe, expect, it } from 'vitest'
import { utcInstantMs } from '../../../src/main/base/calendar'

const leap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
const monthDays = (y: number, m: number): number =>
  [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!

/** Days from 1970-01-01 to y-m-d, counted month by month (no Date). */
function daysFromEpoch(y: number, m: number, d: number): number {
  let days = 0
  if (y >= 1970) for (let k = 1970; k < y; k++) days += leap(k) ? 366 : 365
  else for (let k = y; k < 1970; k++) days -= leap(k) ? 366 : 365
  for (let k = 1; k < m; k++) days += monthDays(y, k)
  return days + d - 1
}

describe('utcInstantMs', () => {
  it('every day of years around the edges, and the ones that are not days', () => {
    for (const y of [1, 4, 99, 100, 1600, 1900, 1970, 2000, 2023, 2024, 2100, 9999])
      for (let m = 0; m <= 13; m++)
        for (let d = 0; d <= 32; d++) {
          const real = m >= 1 && m <= 12 && d >= 1 && d <= monthDays(y, m)
          expect(utcInstantMs(y, m, d), `${y}-${m}-${d}`).toBe(
            real ? daysFromEpoch(y, m, d) * 86_400_000 : null,
          )
        }
  })

  it('hours, minutes and seconds out of range are no instant; fractions neither', () => {
    expect(utcInstantMs(2026, 12, 7, 23, 59, 59)).toBe(Date.UTC(2026, 11, 7, 23, 59, 59))
    for (const [h, mi, s] of [
      [24, 0, 0],
      [25, 61, 61],
      [0, 60, 0],
      [0, 0, 60],
      [-1, 0, 0],
      [0.5, 0, 0],
    ] as const)
      expect(utcInstantMs(2026, 12, 7, h, mi, s)).toBeNull()
  })
})
