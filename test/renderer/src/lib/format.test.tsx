// @vitest-environment jsdom
import { describe, expect, it } from 'vitest'
import {
  axisTime,
  counted,
  errorCode,
  errorMessage,
  formatBytes,
  formatCount,
  formatDurationNs,
  formatSpan,
  isoOfNs,
  msToNs,
  nsToMs,
  parseNs,
  pyFloat,
  reportFileName,
  shortHash,
  shortTime,
  signed,
} from '../../../../src/renderer/src/lib/format'
import {
  promptLabel,
  replayCliLines,
  rowVerifiedLabel,
  looksLikeChain,
} from '../../../../src/renderer/src/lib/replay-format'
import type { ReplayCheck } from '../../../../src/shared/replay-types'

describe('numbers and sizes', () => {
  it('counts with the noun agreeing: never "1 rows"', () => {
    for (let n = 0; n <= 1200; n += n < 3 ? 1 : 397) {
      const s = counted(n, 'row')
      expect(s).toBe(`${formatCount(n)} ${n === 1 ? 'row' : 'rows'}`)
    }
    expect(counted(1, 'entry', 'entries')).toBe('1 entry')
    expect(counted(200_000, 'entry', 'entries')).toBe('200,000 entries')
  })

  it('groups thousands', () => {
    expect(formatCount(0)).toBe('0')
    expect(formatCount(240)).toBe('240')
    expect(formatCount(1_000_000)).toBe('1,000,000')
    expect(formatCount(null)).toBe('—')
  })
  it('shows bytes exactly and in binary units', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(1023)).toBe('1,023 B')
    expect(formatBytes(466944)).toBe('466,944 B (456.0 KiB)')
    expect(formatBytes(5 * 1024 * 1024)).toBe('5,242,880 B (5.0 MiB)')
  })
  it('signs and Python floats like the CLI', () => {
    expect(signed(44)).toBe('+44.0')
    expect(signed(-75)).toBe('-75.0')
    expect(signed(0)).toBe('0.0')
    expect(pyFloat(94)).toBe('94.0')
    expect(pyFloat(12.35)).toBe('12.35')
  })
})

describe('time', () => {
  it('parses ns strings exactly', () => {
    expect(parseNs('1764000000123456789')).toBe(1764000000123456789n)
    expect(parseNs('x')).toBeNull()
    expect(parseNs(null)).toBeNull()
    expect(nsToMs('1764000000123456789')).toBe(1764000000123)
    expect(msToNs(1764000000123)).toBe('1764000000123000000')
    expect(isoOfNs('1764000000123456789')).toBe('2025-11-24T16:00:00.123Z')
  })
  it('formats durations', () => {
    expect(formatDurationNs(500n)).toBe('500ns')
    expect(formatDurationNs(340_000_000n)).toBe('340ms')
    expect(formatDurationNs(12_500_000_000n)).toBe('12.5s')
    expect(formatDurationNs(3_723_000_000_000n)).toBe('1h 02m 03s')
    expect(formatDurationNs(2n * 86_400_000_000_000n + 3_600_000_000_000n * 4n + 60_000_000_000n * 5n)).toBe(
      '2d 4h 05m',
    )
    expect(formatDurationNs(-60_000_000_000n)).toBe('-1m 00s')
    expect(formatSpan('0', '90000000000')).toBe('1m 30s')
    expect(formatSpan(null, '1')).toBe('—')
  })
  it('shortens ISO times and axis labels', () => {
    expect(shortTime('2025-11-24T16:03:04.869127950Z')).toBe('2025-11-24 16:03:04.869')
    expect(shortTime(null)).toBe('—')
    expect(axisTime(Date.UTC(2025, 10, 24, 16, 3, 4), false)).toBe('16:03:04')
    expect(axisTime(Date.UTC(2025, 10, 24, 16, 3, 4), true)).toBe('11-24 16:03')
    expect(axisTime(Number.NaN, true)).toBe('')
  })
  it('names report files after their time', () => {
    expect(reportFileName('2025-11-24T16:03:04.869Z')).toBe('bijotel-report-2025-11-24T16-03-04-869Z.json')
  })
})

describe('hashes and errors', () => {
  it('shortens hashes', () => {
    expect(shortHash('0123456789abcdef0123')).toBe('0123456789ab…')
    expect(shortHash('abc')).toBe('abc')
    expect(shortHash(null)).toBe('—')
  })
  it('turns anything thrown into one line', () => {
    expect(errorMessage(new Error('not a SQLite database\n  at x'))).toBe('not a SQLite database at x')
    expect(errorMessage({ error: 'no chain is open', code: 'no_chain' })).toBe('no chain is open')
    expect(errorMessage('')).toBe('unknown error')
    expect(errorCode(Object.assign(new Error('x'), { code: 'not_a_chain' }))).toBe('not_a_chain')
    expect(errorCode(new Error('x'))).toBeNull()
  })
})

describe('replay formatting', () => {
  const check = (over: Partial<ReplayCheck['result']>, extra: Partial<ReplayCheck> = {}): ReplayCheck => ({
    seq: 8,
    result: {
      match: false,
      original_hash: 'bf70',
      replay_hash: 'cbb1',
      deterministic: true,
      model_version: 'gpt-4o-mini-2024-07-18',
      reason: 'output hash mismatch — re-execute …',
      ...over,
    },
    row_verified: null,
    row_detail: 'no key',
    prompt_match: null,
    prompt_detail: null,
    source: { kind: 'file', name: 'r.txt', bytes: 3, sha256_of_bytes: 'ab', mode: 'python' },
    checked_at: '2025-01-01T00:00:00Z',
    ...extra,
  })
  it('prints the CLI lines', () => {
    expect(replayCliLines(8, check({}).result)).toEqual([
      '=== Replay MISMATCH (seq=8) ===',
      '  original_hash:  bf70',
      '  replay_hash:    cbb1',
      '  deterministic:  True',
      '  model_version:  gpt-4o-mini-2024-07-18',
      '  reason:         output hash mismatch — re-execute …',
    ])
    const none = replayCliLines(
      2,
      check({ original_hash: null, model_version: null, deterministic: false, match: false }).result,
    )
    expect(none[1]).toBe('  original_hash:  (none — entry has no replay metadata)')
    expect(none[3]).toBe('  deterministic:  False')
    expect(none[4]).toBe('  model_version:  (unknown)')
    const ok = replayCliLines(1, check({ match: true, reason: null }).result)
    expect(ok[0]).toBe('=== Replay MATCH (seq=1) ===')
    expect(ok).toHaveLength(5)
  })
  it('labels the extra checks', () => {
    expect(rowVerifiedLabel(check({}))).toBe('not checked (no key)')
    expect(rowVerifiedLabel(check({}, { row_verified: false }))).toBe('ROW DOES NOT VERIFY')
    expect(promptLabel(check({}))).toBe('no prompt given')
    expect(promptLabel(check({}, { prompt_match: true }))).toBe('prompt matches prompt_hash')
  })
  it('tells chain files from replay files', () => {
    expect(looksLikeChain('clean.db')).toBe(true)
    expect(looksLikeChain('x.SQLITE')).toBe(true)
    expect(looksLikeChain('clean.replay-8.txt')).toBe(false)
  })
})
