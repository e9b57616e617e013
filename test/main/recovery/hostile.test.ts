// Recovery on hostile files: whatever the bytes, the search ends quickly (no cycle, no quadratic
// walk), throws nothing but a one-line AuditError, and proves no row the chain did not have.
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { recoverFile } from '../../../src/main/recovery/verdict'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { Rng } from '../reliability/chainkit'
import { generate, type Generated } from './generator'

let g: Generated
let clean: Buffer
let keys: KeyMaterial[]
const PAGE = 4096

beforeAll(() => {
  g = generate(
    {
      name: 'hostile base',
      rows: 80,
      firstSeq: 1n,
      pageSize: PAGE,
      pad: 300,
      journal: 'delete',
      live: false,
      scenario: { kind: 'middle-delete', at: 30, count: 10 },
    },
    0xbad,
  )
  clean = readFileSync(g.db)
  keys = [{ index: 0, encoding: 'hex', bytes: g.key }]
})
afterAll(() => g.cleanup())

const real = (): Set<string> => new Set([...g.live.values(), ...g.removed].map((v) => v.hmac))

function run(bytes: Buffer): { ms: number; proven: string[] } {
  writeFileSync(g.db, bytes)
  const t = performance.now()
  try {
    const r = recoverFile(g.db, keys)
    return {
      ms: performance.now() - t,
      proven: r.rows.filter((x) => x.key_index !== null).map((x) => x.hmac_hash),
    }
  } catch (e) {
    expect(e).toBeInstanceOf(AuditError)
    expect((e as Error).message).not.toContain('\n')
    return { ms: performance.now() - t, proven: [] }
  } finally {
    writeFileSync(g.db, clean)
  }
}

/** A record header claiming a ~1 GB body on overflow pages, the hash types, junk values. */
function fakeHeader(): Buffer {
  const bodyType = 12 + 2 * 999_000_000
  const v: number[] = []
  for (let x = bodyType; x > 0; x = Math.floor(x / 128)) v.unshift((x & 0x7f) | (v.length ? 0x80 : 0))
  return Buffer.from([
    0x12,
    0x00,
    0x06,
    0x4d,
    0x2d,
    0x11,
    0x11,
    ...v,
    0x81,
    0x0d,
    0x81,
    0x0d,
    0x81,
    0x0d,
    0x81,
    0x0d,
  ])
}

describe('recovery on hostile files', () => {
  it('the base case recovers its deleted rows', () => {
    const r = run(clean)
    expect(r.proven.length).toBeGreaterThan(0)
    for (const h of r.proven) expect(real().has(h)).toBe(true)
  })

  it('hundreds of fake headers whose overflow chains loop: bounded, and searched', () => {
    const bytes = Buffer.from(clean)
    const pages = bytes.length / PAGE
    // A freed page whose first 4 bytes name itself: an overflow chain that loops (file-format §1.6).
    const trunk = bytes.readUInt32BE(32)
    expect(trunk).toBeGreaterThan(0)
    const free = bytes.readUInt32BE((trunk - 1) * PAGE + 8)
    bytes.writeUInt32BE(free, (free - 1) * PAGE)
    // Fake records in the free gap of every leaf: ~1 GB payloads keep 489 bytes on a 4 KB page, then
    // the first overflow page's number — the looping page.
    const h = fakeHeader()
    let planted = 0
    for (let n = 2; n <= pages; n++) {
      const base = (n - 1) * PAGE
      if (bytes[base] !== 0x0d) continue
      const gapFrom = base + 8 + 2 * bytes.readUInt16BE(base + 3)
      const gapTo = base + (bytes.readUInt16BE(base + 5) || 65536)
      for (let at = gapFrom + 8; at + 489 + 4 <= gapTo; at += 500) {
        h.copy(bytes, at)
        bytes.writeUInt32BE(free, at + 489)
        planted++
      }
    }
    expect(planted).toBeGreaterThan(20)
    writeFileSync(g.db, bytes)
    try {
      const t = performance.now()
      const r = recoverFile(g.db, keys)
      expect(performance.now() - t).toBeLessThan(20_000)
      expect(r.summary.searched).toBe(true)
      for (const x of r.rows.filter((y) => y.key_index !== null)) expect(real().has(x.hmac_hash)).toBe(true)
    } finally {
      writeFileSync(g.db, clean)
    }
  })

  it('a freelist trunk that names itself, with an absurd count: bounded', () => {
    const bytes = Buffer.from(clean)
    const last = bytes.length / PAGE
    bytes.writeUInt32BE(last, 32)
    bytes.writeUInt32BE(0xffffffff, 36)
    bytes.writeUInt32BE(last, (last - 1) * PAGE)
    bytes.writeUInt32BE(0xffff, (last - 1) * PAGE + 4)
    const r = run(bytes)
    expect(r.ms).toBeLessThan(20_000)
    for (const x of r.proven) expect(real().has(x)).toBe(true)
  })

  it('random bytes over random pages, 40 seeds: never a crash, never an invented proven row', () => {
    const rng = new Rng(0x5eed)
    const pages = clean.length / PAGE
    for (let i = 0; i < 40; i++) {
      const bytes = Buffer.from(clean)
      for (let k = 0; k < 6; k++) {
        const n = rng.int(1, pages)
        const len = rng.int(1, PAGE)
        const at = (n - 1) * PAGE + rng.int(0, PAGE - len)
        rng.bytes(len).copy(bytes, at)
      }
      const r = run(bytes)
      expect(r.ms).toBeLessThan(20_000)
      for (const x of r.proven) expect(real().has(x)).toBe(true)
    }
  })
})
