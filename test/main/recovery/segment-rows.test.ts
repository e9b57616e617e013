// The packed store of a segment's sealed values (src/main/recovery/segment-rows.ts) answers as the
// sets and lists it replaced: generated rows — hex hashes, shared prev_hashes (forks), the same row
// twice, values that are not lowercase hex (upper case, short, text) — asked by seal, by prev_hash and
// by iteration, each held to a plain Set and Map built from the same rows.
import { describe, expect, it } from 'vitest'
import { SegmentRows } from '../../../src/main/recovery/segment-rows'
import { Rng } from '../reliability/chainkit'

describe('packed segment rows answer as a Set and a Map of the same rows', () => {
  for (let n = 0; n < 40; n++) {
    it(`seed ${n}`, () => {
      const rng = new Rng(0x5e6a0 + n)
      const hash = (): string => {
        const r = rng.next()
        if (r < 0.03) return rng.hex(64).toUpperCase()
        if (r < 0.05) return rng.hex(rng.int(0, 70))
        if (r < 0.06) return 'not a hash'
        return rng.hex(64)
      }
      const store = new SegmentRows('seg.db')
      const rows: { hmac: string; prev: string; canonical: string }[] = []
      const count = rng.int(0, 3000)
      for (let i = 0; i < count; i++) {
        const pick = rng.next()
        const row =
          pick < 0.1 && rows.length > 0
            ? rng.pick(rows) // the same row again
            : pick < 0.3 && rows.length > 0
              ? { hmac: hash(), prev: rng.pick(rows).prev, canonical: hash() } // a fork
              : pick < 0.6 && rows.length > 0
                ? { hmac: hash(), prev: rows.at(-1)!.hmac, canonical: hash() } // the next row
                : { hmac: hash(), prev: hash(), canonical: hash() }
        rows.push(row)
        store.add(row.hmac, row.prev, row.canonical)
      }
      const seals = new Set(rows.map((r) => `${r.hmac}${r.prev}${r.canonical}`))
      const asked = [
        ...rows.map((r) => `${r.hmac}${r.prev}${r.canonical}`),
        ...Array.from({ length: 200 }, () => `${hash()}${hash()}${hash()}`),
        ...rows.slice(0, 50).map((r) => `${r.hmac}${r.prev}${r.canonical}`.toUpperCase()),
      ]
      for (const s of asked) expect(store.has(s), s).toBe(seals.has(s))
      const key = (r: { hmac: string; prev: string; canonical: string }): string =>
        `${r.hmac}|${r.prev}|${r.canonical}`
      for (const prev of [...rows.map((r) => r.prev), ...rows.map((r) => r.hmac), hash(), hash()]) {
        const want = rows
          .filter((r) => r.prev === prev)
          .map(key)
          .sort()
        const got = store.after(prev)
        for (const r of got) expect(r.path).toBe('seg.db')
        expect(got.map(key).sort(), prev).toEqual(want)
      }
      expect([...store].map(key).sort()).toEqual(rows.map(key).sort())
      expect(store.size).toBe(rows.length)
    })
  }
})
