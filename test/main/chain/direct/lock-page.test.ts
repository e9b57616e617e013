// The lock-byte page (file format §1.4: the page holding bytes 2^30..2^30+511 is never a database
// page; pager.c getPageNormal answers SQLITE_CORRUPT for it). Sparse files past 1 GiB, seeded: a leaf
// of a 64 KiB-page chain moved just past the lock page (its parent's pointer and the header's page
// count updated) must be read exactly as SQLite reads it; a leaf moved onto the lock page itself is
// corrupt to SQLite, and the direct reader must give no rows for it. SQLite (read-only, on the file
// this test made: a sparse gigabyte is not copied) is the oracle.
import Database from 'better-sqlite3'
import { closeSync, cpSync, mkdtempSync, openSync, readSync, realpathSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { lockPage } from '../../../../src/main/chain/sqlite/header'
import { Rng } from '../../reliability/chainkit'
import { SMALL, writeChainFolder } from '../../testing/exact-chains'
import { basePages } from '../../testing/mutations'
import { directReading } from '../../testing/readings'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-lock-page-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const PS = 65536

function readPage(fd: number, n: number): Buffer {
  const b = Buffer.alloc(PS)
  readSync(fd, b, 0, PS, (n - 1) * PS)
  return b
}

/** Moves leaf `leaf` to page `to` of the file at `path`: its parent's pointer and the page count follow. */
function moveLeaf(path: string, internal: number[], leaf: number, to: number): boolean {
  const fd = openSync(path, 'r+')
  try {
    let moved = false
    for (const n of internal) {
      const p = readPage(fd, n)
      const h = n === 1 ? 100 : 0
      const at = [h + 8]
      for (let i = 0; i < p.readUInt16BE(h + 3); i++) at.push(p.readUInt16BE(h + 12 + 2 * i))
      for (const a of at)
        if (p.readUInt32BE(a) === leaf) {
          p.writeUInt32BE(to, a)
          moved = true
        }
      if (moved) writeSync(fd, p, 0, PS, (n - 1) * PS)
      if (moved) break
    }
    if (!moved) return false
    writeSync(fd, readPage(fd, leaf), 0, PS, (to - 1) * PS)
    // The header's page count, valid (version-valid-for = change counter, §1.3.7); the file is sparse.
    const head = readPage(fd, 1).subarray(0, 100)
    head.writeUInt32BE(to, 28)
    head.writeUInt32BE(head.readUInt32BE(24), 92)
    writeSync(fd, head, 0, 100, 0)
    return true
  } finally {
    closeSync(fd)
  }
}

function sqliteRows(path: string): unknown[][] | string {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    return db
      .prepare('SELECT rowid, * FROM chain NOT INDEXED')
      .raw(true)
      .safeIntegers(true)
      .all() as unknown[][]
  } catch (e) {
    return (e as Error).message
  } finally {
    db.close()
  }
}

describe('the lock-byte page at 1 GiB', () => {
  it('a leaf past it reads as SQLite reads it; a leaf on it gives no rows', () => {
    const base = join(root, 'base')
    writeChainFolder(base, { ...SMALL, rows: 40, pageSize: PS, bodyBytes: 20000 })
    const probe = join(root, 'probe')
    cpSync(base, probe, { recursive: true })
    const pages = basePages(join(probe, 'chain.db'))
    rmSync(probe, { recursive: true, force: true })
    expect(pages.internal.length).toBeGreaterThan(0)
    const lock = lockPage(PS)
    const wrong: string[] = []
    let same = 0
    let onLock = 0
    for (let k = 0; k < 6; k++) {
      const r = new Rng(910_700 + k)
      const dir = join(root, `m-${k}`)
      cpSync(base, dir, { recursive: true })
      const path = join(dir, 'chain.db')
      const leaf = r.pick(pages.leaf)
      const to = k % 3 === 0 ? lock : lock + r.int(1, 3)
      if (!moveLeaf(path, pages.internal, leaf, to)) continue
      const label = `seed ${910_700 + k}: leaf ${leaf} → page ${to} (lock page ${lock})`
      const oracle = sqliteRows(path)
      const direct = directReading(path)
      if (to === lock) {
        if (typeof oracle !== 'string') wrong.push(`${label}: SQLite read ${oracle.length} rows`)
        if (direct.kind === 'rows') wrong.push(`${label}: direct read ${direct.rows.length} rows`)
        else onLock++
      } else if (direct.kind === 'rows') {
        if (typeof oracle === 'string' || !isDeepStrictEqual(direct.rows, oracle))
          wrong.push(
            `${label}: direct read ${direct.rows.length} rows, SQLite ${typeof oracle === 'string' ? oracle : oracle.length}`,
          )
        else same++
      }
      rmSync(dir, { recursive: true, force: true })
    }
    expect(wrong).toEqual([])
    expect(onLock).toBeGreaterThan(0)
    expect(same).toBeGreaterThan(0)
  }, 120_000)
})
