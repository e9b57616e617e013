// I-JSON's duplicate check (RFC 7493 §2.3) without a string a name or a set an object
// (src/main/chain/i-json-names.ts, round 9): names held as UTF-8 byte ranges, compared pairwise up
// to SMALL_OBJECT and through a hash table past it. Generated objects of every size around the
// switch (and far past it), whose names are spelt raw or escaped (`A` and `\u0041`, an astral
// character raw and as its surrogate pair, `/` and `\/`), with a duplicate planted at random places
// or none: the scan refuses exactly when the decoded names repeat (the oracle: a Set of the names the
// generator chose), at the offset of the second one, and reads every other document as JSON.parse does.
import { describe, expect, it } from 'vitest'
import { IJsonError, parseIJson } from '../../../src/main/chain/i-json'
import { MAX_PROBES, MemberNames, SMALL_OBJECT } from '../../../src/main/chain/i-json-names'
import { mulberry32 } from '../testing/prng'

const LIMITS = { maxDepth: 64, maxValues: 50_000_000 }
const ALPHABET = ['A', 'b', '/', 'é', '\u2028', '😀', '"', '\\', 'z', '1', '\u0000', '\u{10ffff}']

/** One spelling of `name` as a JSON string: each character raw or escaped, at random. */
function spelt(name: string, rnd: () => number): string {
  let out = '"'
  for (const ch of name) {
    const must = ch === '"' || ch === '\\' || ch.charCodeAt(0) < 0x20
    if (must || rnd() < 0.4) {
      if (ch === '/' && rnd() < 0.5) out += '\\/'
      else for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`
    } else out += ch
  }
  return out + '"'
}

function randomName(rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * (rnd() < 0.05 ? 60 : 4))
  return Array.from({ length: n }, () => ALPHABET[Math.floor(rnd() * ALPHABET.length)]!).join('')
}

const SIZES = [
  1,
  2,
  3,
  SMALL_OBJECT - 1,
  SMALL_OBJECT,
  SMALL_OBJECT + 1,
  SMALL_OBJECT + 2,
  33,
  64,
  65,
  200,
  3000,
]

describe('I-JSON member names: refused exactly when the decoded names repeat', () => {
  it('generated objects of every size around the switch, names spelt raw or escaped', () => {
    let refused = 0
    let taken = 0
    for (let seed = 1; seed <= 600; seed++) {
      const rnd = mulberry32(seed)
      const size = SIZES[seed % SIZES.length]!
      const names: string[] = []
      const seen = new Set<string>()
      while (names.length < size) {
        const name = randomName(rnd)
        if (!seen.has(name)) {
          seen.add(name)
          names.push(name)
        }
      }
      // Half the objects get one name again, spelt its own way, at a random later place.
      let dupAt = -1
      if (seed % 2 === 0) {
        const from = Math.floor(rnd() * names.length)
        dupAt = Math.min(names.length, from + 1 + Math.floor(rnd() * names.length))
        names.splice(dupAt, 0, names[from]!)
      }
      const members = names.map((n) => `${spelt(n, rnd)}:${names.indexOf(n)}`)
      const text = `{"outer":[1,{${members.join(',')}}],"after":{"a":1,"b":2}}`
      const bytes = Buffer.from(text, 'utf8')
      if (dupAt < 0) {
        expect(parseIJson(bytes, LIMITS), `seed ${seed}`).toEqual(JSON.parse(text))
        taken++
        continue
      }
      // The second name's opening quote (the first member ends the prefix without a comma).
      const offset = Buffer.byteLength(`{"outer":[1,{${members.slice(0, dupAt).join(',')},`, 'utf8')
      let error: unknown = null
      try {
        parseIJson(bytes, LIMITS)
      } catch (e) {
        error = e
      }
      expect(error, `seed ${seed}`).toBeInstanceOf(IJsonError)
      expect((error as IJsonError).reason, `seed ${seed}`).toMatch(/^duplicate member name /)
      expect((error as IJsonError).offset, `seed ${seed}`).toBe(offset)
      refused++
    }
    expect(refused).toBe(300)
    expect(taken).toBe(300)
  })

  it('names equal in all but their last byte, their length or a hash collision stay apart', () => {
    // FNV-1a collisions are found by brute force over short names; they must still be two names.
    const byHash = new Map<number, string>()
    const pairs: [string, string][] = []
    const fnv = (s: string): number => {
      let h = 0x811c9dc5
      for (const b of Buffer.from(s)) h = Math.imul(h ^ b, 0x01000193)
      return h
    }
    for (let i = 0; pairs.length < 3 && i < 3_000_000; i++) {
      const s = i.toString(36)
      const h = fnv(s)
      const other = byHash.get(h)
      if (other !== undefined) pairs.push([other, s])
      else byHash.set(h, s)
    }
    expect(pairs.length).toBeGreaterThan(0)
    for (const [a, b] of pairs) {
      const filler = Array.from({ length: SMALL_OBJECT + 4 }, (_, k) => `"f${k}":0`)
      const text = `{${filler.join(',')},"${a}":1,"${b}":2}`
      expect(parseIJson(Buffer.from(text), LIMITS)).toEqual(JSON.parse(text))
      expect(() =>
        parseIJson(Buffer.from(`{${filler.join(',')},"${a}":1,"${b}":2,"${a}":3}`), LIMITS),
      ).toThrow(/duplicate member name/)
    }
    const names = new MemberNames()
    for (const [i, s] of ['ab', 'abc', 'abd', 'x'.repeat(40), `${'x'.repeat(39)}y`, ''].entries())
      expect(names.add(Buffer.from(s), 0, s.length), `#${i}`).toBe(true)
  })

  it('a 10^6-member object and 10^6 small objects: checked within seconds, a duplicate found at the end', () => {
    const n = 1_000_000
    const big = `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`
    const small = `[${Array.from({ length: n }, (_, i) => `{"a":${i},"b":2,"c":"x"}`).join(',')}]`
    for (const [what, text] of [
      ['one object', big],
      ['small objects', small],
    ] as const) {
      const t0 = performance.now()
      expect(() => parseIJson(Buffer.from(text), LIMITS), what).not.toThrow()
      expect(performance.now() - t0, what).toBeLessThan(20_000)
    }
    const late = `${big.slice(0, -1)},"k${n - 1}":2}`
    expect(() => parseIJson(Buffer.from(late), LIMITS)).toThrow(/duplicate member name "k999999"/)
    const lateSmall = `${small.slice(0, -2)},"a":3}]`
    expect(() => parseIJson(Buffer.from(lateSmall), LIMITS)).toThrow(/duplicate member name "a"/)
  }, 120_000)

  it('names that all share one FNV-1a hash (Joux multicollisions): checked in linear time', () => {
    // FNV-1a's state is its hash: two blocks colliding from one state, chained k times, give 2^k
    // names of one hash. Each pair is found by the birthday bound over 3-character blocks.
    const step = (h: number, block: string): number => {
      for (let k = 0; k < block.length; k++) h = Math.imul(h ^ block.charCodeAt(k), 0x01000193)
      return h
    }
    const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
    const pairs: [string, string][] = []
    let state = 0x811c9dc5
    while (pairs.length < 16) {
      const seen = new Map<number, string>()
      const before = pairs.length
      for (let i = 0; i < 3_000_000 && pairs.length === before; i++) {
        let x = Math.imul(i, 2654435761) >>> 0
        let block = ''
        for (let k = 0; k < 5; k++) {
          block += chars[x % 62]
          x = Math.floor(x / 62) + k * 7919
        }
        const h = step(state, block)
        const other = seen.get(h)
        if (other !== undefined && other !== block) {
          pairs.push([other, block])
          state = h
        } else seen.set(h, block)
      }
      expect(pairs.length, 'a colliding pair found').toBe(before + 1)
    }
    let names = ['']
    for (const [a, b] of pairs) names = names.flatMap((n) => [n + a, n + b])
    expect(names.length).toBe(65536)
    const hashes = new Set(names.map((n) => step(0x811c9dc5, n)))
    expect(hashes.size).toBe(1)
    const text = `{${names.map((n, i) => `"${n}":${i}`).join(',')}}`
    const t0 = performance.now()
    expect(parseIJson(Buffer.from(text), LIMITS)).toEqual(JSON.parse(text))
    expect(performance.now() - t0).toBeLessThan(10_000)
    // A duplicate among them is still found, past the probe run at which the names moved to a Set.
    const dup = `${text.slice(0, -1)},"${names[MAX_PROBES * 3]!}":0}`
    expect(() => parseIJson(Buffer.from(dup), LIMITS)).toThrow(/duplicate member name/)
    const names2 = new MemberNames()
    const bytes = names.slice(0, MAX_PROBES + 20).map((n) => Buffer.from(n))
    for (const b of bytes) expect(names2.add(b, 0, b.length)).toBe(true)
    for (const b of bytes) expect(names2.add(b, 0, b.length)).toBe(false)
  }, 60_000)
})
