// The zone every time on screen is shown in: UTC (the chain's own timestamps are UTC ns) or the
// machine's local time. Chosen once (SettingsStore, persisted) and read by the pure formatters of
// format.ts, so a table cell, a chart axis and a typed range agree.
export type TimeZoneMode = 'utc' | 'local'

let current: TimeZoneMode = 'utc'

export function timeZoneMode(): TimeZoneMode {
  return current
}

export function setTimeZoneMode(mode: TimeZoneMode): void {
  current = mode
}

const p2 = (v: number): string => String(v).padStart(2, '0')

/** Minutes east of UTC of the chosen zone at `ms` (0 for UTC; DST-aware for local). */
export function offsetMinutesAt(ms: number, mode: TimeZoneMode = current): number {
  if (mode === 'utc' || !Number.isFinite(ms)) return 0
  return -new Date(ms).getTimezoneOffset()
}

/** `UTC`, or the local offset at `ms` as `UTC+01:00` (so a local time is never ambiguous). */
export function zoneLabel(ms: number = Date.now(), mode: TimeZoneMode = current): string {
  if (mode === 'utc') return 'UTC'
  const off = offsetMinutesAt(ms, mode)
  const a = Math.abs(off)
  return `UTC${off < 0 ? '-' : '+'}${p2(Math.floor(a / 60))}:${p2(a % 60)}`
}

/** The calendar fields of `ms` in the chosen zone. */
export function fieldsAt(
  ms: number,
  mode: TimeZoneMode = current,
): { y: number; mo: number; d: number; h: number; mi: number; s: number; ms: number } {
  const t = new Date(ms)
  return mode === 'utc'
    ? {
        y: t.getUTCFullYear(),
        mo: t.getUTCMonth() + 1,
        d: t.getUTCDate(),
        h: t.getUTCHours(),
        mi: t.getUTCMinutes(),
        s: t.getUTCSeconds(),
        ms: t.getUTCMilliseconds(),
      }
    : {
        y: t.getFullYear(),
        mo: t.getMonth() + 1,
        d: t.getDate(),
        h: t.getHours(),
        mi: t.getMinutes(),
        s: t.getSeconds(),
        ms: t.getMilliseconds(),
      }
}

/** ms since epoch → `YYYY-MM-DD HH:MM:SS[.mmm]` in the chosen zone. */
export function wallClock(ms: number, withMs = true, mode: TimeZoneMode = current): string {
  const f = fieldsAt(ms, mode)
  const base = `${String(f.y).padStart(4, '0')}-${p2(f.mo)}-${p2(f.d)} ${p2(f.h)}:${p2(f.mi)}:${p2(f.s)}`
  return withMs ? `${base}.${String(f.ms).padStart(3, '0')}` : base
}
