import { describe, expect, it } from 'vitest'
import {
  compareCodePoints,
  pyFloatRepr,
  pyJsonDumpsSorted,
  pyJsonLoads,
  PyJsonDecodeError,
  pyRepr,
  pyReprStr,
} from '../../../src/main/writer/python'
import { sha256Hex } from '../../../src/main/verify/hmac'

// Expected strings printed by CPython 3 (repr / json.dumps / json.loads).
describe('pyFloatRepr = repr(float)', () => {
  const cases: [number, string][] = [
    [0.1, '0.1'],
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [123456789012345680, '1.2345678901234568e+17'],
    [1.5e-7, '1.5e-07'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5, '-2.5'],
    [1e-300, '1e-300'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [100, '100.0'],
    [0.3, '0.3'],
    [2 / 3, '0.6666666666666666'],
    [1e21, '1e+21'],
    [1e22, '1e+22'],
    [123.456, '123.456'],
    [-0, '-0.0'],
    [0, '0.0'],
    [NaN, 'nan'],
    [Infinity, 'inf'],
  ]
  for (const [x, s] of cases) it(`${s}`, () => expect(pyFloatRepr(x)).toBe(s))
})

describe('pyReprStr = repr(str)', () => {
  const cases: [string, string][] = [
    ["it's", `"it's"`],
    ['say "hi"', `'say "hi"'`],
    [`both ' and "`, `'both \\' and "'`],
    ['tab\there\nnl\r\\', `'tab\\there\\nnl\\r\\\\'`],
    ['\x00\x1f\x7f\x80\x9f\xa0\xad', `'\\x00\\x1f\\x7f\\x80\\x9f\\xa0\\xad'`],
    ['é—日本', `'é—日本'`],
    ['\u2028\u2029', `'\\u2028\\u2029'`],
    ['\u{1F600}', `'\u{1F600}'`],
    ['\ufeff', `'\\ufeff'`],
    ['\ue000', `'\\ue000'`],
    ['claude-haiku-4-5', `'claude-haiku-4-5'`],
  ]
  for (const [s, r] of cases) it(JSON.stringify(s), () => expect(pyReprStr(s)).toBe(r))
  it('repr of other JSON values', () => {
    expect(pyRepr(null)).toBe('None')
    expect(pyRepr([1, 2.5, null, true, { a: 'b' }])).toBe("[1, 2.5, None, True, {'a': 'b'}]")
  })
})

describe('pyJsonDumpsSorted = json.dumps(sort_keys=True, separators=(",",":"), ensure_ascii=False)', () => {
  it('the §12.4 prompt list', () => {
    const d = pyJsonDumpsSorted([{ role: 'user', content: 'hi' }])
    expect(d).toBe('[{"content":"hi","role":"user"}]')
    expect(sha256Hex(Buffer.from(d))).toBe('4e79873118cd9be7a1f0308b9cd772950c5410c74ca3fe1ba2626cba009a9237')
  })
  it('code-point key order, Python floats, escapes, non-ASCII literal', () => {
    const v = [
      {
        b: 1,
        a: [1.5, 2, 0.5, 1e16, true, null],
        é: 'x',
        '\u{1F600}': 1,
        '\ue000': 2,
        q: 'a"b\\c\n\u0001\u2028',
      },
    ]
    const d = pyJsonDumpsSorted(v)
    expect(d).toBe(
      '[{"a":[1.5,2,0.5,1e+16,true,null],"b":1,"q":"a\\"b\\\\c\\n\\u0001\u2028","é":"x","\ue000":2,"\u{1F600}":1}]',
    )
    expect(sha256Hex(Buffer.from(d))).toBe('4eb0de4b3d766bd2a7e922a6d94d19c9f0fe92f5e8c3aa5cedc526296834f6db')
  })
  it('NaN/Infinity as Python writes them; lone surrogates refused like the UTF-8 encode', () => {
    expect(pyJsonDumpsSorted([NaN, Infinity, -Infinity])).toBe('[NaN,Infinity,-Infinity]')
    expect(() => pyJsonDumpsSorted(['\ud800'])).toThrow()
  })
  it('compareCodePoints puts astral characters after U+E000–FFFF (UTF-16 order would not)', () => {
    expect(compareCodePoints('\u{1F600}', '\ue000')).toBeGreaterThan(0)
    expect('\u{1F600}' < '\ue000').toBe(true)
    expect(compareCodePoints('a', 'b')).toBeLessThan(0)
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0)
  })
})

describe('pyJsonLoads = json.loads', () => {
  it('parses like Python', () => {
    expect(pyJsonLoads('12')).toBe(12)
    expect(pyJsonLoads('"abc"')).toBe('abc')
    expect(pyJsonLoads('NaN')).toBeNaN()
    expect(pyJsonLoads('[1, 2.5, -0, 1e400, 12345678901234567890]')).toEqual([
      1,
      2.5,
      -0,
      Infinity,
      12345678901234567890n,
    ])
    expect(pyJsonLoads('{"a":1,"a":2}')).toEqual({ a: 2 })
    expect(pyJsonLoads('{"x": "\\ud800"}')).toEqual({ x: '\ud800' })
    expect(pyJsonLoads(' {"k" : [true,false,null]} ')).toEqual({ k: [true, false, null] })
    expect(pyJsonLoads('"\\ud83d\\ude00"')).toBe('\u{1F600}')
  })
  it('keeps __proto__ as an ordinary key', () => {
    const o = pyJsonLoads('{"__proto__": {"polluted": 1}}') as Record<string, unknown>
    expect(Object.keys(o)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })
  it('refuses what Python refuses', () => {
    for (const t of [
      '\ufeff{}',
      '[1,]',
      '{"a":1,}',
      '01',
      '"a\nb"',
      '',
      'nul',
      '{"a" 1}',
      "{'a':1}",
      '[1] x',
    ]) {
      expect(() => pyJsonLoads(t), JSON.stringify(t)).toThrow(PyJsonDecodeError)
    }
  })
})
