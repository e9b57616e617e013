// `bijotel verify-continuity` on segments cut from the clean fixture (as Python's archive cuts them:
// the same rows, seqs and seals in separate files): in order they join; out of order, with a row
// lost between them, with seqs that no longer follow on, a body edited inside one, or under the
// wrong key they do not — and archive_meta, which is not sealed, changes nothing.
import Database from 'better-sqlite3'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContinuityResult } from '../../../src/shared/verify-types'
import { copyFixture, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { dbPath, FIXTURES, fingerprintFolder, SECRETS } from '../testing/fixtures'

const scratch = scratchDir('continuity')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

let cut = 0
/** A segment of clean.db: rows `from`..`to`, then `change` (SQL) applied to it. */
function segment(from: number, to: number, change = ''): string {
  const path = copyFixture('clean', scratch.dir, `segment-${++cut}.db`)
  const db = new Database(path)
  try {
    db.exec(`DELETE FROM chain WHERE seq < ${from} OR seq > ${to}; ${change}`)
  } finally {
    db.close()
  }
  return path
}

const primary = (): string[] => ['--secret-hex', SECRETS['primary']!]

function json(args: string[]): { code: number | null; result: ContinuityResult } {
  const r = bijotel(['verify-continuity', ...args, '--json'])
  return { code: r.code, result: JSON.parse(r.stdout) as ContinuityResult }
}

describe('verify-continuity', () => {
  it('joins segments in order, with the key and without it, in Python BIJOTEL’s layout', () => {
    const [a, b, c] = [segment(1, 100), segment(101, 180), segment(181, 240)]
    const before = fingerprintFolder(scratch.dir)
    const r = bijotel(['verify-continuity', a, b, c, ...primary()])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(
      [
        'Segments:',
        `  ${a} — 100 entries, seq 1-100 — VALID`,
        `  ${b} — 80 entries, seq 101-180 — VALID`,
        `  ${c} — 60 entries, seq 181-240 — VALID`,
        '',
        'Boundaries:',
        `  ${a} → ${b}: OK`,
        `  ${b} → ${c}: OK`,
        '',
        'Full chain: 240 entries across 3 segments, CONTINUOUS.',
        '',
      ].join('\n'),
    )
    expect(r.stderr).toBe('')
    const keyless = json([a, b, c])
    expect(keyless.code).toBe(0)
    expect(keyless.result.hmac_checked).toBe(false)
    expect(keyless.result.segments.map((s) => [s.first_seq, s.last_seq, s.count])).toEqual([
      [1, 100, 100],
      [101, 180, 80],
      [181, 240, 60],
    ])
    // The joins are the rows' own hashes: the first segment starts at GENESIS.
    expect(keyless.result.segments[0]!.first_prev_hash).toBe('0'.repeat(64))
    expect(keyless.result.boundaries[0]!.expected).toBe(keyless.result.segments[1]!.first_prev_hash)
    expect(bijotel(['verify-continuity', a, b, c]).stdout).toContain(
      'HMACs not checked (no secret given): hashes, links and seqs only.',
    )
    // Read in place, read-only.
    expect(fingerprintFolder(scratch.dir)).toEqual(before)
  })

  it('breaks out of order, with a row lost between segments, or with seqs that do not follow on', () => {
    const [a, b] = [segment(1, 100), segment(101, 240)]
    const swapped = json([b, a, ...primary()])
    expect(swapped.code).toBe(1)
    expect(swapped.result.boundaries[0]).toMatchObject({
      matches: false,
      reason: "the next segment's first prev_hash is not the last hmac_hash of this one",
    })
    const lost = json([a, segment(102, 240), ...primary()])
    expect(lost.result.valid).toBe(false)
    expect(lost.result.segments.every((s) => s.valid)).toBe(true)
    expect(lost.result.boundaries[0]!.matches).toBe(false)
    // Every seal holds, but the seqs jump between the files (Python BIJOTEL calls this continuous).
    const shifted = segment(101, 240, 'UPDATE chain SET seq = seq + 1000')
    const jump = json([a, shifted, ...primary()])
    expect(jump.result.segments.every((s) => s.valid)).toBe(true)
    expect(jump.result.boundaries[0]).toMatchObject({
      matches: false,
      reason: 'seqs do not follow on: this segment ends at 100, the next starts at 1101',
    })
    const r = bijotel(['verify-continuity', a, shifted, ...primary()])
    expect(r.code).toBe(1)
    expect(r.stdout).toContain(`  ${a} → ${shifted}: BREAK\n    expected (prev segment's last hmac): `)
    expect(r.stderr).toBe('Continuity verification FAILED — at least one segment or boundary is invalid.\n')
  })

  it('verifies the rows of each segment: an edited body or the wrong key makes it invalid', () => {
    const a = segment(1, 100)
    const edited = segment(101, 240, "UPDATE chain SET canonical_body = CAST('{}' AS BLOB) WHERE seq = 150")
    const r = json([a, edited, ...primary()])
    expect(r.code).toBe(1)
    expect(r.result.segments[1]).toMatchObject({ valid: false, first_bad_seq: 150 })
    expect(r.result.segments[1]!.reason).toMatch(/^seq 150: canonical_hash mismatch/)
    expect(r.result.boundaries[0]).toMatchObject({ matches: false, reason: 'one or both segments invalid' })
    const b = segment(101, 240)
    const wrong = json([a, b, '--secret-hex', SECRETS['attacker']!])
    expect(wrong.result.segments.map((s) => s.valid)).toEqual([false, false])
    expect(wrong.result.segments[0]!.reason).toMatch(/^seq 1: hmac_hash mismatch/)
  })

  it('does not trust archive_meta: forging it changes nothing, either way', () => {
    const [a, b] = [segment(1, 100), segment(101, 240)]
    const forge = (path: string, firstPrev: string): void => {
      const db = new Database(path)
      try {
        db.exec('CREATE TABLE archive_meta (key TEXT PRIMARY KEY, value TEXT)')
        db.prepare('INSERT INTO archive_meta VALUES (?, ?)').run('first_prev_hash', firstPrev)
        db.prepare('INSERT INTO archive_meta VALUES (?, ?)').run('first_seq', '101')
      } finally {
        db.close()
      }
    }
    forge(b, 'f'.repeat(64))
    expect(json([a, b, ...primary()]).result.valid).toBe(true)
    // Nor does a meta table that claims the join for a segment whose rows do not make it.
    const lost = segment(102, 240)
    forge(lost, json([a, ...primary()]).result.segments[0]!.last_hmac_hash!)
    expect(json([a, lost, ...primary()]).result.valid).toBe(false)
  })

  it('reads every shared fixture in place and leaves the folder byte-identical', () => {
    const before = fingerprintFolder()
    const names = readdirSync(FIXTURES).filter((f) => f.endsWith('.db'))
    const r = json([...names.map((f) => join(FIXTURES, f)), ...primary()])
    expect(r.code).toBe(1)
    expect(r.result.segments).toHaveLength(names.length)
    // The WAL fixture's newest rows are only in its -wal: all 240 are seen.
    expect(r.result.segments.find((s) => s.db_path.endsWith('wal-tail.db'))).toMatchObject({
      valid: true,
      count: 240,
    })
    expect(fingerprintFolder()).toEqual(before)
  })

  it('reports a missing or unreadable segment in its line, and a missing argument as a usage error', () => {
    const a = segment(1, 240)
    const r = json([a, '/nonexistent/chain.db', dbPath('bad-not-sqlite'), ...primary()])
    expect(r.code).toBe(1)
    expect(r.result.segments.map((s) => [s.valid, s.reason])).toEqual([
      [true, null],
      [false, 'file not found'],
      [false, expect.stringMatching(/^not a SQLite database/)],
    ])
    const usage = bijotel(['verify-continuity'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/^bijotel verify-continuity: error: give one or more chain DBs/)
    const badHex = bijotel(['verify-continuity', a, '--secret-hex', 'zz'])
    expect(badHex.code).toBe(2)
    expect(badHex.stderr.split('\n').filter(Boolean)).toHaveLength(1)
  })
})
