// The native page pass (pageFacts: a leaf's cells decoded and their facts read in one call) against
// the TypeScript it stands in for: the per-row path, which decides every cell the addon leaves. Whole
// passes must be identical — or fail identically — with and without the addon, on rows built for the
// edges of cell decoding and on leaf pages with seeded byte changes.
import Database from 'better-sqlite3'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ColumnsWanted } from '../../../../src/main/chain/columns/types'
import { leafColumns } from '../../../../src/main/chain/direct/page-columns'
import { readVarint, varint } from '../../../../src/main/chain/sqlite/varint'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { BASE_TS, bodyFor, SEC, TempChains, type SynthRow } from '../../integrity/testchain'
import { Rng, scratchDir } from '../../reliability/chainkit'
import { dbPath } from '../../testing/fixtures'
import { passOver } from '../../testing/passes'
import { factsAddon, RowFacter } from '../../../../src/main/chain/addon/row-facts'

const addon = factsAddon()
const FULL: ColumnsWanted = { facts: true, integrity: true }
const QUICK: ColumnsWanted = { facts: false, integrity: false }

/** Cells the addon's page pass reported, counted while `f` runs. */
function countingPages<T>(f: () => T): { result: T; cells: number } {
  const proto = RowFacter.prototype
  const real = proto.page
  let cells = 0
  proto.page = function (this: RowFacter, ...args: Parameters<RowFacter['page']>) {
    const n = real.apply(this, args)
    cells += n
    return n
  }
  try {
    const result = f()
    return { result, cells }
  } finally {
    proto.page = real
  }
}

/** A whole pass over the chain at `path`, or the error it ends with. */
function pass(
  path: string,
  native: boolean,
  wanted: ColumnsWanted,
): { part?: unknown; error?: string; cells: number } {
  const { value, error } = passOver(path, native, (scanner, leaves) =>
    countingPages(() => leafColumns(scanner, 0, leaves, 16, wanted, {})),
  )
  return value ? { part: value.result, cells: value.cells } : { error: error!, cells: 0 }
}

function expectSamePasses(path: string): { cells: number; failed: boolean } {
  let cells = 0
  let failed = false
  for (const wanted of [FULL, QUICK]) {
    const native = pass(path, true, wanted)
    const typescript = pass(path, false, wanted)
    expect(typescript.cells).toBe(0)
    expect(native.error).toBe(typescript.error)
    expect(native.part).toEqual(typescript.part)
    cells += native.cells
    failed ||= native.error !== undefined
  }
  return { cells, failed }
}

/** Cell `cell`'s field offsets: payload size, rowid, record header size, first serial type. */
function fields(page: Buffer, cell: number): { size: number; header: number; types: number } {
  const a = readVarint(page, cell)
  const size = varint.value
  const b = readVarint(page, cell + a)
  const header = cell + a + b
  return { size, header, types: header + readVarint(page, header) }
}

/** Write `value` as a varint of exactly `len` bytes at `at` (the field keeps its length). */
function putVarint(page: Buffer, at: number, len: number, value: number): void {
  for (let i = len - 1; i >= 0; i--) {
    page[at + i] = (value & 0x7f) | (i === len - 1 ? 0 : 0x80)
    value = Math.floor(value / 128)
  }
}

/** One seeded change to a random cell of a table leaf: random bytes, or a field moved to an edge. */
function mutateCell(page: Buffer, rng: Rng): void {
  const count = page.readUInt16BE(3)
  const cell = page.readUInt16BE(8 + 2 * rng.int(0, Math.max(1, count) - 1))
  const f = fields(page, cell)
  const sizeLen = readVarint(page, cell)
  switch (rng.int(0, 4)) {
    case 0: // payload size grown or shrunk, same length: runs past the page, or the record overruns it
      putVarint(page, cell, sizeLen, Math.max(0, f.size + rng.pick([-3, -1, 1, 8, 200, 1000, 3000])))
      break
    case 1: // record header size one off, or far off: a type varint crosses the header's end
      page[f.header] = Math.max(0, page[f.header]! + rng.pick([-1, 1, 60, -60]))
      break
    case 2: // a serial type: reserved, NULL, integers 0/1, REAL, empty text/blob, a long varint
      page[f.types + rng.int(0, 6)] = rng.pick([0, 1, 6, 7, 8, 9, 10, 11, 12, 13, 0x80, 0xff])
      break
    default: {
      // Mostly the cell's first bytes (payload size, rowid, record header), else anywhere.
      const at = rng.chance(0.25)
        ? rng.int(0, page.length - 1)
        : Math.min(page.length - 1, cell + rng.int(0, 23))
      page[at] = rng.chance(0.3) ? 0xff : rng.int(0, 255)
    }
  }
}

const chains = new TempChains()
const scratch = scratchDir('page-facts')
afterAll(() => {
  chains.dispose()
  scratch.cleanup()
})

