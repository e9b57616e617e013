import { describe, expect, it } from 'vitest'
import { restOfSpanAt } from '../../../src/main/chain/body'

// The grammar restOfSpanAt reads, as the regex it replaced (applied to the latin1 text: one byte,
// one character).
const REST_OF_SPAN =
  /^(?:"(?:[^"\\]|\\.)*"|null),"status_code":(?:"(?:[^"\\]|\\.)*"|null),"status_description":(?:"(?:[^"\\]|\\.)*"|null)}$/

const oracle = (b: Buffer, p: number): boolean => REST_OF_SPAN.test(b.toString('latin1', p))

describe('restOfSpanAt', () => {
  const cases = [
    '"1762157514349874252","status_code":"UNSET","status_description":null}',
    'null,"status_code":null,"status_description":null}',
    '"1","status_code":"ERROR","status_description":"a \\"quoted\\" \\\\ reason"}',
    '"1","status_code":"OK","status_description":"caf\u00e9"}',
    '"1","status_code":"OK","status_description":"line\\\nbreak"}',
    '"1","status_code":"OK","status_description":"cr\\\rbreak"}',
    '"1","status_code":"OK","status_description":null}x',
    '"1","status_code":"OK","status_description":nul}',
    '"1","status_code":"OK","status_description":"open}',
    '"1","status_code":"OK","status_description":"ends in backslash\\',
    '"1","status_code":"OK","status_description":"x"',
    '"1","status_code":"OK"}',
    '1,"status_code":"OK","status_description":null}',
    '',
  ]

  it('agrees with the regex on hand-written tails', () => {
    for (const text of cases) {
      const b = Buffer.from('PREFIX' + text, 'latin1')
      expect(restOfSpanAt(b, 6), JSON.stringify(text)).toBe(oracle(b, 6))
    }
    expect(restOfSpanAt(Buffer.from(cases[0]!, 'latin1'), 0)).toBe(true)
  })

  it('agrees with the regex on 20,000 mangled tails', () => {
    let seed = 7
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0
      return seed % n
    }
    const alphabet = Buffer.from('"\\,:{}nul \n\r\x00\xe9aA1')
    let accepted = 0
    for (let i = 0; i < 20000; i++) {
      const b = Buffer.from(cases[rnd(6)]!, 'latin1')
      for (let k = rnd(3); k >= 0; k--) {
        const at = rnd(b.length)
        const op = rnd(3)
        if (op === 0) b[at] = alphabet[rnd(alphabet.length)]!
        else if (op === 1) b.copyWithin(at, at + 1)
        else b[at] = 0x5c
      }
      const got = restOfSpanAt(b, 0)
      expect(got).toBe(oracle(b, 0))
      if (got) accepted++
    }
    // The corpus must exercise both answers, or the comparison proves little.
    expect(accepted).toBeGreaterThan(500)
    expect(accepted).toBeLessThan(19500)
  })
})
