// quoteUnsafeIntegers: integer literals beyond 2^53 become their exact decimal text; everything else,
// strings included, is left as it was.
import { describe, expect, it } from 'vitest'
import { parseExactIntegers, quoteUnsafeIntegers } from '../../../src/main/server/exact-json'

function exact(text: string): unknown {
  return parseExactIntegers(text, JSON.parse(text))
}

describe('quoteUnsafeIntegers', () => {
  it('keeps safe numbers, fractions and exponents as numbers', () => {
    const text = '{"a":9007199254740991,"b":-9007199254740991,"c":1.5,"d":1e30,"e":12345678901234567.5}'
    expect(quoteUnsafeIntegers(text)).toBe(text)
  })

  it('writes unsafe integers as strings of their digits, at any depth', () => {
    expect(
      exact('{"since_ns":9223372036854775807,"x":[-9223372036854775808,{"y":9007199254740992}]}'),
    ).toEqual({
      since_ns: '9223372036854775807',
      x: ['-9223372036854775808', { y: '9007199254740992' }],
    })
    expect(exact('99999999999999999999')).toBe('99999999999999999999')
  })

  it('does not touch digits inside strings, escaped quotes included', () => {
    const text = '{"k":"\\"since_ns\\": 99999999999999999999, \\\\","since_ns":1}'
    expect(quoteUnsafeIntegers(text)).toBe(text)
    expect(exact('{"a":"\\\\","b":99999999999999999999}')).toEqual({ a: '\\', b: '99999999999999999999' })
  })
})