describe.skipIf(addon === null)('native page facts equal the per-row path', () => {
  it('on rows at the edges of cell decoding: seqs beyond 2^53, overflowing and odd bodies, loose timestamps, added columns', () => {
    const rows: SynthRow[] = []
    const seqs = [-(2n ** 62n), -(2n ** 53n) - 1n, -(2n ** 53n) + 1n, -5n, 0n, 1n, 2n ** 32n - 1n, 2n ** 32n]
    seqs.push(2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 62n)
    const bodies: SynthRow['body'][] = [
      bodyFor('openai'),
      'x'.repeat(5000) + bodyFor('big'), // not JSON, overflowing
      JSON.stringify({ attributes: { 'gen_ai.system': 'huge', pad: 'y'.repeat(20000) } }),
      JSON.stringify({ attributes: { 'gen_ai.provider.n\\u0061me': 'escaped' } }), // JSON.parse decides
      Buffer.from([0xff, 0xfe, 0x7b]), // not UTF-8
      null,
      '',
      bodyFor('é-provider'),
      JSON.stringify({ attributes: { 'gen_ai.provider.name': 'p', 'gen_ai.request.model': 'm-1' } }),
    ]
    const hashes: SynthRow['hash'][] = ['a'.repeat(64), 'é'.repeat(8), Buffer.from([1, 2]), 7, 0, null, '']
    let k = 0
    for (const seq of seqs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      for (let j = 0; j < 4; j++, k++) {
        rows.push({
          seq: seq + BigInt(j),
          ts: BASE_TS + BigInt(k) * SEC * (k % 5 === 0 ? -1n : 1n),
          body: bodies[k % bodies.length]!,
          hash: hashes[k % hashes.length]!,
        })
      }
    }
    // Bodies whose records end just below, at and just above the largest payload kept on a 4 KB
    // page (4061 bytes; the other columns take ≈160).
    const edge = (pad: string): string => JSON.stringify({ attributes: { 'gen_ai.system': 'edge' }, pad })
    for (let len = 3850; len <= 3950; len++) {
      rows.push({ seq: 10_000 + len, ts: BASE_TS, body: edge('p'.repeat(len - edge('').length)) })
    }
    // Runs of four seqs from each edge value; where runs overlap, one row per seq.
    const unique = [...new Map(rows.map((r) => [BigInt(r.seq), r])).values()]
    const path = chains.write(unique)
    const db = new Database(path)
    try {
      // Timestamps that are not integers (REAL, TEXT digits, text), then a column added later: its
      // older rows end before it (NULL).
      db.exec(`UPDATE chain SET timestamp_ns = 1.7e18 WHERE seq = 1`)
      db.exec(`UPDATE chain SET timestamp_ns = '1700000000000000000' WHERE seq = 2`)
      db.exec(`UPDATE chain SET timestamp_ns = 'soon' WHERE seq = ${2n ** 32n}`)
      db.exec(`ALTER TABLE chain ADD COLUMN note TEXT`)
      db.exec(`INSERT INTO chain (seq, timestamp_ns, canonical_body, canonical_hash, prev_hash, hmac_hash, note)
               VALUES (${2n ** 62n + 100n}, 1, X'7b7d', 'h', '', '', 'later')`)
    } finally {
      db.close()
    }
    const { cells } = expectSamePasses(path)
    // The addon decided the plain rows itself (two passes), and left the others.
    expect(cells).toBeGreaterThan(10)
    expect(cells).toBeLessThan(2 * (unique.length + 1))
  })

  it('on leaf pages with seeded byte changes (cell pointers, varints, record headers, serial types, values)', () => {
    const rng = new Rng(0x5eed)
    let decided = 0
    let failures = 0
    for (const name of ['clean', 'odd-non-json-body', 'ts-column-edit', 'duplicate-body']) {
      const original = readFileSync(dbPath(name))
      const chain = openDirect(dbPath(name))
      const pageSize = chain.spec.pageSize
      const leaves = Array.from(chain.leaves.pages)
      for (let n = 0; n < 60; n++) {
        const bytes = Buffer.from(original)
        const leaf = leaves[rng.int(0, leaves.length - 1)]!
        const page = bytes.subarray((leaf - 1) * pageSize, leaf * pageSize)
        for (let changes = rng.int(1, 3); changes > 0; changes--) mutateCell(page, rng)
        const path = join(scratch.dir, `${name}-${n}.db`)
        writeFileSync(path, bytes)
        const r = expectSamePasses(path)
        decided += r.cells
        if (r.failed) failures++
      }
    }
    // Both kinds of outcome were reached: passes the addon helped with, and refusals.
    expect(decided).toBeGreaterThan(1000)
    expect(failures).toBeGreaterThan(5)
  })
})
