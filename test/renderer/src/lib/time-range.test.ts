// The typed time range and the zone every time is shown in: text typed in UTC or local time → ns
// bounds, presets counted back from the chain's last timestamp, the formatters in either zone.
// Local time is Europe/Paris here (UTC+1 in winter, UTC+2 in summer), so local ≠ UTC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axisTime, shortTime } from '../../../../src/renderer/src/lib/format'
import {
  inputTime,
  parseTypedTime,
  presetOf,
  presetRange,
  typedRange,
} from '../../../../src/renderer/src/lib/time-range'
import { setTimeZoneMode, wallClock, zoneLabel } from '../../../../src/renderer/src/lib/time-zone'

const savedTz = process.env['TZ']
beforeAll(() => {
  process.env['TZ'] = 'Europe/Paris'
})
afterAll(() => {
  setTimeZoneMode('utc')
  if (savedTz === undefined) delete process.env['TZ']
  else process.env['TZ'] = savedTz
})

const ns = (iso: string, extraNs = 0n): bigint => BigInt(Date.parse(iso)) * 1_000_000n + extraNs
const ok = (text: string, end: boolean, mode: 'utc' | 'local'): bigint => {
  const r = parseTypedTime(text, end, mode)
  if (!r.ok) throw new Error(r.error)
  return r.ns
}

describe('typed bounds', () => {
  it('reads text without a zone in the chosen zone', () => {
    expect(ok('2025-11-24 16:03:04', false, 'utc')).toBe(ns('2025-11-24T16:03:04Z'))
    expect(ok('2025-11-24 16:03:04', false, 'local')).toBe(ns('2025-11-24T15:03:04Z'))
    // Summer time: Paris is UTC+2.
    expect(ok('2025-07-01T12:00', false, 'local')).toBe(ns('2025-07-01T10:00:00Z'))
  })

  it('obeys a zone written in the text, whatever the chosen zone', () => {
    expect(ok('2025-11-24T16:03:04Z', false, 'local')).toBe(ns('2025-11-24T16:03:04Z'))
    expect(ok('2025-11-24 16:03:04+02:00', false, 'utc')).toBe(ns('2025-11-24T14:03:04Z'))
    expect(ok('2025-11-24 16:03:04 -0530', false, 'utc')).toBe(ns('2025-11-24T21:33:04Z'))
  })

  it('keeps the fraction to the nanosecond', () => {
    expect(ok('2025-11-24 16:03:04.869127950', false, 'utc')).toBe(ns('2025-11-24T16:03:04Z', 869_127_950n))
    expect(ok('2025-11-24 16:03:04.5', false, 'utc')).toBe(ns('2025-11-24T16:03:04.500Z'))
  })

  it('makes an end bound cover all of what it names', () => {
    expect(ok('2025-11-24', true, 'utc')).toBe(ns('2025-11-25T00:00:00Z') - 1n)
    expect(ok('2025-11-24 16:03', true, 'utc')).toBe(ns('2025-11-24T16:04:00Z') - 1n)
    expect(ok('2025-11-24 16:03:04', true, 'utc')).toBe(ns('2025-11-24T16:03:05Z') - 1n)
    expect(ok('2025-11-24 16:03:04.869', true, 'utc')).toBe(ns('2025-11-24T16:03:04.870Z') - 1n)
    expect(ok('2025-11-24', false, 'utc')).toBe(ns('2025-11-24T00:00:00Z'))
  })

  it('takes a plain integer as ns since the epoch', () => {
    expect(ok('1764000000123456789', false, 'local')).toBe(1764000000123456789n)
  })

  it('refuses what is not a time, or not a real day', () => {
    for (const bad of ['yesterday', '2025-13-01', '2025-02-30', '2025-11-24 25:00', '24/11/2025', '']) {
      const r = parseTypedTime(bad, false, 'utc')
      expect(r.ok, bad).toBe(false)
    }
  })
})

