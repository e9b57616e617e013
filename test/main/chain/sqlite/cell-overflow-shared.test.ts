// Cells sharing one overflow chain (file format §1.6: each overflow page belongs to one cell; SQLite's
// integrity_check calls a second reference corruption, its readers follow the pointers as given).
// A generator writes a chain of small overflowing rows and one row with a long chain, then points
// every other cell at that long chain, each keeping its own rowid: a few megabytes of file claiming
// gigabytes of payload. Both readers must refuse it as corrupt promptly (verify in place and through
// SQLite on the copy, and the integrity window's columns pass); honest chains — read again and again through one source — must
// never trip the bound, which holds per pass.
import Database from 'better-sqlite3'
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { AuditError } from '../../../../src/main/base/errors'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { INTEGRITY_COLUMNS } from '../../../../src/main/chain/columns/types'
import { OpenedChain } from '../../../../src/main/chain/source/opened-chain'
import { readVarint, varint } from '../../../../src/main/chain/sqlite/varint'
import { appendRows, CHAIN_SCHEMA, GENESIS } from '../../reliability/chainkit'
import { cellAt, rewriteLeaf, varintOfLength } from '../../testing/cell-recode'
import { KEY, KEY_HEX, rowsOf } from '../../testing/exact-chains'
import { basePages } from '../../testing/mutations'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-cell-shared-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

/** What one refusal may take (reading what the shared chains claim took tens of seconds). */
const BOUND_MS = 5000

function minimalVarint(v: bigint): Buffer {
  for (let len = 1; len <= 9; len++) {
    const b = varintOfLength(v, len)
    if (b) return b
  }
  throw new Error('no varint')
}

/** A chain of `small` rows whose bodies overflow a little, then one whose body spans `bigPad` bytes. */
function writeBase(path: string, pageSize: number, small: number, bigPad: number): void {
  const db = new Database(path)
  try {
    db.pragma(`page_size = ${pageSize}`)
    db.pragma('journal_mode = DELETE')
    db.exec(CHAIN_SCHEMA)
    const head = appendRows(db, KEY, rowsOf(small, pageSize), GENESIS)
    appendRows(db, KEY, rowsOf(1, bigPad, small), head)
  } finally {
    db.close()
  }
}

/**
 * `path` rewritten so every leaf cell but the long one claims the long row's payload and chain (its
 * local part and first overflow page) under its own rowid. Returns how many cells now share it.
 */
function shareTheLongChain(path: string): number {
  const pages = basePages(path)
  const file = readFileSync(path)
  const ps = pages.pageSize
  const usable = ps - file[20]!
  let big: { bytes: Buffer; size: number; overflow: number } | null = null
  for (const n of pages.leaf) {
    const page = file.subarray((n - 1) * ps, n * ps)
    for (let i = 0; i < page.readUInt16BE((n === 1 ? 100 : 0) + 3); i++) {
      const c = cellAt(page, page.readUInt16BE((n === 1 ? 100 : 0) + 8 + 2 * i), usable)
      if (big === null || c.size > big.size) big = c
    }
  }
  const long = big!
  const n1 = readVarint(long.bytes, 0)
  const n2 = readVarint(long.bytes, n1)
  const local = long.bytes.subarray(n1 + n2)
  let shared = 0
  for (const n of pages.leaf) {
    if (n === 1) continue
    const done = rewriteLeaf(file, ps, n, (page, at, u) => {
      const c = cellAt(page, at, u)
      if (c.overflow === long.overflow) return c.bytes
      const m = readVarint(page, at)
      readVarint(page, at + m)
      const rowid = varint.big ?? BigInt(varint.value)
      return Buffer.concat([minimalVarint(BigInt(long.size)), minimalVarint(rowid), local])
    })
    if (done) shared += file.subarray((n - 1) * ps).readUInt16BE(3)
  }
  writeFileSync(path, file)
  return shared
}

/** The small rows' bodies overflow by about a page; the long one's local part is kept short. */
function sharedCase(name: string, pageSize: number, small: number, longPages: number): string {
  const path = join(root, `${name}.db`)
  // Choose the long body so its local part is the minimum (§1.6: minLocal when the remainder past it
  // would not fit), which every small leaf has room for.
  const usable = pageSize
  const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23
  let pad = longPages * (usable - 4)
  for (let tries = 0; tries < 3; tries++) {
    rmSync(path, { force: true })
    writeBase(path, pageSize, small, pad)
    const size = bigPayloadSize(path)
    const over = (size - minLocal) % (usable - 4)
    if (over === 0 || minLocal + over > usable - 35) break
    pad += usable - 4 - over
  }
  return path
}

