// verify-continuity on many segments (issue 38, round 11): it held every segment open until the
// joins were read (2–3 descriptors each), so some hundreds of segments passed the usual 1,024
// open-file limit and the command failed. Now at most two segments are open at once — still each
// opened once and joined through that open source. Seeded cuts (in order, overlapping, contained) of
// a synthetic chain; the descriptors this process holds are counted from /proc/self/fd as each
// segment is read, and the built CLI is run under a low `ulimit -n`.
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyContinuity } from '../../../src/main/audit/continuity'
import { parseSecrets } from '../../../src/main/chain/keys'
import { continuityText } from '../../../src/main/cli/commands/verify-continuity'
import {
  CHAIN_SCHEMA,
  insertRow,
  openScratch,
  readRows,
  scratchDir,
  spanRows,
  writeChain,
  type ChainRow,
} from '../reliability/chainkit'
import { BIN, ensureBuilt } from '../testing/cli'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('continuity-fds')
afterAll(() => scratch.cleanup())
beforeAll(() => ensureBuilt())

const KEY = Buffer.from('5a'.repeat(32), 'hex')
const keys = parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }])
const N = 400
const whole = join(scratch.dir, 'whole.db')
writeChain(whole, KEY, spanRows(N))
const rows: ChainRow[] = (() => {
  const db = openScratch(whole)
  try {
    return readRows(db)
  } finally {
    db.close()
  }
})()

let files = 0
/** Rows from..to (1-based seqs) in a file of their own. */
function cut(from: number, to: number): string {
  const path = join(scratch.dir, `seg-${++files}.db`)
  const db = openScratch(path)
  try {
    db.exec(CHAIN_SCHEMA)
    db.transaction(() => rows.slice(from - 1, to).forEach((r) => insertRow(db, r)))()
  } finally {
    db.close()
  }
  return path
}

/**
 * Seeded cuts of the whole chain, oldest first: each starts at most where the furthest-reaching one
 * before it ended + 1, and not before that one's start (a cut starting earlier is out of order).
 */
function cuts(seed: number, count: number): string[] {
  const rnd = mulberry32(seed)
  const out: string[] = []
  let end = 0
  let reachFrom = 1
  for (let i = 0; i < count; i++) {
    const left = count - i
    const step = Math.max(1, Math.floor((N - end) / left))
    // Mostly in order; sometimes back over rows the last cut held (an overlap, or a contained cut).
    const from = i > 0 && rnd() < 0.3 ? Math.max(reachFrom, end - Math.floor(rnd() * 3)) : end + 1
    const to = i === count - 1 ? N : Math.min(N, Math.max(from, end + step - (rnd() < 0.2 ? step : 0)))
    out.push(cut(from, to))
    if (to > end) reachFrom = from
    end = Math.max(end, to)
  }
  return out
}

const openFds = (): number => readdirSync('/proc/self/fd').length

describe('verify-continuity: many segments', () => {
  it('holds at most two segments open at once, and still joins them all (generated)', async () => {
    const rnd = mulberry32(3311)
    for (let t = 0; t < 4; t++) {
      const count = 30 + Math.floor(rnd() * 30)
      const paths = cuts(3311 + t, count)
      const base = openFds()
      let most = 0
      const r = await verifyContinuity(paths, t % 2 === 0 ? keys : [], {
        onSegment: () => (most = Math.max(most, openFds() - base)),
      })
      most = Math.max(most, openFds() - base)
      expect(
        r.valid,
        `t=${t} count=${count} ${JSON.stringify([r.segments.filter((s) => !s.valid), r.boundaries.filter((b) => !b.matches)]).slice(0, 1500)}`,
      ).toBe(true)
      expect(r.segments).toHaveLength(count)
      expect(continuityText(r).out).toContain(
        `Full chain: ${N} entries across ${count} segments, CONTINUOUS.`,
      )
      // Two segments open (2–3 descriptors each), whatever the count; before, ~2 per segment.
      expect(most, `t=${t} count=${count}`).toBeLessThanOrEqual(8)
      expect(openFds() - base, 'every segment closed').toBeLessThanOrEqual(0)
    }
  })

  it('answers for more segments than the open-file limit allows at once (CLI under ulimit -n)', () => {
    const paths = cuts(4242, 160)
    const r = spawnSync(
      'sh',
      ['-c', 'ulimit -n 128 && exec "$0" "$@"', process.execPath, BIN, 'verify-continuity', ...paths],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    )
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain(`Full chain: ${N} entries across 160 segments, CONTINUOUS.`)
  })

  it('still says BREAK where the only cut holding some seqs is left out, with many segments (generated)', async () => {
    const rnd = mulberry32(5150)
    for (let t = 0; t < 3; t++) {
      const paths = cuts(5150 + t, 40)
      const held = paths.map((p) => {
        const db = new Database(p, { readonly: true })
        try {
          return db.prepare('SELECT seq FROM chain').pluck().all() as number[]
        } finally {
          db.close()
        }
      })
      // A middle cut holding a seq no other cut holds: without it, the seqs cannot follow on.
      const only = (i: number): boolean =>
        held[i]!.some((q) => held.every((h, k) => k === i || !h.includes(q)))
      const candidates = [...paths.keys()].slice(1, -1).filter(only)
      const gone = candidates[Math.floor(rnd() * candidates.length)]!
      const r = await verifyContinuity(
        paths.filter((_, i) => i !== gone),
        t % 2 === 0 ? keys : [],
      )
      expect(r.segments).toHaveLength(39)
      expect(r.valid, `t=${t} gone=${gone}`).toBe(false)
      expect(r.boundaries.filter((b) => !b.matches)).toHaveLength(1)
      expect(continuityText(r).err).toContain('Continuity verification FAILED')
    }
  })
})
