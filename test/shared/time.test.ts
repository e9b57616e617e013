// Timestamps exactly as the reference REST API prints them (CPython-generated vectors) and exact
// parsing of since/until.
import { describe, expect, it } from 'vitest'
import { parseIsoNs, pyIsoFromNs } from '../../src/shared/time'

// `datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat().replace('+00:00', 'Z')`, CPython 3.12.
const VECTORS: [string, string][] = [
  ['1700000000100000000', '2023-11-14T22:13:20.100000Z'],
  ['1700000000000000000', '2023-11-14T22:13:20Z'],
  ['1763999784869127950', '2025-11-24T15:56:24.869128Z'],
  ['1700000000000000500', '2023-11-14T22:13:20Z'],
  ['1700000000000001500', '2023-11-14T22:13:20.000001Z'],
  ['1700000000999999600', '2023-11-14T22:13:21Z'],
  ['1732406400000000499', '2024-11-24T00:00:00Z'],
  ['1', '1970-01-01T00:00:00Z'],
  ['0', '1970-01-01T00:00:00Z'],
  ['1713800124137606455', '2024-04-22T15:35:24.137606Z'],
  ['1613917616685163600', '2021-02-21T14:26:56.685163Z'],
  ['1627131138911735851', '2021-07-24T12:52:18.911736Z'],
  ['1767977207604300280', '2026-01-09T16:46:47.604300Z'],
  ['1661882539520249589', '2022-08-30T18:02:19.520250Z'],
  ['1624772602725224664', '2021-06-27T05:43:22.725225Z'],
]

describe('pyIsoFromNs', () => {
  it.each(VECTORS)('%s → %s', (ns, iso) => {
    expect(pyIsoFromNs(BigInt(ns))).toBe(iso)
  })
})

describe('parseIsoNs', () => {
  it('parses dates and instants exactly, naive as UTC', () => {
    expect(parseIsoNs('2023-11-14')).toBe(1699920000000000000n)
    expect(parseIsoNs('2023-11-14T22:13:20Z')).toBe(1700000000000000000n)
    expect(parseIsoNs('2023-11-14T22:13:20.1Z')).toBe(1700000000100000000n)
    expect(parseIsoNs('2023-11-14T22:13:20.123456789Z')).toBe(1700000000123456789n)
    expect(parseIsoNs('2023-11-14T23:13:20+01:00')).toBe(1700000000000000000n)
    expect(parseIsoNs('2023-11-14T21:13:20-0100')).toBe(1700000000000000000n)
    expect(parseIsoNs('2023-11-14 22:13:20')).toBe(1700000000000000000n)
    expect(parseIsoNs('2023-11-14T22:13')).toBe(1699999980000000000n)
  })
  it.each([
    '',
    'yesterday',
    '2023-13-01',
    '2023-02-30',
    '2023-11-14T25:00',
    '2023-11-14T22:13:20+25:00',
    '1700000000',
  ])('rejects %j', (s) => {
    expect(parseIsoNs(s)).toBeNull()
  })
})
