// Deep links are bounded (round 10, issue 35). A model or provider may be a megabyte long (the
// chain's writer chooses), and the filter on it was written whole into the page's URL at every
// change (the address bar, the history entry, any link copied — browsers cut or refuse URLs past
// ~2 MB); a pasted link of any length was parsed in full; a field over the read limit, or malformed,
// was dropped without a word. Generated links (values of drawn lengths around and far past the
// bound, drawn characters: ASCII, the URL's own &=#%+, spaces, CJK, astral, lone surrogates) written
// and read back: what is written is never longer than a link is read, holds every value within the
// bound exactly and no value past it, and reads back clean; links made by hand with values past the
// bound, malformed fields, or a length past the whole link's bound, are read with those fields
// dropped and one line that names them — and the store shows that line.
import { describe, expect, it } from 'vitest'
import {
  formatLink,
  LINK_VALUE_CHARS,
  MAX_LINK_CHARS,
  parseLink,
  type DeepLink,
} from '../../../../src/renderer/src/lib/deep-link'
import { AppStore } from '../../../../src/renderer/src/lib/stores/app-store'
import { mulberry32 } from '../../../main/testing/prng'
import { fakeApi, overviewOf } from '../test/fake-api'

const ALPHABET = [
  'a',
  'Z',
  '0',
  '&',
  '=',
  '#',
  '%',
  '+',
  ' ',
  '/',
  '?',
  'é',
  '模',
  '型',
  '😀',
  '\uD800',
  '\n',
]
const LENGTHS = [1, 7, 60, LINK_VALUE_CHARS - 1, LINK_VALUE_CHARS, LINK_VALUE_CHARS + 1, 20_000, 1 << 20]

function text(rnd: () => number, lengths = LENGTHS): string | null {
  if (rnd() < 0.2) return null
  const n = lengths[Math.floor(rnd() * lengths.length)]!
  // A long value: a drawn head, repeated (a megabyte drawn char by char is slow for nothing).
  const head = Array.from(
    { length: Math.min(n, 64) },
    () => ALPHABET[Math.floor(rnd() * ALPHABET.length)]!,
  ).join('')
  let s = head
  while (s.length < n) s += head
  s = s.slice(0, n)
  // A value cut inside a surrogate pair ends on a lone one: still a string the link must carry.
  return s
}

function link(rnd: () => number): DeepLink {
  const from = BigInt(Math.floor(rnd() * 1e15)) * 1000n
  return {
    chain: text(rnd),
    seq: rnd() < 0.5 ? Math.floor(rnd() * 1e9) : null,
    provider: text(rnd),
    model: text(rnd),
    range:
      rnd() < 0.5 ? { from_ns: String(from), to_ns: String(from + BigInt(Math.floor(rnd() * 1e12))) } : null,
  }
}

/** What a value becomes through a URL (URLSearchParams writes UTF-8: a lone surrogate is U+FFFD). */
function through(v: string | null): string | null {
  if (v === null) return null
  const p = new URLSearchParams()
  p.set('v', v)
  return new URLSearchParams(p.toString()).get('v')
}

describe('deep links are bounded', () => {
  it('links written hold every value within the bound, none past it, and read back clean', () => {
    const rnd = mulberry32(20261207)
    for (let k = 0; k < 60; k++) {
      const l = link(rnd)
      const hash = formatLink(l)
      expect(hash.length, `link ${k}`).toBeLessThanOrEqual(MAX_LINK_CHARS)
      const back = parseLink(hash)
      expect(back.dropped, `link ${k}`).toBeUndefined()
      for (const f of ['chain', 'provider', 'model'] as const) {
        const v = l[f]
        expect(back[f], `link ${k} ${f} of ${v?.length}`).toBe(
          v !== null && v.length <= LINK_VALUE_CHARS ? through(v) : null,
        )
      }
      expect(back.seq).toBe(l.seq)
      expect(back.range).toEqual(l.range)
    }
  })

  it('links made by hand: fields past the bound or malformed are dropped and named', () => {
    const rnd = mulberry32(77)
    for (let k = 0; k < 60; k++) {
      const p = new URLSearchParams()
      const over: string[] = []
      for (const f of ['chain', 'provider', 'model'] as const) {
        // Past the whole link's bound in a few cases only (the megabyte links: the next test).
        const v = text(rnd, LENGTHS.slice(0, -1))
        if (v === null) continue
        p.set(f, v)
        if (v.length > LINK_VALUE_CHARS) over.push(f)
      }
      const badSeq = rnd() < 0.3
      if (badSeq) p.set('seq', ['-4', '1e3', 'x', '9'.repeat(16)][Math.floor(rnd() * 4)]!)
      const hash = `#${p.toString()}`
      const l = parseLink(hash)
      if (hash.length > MAX_LINK_CHARS) {
        // Not parsed at all: nothing of it is followed, and the line says why.
        expect(l).toMatchObject({ chain: null, seq: null, provider: null, model: null, range: null })
        expect(l.dropped).toMatch(/^The link was not followed: it is [\d,]+ characters long/)
        continue
      }
      for (const f of over) {
        expect(l[f as 'chain']).toBeNull()
        expect(l.dropped, `${k}: ${f}`).toContain(f)
      }
      if (badSeq) expect(l.dropped).toContain('seq')
      if (over.length === 0 && !badSeq) expect(l.dropped).toBeUndefined()
      else expect(l.dropped!.split('\n')).toHaveLength(1)
    }
  })

  it('a link of many megabytes is refused whole, in one line', () => {
    for (const n of [MAX_LINK_CHARS + 1, 4 << 20, 16 << 20]) {
      const l = parseLink('#model=' + 'm'.repeat(n))
      expect(l.model).toBeNull()
      expect(l.dropped).toContain(`${(n + 7).toLocaleString('en-US')} characters long`)
    }
  })

  it('the store shows the line when a link is opened or pasted', async () => {
    const { api } = fakeApi({
      info: { transport: 'http' },
      overrides: { overview: async () => overviewOf(3) },
    })
    const store = new AppStore(api)
    const l = parseLink('#model=' + 'm'.repeat(LINK_VALUE_CHARS + 1))
    expect(l.dropped).toMatch(/model over 4,096 characters/)
    await store.start(l)
    expect(store.getState().notice?.text).toBe(l.dropped)
    store.clearNotice()
    const big = parseLink('#chain=' + 'c'.repeat(MAX_LINK_CHARS))
    store.followLink(big)
    expect(store.getState().notice?.text).toBe(big.dropped)
    store.dispose()
  })
})
