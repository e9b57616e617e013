// The direct reader must read exactly what SQLite reads: every row, every column, byte for byte,
// on every fixture (WAL or not) — or decline the file.
import Database from 'better-sqlite3'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Unsupported } from '../../../../src/main/chain/sqlite/decline'
import { AuditError } from '../../../../src/main/base/errors'
import { openDirect, withDirect, type DirectChain } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'

const FIXTURES = join(__dirname, '../../../../../shared/fixtures')
const work = mkdtempSync(join(tmpdir(), 'bijotel-direct-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function sqliteRows(path: string): unknown[][] {
  // SQLite opens a private copy: the fixture (and its -wal) stays untouched.
  const dir = mkdtempSync(join(work, 'c-'))
  const copy = join(dir, 'chain.db')
  copyFileSync(path, copy)
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`)
  const db = new Database(copy, { readonly: true })
  try {
    return db
      .prepare('SELECT rowid, * FROM chain ORDER BY rowid')
      .raw(true)
      .safeIntegers(true)
      .all() as unknown[][]
  } finally {
    db.close()
  }
}

function directRows(chain: DirectChain): unknown[][] {
  const s = new RowScanner(chain)
  const out: unknown[][] = []
  try {
    s.scan(0, chain.leaves.pages.length, (c) => {
      const row: unknown[] = [c.rowidBig ?? BigInt(c.rowid)]
      for (let i = 0; i < chain.ncols; i++) row.push(i === chain.seqColumn ? row[0] : c.valueBig(i))
      out.push(row)
    })
  } finally {
    s.close()
  }
  return out
}

const dbs = readdirSync(FIXTURES).filter((f) => f.endsWith('.db'))

describe('direct reader against SQLite, on every fixture', () => {
  it('finds the fixtures', () => expect(dbs.length).toBeGreaterThan(10))
  for (const name of dbs) {
    it(name, () => {
      const path = join(FIXTURES, name)
      let chain: DirectChain
      try {
        chain = openDirect(path)
      } catch (e) {
        // Declining is allowed only for files that are not plain chains.
        expect(e).toBeInstanceOf(Unsupported)
        expect(name.startsWith('bad-') || name.startsWith('odd-')).toBe(true)
        return
      }
      expect(directRows(chain)).toEqual(sqliteRows(path))
    })
  }
})

function rowOf(chain: DirectChain, c: RowScanner['cell']): unknown[] {
  const row: unknown[] = [c.rowidBig ?? BigInt(c.rowid)]
  for (let i = 0; i < chain.ncols; i++) row.push(i === chain.seqColumn ? row[0] : c.valueBig(i))
  return row
}

describe('backward reading (read-behind window, right edge) against forward reading, on every fixture', () => {
  for (const name of dbs.filter((n) => !n.startsWith('bad-') && !n.startsWith('odd-'))) {
    it(name, () => {
      const chain = openDirect(join(FIXTURES, name))
      const forward = directRows(chain)
      const s = new RowScanner(chain)
      try {
        const backward: unknown[][] = []
        s.scanBackward(0, chain.leaves.pages.length, (c) => void backward.push(rowOf(chain, c)))
        // Interleaved with forward page reads, as a caller reading overflow pages would do.
        const mixed: unknown[][] = []
        s.scanBackward(0, chain.leaves.pages.length, (c) => {
          s.pager.page(chain.leaves.pages[0]!)
          mixed.push(rowOf(chain, c))
        })
        const reversed = [...forward].reverse()
        expect(backward).toEqual(reversed)
        expect(mixed).toEqual(reversed)
        // The newest leaves from the tree's right edge, newest first, from the first cell given:
        // exactly the last n rows, on the leaves (and key bounds) the full leaf list ends with.
        for (const n of [1, 2, 3, Math.ceil(forward.length / 2), forward.length, forward.length + 5]) {
          const seen: unknown[][][] = []
          const leaves = s.scanLastLeaves(n, chain.root, (page, h, count, first) => {
            const rows: unknown[][] = []
            for (let k = first; k < count; k++) {
              s.cell.read(page, page.readUInt16BE(h + 8 + 2 * k))
              s.pager.page(chain.leaves.pages[0]!)
              rows.push(rowOf(chain, s.cell))
            }
            seen.unshift(rows)
          })
          const at = chain.leaves.pages.length - leaves.pages.length
          expect(Array.from(leaves.pages)).toEqual(Array.from(chain.leaves.pages.subarray(at)))
          expect(Array.from(leaves.maxKey)).toEqual(Array.from(chain.leaves.maxKey.subarray(at)))
          expect(seen.length).toBe(leaves.pages.length)
          expect(seen.flat()).toEqual(forward.slice(-n))
        }
      } finally {
        s.close()
      }
    })
  }
})

describe('withDirect', () => {
  const clean = join(FIXTURES, 'clean.db')
  it('gives the result of reading directly', async () => {
    expect(await withDirect(clean, async (c) => c.ncols)).toBeGreaterThan(5)
  })
  it('hands a file it declines or trips on back to SQLite (undefined), but passes AuditErrors', async () => {
    expect(await withDirect(join(FIXTURES, 'bad-not-sqlite.db'), async () => 1)).toBeUndefined()
    expect(
      await withDirect(clean, async () => {
        throw new RangeError('offset out of range')
      }),
    ).toBeUndefined()
    await expect(
      withDirect(clean, async () => {
        throw new AuditError('cancelled', 'cancelled')
      }),
    ).rejects.toThrow('cancelled')
    expect(await withDirect(clean, async () => 1, { BIJOTEL_READER: 'sqlite' })).toBeUndefined()
  })
})
