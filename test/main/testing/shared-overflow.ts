// Chain files whose cells share one overflow chain (file format §1.6: each overflow page belongs to
// one cell; SQLite's integrity_check calls a second reference corruption, its readers follow the
// pointers as given). `sharedCase` writes a chain of small overflowing rows and one row with a long
// chain; `shareTheLongChain` then points every other cell at that long chain, each keeping its own
// rowid: a few megabytes of file claiming gigabytes of payload.
import Database from 'better-sqlite3'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { readVarint, varint } from '../../../src/main/chain/sqlite/varint'
import { appendRows, CHAIN_SCHEMA, GENESIS } from '../reliability/chainkit'
import { cellAt, rewriteLeaf, varintOfLength } from './cell-recode'
import { KEY, rowsOf } from './exact-chains'
import { basePages } from './mutations'

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
export function shareTheLongChain(path: string): number {
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
export function sharedCase(
  root: string,
  name: string,
  pageSize: number,
  small: number,
  longPages: number,
): string {
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