describe('ranges and presets', () => {
  const chain = {
    first_ns: ns('2025-11-01T00:00:00Z').toString(),
    last_ns: ns('2025-11-24T16:00:00Z', 123n).toString(),
  }

  it('fills an empty side with the chain’s first or last timestamp', () => {
    expect(typedRange('2025-11-24 15:00', '', chain, 'utc')).toEqual({
      ok: true,
      range: { from_ns: ns('2025-11-24T15:00:00Z').toString(), to_ns: chain.last_ns },
    })
    expect(typedRange('', '2025-11-02', chain, 'utc')).toEqual({
      ok: true,
      range: { from_ns: chain.first_ns, to_ns: (ns('2025-11-03T00:00:00Z') - 1n).toString() },
    })
    expect(typedRange('', '', chain, 'utc')).toEqual({ ok: true, range: null })
  })

  it('refuses a range that ends before it starts, and names a bad bound', () => {
    expect(typedRange('2025-11-24', '2025-11-23', chain, 'utc')).toEqual({
      ok: false,
      error: 'the range ends before it starts',
    })
    const r = typedRange('soon', '', chain, 'utc')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContain('"soon"')
  })

  it('counts presets back from the chain’s last timestamp, never before its first', () => {
    const last = BigInt(chain.last_ns)
    expect(presetRange('last_hour', chain)).toEqual({
      from_ns: (last - 3_600_000_000_000n).toString(),
      to_ns: chain.last_ns,
    })
    expect(presetRange('last_7_days', chain)).toEqual({
      from_ns: (last - 7n * 86_400_000_000_000n).toString(),
      to_ns: chain.last_ns,
    })
    const short = { first_ns: (last - 60_000_000_000n).toString(), last_ns: chain.last_ns }
    expect(presetRange('last_day', short)).toEqual({ from_ns: short.first_ns, to_ns: chain.last_ns })
    expect(presetRange('whole_chain', chain)).toBeNull()
  })

  it('recognises a range that is a preset', () => {
    expect(presetOf(presetRange('last_day', chain), chain)).toBe('last_day')
    expect(presetOf(null, chain)).toBe('whole_chain')
    expect(presetOf({ from_ns: '1', to_ns: '2' }, chain)).toBeNull()
  })

  it('shows a bound back in the chosen zone, and reading it back gives the same ms', () => {
    const v = ns('2025-11-24T16:03:04.869Z', 127_950n).toString()
    expect(inputTime(v, 'utc')).toBe('2025-11-24 16:03:04.869')
    expect(inputTime(v, 'local')).toBe('2025-11-24 17:03:04.869')
    expect(ok(inputTime(v, 'local'), false, 'local')).toBe(ns('2025-11-24T16:03:04.869Z'))
  })
})

describe('the zone every time is shown in', () => {
  it('formats table times, axes and labels in UTC by default and in local time when chosen', () => {
    const iso = '2025-11-24T16:03:04.869127950Z'
    const ms = Date.parse('2025-11-24T16:03:04.869Z')
    setTimeZoneMode('utc')
    expect(shortTime(iso)).toBe('2025-11-24 16:03:04.869')
    expect(axisTime(ms, false)).toBe('16:03:04')
    expect(axisTime(ms, 'year')).toBe('2025-11-24 16:03')
    expect(zoneLabel(ms)).toBe('UTC')
    setTimeZoneMode('local')
    expect(shortTime(iso)).toBe('2025-11-24 17:03:04.869')
    expect(shortTime('2025-11-24T16:03:04Z')).toBe('2025-11-24 17:03:04')
    expect(axisTime(ms, false)).toBe('17:03:04')
    expect(axisTime(ms, true)).toBe('11-24 17:03')
    expect(zoneLabel(ms)).toBe('UTC+01:00')
    expect(zoneLabel(Date.parse('2025-07-01T00:00:00Z'))).toBe('UTC+02:00')
    expect(wallClock(ms, false)).toBe('2025-11-24 17:03:04')
    setTimeZoneMode('utc')
  })
})
