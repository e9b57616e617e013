// A live cell whose payload-size varint says more (or less) than its record holds (file format §1.6:
// the cell's payload size; §2.1: the record's own sizes) — seed 909006 case 624 of the differential
// harness. SQLite reads the rowid and the columns before the last, and calls the record corrupt only
// on a full read (vdbe.c OP_Column checks the last field's end against the payload size once the
// whole header is parsed). Recovery's carver takes a cell's rowid only where the payload size equals
// the record's, so it read rowid null where SQLite's partial read said 4: the live-page comparison
// (test/main/testing/live-carve.ts) called that a misread. It is no misread of a row SQLite reads:
// recovery refuses the file (the direct reader's strict cell check), and the comparison now leaves
// out rows a full read refuses. Seeded lies on every base shape: no misread, no finding.
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { parseSecrets } from '../../../src/main/chain/keys'
import { decodeVarint, varint } from '../../../src/main/chain/sqlite/varint'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { Rng } from '../reliability/chainkit'
import { KEY_HEX, SMALL, writeChainFolder, type ChainShape } from '../testing/exact-chains'
import { compareLiveCarving } from '../testing/live-carve'
import { basePages } from '../testing/mutations'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-payload-lies-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

const SHAPES: ChainShape[] = [
  { ...SMALL, rows: 40, pageSize: 4096 },
  { ...SMALL, rows: 40, pageSize: 1024, bodyBytes: 1500 },
  { ...SMALL, rows: 8, pageSize: 65536, bodyBytes: 70000 },
]

/** A payload size of the same varint length as `v` (so the cell keeps its layout), off by 1..300. */
function lie(r: Rng, v: number, len: number): number | null {
  for (let t = 0; t < 10; t++) {
    const w = r.chance(0.7) ? v + r.int(1, 300) : v - r.int(1, Math.min(300, v - 1))
    const n = w < 0x80 ? 1 : w < 0x4000 ? 2 : w < 0x200000 ? 3 : 4
    if (w > 0 && n === len) return w
  }
  return null
}

function putVarint(b: Buffer, at: number, v: number, len: number): void {
  for (let i = len - 1; i >= 0; i--) {
    b[at + i] = (v & 0x7f) | (i === len - 1 ? 0 : 0x80)
    v = Math.floor(v / 128)
  }
}

describe('a live cell whose payload size lies about its record', () => {
  it('is neither misread by recovery nor turned into a finding', () => {
    const wrong: string[] = []
    let compared = 0
    for (const [i, shape] of SHAPES.entries()) {
      const base = join(root, `base-${i}`)
      writeChainFolder(base, shape)
      const probe = join(root, `probe-${i}`)
      cpSync(base, probe, { recursive: true })
      const pages = basePages(join(probe, 'chain.db'))
      rmSync(probe, { recursive: true, force: true })
      for (let k = 0; k < 10; k++) {
        const seed = 910_500 + i * 100 + k
        const r = new Rng(seed)
        const dir = join(root, `m-${seed}`)
        cpSync(base, dir, { recursive: true })
        const path = join(dir, 'chain.db')
        const file = readFileSync(path)
        const n = r.pick(pages.leaf)
        const page = file.subarray((n - 1) * pages.pageSize, n * pages.pageSize)
        const h = n === 1 ? 100 : 0
        const cell = page.readUInt16BE(h + 8 + 2 * r.int(0, page.readUInt16BE(h + 3) - 1))
        const len = decodeVarint(page, cell, page.length)
        const to = lie(r, varint.value, len)
        if (to === null) continue
        const label = `seed ${seed}: leaf ${n} cell at ${cell}, payload ${varint.value} → ${to}`
        putVarint(page, cell, to, len)
        writeFileSync(path, file)
        const live = compareLiveCarving(path, root)
        if (live.kind === 'compared') {
          compared++
          for (const m of live.misreads) wrong.push(`${label}: ${m}`)
        }
        try {
          const found = recoverFile(path, keys)
          if (found.rows.length > 0) wrong.push(`${label}: recovery lists ${found.rows.length} rows`)
        } catch (e) {
          if (!(e instanceof AuditError) || e.message.includes('\n')) wrong.push(`${label}: ${String(e)}`)
        }
        rmSync(dir, { recursive: true, force: true })
      }
    }
    expect(wrong).toEqual([])
    expect(compared).toBeGreaterThan(10)
  }, 120_000)
})
