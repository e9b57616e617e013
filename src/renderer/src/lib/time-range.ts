// The typed time range beside the timeline's brush: text typed in the chosen zone → inclusive ns
// bounds, presets relative to the chain's last timestamp (evidence is not live: "last hour" means
// the chain's last hour, not the clock's), and the bounds shown back in the inputs. The result is
// the same TimeRange the brush sets, in the workspace's view, so either moves the other.
import type { TimeRange } from './filter-state'
import { parseNs } from './format'
import { timeZoneMode, wallClock, type TimeZoneMode } from './time-zone'

export type TimePreset = 'last_hour' | 'last_day' | 'last_7_days' | 'whole_chain'

export const PRESETS: { id: TimePreset; label: string }[] = [
  { id: 'last_hour', label: 'last hour' },
  { id: 'last_day', label: 'last day' },
  { id: 'last_7_days', label: 'last 7 days' },
  { id: 'whole_chain', label: 'whole chain' },
]

const NS_PER_MS = 1_000_000n
const HOUR_NS = 3_600_000_000_000n
const PRESET_NS: Record<Exclude<TimePreset, 'whole_chain'>, bigint> = {
  last_hour: HOUR_NS,
  last_day: 24n * HOUR_NS,
  last_7_days: 7n * 24n * HOUR_NS,
}

export type Parsed = { ok: true; ns: bigint } | { ok: false; error: string }

// `YYYY-MM-DD`, optionally `[ T]HH:MM[:SS[.fraction up to ns]]`, optionally `Z` or `±HH:MM`.
const TYPED =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i

/**
 * A typed bound → ns since the epoch. Text without a zone is read in `mode` (the window's zone);
 * a date alone as the end of a range means the end of that day; a plain integer of 13+ digits is
 * taken as ns since the epoch (what the chain stores).
 */
export function parseTypedTime(text: string, end: boolean, mode: TimeZoneMode = timeZoneMode()): Parsed {
  const t = text.trim()
  if (/^\d{13,20}$/.test(t)) return { ok: true, ns: BigInt(t) }
  const m = TYPED.exec(t)
  if (!m) return { ok: false, error: `"${t}" is not a time: type YYYY-MM-DD [HH:MM[:SS[.fff]]] [Z|±HH:MM]` }
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const num = (v: string | undefined): number => (v === undefined ? 0 : Number(v))
  const fields = [num(y), num(mo) - 1, num(d), num(h), num(mi), num(s)] as const
  if (fields[1] > 11 || fields[2] < 1 || fields[2] > 31 || fields[3] > 23 || fields[4] > 59 || fields[5] > 59)
    return { ok: false, error: `"${t}" is not a valid date and time` }
  let ms: number
  if (zone !== undefined) {
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)
    const off = z ? (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) : 0
    ms = Date.UTC(...fields) - off * 60_000
  } else if (mode === 'utc') {
    ms = Date.UTC(...fields)
  } else {
    ms = new Date(...fields).getTime()
  }
  // Date rolls 2025-02-31 over into March: refuse what does not name a real day.
  const check = new Date(Date.UTC(fields[0], fields[1], fields[2]))
  if (check.getUTCMonth() !== fields[1] || !Number.isFinite(ms))
    return { ok: false, error: `"${t}" is not a valid date and time` }
  let ns = BigInt(ms) * NS_PER_MS + BigInt((frac ?? '').padEnd(9, '0'))
  if (end) {
    // The end is inclusive: a bound typed to the minute or the day covers all of it.
    if (h === undefined) ns += 24n * HOUR_NS - 1n
    else if (s === undefined) ns += 60_000_000_000n - 1n
    else if (frac === undefined) ns += 1_000_000_000n - 1n
    else ns += 10n ** BigInt(9 - frac.length) - 1n
  }
  return { ok: true, ns }
}

/** The chain's first and last timestamps (ns decimal strings, as the overview gives them). */
export interface Bounds {
  first_ns: string | null
  last_ns: string | null
}

export type RangeResult = { ok: true; range: TimeRange | null } | { ok: false; error: string }

/** Both typed bounds → a range (an empty side is the chain's first / last timestamp). */
export function typedRange(
  from: string,
  to: string,
  chain: Bounds,
  mode: TimeZoneMode = timeZoneMode(),
): RangeResult {
  const first = parseNs(chain.first_ns)
  const last = parseNs(chain.last_ns)
  if (first === null || last === null) return { ok: false, error: 'the chain has no timestamps' }
  if (from.trim() === '' && to.trim() === '') return { ok: true, range: null }
  const a = from.trim() === '' ? ({ ok: true, ns: first } as Parsed) : parseTypedTime(from, false, mode)
  if (!a.ok) return a
  const b = to.trim() === '' ? ({ ok: true, ns: last } as Parsed) : parseTypedTime(to, true, mode)
  if (!b.ok) return b
  if (a.ns > b.ns) return { ok: false, error: 'the range ends before it starts' }
  return { ok: true, range: { from_ns: a.ns.toString(), to_ns: b.ns.toString() } }
}

/** A preset, relative to the chain's last timestamp; null = the whole chain. */
export function presetRange(p: TimePreset, chain: Bounds): TimeRange | null {
  const last = parseNs(chain.last_ns)
  if (p === 'whole_chain' || last === null) return null
  const first = parseNs(chain.first_ns) ?? last
  const from = last - PRESET_NS[p]
  return { from_ns: (from > first ? from : first).toString(), to_ns: last.toString() }
}

/** Which preset a range is, if it is one (the preset button is shown pressed). */
export function presetOf(range: TimeRange | null, chain: Bounds): TimePreset | null {
  if (range === null) return 'whole_chain'
  for (const p of PRESETS) {
    const r = presetRange(p.id, chain)
    if (r && r.from_ns === range.from_ns && r.to_ns === range.to_ns) return p.id
  }
  return null
}

/** A bound as typed text in the chosen zone, to the ms (`2025-11-24 16:03:04.869`). */
export function inputTime(ns: string, mode: TimeZoneMode = timeZoneMode()): string {
  const v = parseNs(ns)
  if (v === null) return ''
  const ms = Number(v / NS_PER_MS)
  return wallClock(ms, true, mode)
}
