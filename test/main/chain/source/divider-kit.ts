// Test kit: small sealed chains in small pages, their interior divider keys read from the file, and a
// divider key rewritten in place (SQLite file format §1.6: an interior table cell holds a child
// pointer and the largest rowid of that child's subtree). A lowered divider key makes a b-tree seek
// skip rows that a scan reads. Only files the test made under its own temporary folder are written.
import { closeSync, openSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { readVarint, varint } from '../../../../src/main/chain/sqlite/varint'
import { withSqliteCopy } from '../../testing/fixtures'
import { appendRows, CHAIN_SCHEMA, GENESIS, openScratch, spanRows } from '../../reliability/chainkit'

export const SECRET = 'a1'.repeat(32)
export const KEY = Buffer.from(SECRET, 'hex')
export const PAGE = 1024

/** A sealed chain of `rows` rows in `page`-byte pages: levels of interior pages above the leaves. */
export function smallPageChain(dir: string, name: string, rows: number, page = PAGE): string {
  const path = join(dir, name)
  const db = openScratch(path)
  try {
    db.pragma(`page_size = ${page}`)
    db.exec(CHAIN_SCHEMA)
    appendRows(db, KEY, spanRows(rows), GENESIS)
  } finally {
    db.close()
  }
  return path
}

export interface Divider {
  page: number
  /** File offset of the key varint, its length and value. */
  at: number
  len: number
  key: number
  depth: number
  /** The child page this key guards (its left child). */
  child: number
}

/** The chain table's root page, as SQLite's schema names it. */
export function chainRoot(path: string): number {
  return withSqliteCopy(
    path,
    (db) => db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'chain'").pluck().get() as number,
  )
}

/** Every divider key of the table b-tree rooted at `root`, read from the file (pages of `page` bytes). */
export function dividers(path: string, root: number, page = PAGE): Divider[] {
  const fd = openSync(path, 'r')
  const out: Divider[] = []
  try {
    const read = (n: number): Buffer => {
      const b = Buffer.alloc(page)
      readSync(fd, b, 0, page, (n - 1) * page)
      return b
    }
    const visit = (n: number, depth: number): void => {
      const p = read(n)
      const h = n === 1 ? 100 : 0
      if (p[h] !== 0x05) return
      const cells = p.readUInt16BE(h + 3)
      for (let i = 0; i < cells; i++) {
        const at = p.readUInt16BE(h + 12 + 2 * i)
        const len = readVarint(p, at + 4)
        const child = p.readUInt32BE(at)
        out.push({ page: n, at: (n - 1) * page + at + 4, len, key: varint.value, depth, child })
        visit(child, depth + 1)
      }
      visit(p.readUInt32BE(h + 8), depth + 1)
    }
    visit(root, 0)
  } finally {
    closeSync(fd)
  }
  return out
}

/** The rowids of a table leaf page, in cell order (file format §1.6). */
export function leafRowids(path: string, n: number, page = PAGE): number[] {
  const fd = openSync(path, 'r')
  try {
    const p = Buffer.alloc(page)
    readSync(fd, p, 0, page, (n - 1) * page)
    const h = n === 1 ? 100 : 0
    expect(p[h]).toBe(0x0d)
    const out: number[] = []
    for (let i = 0; i < p.readUInt16BE(h + 3); i++) {
      const at = p.readUInt16BE(h + 8 + 2 * i)
      readVarint(p, at + readVarint(p, at))
      out.push(varint.value)
    }
    return out
  } finally {
    closeSync(fd)
  }
}

/** Rewrite a 2-byte varint key in place (file format §1.6's varint: 7 bits a byte, high bit = more). */
export function setKey(path: string, d: Divider, key: number): void {
  expect(d.len).toBe(2)
  expect(key).toBeGreaterThanOrEqual(128)
  const fd = openSync(path, 'r+')
  try {
    writeSync(fd, Buffer.from([0x80 | (key >> 7), key & 0x7f]), 0, 2, d.at)
  } finally {
    closeSync(fd)
  }
}

/** SQLite's own counts on a copy: a scan of the whole table, a scan of a range, and a seek of it. */
export function sqliteCounts(
  path: string,
  from: number,
  to: number,
): { all: number; scan: number; seek: number } {
  return withSqliteCopy(path, (db) => {
    const n = (sql: string, ...p: number[]): number =>
      db
        .prepare(sql)
        .pluck()
        .get(...p) as number
    return {
      all: n('SELECT count(*) FROM chain'),
      scan: n('SELECT count(*) FROM chain NOT INDEXED WHERE +seq BETWEEN ? AND ?', from, to),
      seek: n('SELECT count(*) FROM chain WHERE seq BETWEEN ? AND ?', from, to),
    }
  })
}
