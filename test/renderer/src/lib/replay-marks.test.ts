// The timeline's replay marks (issue 37): generated checks of every kind, the latest check of a seq
// winning, marks placed only at a time the engine gave, and buckets showing their worst mark.
import { describe, expect, it } from 'vitest'
import type { Timeline } from '../../../../src/shared/chain-types'
import type { ReplayCheck } from '../../../../src/shared/replay-types'
import { timelineRows } from '../../../../src/renderer/src/lib/chart-data'
import {
  countKinds,
  replayKind,
  replayMarks,
  worstKind,
  type ReplayMarkKind,
} from '../../../../src/renderer/src/lib/replay-marks'
import { mulberry32 } from '../../../main/testing/prng'

function check(
  seq: number,
  match: boolean,
  deterministic: boolean,
  metadata = true,
  rowVerified: boolean | null = null,
): ReplayCheck {
  return {
    seq,
    result: {
      match,
      original_hash: metadata ? 'a'.repeat(64) : null,
      replay_hash: 'b'.repeat(64),
      deterministic,
      model_version: null,
      reason: match ? null : 'output hash differs',
    },
    row_verified: rowVerified,
    row_detail: '',
    prompt_match: null,
    prompt_detail: null,
    source: { kind: 'text', name: null, bytes: 1, sha256_of_bytes: 'c'.repeat(64), mode: 'python' },
    checked_at: '2026-01-01T00:00:00Z',
  }
}

/** The kind the definitions give: a seeded mismatch is never drift, a call without metadata is not drawn. */
function expectedKind(c: ReplayCheck): ReplayMarkKind | null {
  if (c.result.original_hash === null) return null
  // A row that does not verify: its output_hash may be anyone's, so no comparison with it is a match.
  if (c.row_verified === false) return 'unverified'
  return c.result.match ? 'matched' : c.result.deterministic ? 'mismatch' : 'drift'
}

describe('replay marks', () => {
  it('classes every generated check as the definitions do, the latest check of a seq winning', () => {
    const rnd = mulberry32(37)
    for (let round = 0; round < 50; round++) {
      const checks = Array.from({ length: 40 }, () =>
        check(
          1 + Math.floor(rnd() * 15),
          rnd() < 0.4,
          rnd() < 0.5,
          rnd() < 0.9,
          rnd() < 0.15 ? false : rnd() < 0.5 ? true : null,
        ),
      )
      const times = new Map<number, string | null>()
      for (let s = 1; s <= 15; s++) if (rnd() < 0.8) times.set(s, rnd() < 0.1 ? null : String(1000 + s))
      const marks = replayMarks(checks, times)
      const latest = new Map(checks.map((c) => [c.seq, c]))
      const want = [...latest.values()]
        .filter((c) => expectedKind(c) !== null && typeof times.get(c.seq) === 'string')
        .map((c) => ({ seq: c.seq, ns: times.get(c.seq)!, kind: expectedKind(c)! }))
        .sort((a, b) => a.seq - b.seq)
      expect(marks).toEqual(want)
      for (const c of checks) expect(replayKind(c)).toBe(expectedKind(c))
      // The worst kind of any set: a seeded mismatch first, then drift, then matched.
      const kinds = marks.map((m) => m.kind)
      expect(worstKind(marks)).toBe(
        kinds.includes('mismatch')
          ? 'mismatch'
          : kinds.includes('unverified')
            ? 'unverified'
            : kinds.includes('drift')
              ? 'drift'
              : kinds.length > 0
                ? 'matched'
                : null,
      )
      const n = countKinds(marks)
      expect(n.matched + n.mismatch + n.drift + n.unverified).toBe(marks.length)
    }
  })

  it('a match against a row that does not verify is never drawn as matched (its hash may be forged)', () => {
    expect(replayKind(check(3, true, true, true, false))).toBe('unverified')
    expect(replayKind(check(3, true, true, true, true))).toBe('matched')
    expect(replayKind(check(3, true, true, true, null))).toBe('matched')
    expect(worstKind([{ kind: 'matched' }, { kind: 'unverified' }])).toBe('unverified')
  })

  it('never places a mark at a time the engine did not give', () => {
    expect(replayMarks([check(5, false, true)], new Map())).toEqual([])
    expect(replayMarks([check(5, false, true)], new Map([[5, null]]))).toEqual([])
  })

  it('puts each mark in the bucket of its time, with the bar height as its y', () => {
    const H = 3_600_000_000_000n
    const T0 = 1_764_000_000_000_000_000n
    const tl: Timeline = {
      from_ns: T0.toString(),
      to_ns: (T0 + 3n * H - 1n).toString(),
      bucket_ns: H.toString(),
      providers: [],
      buckets: [0, 1, 2].map((i) => ({
        start_ns: (T0 + BigInt(i) * H).toString(),
        end_ns: (T0 + BigInt(i + 1) * H - 1n).toString(),
        count: 10 + i,
        by_provider: {},
      })),
    }
    const rows = timelineRows(
      tl,
      [],
      [],
      [
        { seq: 1, ns: (T0 + 5n).toString(), kind: 'matched' },
        { seq: 2, ns: (T0 + 2n * H + 5n).toString(), kind: 'drift' },
        { seq: 3, ns: (T0 + 2n * H + 9n).toString(), kind: 'mismatch' },
        { seq: 4, ns: (T0 + 9n * H).toString(), kind: 'mismatch' }, // outside the timeline: not drawn
      ],
    )
    expect(rows.map((r) => r.replays.map((m) => m.seq))).toEqual([[1], [], [2, 3]])
    expect(rows.map((r) => r.pmark)).toEqual([10, null, 12])
    expect(worstKind(rows[2]!.replays)).toBe('mismatch')
  })
})
