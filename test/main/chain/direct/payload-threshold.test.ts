// How much of a table leaf cell's payload lies on the page (file format §1.6): with U the usable
// size (page size less the reserved bytes, §1.3.4), X = U−35, M = ((U−12)·32/255)−23 and
// K = M+((P−M) mod (U−4)), all P bytes when P ≤ X, else K when K ≤ X, else M, the rest on overflow
// pages. Off by one byte at a threshold, a reader takes the overflow page number from the payload's
// last local bytes (or the other way round) and reads another body than SQLite. The generator
// writes, for page sizes 512–65536 and reserved bytes 0–255, rows whose payload sizes straddle every
// threshold (P = X, X±1, and where K meets X), then rewrites cells' payload sizes across the same
// thresholds (a local size that disagrees with its cell), and holds the direct reader to SQLite's rows
// or a decline.
import Database from 'better-sqlite3'
import { closeSync, copyFileSync, openSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readVarint, varint } from '../../../../src/main/chain/sqlite/varint'
import { CHAIN_SCHEMA, scratchDir } from '../../reliability/chainkit'
import { mulberry32 } from '../../testing/prng'
import { directReading, sqliteReading } from '../../testing/readings'

const scratch = scratchDir('payload-threshold')
afterAll(() => scratch.cleanup())

const localSize = (p: number, u: number): number => {
  const x = u - 35
  if (p <= x) return p
  const m = Math.floor(((u - 12) * 32) / 255) - 23
  const k = m + ((p - m) % (u - 4))
  return k <= x ? k : m
}

/** Payload sizes at every threshold of usable size `u`: X±2, and where K meets X once and twice over. */
function targets(u: number): number[] {
  const x = u - 35
  const out = new Set<number>()
  for (const base of [x, x + (u - 4), x + 2 * (u - 4)]) for (let d = -2; d <= 2; d++) out.add(base + d)
  return [...out].filter((p) => p > 0).sort((a, b) => a - b)
}

/** An empty database of `pageSize` pages keeping `reserved` bytes at the end of each (§1.3.4). */
function emptyDatabase(path: string, pageSize: number, reserved: number): void {
  const db = new Database(path)
  db.pragma(`page_size = ${pageSize}`)
  db.pragma('user_version = 1')
  db.close()
  const fd = openSync(path, 'r+')
  try {
    const head = Buffer.alloc(108)
    readSync(fd, head, 0, 108, 0)
    head[20] = reserved
    head.writeUInt16BE((pageSize - reserved) & 0xffff, 105)
    writeSync(fd, head, 0, 108, 0)
  } finally {
    closeSync(fd)
  }
}

const vlen = (v: number): number => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : 4)

/** File offsets of every table leaf cell of the tree at `root`, with its payload size varint. */
function cells(path: string, root: number, page: number): { at: number; len: number; p: number }[] {
  const fd = openSync(path, 'r')
  const out: { at: number; len: number; p: number }[] = []
  try {
    const visit = (n: number): void => {
      const b = Buffer.alloc(page)
      readSync(fd, b, 0, page, (n - 1) * page)
      const h = n === 1 ? 100 : 0
      const count = b.readUInt16BE(h + 3)
      if (b[h] === 0x05) {
        for (let i = 0; i < count; i++) visit(b.readUInt32BE(b.readUInt16BE(h + 12 + 2 * i)))
        return visit(b.readUInt32BE(h + 8))
      }
      for (let i = 0; i < count; i++) {
        const c = b.readUInt16BE(h + 8 + 2 * i)
        const len = readVarint(b, c)
        out.push({ at: (n - 1) * page + c, len, p: varint.value })
      }
    }
    visit(root)
  } finally {
    closeSync(fd)
  }
  return out
}

