import canonicalizeRef from 'canonicalize'
import { describe, expect, it } from 'vitest'
import {
  canonicalBytes,
  canonicalBytesOf,
  canonicalize,
  CanonicalizationError,
} from '../../../src/main/chain/jcs'
import { parseIJson } from '../../../src/main/chain/i-json'
import { mulberry32 } from '../testing/prng'

function fromBits(hex: string): number {
  const v = new DataView(new ArrayBuffer(8))
  v.setBigUint64(0, BigInt(`0x${hex}`))
  return v.getFloat64(0)
}

describe('JCS (RFC 8785)', () => {
  // RFC 8785 Appendix B.
  const numbers: [string, string][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ]
  it.each(numbers)('Appendix B number 0x%s → %s', (bits, text) => {
    expect(canonicalize(fromBits(bits))).toBe(text)
  })
  it.each(['7fffffffffffffff', '7ff0000000000000', 'fff0000000000000'])(
    'Appendix B 0x%s (NaN/Infinity) is an error',
    (bits) => {
      expect(() => canonicalize(fromBits(bits))).toThrow(CanonicalizationError)
    },
  )

  it('§3.2.3 key order example (UTF-16 code units)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    }
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    )
  })

  it('§3.2.2 serialization example', () => {
    const input = {
      numbers: [Number('333333333.33333329'), 1e30, 4.5, 2e-3, 0.000000000000000000000000001],
      string: '\u20ac$\u000F\u000aA\'\u0042\u0022\u005c\\"/',
      literals: [null, true, false],
    }
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    )
    expect(canonicalBytes(input).toString('utf8')).toBe(canonicalize(input))
  })

  it('minimal escaping: C0 as \\u00xx lowercase, DEL / U+2028 / U+2029 / non-ASCII literal', () => {
    expect(canonicalize('\b\f\n\r\t"\\\u0000\u001f\u007f\u2028\u2029é😀')).toBe(
      '"\\b\\f\\n\\r\\t\\"\\\\\\u0000\\u001f\u007f\u2028\u2029é😀"',
    )
  })

  it('refuses what Python rfc8785 refuses', () => {
    expect(() => canonicalize(NaN)).toThrow(CanonicalizationError)
    expect(() => canonicalize({ a: Infinity })).toThrow(CanonicalizationError)
    expect(() => canonicalize(['\ud800'])).toThrow(/surrogate/)
    expect(() => canonicalize({ '\udc00': 1 })).toThrow(/surrogate/)
    expect(() => canonicalize(2n ** 53n)).toThrow(/safe integer/)
    expect(() => canonicalize(-(2n ** 53n))).toThrow(/safe integer/)
    expect(canonicalize(2n ** 53n - 1n)).toBe('9007199254740991')
    expect(canonicalize(-(2n ** 53n) + 1n)).toBe('-9007199254740991')
    expect(() => canonicalize(new Date(0))).toThrow(/unsupported/)
    expect(() => canonicalize(new Map())).toThrow(/unsupported/)
    expect(() => canonicalize(() => 1)).toThrow(/unsupported/)
    const cyc: Record<string, unknown> = {}
    cyc['self'] = cyc
    expect(() => canonicalize(cyc)).toThrow(/circular/)
    let deep: unknown = 1
    for (let i = 0; i < 1200; i++) deep = [deep]
    expect(() => canonicalize(deep)).toThrow(/nesting deeper/)
  })

  it('undefined members are left out and array holes become null (JSON.stringify semantics)', () => {
    expect(canonicalize({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}')
    expect(canonicalize(-0)).toBe('0')
    expect(canonicalize(Object.assign(Object.create(null) as object, { z: 1, a: 2 }))).toBe('{"a":2,"z":1}')
  })
})

// Differential check against the `canonicalize` package on random JSON values.
const rng = mulberry32

const ALPHABET = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0000',
  '\u001f',
  '\u007f',
  '\u0080',
  'é',
  'ö',
  '€',
  '\u2028',
  '\u2029',
  '\ufb33',
  '\ue000',
  '\uffff',
  '😀',
  '𝄞',
  '日',
]

function randomString(r: () => number): string {
  const n = Math.floor(r() * 8)
  let s = ''
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)]
  return s
}

