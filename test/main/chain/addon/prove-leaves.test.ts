// proveLeaves (native/src/addon.c: the leaves of one read window proven in one call) held to what it
// replaces: RowScanner.scanLeafFirst's loop over those leaves — each leaf's header checked as
// scanLeaves checks it (in the window, not the lock-byte page, a table leaf, 1 to MX_CELL cells),
// then proveLeaf from its first cell, while the rowids follow on. Compared over windows of every
// fixture and of generated chains (overflow pages, reserved bytes, 512-byte and 64 KB pages, WAL
// images), as found and with seeded changes: page bytes (type, cell count, pointers, anywhere), the
// leaf list (a page outside the window, the lock-byte page), the window's stated size, `first` and
// `last`. The rows, the three outputs and the link it leaves must be equal.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { nativeAddon, type NativeAddon } from '../../../../src/main/chain/addon/row-prover'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { RowScanner } from '../../../../src/main/chain/direct/scan'
import { headerOffset, maxCells, PAGE_LEAF_TABLE } from '../../../../src/main/chain/sqlite/page'
import { layoutOf } from '../../../../src/main/chain/source/direct-source'
import { hmacHex } from '../../../../src/main/chain/seal'
import { parseSecrets, type KeyMaterial } from '../../../../src/main/chain/keys'
import { KEY_HEX, SMALL, writeChainFolder, type ChainShape } from '../../testing/exact-chains'
import { dbPath, expected, fixtureNames, secretInputs } from '../../testing/fixtures'
import { mulberry32 } from '../../testing/prng'

