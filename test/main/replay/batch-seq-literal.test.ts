// A batch line's seq is the integer it writes. JSON.parse reads `3.0`, `3e0`, `30e-1` and
// `3.0000000000000001` as 3, so on the old code every such line was checked against row 3 and its
// verdict spoke for a seq the line never wrote (the CLI's --seq takes digits only). Generated
// spellings of each seq: the integer ones (any spacing, a nested "seq" elsewhere, keys escaped)
// read as that seq; every fraction or exponent spelling is a bad line naming the literal.
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { isBad, jsonlLines, type BatchLine } from '../../../src/main/replay/batch-lines'
import { memberLiteral } from '../../../src/main/base/json-keys'
import { mulberry32 } from '../testing/prng'

async function linesOf(text: string): Promise<BatchLine[]> {
  const got: BatchLine[] = []
  for await (const l of jsonlLines(Readable.from([Buffer.from(text)]), { baseDir: null, raw: false }))
    got.push(l)
  return got
}

function notIntegerSpellings(k: number, rnd: () => number): string[] {
  const zeros = '0'.repeat(1 + Math.floor(rnd() * 4))
  return [
    `${k}.${zeros}`,
    `${k}e0`,
    `${k}E+0`,
    `${k * 10}e-1`,
    `${k}.0000000000000001`,
    `${k}.${zeros}e${zeros}`,
    `0.${k}e${String(k).length}`,
  ]
}

const space = (rnd: () => number): string => [' ', '', '\t', '  '][Math.floor(rnd() * 4)]!

describe('a batch seq is read from its literal', () => {
  const rnd = mulberry32(0x5e9)
  const seqs = Array.from({ length: 40 }, () => 1 + Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 12))))

  it('fraction and exponent spellings of an integer are bad lines, never that seq', async () => {
    const lines: string[] = []
    for (const k of seqs)
      for (const lit of notIntegerSpellings(k, rnd)) {
        const before = rnd() < 0.5 ? `"name":"n","x":{"seq":${k}},` : ''
        lines.push(`{${before}"seq"${space(rnd)}:${space(rnd)}${lit}${space(rnd)},"output":"o"}`)
      }
    const got = await linesOf(lines.join('\n') + '\n')
    expect(got).toHaveLength(lines.length)
    // `x` is not a batch field: lines with it are bad for that; the others must name the literal.
    for (const [i, l] of got.entries()) {
      expect(isBad(l), lines[i]).toBe(true)
      if (!lines[i]!.includes('"x"'))
        expect(isBad(l) && l.error, lines[i]).toMatch(/^seq must be an integer, got /)
      expect(l.seq, lines[i]).toBeNull()
    }
  })

  it('integer spellings read as their seq', async () => {
    const lines = seqs.map(
      (k) =>
        `{${space(rnd)}"output":"o",${space(rnd)}"\\u0073eq"${space(rnd)}:${space(rnd)}${k}${space(rnd)}}`,
    )
    const got = await linesOf(lines.join('\r\n') + '\r\n')
    expect(got.map((l) => (isBad(l) ? l.error : l.seq))).toEqual(seqs)
  })

  it('digits past 2^53 are named as such, not as a non-integer', async () => {
    const big = seqs.map((k) => `${k}${'0'.repeat(16)}`)
    const got = await linesOf(big.map((b) => `{"seq":${b},"output":"o"}`).join('\n') + '\n')
    for (const [i, l] of got.entries())
      expect(isBad(l) && l.error).toBe(`seq ${big[i]} is beyond the exact range of a JSON number (±2^53)`)
  })

  it('memberLiteral gives the top-level member only', () => {
    expect(memberLiteral('{"a":{"seq":1},"seq":2.5}', 'seq')).toBe('2.5')
    expect(memberLiteral('{"a":"\\"seq\\":1","seq" : [1, {"b": 2}] }', 'seq')).toBe('[1, {"b": 2}]')
    expect(memberLiteral('{"seq":"4"}', 'seq')).toBe('"4"')
    expect(memberLiteral('[{"seq":1}]', 'seq')).toBeNull()
    expect(memberLiteral('{"seq":{"a":[1]}}', 'seq')).toBe('{"a":[1]}')
    expect(memberLiteral('{"x":1,"seq":-7}', 'seq')).toBe('-7')
  })
})