function randomNumber(r: () => number): number {
  const k = r()
  if (k < 0.3) return Math.floor((r() - 0.5) * 2 ** 40)
  if (k < 0.5) return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20)
  const v = new DataView(new ArrayBuffer(8))
  v.setUint32(0, Math.floor(r() * 2 ** 32))
  v.setUint32(4, Math.floor(r() * 2 ** 32))
  const x = v.getFloat64(0)
  return Number.isFinite(x) ? x : 0.5
}

function randomValue(r: () => number, depth: number): unknown {
  const k = r()
  if (depth > 3 || k < 0.45) {
    const p = r()
    if (p < 0.1) return null
    if (p < 0.2) return r() < 0.5
    if (p < 0.6) return randomNumber(r)
    return randomString(r)
  }
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 5) }, () => randomValue(r, depth + 1))
  const o: Record<string, unknown> = {}
  const n = Math.floor(r() * 6)
  for (let i = 0; i < n; i++) o[randomString(r)] = randomValue(r, depth + 1)
  return o
}

describe('JCS differential against the canonicalize package', () => {
  it('agrees on 5000 random JSON values', () => {
    const r = rng(8785)
    for (let i = 0; i < 5000; i++) {
      const v = randomValue(r, 0)
      expect(canonicalize(v)).toBe(canonicalizeRef(v))
    }
  })
})

// Round 8: a report's signed bytes are written piece by piece into one buffer (canonicalBytesOf),
// in chunks of 32K units: the same bytes as the text canonicalize() builds, across chunk edges
// (long strings, astral characters split at a chunk's end), and the same refusals.
describe('canonicalBytesOf: the bytes canonicalBytes gives', () => {
  it('on 5000 random JSON values, and on values long enough to cross chunk edges', () => {
    const r = rng(87851)
    for (let i = 0; i < 5000; i++) {
      const v = randomValue(r, 0)
      expect(canonicalBytesOf(v).equals(canonicalBytes(v))).toBe(true)
    }
    for (let n = 0; n < 40; n++) {
      const big = Array.from({ length: 200 + Math.floor(r() * 4000) }, (_, i) => ({
        [randomString(r)]: randomValue(r, 2),
        s: '😀'.repeat(Math.floor(r() * 40)) + randomString(r).repeat(1 + Math.floor(r() * 300)),
        n: i,
      }))
      expect(canonicalBytesOf(big).equals(canonicalBytes(big))).toBe(true)
    }
    const long = { a: 'x'.repeat(100_001) + '😀', b: ['€'.repeat(70_000)] }
    expect(canonicalBytesOf(long).equals(canonicalBytes(long))).toBe(true)
  })
  it('refuses what canonicalBytes refuses', () => {
    for (const v of [
      { a: NaN },
      [Infinity],
      { a: 'x\ud800' },
      { [`k\udc00`]: 1 },
      [2n ** 60n],
      new Date(0),
      [() => 1],
    ])
      expect(() => canonicalBytesOf(v)).toThrow(CanonicalizationError)
  })
})

// Issue 38: the edges a signed document meets, each held to the RFC's rule and to the independent
// `canonicalize` package, read through the I-JSON parser as `report verify` reads them.
describe('JCS edge cases of signed documents (issue 38)', () => {
  const cases: [string, string][] = [
    ['[-0]', '[0]'],
    ['[-0.0]', '[0]'],
    ['[1e21]', '[1e+21]'],
    ['[1e20]', '[100000000000000000000]'],
    ['[5e-324]', '[5e-324]'],
    ['[1E-7]', '[1e-7]'],
    ['[0.000001]', '[0.000001]'],
    // Keys by UTF-16 code units, not code points: U+10000 (D800 DC00) sorts before U+E000 and U+FFFF.
    [
      '{"\\uffff":1,"\\ue000":2,"\\ud800\\udc00":3,"\\u00ff":4}',
      '{"\u00ff":4,"\ud800\udc00":3,"\ue000":2,"\uffff":1}',
    ],
    [
      '{"\\ud83d\\ude00":1,"\\ud83d\\ude01":2,"\\ud83c\\udfff":3}',
      '{"\ud83c\udfff":3,"\ud83d\ude00":1,"\ud83d\ude01":2}',
    ],
    ['{"b":1,"a":{"d":[],"c":{}},"":0}', '{"":0,"a":{"c":{},"d":[]},"b":1}'],
  ]
  it.each(cases)('%s → %s', (text, canonical) => {
    const v = parseIJson(text, { maxDepth: 64, maxValues: 1000 })
    expect(canonicalize(v)).toBe(canonical)
    expect(canonicalizeRef(v)).toBe(canonical)
  })
})