const addon = nativeAddon()
const root = mkdtempSync(join(tmpdir(), 'prove-leaves-test-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Tally {
  cases: number
  whole: number
  partial: number
  beyond: number
}

interface Answer {
  rows: number
  out: number[]
  link: string
}

/** The loop proveLeaves replaces, leaf by leaf through proveLeaf. */
function perLeaf(
  a: NativeAddon,
  win: Buffer,
  pages: Int32Array,
  at: number,
  g: Int32Array,
  first: number,
  last: number,
): Answer {
  const [, , , size, winFirst, winCount, lock] = g as unknown as number[]
  const layout = g.subarray(0, 3)
  let rows = 0
  let whole = 0
  let part = 0
  let beyond = 0
  for (let l = at; l < pages.length; l++) {
    const n = pages[l]!
    if (n < winFirst! || n - winFirst! >= winCount! || (n - winFirst! + 1) * size! > win.length) {
      beyond = 1
      break
    }
    if (n === lock) break
    const page = win.subarray((n - winFirst!) * size!, (n - winFirst! + 1) * size!)
    const h = headerOffset(n)
    const count = (page[h + 3]! << 8) | page[h + 4]!
    if (page[h] !== PAGE_LEAF_TABLE || count < 1 || count > maxCells(size!)) break
    const done = a.proveLeaf(page, h, 0, first + rows, last, layout)
    rows += done
    if (done < count) {
      part = done
      break
    }
    whole++
  }
  return { rows, out: [whole, part, beyond], link: a.link() }
}

/** Windows of the chain at `path` around each leaf, as found and with seeded changes, both ways. */
function holdToLeaves(a: NativeAddon, path: string, keys: KeyMaterial[], seed: number, tally: Tally): void {
  const chain = openDirect(path)
  const scanner = new RowScanner(layoutOf(chain))
  const cell = scanner.cell
  const col = (n: string): number => scanner.col(n)
  const order = Int32Array.of(
    col('canonical_body'),
    col('canonical_hash'),
    col('prev_hash'),
    col('hmac_hash'),
    col('timestamp_ns'),
    col('span_name'),
    col('span_kind'),
  )
  const { ncols, usable, minFields } = scanner.pageLayout
  const size = scanner.pager.pageSize
  const rnd = mulberry32(seed)
  const int = (n: number): number => Math.floor(rnd() * n)
  try {
    const leaves = chain.leaves.pages
    for (let l = 0; l < leaves.length; l++) {
      const n = leaves[l]!
      for (let c = 0; c < 6; c++) {
        // The window: a few pages before and after leaf l, each as the pager serves it (WAL images
        // included), copied.
        const lo = Math.max(1, n - int(4))
        const hi = Math.min(chain.spec.dbPages, n + 1 + int(12))
        const win = Buffer.alloc((hi - lo) * size)
        for (let m = lo; m < hi; m++) {
          try {
            scanner.pager.page(m).copy(win, (m - lo) * size)
          } catch {
            // the lock-byte page: left zero
          }
        }
        cell.startPass()
        const first0 = win.subarray((n - lo) * size)
        const h = headerOffset(n)
        if (first0[h] !== PAGE_LEAF_TABLE || ((first0[h + 3]! << 8) | first0[h + 4]!) === 0) continue
        cell.read(first0, first0.readUInt16BE(h + 8))
        if (cell.rowidBig !== null) continue
        const link = cell.text(order[2]!) ?? ''
        const ch = cell.text(order[1]!) ?? ''
        const key = keys.find((m) => hmacHex(m.bytes, link, ch) === cell.text(order[3]!))
        if (key === undefined || !/^[0-9a-f]{64}$/.test(link)) continue
        let first = cell.rowid
        let last = Number.MAX_SAFE_INTEGER
        let pages = leaves.slice(0, Math.min(leaves.length, l + 1 + int(16)))
        const g = Int32Array.of(ncols, usable, minFields, size, lo, hi - lo, 1 << 30)
        const kind = c === 0 ? -1 : int(8)
        if (kind === 0) first += int(3) - 1
        else if (kind === 1) last = first + int(40)
        else if (kind === 2)
          g[6] = lo + int(hi - lo) // a lock-byte page inside the window
        else if (kind === 3)
          g[5] = hi - lo + 1 + int(4) // a window said to hold more than it does
        else if (kind === 4 && l + 1 < pages.length) pages[l + 1 + int(pages.length - l - 1)] = hi + int(3)
        else if (kind === 5) pages = pages.slice(0, l + 1)
        else {
          // One to four bytes changed: a page's type or cell count, a cell pointer, anywhere.
          for (let j = 1 + int(4); j > 0; j--) {
            const p = int(hi - lo) * size
            const ph = p + headerOffset(lo + p / size)
            const at = [ph, ph + 3 + int(2), ph + 8 + int(16), p + int(size)][int(4)]!
            win[at] = rnd() < 0.5 ? int(256) : win[at]! ^ (1 << int(8))
          }
        }
        const state = a.hmacKey(key.bytes)
        a.startRun(state, Buffer.from(link, 'latin1'), order)
        const want = perLeaf(a, win, pages, l, g, first, last)
        a.startRun(state, Buffer.from(link, 'latin1'), order)
        const out = Int32Array.of(-1, -1, -1)
        const rows = a.proveLeaves!(win, pages, l, g, first, last, out)
        const got: Answer = { rows, out: [...out], link: a.link() }
        expect({ path, n, kind, ...got }).toEqual({ path, n, kind, ...want })
        tally.cases++
        if (got.out[0]! > 0) tally.whole++
        if (got.out[1]! > 0) tally.partial++
        if (got.out[2] === 1) tally.beyond++
      }
    }
  } finally {
    scanner.close()
  }
}

describe.skipIf(addon === null || typeof addon.proveLeaves !== 'function')(
  'proveLeaves proves exactly what proveLeaf proves leaf by leaf',
  () => {
    const a = addon as NativeAddon

    it('windows of every fixture, as found and changed', () => {
      const tally = { cases: 0, whole: 0, partial: 0, beyond: 0 }
      for (const name of fixtureNames()) {
        const keys = parseSecrets(secretInputs(expected(name).secrets))
        holdToLeaves(a, dbPath(name), keys, 0x1eaf + name.length, tally)
      }
      expect(tally.cases).toBeGreaterThan(500)
      // Every way out occurs: leaves proven whole, a leaf proven in part, a leaf past the window.
      expect(tally.whole).toBeGreaterThan(tally.cases / 10)
      expect(tally.partial).toBeGreaterThan(10)
      expect(tally.beyond).toBeGreaterThan(10)
    }, 120_000)

    const shapes: [string, Partial<ChainShape>][] = [
      ['some bodies on overflow pages', { pageSize: 1024, bodyBytes: 500 }],
      ['512-byte pages, reserved bytes', { pageSize: 512, reserved: 32, bodyBytes: 0 }],
      ['4 KB pages, several rows a leaf', { pageSize: 4096, bodyBytes: 200 }],
      ['64 KB pages in WAL', { pageSize: 65536, bodyBytes: 20_000, wal: true, walRows: 30, walCommits: 3 }],
    ]
    for (const [what, shape] of shapes) {
      it(`generated chain: ${what}`, () => {
        const tally = { cases: 0, whole: 0, partial: 0, beyond: 0 }
        const chain = writeChainFolder(join(root, what.replace(/\W+/g, '-')), {
          ...SMALL,
          rows: 120,
          ...shape,
        })
        holdToLeaves(a, chain, parseSecrets([{ encoding: 'hex', value: KEY_HEX }]), 78, tally)
        expect(tally.cases).toBeGreaterThan(10)
      }, 60_000)
    }

    it('refuses what is not its input, and proves nothing from a short geometry or output', () => {
      const win = Buffer.alloc(8192)
      const g = Int32Array.of(7, 4096, 0, 4096, 2, 2, 1 << 30)
      const out = new Int32Array(3)
      expect(() => a.proveLeaves!('x' as never, Int32Array.of(2), 0, g, 1, 2, out)).toThrow(
        'expected a Uint8Array',
      )
      expect(() => a.proveLeaves!(win, [2] as never, 0, g, 1, 2, out)).toThrow('expected an Int32Array')
      expect(a.proveLeaves!(win, Int32Array.of(2), 0, g.subarray(0, 6), 1, 2, out)).toBe(0)
      expect(a.proveLeaves!(win, Int32Array.of(2), 0, g, 1, 2, new Int32Array(2))).toBe(0)
      expect(a.proveLeaves!(win, Int32Array.of(2), -1, g, 1, 2, out)).toBe(0)
      // A zeroed page is no table leaf: nothing proven, and it says so without reading past the window.
      expect(a.proveLeaves!(win, Int32Array.of(2, 3, 4), 0, g, 1, 2, out)).toBe(0)
      expect([...out]).toEqual([0, 0, 0])
      expect(a.proveLeaves!(win, Int32Array.of(4), 0, g, 1, 2, out)).toBe(0)
      expect([...out]).toEqual([0, 0, 1])
      // Page numbers and a window start at the ends of int32: their difference is taken in 64 bits
      // (in 32 it overflowed, undefined behaviour that UBSan reported at addon.c's window check).
      for (const [start, page] of [
        [-1, 0x7fffffff],
        [-0x7fffffff, 0x7fffffff],
        [0x7fffffff, -0x80000000],
        [2, 0x7fffffff],
      ] as const) {
        const edge = Int32Array.of(7, 4096, 0, 4096, start, 2, 1 << 30)
        expect(a.proveLeaves!(win, Int32Array.of(page), 0, edge, 1, 2, out)).toBe(0)
        expect([...out]).toEqual([0, 0, 1])
      }
    })
  },
)
