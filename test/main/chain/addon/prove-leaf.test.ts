// proveLeaf (native/src/addon.c: a leaf's cells decoded in C and proven where they lie, for verify's
// runs of clean rows) held to what it replaces: CellReader.read of each cell, then proveRow, while
// the rowids follow on from `first` up to `last`, stopping at the first cell either declines, that
// overflows its page, or that is not proven. Compared on every leaf of every fixture and of
// generated chains (overflow pages, reserved bytes, 64 KB and 512-byte pages, WAL images), as found
// and with seeded changes to the cell pointers, cell headers, record headers, rowids and any byte,
// with `from`, `first` and `last` moved; the count and the link it leaves must be equal.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { nativeAddon, type NativeAddon } from '../../../../src/main/chain/addon/row-prover'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { headerOffset, leafCells } from '../../../../src/main/chain/sqlite/page'
import { layoutOf } from '../../../../src/main/chain/source/direct-source'
import { hmacHex } from '../../../../src/main/chain/seal'
import { parseSecrets, type KeyMaterial } from '../../../../src/main/chain/keys'
import { KEY_HEX, SMALL, writeChainFolder, type ChainShape } from '../../testing/exact-chains'
import { dbPath, expected, fixtureNames, secretInputs } from '../../testing/fixtures'
import { mulberry32 } from '../../testing/prng'