function bigPayloadSize(path: string): number {
  const db = new Database(path, { readonly: true })
  try {
    const r = db.prepare('SELECT max(length(canonical_body)) AS b FROM chain').get() as { b: number }
    // The record: the header and the other columns besides the body (all short).
    const file = readFileSync(path)
    const ps = file.readUInt16BE(16)
    const usable = ps - file[20]!
    let best = 0
    for (const n of basePages(path).leaf) {
      const page = file.subarray((n - 1) * ps, n * ps)
      const h = n === 1 ? 100 : 0
      for (let i = 0; i < page.readUInt16BE(h + 3); i++)
        best = Math.max(best, cellAt(page, page.readUInt16BE(h + 8 + 2 * i), usable).size)
    }
    expect(best).toBeGreaterThan(r.b)
    return best
  } finally {
    db.close()
  }
}

async function refusal(run: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const t = Date.now()
  try {
    await run()
    return { error: null, ms: Date.now() - t }
  } catch (e) {
    return { error: e, ms: Date.now() - t }
  }
}

describe('cells sharing one overflow chain', () => {
  const cases: [string, number, number, number][] = [
    ['p512', 512, 1500, 2000],
    ['p1024', 1024, 800, 1200],
    ['p4096', 4096, 300, 400],
  ]
  for (const [name, pageSize, small, longPages] of cases)
    it(`${name}: refused as corrupt, promptly, by verify (direct and through SQLite) and the columns pass`, async () => {
      const path = sharedCase(name, pageSize, small, longPages)
      const honest = await verifyFile(path, keys, {})
      expect(honest.verdict?.valid, 'the honest base').toBe(true)
      const shared = shareTheLongChain(path)
      expect(shared).toBeGreaterThan(small / 2)
      const fileBytes = readFileSync(path).length
      const claimed = shared * longPages * pageSize
      expect(claimed).toBeGreaterThan(20 * fileBytes)

      const v = await refusal(() => verifyFile(path, keys, {}))
      expect(v.error, `verify: ${String(v.error)}`).toBeInstanceOf(AuditError)
      expect((v.error as AuditError).code).toBe('corrupt')
      expect((v.error as AuditError).message).toMatch(/share overflow pages/)
      expect(v.ms).toBeLessThan(BOUND_MS)

      // Through SQLite on the private copy (the path of every file the direct reader declines).
      const was = process.env['BIJOTEL_READER']
      process.env['BIJOTEL_READER'] = 'sqlite'
      try {
        const q = await refusal(() => verifyFile(path, keys, {}))
        expect(q.error, `verify through SQLite: ${String(q.error)}`).toBeInstanceOf(AuditError)
        expect((q.error as AuditError).message).toMatch(/share overflow pages/)
        expect(q.ms).toBeLessThan(BOUND_MS)
      } finally {
        if (was === undefined) delete process.env['BIJOTEL_READER']
        else process.env['BIJOTEL_READER'] = was
      }

      const opened = await OpenedChain.open(path)
      try {
        const c = await refusal(() => opened.read((s) => s.lastColumns(s.count(), INTEGRITY_COLUMNS)))
        expect(c.error, `columns: ${String(c.error)}`).toBeInstanceOf(AuditError)
        expect(c.ms).toBeLessThan(BOUND_MS)
      } finally {
        opened.close()
      }
    }, 120_000)

  it('an honest chain with long overflow chains, read whole many times through one source, is never refused', async () => {
    const path = sharedCase('honest', 512, 300, 40)
    const opened = await OpenedChain.open(path)
    try {
      for (let pass = 0; pass < 12; pass++) {
        const rows = await opened.read((s) => {
          let n = 0
          const r = s.resolve(undefined)
          s.scan(s.place(r).place, r, () => {
            n++
          })
          return n
        })
        expect(rows).toBe(301)
      }
    } finally {
      opened.close()
    }
    const v = await verifyFile(path, keys, {})
    expect(v.verdict?.valid).toBe(true)
    process.env['BIJOTEL_READER'] = 'sqlite'
    try {
      const q = await verifyFile(path, keys, {})
      expect(q.verdict?.valid).toBe(true)
      expect(q.verdict?.entries).toBe(301)
    } finally {
      delete process.env['BIJOTEL_READER']
    }
  }, 120_000)
})