/** Rows whose payload sizes are `sizes`: the body's length makes up the difference (its serial type grows). */
function writeRows(path: string, sizes: number[]): number {
  const db = new Database(path)
  try {
    db.exec(CHAIN_SCHEMA)
    const ins = db.prepare(
      `INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
        canonical_hash, prev_hash, hmac_hash) VALUES (?, ?, 't', 's', 'n', 'CLIENT', ?, 'h', 'p', 'm')`,
    )
    // The record's bytes besides the body's, from a probe row of a 100-byte body: the header (the
    // body's serial type 12+2·len one varint of it) and the other values.
    ins.run(1, 1, Buffer.alloc(100))
    const root = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'chain'").pluck().get() as number
    const page = db.pragma('page_size', { simple: true }) as number
    const p100 = cells(path, root, page)[0]!.p
    const rest = p100 - 100 - vlen(12 + 200)
    db.exec('DELETE FROM chain')
    sizes.forEach((p, i) => {
      let len = p - rest - 1
      while (len > 0 && len + vlen(12 + 2 * len) + rest > p) len--
      if (len + vlen(12 + 2 * len) + rest !== p) return
      ins.run(i + 1, i + 1, Buffer.alloc(len, i & 0xff))
    })
    return root
  } finally {
    db.close()
  }
}

const PAGE_SIZES = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
const RESERVED = [0, 1, 4, 7, 8, 31, 32, 33, 127, 200, 255]

describe('payload sizes at the local/overflow thresholds, every page size and reserve', () => {
  for (const pageSize of PAGE_SIZES)
    it(`page size ${pageSize}`, () => {
      const rnd = mulberry32(pageSize)
      const tally = { same: 0, declined: 0, rows: 0 }
      for (const reserved of RESERVED) {
        const u = pageSize - reserved
        if (u < 480) continue // SQLite refuses a usable size below 480 (§1.3.4)
        const path = join(scratch.dir, `t-${pageSize}-${reserved}.db`)
        emptyDatabase(path, pageSize, reserved)
        const root = writeRows(path, targets(u))
        const honest = cells(path, root, pageSize)
        // Honest rows: every threshold size, as SQLite wrote them.
        expect(honest.length, `${pageSize}/${reserved}`).toBeGreaterThan(8)
        tally.rows += honest.length
        compare(path, `${pageSize}/${reserved} as written`, tally)
        // A cell's payload size rewritten (same varint length) to another size near a threshold.
        for (let k = 0; k < 4; k++) {
          const c = honest[Math.floor(rnd() * honest.length)]!
          const x = u - 35
          const to = [x, x + 1, x - 1, c.p + 1, c.p - 1, c.p + (u - 4), c.p - (u - 4), x + (u - 4)][
            Math.floor(rnd() * 8)
          ]!
          if (to <= 0 || vlen(to) !== c.len || localSize(to, u) === localSize(c.p, u)) continue
          const m = join(scratch.dir, `m-${pageSize}-${reserved}-${k}.db`)
          copyFileSync(path, m)
          const bytes = Buffer.alloc(c.len)
          for (let i = 0, v = to; i < c.len; i++) {
            const shift = 7 * (c.len - 1 - i)
            bytes[i] = ((v >> shift) & 0x7f) | (i < c.len - 1 ? 0x80 : 0)
          }
          const fd = openSync(m, 'r+')
          writeSync(fd, bytes, 0, c.len, c.at)
          closeSync(fd)
          compare(m, `${pageSize}/${reserved} cell at ${c.at}: payload ${c.p} -> ${to}`, tally)
        }
      }
      console.log(`page size ${pageSize}: ${JSON.stringify(tally)}`)
      expect(tally.same).toBeGreaterThan(0)
    })
})

function compare(path: string, what: string, tally: { same: number; declined: number }): void {
  const oracle = sqliteReading(path, scratch.dir)
  const direct = directReading(path)
  if (direct.kind === 'declined' || direct.kind === 'refused') {
    tally.declined++
    return
  }
  expect(oracle.kind, `${what}: SQLite ${oracle.kind === 'error' ? oracle.message : ''}`).toBe('rows')
  if (oracle.kind !== 'rows' || direct.kind !== 'rows') return
  const text = (r: unknown[][]): string[] =>
    r.map((x) => x.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : String(v))).join('|'))
  expect(text(direct.rows), what).toEqual(text(oracle.rows))
  tally.same++
}
