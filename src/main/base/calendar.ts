// Whether written date and time fields name an instant that exists on the (proleptic Gregorian, UTC)
// calendar: `2023-02-30` or `2026-13-45T25:61:61` match a pattern of digits but are no instant.
// Date rolls such fields over (month 13 is next January), so they must come back as given; and
// setUTCFullYear, not Date.UTC, sets the year: Date.UTC maps years 0–99 to 1900–1999.

/** ms since the epoch of that UTC instant, or null when the fields do not name one. */
export function utcInstantMs(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): number | null {
  if (![year, month, day, hour, minute, second].every(Number.isInteger)) return null
  const t = new Date(0)
  t.setUTCFullYear(year, month - 1, day)
  t.setUTCHours(hour, minute, second)
  const same =
    t.getUTCFullYear() === year &&
    t.getUTCMonth() === month - 1 &&
    t.getUTCDate() === day &&
    t.getUTCHours() === hour &&
    t.getUTCMinutes() === minute &&
    t.getUTCSeconds() === second
  return same ? t.getTime() : null
}
