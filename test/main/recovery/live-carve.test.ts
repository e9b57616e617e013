// Recovery's reading of live pages against SQLite's (issue 33): on every shared fixture with a chain
// table and on generated chain folders of every shape (page sizes 512–65536, reserved bytes,
// overflow chains, WAL with several commits, a freelist), recovery's carving path must read every
// live chain record exactly as SQLite reads it, list the same cells, and miss none. The mutated
// folders are compared in the differential run (../../testing/differential.ts).
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { makeBases } from '../testing/differential'
import { FIXTURES } from '../testing/fixtures'
import { compareLiveCarving } from '../testing/live-carve'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-live-carve-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const fixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.db'))
  .sort()

describe('recovery reads live pages as SQLite does', () => {
  it('every shared fixture with a chain table', () => {
    let compared = 0
    for (const f of fixtures) {
      const r = compareLiveCarving(join(FIXTURES, f), root)
      if (r.kind === 'skipped') {
        // Only the fixtures that are no chain at all.
        expect(f, r.why).toMatch(/^bad-/)
        continue
      }
      compared++
      expect({ f, misreads: r.misreads, misses: r.misses, listing: r.listing }).toEqual({
        f,
        misreads: [],
        misses: [],
        listing: [],
      })
      expect(r.read, f).toBeGreaterThan(0)
    }
    expect(compared).toBeGreaterThan(20)
  }, 120_000)

  it('generated folders of every shape', () => {
    const bases = makeBases(root)
    for (const b of bases) {
      const r = compareLiveCarving(join(b.dir, 'chain.db'), root)
      if (b.name === 'hot-journal') {
        expect(r.kind, b.name).toBe('skipped')
        continue
      }
      if (r.kind !== 'compared') throw new Error(`${b.name}: ${r.why}`)
      expect({ b: b.name, misreads: r.misreads, misses: r.misses, listing: r.listing }).toEqual({
        b: b.name,
        misreads: [],
        misses: [],
        listing: [],
      })
      // A UTF-16 database's hashes are 128 bytes of UTF-16 text: the carver finds no chain record
      // in it (and recovery says up front that it does not search such a file), nor misreads one.
      expect(r.read, b.name).toBe(b.name.includes('utf16') ? 0 : r.cells)
    }
  }, 240_000)
})