const addon = nativeAddon()
const root = mkdtempSync(join(tmpdir(), 'prove-leaf-test-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Tally {
  cases: number
  proven: number
  partial: number
}

/** Every leaf of the chain at `path`, as found and with seeded changes, both ways. */
function holdToRows(a: NativeAddon, path: string, keys: KeyMaterial[], seed: number, tally: Tally): void {
  const chain = openDirect(path)
  const scanner = new RowScanner(layoutOf(chain))
  const cell = scanner.cell
  const col = (n: string): number => scanner.col(n)
  const k = {
    body: col('canonical_body'),
    ch: col('canonical_hash'),
    prev: col('prev_hash'),
    mac: col('hmac_hash'),
  }
  const order = Int32Array.of(
    k.body,
    k.ch,
    k.prev,
    k.mac,
    col('timestamp_ns'),
    col('span_name'),
    col('span_kind'),
  )
  const { ncols, usable, minFields } = scanner.pageLayout
  const layout = Int32Array.of(ncols, usable, minFields)
  const rnd = mulberry32(seed)
  const int = (n: number): number => Math.floor(rnd() * n)
  const pageSize = scanner.pager.pageSize
  const rootPage = chain.spec.root

  /** The per-row path: CellReader, then proveRow, while the rowids follow on. */
  const byRows = (
    page: Buffer,
    h: number,
    count: number,
    from: number,
    first: number,
    last: number,
  ): number => {
    let n = 0
    for (let i = from; i < count; i++, n++) {
      try {
        cell.read(page, page.readUInt16BE(h + 8 + 2 * i))
      } catch {
        break
      }
      if (cell.rowidBig !== null || cell.rowid !== first + n || cell.rowid > last) break
      if (cell.buf !== page) break // an overflowing payload: proven a row at a time, by proveRow
      if (!a.proveRow(cell.buf, cell.types, cell.offs)) break
    }
    return n
  }
  try {
    const pages = chain.leaves.pages
    for (let l = 0; l < pages.length; l++) {
      const n = pages[l]!
      const found = Buffer.from(scanner.pager.page(n))
      const h = headerOffset(n)
      const count = leafCells(found, n, pageSize, rootPage)
      if (count === 0) continue
      for (let c = 0; c < 12; c++) {
        // Each try reads the leaf's cells again: a pass of its own (CellReader bounds a pass's
        // overflow pages by the file's).
        cell.startPass()
        const from = c === 0 ? 0 : int(count)
        // The link and key of cell `from` as found: the run starts where the chain says it does.
        cell.read(found, found.readUInt16BE(h + 8 + 2 * from))
        if (cell.rowidBig !== null) continue
        const link = cell.text(k.prev) ?? ''
        const ch = cell.text(k.ch) ?? ''
        const key = keys.find((m) => hmacHex(m.bytes, link, ch) === cell.text(k.mac))
        if (key === undefined || !/^[0-9a-f]{64}$/.test(link)) continue
        let first = cell.rowid
        let last = Number.MAX_SAFE_INTEGER
        const page = Buffer.from(found)
        let what = 'as found'
        if (c > 0) {
          const kind = int(7)
          if (kind === 0) first += int(3) - 1
          else if (kind === 1) last = first + int(count)
          else {
            // One to three bytes changed: cell pointers, a cell's header, or anywhere.
            for (let j = 1 + int(3); j > 0; j--) {
              const at =
                kind === 2
                  ? h + 8 + int(2 * count)
                  : kind === 3
                    ? page.readUInt16BE(h + 8 + 2 * int(count)) + int(12)
                    : kind === 4
                      ? h + 3 + int(2)
                      : int(page.length)
              if (at < page.length) page[at] = rnd() < 0.5 ? int(256) : page[at]! ^ (1 << int(8))
            }
          }
          what = `change ${kind}`
        }
        let now: number
        try {
          now = leafCells(page, n, pageSize, rootPage)
        } catch {
          continue // the scan declines the page before offering it
        }
        const state = a.hmacKey(key.bytes)
        a.startRun(state, Buffer.from(link, 'latin1'), order)
        const want = byRows(page, h, now, from, first, last)
        const wantLink = a.link()
        a.startRun(state, Buffer.from(link, 'latin1'), order)
        const got = a.proveLeaf(page, h, from, first, last, layout)
        expect({ path, n, from, what, got, link: a.link() }).toEqual({
          path,
          n,
          from,
          what,
          got: want,
          link: wantLink,
        })
        tally.cases++
        if (got > 0) tally.proven++
        if (got > 0 && got < count - from) tally.partial++
      }
    }
  } finally {
    scanner.close()
  }
}

describe.skipIf(addon === null)('proveLeaf proves exactly the cells the per-row path proves', () => {
  const a = addon as NativeAddon

  it('every leaf of every fixture, as found and changed', () => {
    const tally = { cases: 0, proven: 0, partial: 0 }
    for (const name of fixtureNames()) {
      const keys = parseSecrets(secretInputs(expected(name).secrets))
      holdToRows(a, dbPath(name), keys, 0x1eaf + name.length, tally)
    }
    expect(tally.cases).toBeGreaterThan(1000)
    // Both answers occur, and runs that stop inside a leaf.
    expect(tally.proven).toBeGreaterThan(tally.cases / 10)
    expect(tally.proven).toBeLessThan(tally.cases)
    expect(tally.partial).toBeGreaterThan(20)
  }, 120_000)

  const shapes: [string, Partial<ChainShape>][] = [
    ['some bodies on overflow pages', { pageSize: 1024, bodyBytes: 500 }],
    ['every body on overflow pages', { pageSize: 1024, bodyBytes: 3000 }],
    ['512-byte pages, reserved bytes', { pageSize: 512, reserved: 32, bodyBytes: 0 }],
    ['64 KB pages in WAL', { pageSize: 65536, bodyBytes: 20_000, wal: true, walRows: 30, walCommits: 3 }],
  ]
  for (const [what, shape] of shapes) {
    it(`generated chain: ${what}`, () => {
      const tally = { cases: 0, proven: 0, partial: 0 }
      const chain = writeChainFolder(join(root, what.replace(/\W+/g, '-')), { ...SMALL, rows: 90, ...shape })
      holdToRows(a, chain, parseSecrets([{ encoding: 'hex', value: KEY_HEX }]), 77, tally)
      expect(tally.cases).toBeGreaterThan(10)
    }, 60_000)
  }

  it('refuses what is not its input, and proves nothing past its bounds', () => {
    const page = Buffer.alloc(4096)
    const layout = Int32Array.of(7, 4096, 0)
    expect(() => a.proveLeaf('x' as never, 0, 0, 1, 2, layout)).toThrow('expected a Uint8Array')
    expect(() => a.proveLeaf(page, 0, 0, 1, 2, new Float64Array(3) as never)).toThrow(
      'expected an Int32Array',
    )
    // A header past the page, a negative start, a layout too short or too wide: nothing proven.
    expect(a.proveLeaf(page, 4095, 0, 1, 2, layout)).toBe(0)
    expect(a.proveLeaf(page, 0, -1, 1, 2, layout)).toBe(0)
    expect(a.proveLeaf(page, 0, 0, 1, 2, Int32Array.of(7, 4096))).toBe(0)
    expect(a.proveLeaf(page, 0, 0, 1, 2, Int32Array.of(65, 4096, 0))).toBe(0)
  })
})
