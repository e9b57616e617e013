// The record matcher on hand-built cells (file-format §1.6, §2.1): an intact cell gives its rowid
// (1 to 9 varint bytes); a freeblock header over the cell's first four bytes loses the payload size
// and the rowid, and with a 1-byte rowid the header size too (matched headless); overflowing records
// are read through their chain; anything that does not fit the layout is not a record.
import { describe, expect, it } from 'vitest'
import { localPayload } from '../../../src/main/chain/sqlite/page'
import { CHAIN_COLUMNS } from '../../../src/main/chain/table'
import { recordLayout } from '../../../src/main/recovery/layout'
import { matchRecord } from '../../../src/main/recovery/record'
import { GENESIS, Rng, seal, sha256 } from '../reliability/chainkit'
import { recordTail } from './generator'
import type { RowVersion } from '../testing/sealed-writer'

const layout = recordLayout(new Map(CHAIN_COLUMNS.map((c, i) => [c, i])), CHAIN_COLUMNS.length, 0)
const rng = new Rng(7)
const key = rng.bytes(32)

function row(pad = 40): RowVersion {
  const body = Buffer.from(JSON.stringify({ name: 'chat', pad: rng.hex(pad) }))
  const canonical = sha256(body)
  return {
    seq: 1n,
    ts: 1_764_000_000_000_000_123n,
    trace: rng.hex(32),
    span: rng.hex(16),
    name: 'chat',
    kind: 'CLIENT',
    body,
    canonical,
    prev: GENESIS,
    hmac: seal(key, GENESIS, canonical),
    sem: rng.hex(64),
  }
}

function varint(v: bigint): Buffer {
  if (v >= 1n << 56n || v < 0n) {
    const out = [Number(v & 0xffn)]
    v = BigInt.asUintN(64, v) >> 8n
    for (let i = 0; i < 8; i++) {
      out.unshift(Number(v & 0x7fn) | 0x80)
      v >>= 7n
    }
    return Buffer.from(out)
  }
  const out: number[] = []
  do {
    out.unshift(Number(v & 0x7fn) | (out.length ? 0x80 : 0))
    v >>= 7n
  } while (v > 0n)
  return Buffer.from(out)
}

/** The header-size byte of a record whose header ends with the four 64-character hash columns. */
const headerSize = (tail: Buffer): number => tail.indexOf(Buffer.from([0x81, 0x0d])) + 8 + 1

/** A cell (payload size, rowid, record) at `at` in a page of `size` bytes; returns the page and the anchor offset. */
function pageWith(
  v: RowVersion,
  rowid: bigint,
  at = 200,
  size = 4096,
): { page: Buffer; anchor: number; record: number } {
  const tail = recordTail(v)
  const record = Buffer.concat([Buffer.from([headerSize(tail)]), tail])
  const cell = Buffer.concat([varint(BigInt(record.length)), varint(rowid), record])
  const page = Buffer.alloc(size)
  cell.copy(page, at)
  return { page, anchor: page.indexOf(layout.anchor, at), record: at + cell.length - record.length }
}

describe('matchRecord', () => {
  for (const rowid of [5n, 300n, 70_000n, 1n << 30n, (1n << 49n) + 9n, (1n << 56n) + 77n, -3n]) {
    it(`an intact cell: rowid ${rowid} (${varint(rowid).length} varint bytes) and every value`, () => {
      const v = row()
      const { page, anchor, record } = pageWith(v, rowid)
      const r = matchRecord(page, anchor, page.length, layout, null)!
      expect(r).not.toBeNull()
      expect(r.rowid).toBe(rowid)
      expect(r.start).toBe(record)
      expect(r.headless).toBe(false)
      expect([r.canonical, r.prev, r.hmac]).toEqual([v.canonical, v.prev, v.hmac])
      expect(r.ts).toBe(v.ts)
      expect(r.readBody()!.equals(v.body)).toBe(true)
    })
  }

  it('a freeblock header over a cell with a 1-byte rowid: header size lost, matched headless', () => {
    const v = row()
    const { page, anchor, record } = pageWith(v, 7n)
    // payload size (2 bytes) + rowid (1 byte) + header size (1 byte) = the 4 bytes a freeblock header takes
    page.writeUInt16BE(0, record - 3)
    page.writeUInt16BE(0x1f3, record - 1)
    const r = matchRecord(page, anchor, page.length, layout, null)!
    expect(r.headless).toBe(true)
    expect(r.rowid).toBeNull()
    expect(r.hmac).toBe(v.hmac)
    expect(r.readBody()!.equals(v.body)).toBe(true)
  })

  it('a freeblock header over a cell with a 2-byte rowid: rowid lost, header intact', () => {
    const v = row()
    const { page, anchor, record } = pageWith(v, 300n)
    page.writeUInt32BE(0x0000ffff, record - 4)
    const r = matchRecord(page, anchor, page.length, layout, null)!
    expect(r.headless).toBe(false)
    expect(r.rowid).toBeNull()
    expect(r.hmac).toBe(v.hmac)
  })

  it('an overflowing record is read through its overflow chain, and not without it', () => {
    const v = row(5000)
    const usable = 4096
    const tail = recordTail(v)
    const record = Buffer.concat([Buffer.from([headerSize(tail)]), tail])
    const page = Buffer.alloc(usable)
    const cell = Buffer.concat([varint(BigInt(record.length)), varint(9n)])
    cell.copy(page, 100)
    const start = 100 + cell.length
    const l = localPayload(record.length, usable)
    expect(l).toBeLessThan(record.length)
    record.copy(page, start, 0, l)
    page.writeUInt32BE(42, start + l)
    const rest = record.subarray(l)
    const anchor = page.indexOf(layout.anchor, start)
    const chain = { read: (from: number, len: number) => rest.subarray(from, from + len) }
    const r = matchRecord(page, anchor, usable, layout, (first, need) =>
      first === 42 && need === rest.length ? chain : null,
    )!
    expect(r.overflow).toBe(true)
    expect(r.rowid).toBe(9n)
    expect(r.hmac).toBe(v.hmac)
    expect(r.readBody()!.equals(v.body)).toBe(true)
    expect(matchRecord(page, anchor, usable, layout, () => null)).toBeNull()
  })

  it('what does not fit the layout is not a record', () => {
    const v = row()
    const upper = { ...v, hmac: v.hmac.toUpperCase() }
    const a = pageWith(upper, 5n)
    expect(matchRecord(a.page, a.anchor, a.page.length, layout, null)).toBeNull()
    // Cut short by the end of the page.
    const b = pageWith(v, 5n, 4096 - 300)
    expect(matchRecord(b.page, b.anchor, b.page.length, layout, null)).toBeNull()
    // The anchor bytes alone, in zeros.
    const c = Buffer.alloc(512)
    layout.anchor.copy(c, 100)
    expect(matchRecord(c, 100, 512, layout, null)).toBeNull()
  })
})
