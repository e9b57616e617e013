// Serial types 10 and 11 (file format §2.1: "reserved for internal use") in a chain record's NULL
// columns — the rowid alias seq above all. SQLite reads both as a NULL of no bytes (vdbe.c
// sqlite3VdbeSerialGet; sqlite3SmallTypeSizes gives them size 0) and reads the row; recovery's
// carving took a record only with type 0 there, so such a row was a record SQLite reads and recovery
// did not (round 11's differential, seed 911001: record.type mutants 'serial type 0 → 11'). Generated
// over chain shapes and the rows changed; recovery's reading of the live pages is held to SQLite's
// (./../testing/live-carve.ts): no miss, no misread, the same cells.
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { decodeVarint, varint } from '../../../src/main/chain/sqlite/varint'
import { Rng } from '../reliability/chainkit'
import { SMALL, writeChainFolder, type ChainShape } from '../testing/exact-chains'
import { compareLiveCarving } from '../testing/live-carve'
import { basePages } from '../testing/mutations'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-null-types-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const SHAPES: [string, ChainShape][] = [
  ['4k', SMALL],
  ['1k-overflow', { ...SMALL, rows: 50, pageSize: 1024, bodyBytes: 1500 }],
  ['8k-reserved', { ...SMALL, rows: 60, pageSize: 8192, reserved: 32, bodyBytes: 300 }],
  ['512', { ...SMALL, rows: 120, pageSize: 512, bodyBytes: 60 }],
]

/** Offsets of the record headers' NULL serial types (type 0, one byte) of the cells of a leaf page. */
function nullTypes(page: Buffer, h: number): number[] {
  const out: number[] = []
  const cells = page.readUInt16BE(h + 3)
  for (let i = 0; i < cells; i++) {
    const at = page.readUInt16BE(h + 8 + 2 * i)
    const a = decodeVarint(page, at, page.length)
    const b = decodeVarint(page, at + a, page.length)
    const s = at + a + b
    const c = decodeVarint(page, s, page.length)
    if (a === 0 || b === 0 || c === 0) continue
    const end = s + varint.value
    for (let p = s + c; p < end && p < page.length;) {
      const n = decodeVarint(page, p, page.length)
      if (n === 0) break
      if (n === 1 && varint.value === 0) out.push(p)
      p += n
    }
  }
  return out
}

describe('serial types 10 and 11 where a NULL is: recovery reads the rows SQLite reads', () => {
  const bases = SHAPES.map(([name, shape]) => {
    const dir = join(root, 'bases', name)
    writeChainFolder(dir, shape)
    return { name, dir }
  })
  for (let k = 0; k < 16; k++) {
    const rng = new Rng(911_300 + k)
    const base = bases[k % bases.length]!
    it(`case ${k}: ${base.name}`, () => {
      const dir = join(root, `c${k}`)
      cpSync(base.dir, dir, { recursive: true })
      const path = join(dir, 'chain.db')
      const probe = join(root, `probe-${k}.db`)
      cpSync(path, probe)
      const { pageSize, leaf } = basePages(probe)
      rmSync(probe, { force: true })
      const file = readFileSync(path)
      let changed = 0
      for (const n of leaf) {
        const page = file.subarray((n - 1) * pageSize, n * pageSize)
        for (const at of nullTypes(page, n === 1 ? 100 : 0))
          if (rng.chance(0.4)) {
            page[at] = rng.pick([10, 11])
            changed++
          }
      }
      expect(changed, 'some NULL types changed').toBeGreaterThan(0)
      writeFileSync(path, file)
      const live = compareLiveCarving(path, root)
      expect(live.kind, live.kind === 'skipped' ? live.why : '').toBe('compared')
      if (live.kind !== 'compared') return
      expect(live.misses).toEqual([])
      expect(live.misreads).toEqual([])
      expect(live.listing).toEqual([])
      expect(live.read).toBe(live.cells)
      rmSync(dir, { recursive: true, force: true })
    })
  }
})
