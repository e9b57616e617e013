// A typed time range (issue 26): what the auditor types beside the brush — an ISO-8601 date or
// instant (RFC 3339 §5.6, with the date-only and minute-only forms ISO 8601 allows), or a plain
// integer of ns since the epoch — or a preset, resolved to the inclusive ns bounds listEntries and
// timeline filter by. Text without a zone is in the zone the app chose (minutes east of UTC). A
// typed `to` covers the whole unit it names: `2025-11-24` runs to the day's last ns, `16:03` to the
// minute's. Presets count back from the chain's last timestamp, not from now: evidence is not live.
import type { TimePreset, TimeRange } from '../../shared/tools-types'
import { timestampExtremes, type ChainIndex } from '../chain/chain-index'
import { nsToIso } from '../chain/views'
import { AuditError } from '../base/errors'

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const NS_PER_MS = 1_000_000n
const MINUTE = 60_000_000_000n
const HOUR = 60n * MINUTE
const DAY = 24n * HOUR

export const PRESETS: readonly TimePreset[] = ['last_hour', 'last_day', 'last_7_days', 'whole_chain']
const PRESET_SPAN: Record<Exclude<TimePreset, 'whole_chain'>, bigint> = {
  last_hour: HOUR,
  last_day: DAY,
  last_7_days: 7n * DAY,
}

const TYPED =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|UTC|[+-]\d{2}(?::?\d{2})?)?$/

/** The instant a typed text starts at and the length of the unit it names (ns). */
export function parseTyped(
  textIn: string,
  name: string,
  utcOffsetMinutes: number,
): { start: bigint; unit: bigint } {
  const text = textIn.trim()
  if (/^-?\d+$/.test(text)) {
    const ns = BigInt(text)
    if (ns < INT64_MIN || ns > INT64_MAX)
      throw new AuditError('bad_argument', `${name} is beyond the int64 range of timestamp_ns`)
    return { start: ns, unit: 1n }
  }
  const m = TYPED.exec(text)
  if (!m) {
    throw new AuditError(
      'bad_argument',
      `${name} must be a date (2025-11-24), a date and time (2025-11-24 16:03[:04[.5]][Z|+02:00]) or ns since the epoch`,
    )
  }
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const parts = [Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)] as const
  const ms = Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5])
  const check = new Date(ms)
  if (
    parts[1] < 1 ||
    parts[1] > 12 ||
    check.getUTCDate() !== parts[2] ||
    check.getUTCMonth() !== parts[1] - 1 ||
    parts[3] > 23 ||
    parts[4] > 59 ||
    parts[5] > 59
  )
    throw new AuditError('bad_argument', `${name} is not a calendar date and time: ${text}`)
  let offset = utcOffsetMinutes
  if (zone !== undefined) {
    if (/^(z|utc)$/i.test(zone)) offset = 0
    else {
      const digits = zone.slice(1).replace(':', '')
      const oh = Number(digits.slice(0, 2))
      const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0
      if (oh > 23 || om > 59) throw new AuditError('bad_argument', `${name} has a bad UTC offset: ${zone}`)
      offset = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om)
    }
  }
  const fracNs = frac ? BigInt(frac.padEnd(9, '0')) : 0n
  const start = (BigInt(ms) - BigInt(offset) * 60_000n) * NS_PER_MS + fracNs
  const unit =
    h === undefined
      ? DAY
      : s === undefined
        ? MINUTE
        : frac === undefined
          ? 1_000_000_000n
          : 10n ** BigInt(9 - frac.length)
  if (start < INT64_MIN || start + unit - 1n > INT64_MAX)
    throw new AuditError('bad_argument', `${name} is beyond the int64 range of timestamp_ns`)
  return { start, unit }
}

export interface TimeRangeInput {
  preset?: TimePreset
  from?: string
  to?: string
  utcOffsetMinutes: number
}

export function resolveTimeRange(idx: ChainIndex, req: TimeRangeInput): TimeRange {
  let from: bigint | null = null
  let to: bigint | null = null
  if (req.preset !== undefined) {
    if (req.from !== undefined || req.to !== undefined)
      throw new AuditError('bad_argument', 'give a preset or typed bounds, not both')
    if (req.preset !== 'whole_chain') {
      const { hi } = timestampExtremes(idx)
      if (hi !== null) {
        to = hi
        from = hi - PRESET_SPAN[req.preset] + 1n
        if (from < INT64_MIN) from = INT64_MIN
      }
    }
  } else {
    if (req.from !== undefined && req.from.trim() !== '')
      from = parseTyped(req.from, 'from', req.utcOffsetMinutes).start
    if (req.to !== undefined && req.to.trim() !== '') {
      const t = parseTyped(req.to, 'to', req.utcOffsetMinutes)
      to = t.start + t.unit - 1n
    }
    if (from !== null && to !== null && from > to)
      throw new AuditError('bad_argument', `from (${nsToIso(from)}) is after to (${nsToIso(to)})`)
  }
  let rows = 0
  for (let i = 0; i < idx.rows; i++) {
    if (from === null && to === null) {
      rows = idx.rows
      break
    }
    if (!idx.tsValid[i]) continue
    const t = idx.ts[i]!
    if ((from === null || t >= from) && (to === null || t <= to)) rows++
  }
  return {
    from_ns: from?.toString() ?? null,
    to_ns: to?.toString() ?? null,
    from_time: from === null ? null : nsToIso(from),
    to_time: to === null ? null : nsToIso(to),
    rows,
  }
}
