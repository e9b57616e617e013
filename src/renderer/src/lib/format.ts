// Display formatting shared by the panels. Pure functions: unit-tested in format.test.ts. Times are
// shown in the zone chosen once for the whole window (time-zone.ts: UTC by default, or local).
import { timeZoneMode, wallClock } from './time-zone'

const NS_PER_MS = 1_000_000n

/** A decimal ns string → BigInt, or null when it is not an integer. */
export function parseNs(ns: string | null | undefined): bigint | null {
  if (ns === null || ns === undefined || !/^-?\d+$/.test(ns)) return null
  return BigInt(ns)
}

/** ns (decimal string) → ms since epoch as a number (for charts; loses sub-ms precision). */
export function nsToMs(ns: string): number {
  const v = parseNs(ns)
  return v === null ? Number.NaN : Number(v / NS_PER_MS)
}

/** ms since epoch → ns decimal string. */
export function msToNs(ms: number): string {
  return (BigInt(Math.trunc(ms)) * NS_PER_MS).toString()
}

/**
 * `2025-11-24T16:03:04.869127950Z` → `2025-11-24 16:03:04.869` (ms), in UTC or, when the window
 * shows local time, that instant's local wall clock.
 */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '—'
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d{1,3})?\d*(Z|[+-]\d{2}:\d{2})?$/.exec(iso)
  if (!m) return iso
  if (timeZoneMode() === 'utc' && (m[4] === undefined || m[4] === 'Z')) return `${m[1]} ${m[2]}${m[3] ?? ''}`
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] ?? ''}${m[4] ?? 'Z'}`)
  if (!Number.isFinite(ms)) return iso
  return wallClock(ms, m[3] !== undefined)
}

export type AxisMode = 'time' | 'date' | 'year'

/** The label style for an axis spanning `spanMs`: times within a day, dates within a year. */
export function axisModeFor(spanMs: number): AxisMode {
  if (spanMs > 300 * 86_400_000) return 'year'
  if (spanMs > 20 * 3_600_000) return 'date'
  return 'time'
}

/** ms since epoch → compact label for chart axes in the chosen zone (`true` = with the day, as 'date'). */
export function axisTime(ms: number, mode: AxisMode | boolean): string {
  if (!Number.isFinite(ms)) return ''
  const d = new Date(ms)
  if (Number.isNaN(d.getTime())) return ''
  const w = wallClock(ms, false)
  const m: AxisMode = mode === true ? 'date' : mode === false ? 'time' : mode
  if (m === 'year') return w.slice(0, 16)
  return m === 'date' ? w.slice(5, 16) : w.slice(11, 19)
}

/** 1234567 → `1,234,567`. */
/** A count and its noun, singular for one ("1 row", "2 rows", "1,024 entries"): no "1 rows". */
export function counted(n: number | null | undefined, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—'
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** Bytes → `466,944 B (456.0 KiB)`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—'
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  if (bytes < 1024) return `${formatCount(bytes)} B`
  let v = bytes / 1024
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${formatCount(bytes)} B (${v.toFixed(1)} ${units[u]})`
}

/** A duration in ns → `3d 4h 05m`, `2h 03m 10s`, `12.5s`, `340ms`. */
export function formatDurationNs(ns: bigint): string {
  const neg = ns < 0n
  const a = neg ? -ns : ns
  const sign = neg ? '-' : ''
  const ms = a / NS_PER_MS
  if (ms < 1000n) {
    if (a < NS_PER_MS) return `${sign}${a.toString()}ns`
    return `${sign}${ms.toString()}ms`
  }
  const totalSec = ms / 1000n
  if (totalSec < 60n) return `${sign}${(Number(ms) / 1000).toFixed(1)}s`
  const d = totalSec / 86400n
  const h = (totalSec % 86400n) / 3600n
  const m = (totalSec % 3600n) / 60n
  const s = totalSec % 60n
  const p2 = (v: bigint): string => v.toString().padStart(2, '0')
  if (d > 0n) return `${sign}${d}d ${h}h ${p2(m)}m`
  if (h > 0n) return `${sign}${h}h ${p2(m)}m ${p2(s)}s`
  return `${sign}${m}m ${p2(s)}s`
}

/** Span between two ns strings, formatted; `—` when either is missing. */
export function formatSpan(fromNs: string | null, toNs: string | null): string {
  const a = parseNs(fromNs)
  const b = parseNs(toNs)
  if (a === null || b === null) return '—'
  return formatDurationNs(b - a)
}

/** `abcdef0123…` — first n hex chars of a hash, the full value stays in the title attribute. */
export function shortHash(h: string | null | undefined, n = 12): string {
  if (!h) return '—'
  return h.length <= n ? h : `${h.slice(0, n)}…`
}

/** Entries per hour with two decimals, as the integrity report rounds them. */
export function formatRate(perHour: number): string {
  if (!Number.isFinite(perHour)) return '—'
  return `${perHour.toFixed(2)}/h`
}

/** A signed number with a fixed number of decimals: `+44.0`, `-75.0`. */
export function signed(v: number, decimals = 1): string {
  const s = v.toFixed(decimals)
  return v > 0 ? `+${s}` : s
}

/** Python's float repr for the small rounded values of the integrity report: `94.0`, `-44.0`, `0.05`. */
export function pyFloat(v: number): string {
  if (!Number.isFinite(v)) return String(v)
  return Number.isInteger(v) ? v.toFixed(1) : String(v)
}

/** A message from anything thrown, on one line (errors from both transports carry `.message`). */
export function errorMessage(e: unknown): string {
  let m: string
  if (e instanceof Error) m = e.message
  else if (typeof e === 'string') m = e
  else if (e && typeof e === 'object' && 'error' in e && typeof (e as { error: unknown }).error === 'string')
    m = (e as { error: string }).error
  else m = String(e)
  const line = m.replace(/\s+/g, ' ').trim()
  return line.length > 0 ? line : 'unknown error'
}

/** The code of an API error (`not_a_chain`, `no_chain`, …) when there is one. */
export function errorCode(e: unknown): string | null {
  if (e && typeof e === 'object' && 'code' in e) {
    const c = (e as { code: unknown }).code
    if (typeof c === 'string') return c
  }
  return null
}

/** File name for an exported report: `bijotel-report-2025-11-24T16-03-04-869Z.json`. */
export function reportFileName(generatedAt: string): string {
  return `bijotel-report-${generatedAt.replace(/[:.]/g, '-')}.json`
}

/** ns decimal string → ISO-8601 UTC with ms (for labels). */
export function isoOfNs(ns: string): string {
  const ms = nsToMs(ns)
  if (!Number.isFinite(ms)) return ns
  const d = new Date(ms)
  return Number.isNaN(d.getTime()) ? ns : d.toISOString()
}

/** Code points of a chain's name shown where it is one item of many (a filter's option, a chip). */
export const NAME_SHOWN = 80

/**
 * A name the chain holds (a provider, a model) as a list item shows it: its first NAME_SHOWN code
 * points and '…' when longer. A name is the writer's to make a megabyte long; where it is one of
 * many (the filter bar's options, the evidence panel's chips and their tooltips) it is clipped, and
 * what it selects stays the whole name.
 */
export function shownName(name: string): string {
  if (name.length <= NAME_SHOWN) return name
  const cps = Array.from(name.slice(0, 2 * NAME_SHOWN))
  return cps.length > NAME_SHOWN ? `${cps.slice(0, NAME_SHOWN).join('')}…` : cps.join('')
}
