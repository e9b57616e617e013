import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  compareCodePoints,
  pyFixed,
  pyFloat,
  pyFloatRepr,
  pyJsonDumps,
  pyJsonLoads,
  pyJsonString,
  pyRound,
  PyFloat,
  pyJsonDumpsSorted,
  PyJsonDecodeError,
} from '../../../src/main/python/pyformat'
import { pyRepr, pyReprStr } from '../../../src/main/python/repr'
import { sha256Hex } from '../../../src/main/chain/seal'

describe('pyRound = Python round(x, n)', () => {
  it.each([
    [0.125, 2, 0.12], // exact tie (0.125 is binary-exact): half-even
    [0.375, 2, 0.38],
    [2.675, 2, 2.67], // 2.675 is really 2.67499999999999982236431605997495353221893310546875
    [2.5, 0, 2],
    [3.5, 0, 4],
    [-2.5, 0, -2],
    [0.5, 0, 0],
    [1.5, 0, 2],
    [1.005, 2, 1], // below the tie in binary
    [0.15, 1, 0.1], // 0.1499999999999999944488848768742172978818416595458984375
    [0.25, 1, 0.2],
    [0.35, 1, 0.3], // 0.34999999999999997779553950749686919152736663818359375
    [0.45, 1, 0.5], // 0.450000000000000011102230246251565404236316680908203125
    [1234.5, -1, 1230],
    [1235, -1, 1240],
    [1225, -1, 1220],
    [21.052631578947366, 2, 21.05],
    [-75.00000000000001, 1, -75],
  ])('round(%s, %s) = %s', (x, n, want) => {
    expect(pyRound(x, n)).toBe(want)
  })
  it('keeps the sign of zero like Python', () => {
    expect(Object.is(pyRound(-0.04, 1), -0)).toBe(true)
    expect(Object.is(pyRound(-0.0, 2), -0)).toBe(true)
    expect(Object.is(pyRound(0.04, 1), 0)).toBe(true)
    expect(pyFloatRepr(pyRound(-0.04, 1))).toBe('-0.0')
  })
  it('passes non-finite values through and rejects fractional ndigits', () => {
    expect(pyRound(Infinity, 1)).toBe(Infinity)
    expect(Number.isNaN(pyRound(NaN, 1))).toBe(true)
    expect(() => pyRound(1, 0.5)).toThrow(TypeError)
  })
  it('differs from JS toFixed on exact ties (the reason it exists)', () => {
    expect((0.125).toFixed(2)).toBe('0.13')
    expect(pyFixed(0.125, 2)).toBe('0.12')
  })
})

describe('pyFixed = Python f"{x:.nf}"', () => {
  it.each([
    [0.125, 2, '0.12'],
    [2.675, 2, '2.67'],
    [0.5, 0, '0'],
    [1.5, 0, '2'],
    [730, 3, '730.000'],
    [172.757, 3, '172.757'],
    [120.28333333333333, 1, '120.3'],
    [-0.04, 1, '-0.0'],
    [-0, 1, '-0.0'],
    [1e21, 1, '1000000000000000000000.0'],
    [1e-7, 3, '0.000'],
    [Number('123456789.987654321'), 3, '123456789.988'],
  ])('%s with %s decimals = %s', (x, n, want) => {
    expect(pyFixed(x, n)).toBe(want)
  })
  it('signed form', () => {
    expect(pyFixed(-100, 1, { sign: true })).toBe('-100.0')
    expect(pyFixed(100, 1, { sign: true })).toBe('+100.0')
    expect(pyFixed(0, 1, { sign: true })).toBe('+0.0')
    expect(pyFixed(-0, 1, { sign: true })).toBe('-0.0')
    expect(pyFixed(-58.06451612903226, 1, { sign: true })).toBe('-58.1')
  })
  it('non-finite', () => {
    expect(pyFixed(NaN, 1)).toBe('nan')
    expect(pyFixed(Infinity, 1)).toBe('inf')
    expect(pyFixed(-Infinity, 1)).toBe('-inf')
    expect(pyFixed(Infinity, 1, { sign: true })).toBe('+inf')
  })
})

describe('pyFloatRepr = Python repr(float)', () => {
  it.each([
    [100, '100.0'],
    [-75, '-75.0'],
    [0, '0.0'],
    [-0, '-0.0'],
    [94, '94.0'],
    [0.1, '0.1'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e-5, '1e-05'],
    [1e-4, '0.0001'],
    [0.00011, '0.00011'],
    [1.5e-7, '1.5e-07'],
    [1e16, '1e+16'],
    [1.5e16, '1.5e+16'],
    [1e15, '1000000000000000.0'],
    [9999999999999998, '9999999999999998.0'],
    [Number('123456789012345678'), '1.2345678901234568e+17'],
    [1e22, '1e+22'],
    [1e100, '1e+100'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [-172.757, '-172.757'],
    [7520.869, '7520.869'],
    [21.05, '21.05'],
    [NaN, 'nan'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
  ])('repr(%s) = %s', (x, want) => {
    expect(pyFloatRepr(x)).toBe(want)
  })
})

describe('against CPython-generated vectors (testdata/pyformat-vectors.json)', () => {
  const data = JSON.parse(
    readFileSync(join(__dirname, '..', 'integrity', 'testdata', 'pyformat-vectors.json'), 'utf8'),
  ) as {
    vectors: (string | null)[][]
  }
  // repr strings of Python are valid JS number literals except for the non-finite ones (none here).
  const num = (s: string): number => Number(s)
  it(`has many vectors (${data.vectors.length})`, () => {
    expect(data.vectors.length).toBeGreaterThan(4000)
  })
  it('repr, round(x, 0|1|2|3|-1), .1f, .3f and +.1f all match', () => {
    const bad: string[] = []
    for (const v of data.vectors) {
      const [repr, r0, r1, r2, r3, rm1, f1, f3, s1] = v as [
        string,
        string,
        string,
        string,
        string,
        string,
        string | null,
        string | null,
        string | null,
      ]
      const x = num(repr)
      const check = (what: string, got: string, want: string): void => {
        if (got !== want) bad.push(`${what}(${repr}) = ${got}, Python ${want}`)
      }
      check('repr', pyFloatRepr(x), repr)
      check('round0', pyFloatRepr(pyRound(x, 0)), r0)
      check('round1', pyFloatRepr(pyRound(x, 1)), r1)
      check('round2', pyFloatRepr(pyRound(x, 2)), r2)
      check('round3', pyFloatRepr(pyRound(x, 3)), r3)
      check('round-1', pyFloatRepr(pyRound(x, -1)), rm1)
      if (f1 !== null) check('.1f', pyFixed(x, 1), f1)
      if (f3 !== null) check('.3f', pyFixed(x, 3), f3)
      if (s1 !== null) check('+.1f', pyFixed(x, 1, { sign: true }), s1)
    }
    expect(bad.slice(0, 20)).toEqual([])
  })
})

describe('pyJsonDumps = json.dumps(v, separators=(",", ":"))', () => {
  it('writes floats by repr and ints plainly', () => {
    expect(pyJsonDumps({ a: pyFloat(94), b: 94, c: pyFloat(-95), d: pyFloat(0), e: pyFloat(1e-5) })).toBe(
      '{"a":94.0,"b":94,"c":-95.0,"d":0.0,"e":1e-05}',
    )
    expect(pyJsonDumps([pyFloat(NaN), pyFloat(Infinity), pyFloat(-Infinity)])).toBe(
      '[NaN,Infinity,-Infinity]',
    )
    expect(pyJsonDumps(10n ** 20n)).toBe('100000000000000000000')
    expect(pyJsonDumps(1e21)).toBe('1000000000000000000000')
    expect(pyJsonDumps(-0)).toBe('0')
  })
  it('refuses a non-integer plain number (floats must be explicit)', () => {
    expect(() => pyJsonDumps(1.5)).toThrow(TypeError)
  })
  it('null, booleans, nesting, empty containers, Map order', () => {
    expect(pyJsonDumps({ x: null, y: true, z: false, l: [], o: {} })).toBe(
      '{"x":null,"y":true,"z":false,"l":[],"o":{}}',
    )
    expect(
      pyJsonDumps(
        new Map<string, number>([
          ['b', 1],
          ['a', 2],
          ['10', 3],
          ['9', 4],
        ]),
      ),
    ).toBe('{"b":1,"a":2,"10":3,"9":4}')
  })
  it('escapes strings with ensure_ascii (lowercase hex, surrogate pairs, DEL)', () => {
    // Python: json.dumps(["plain","q\"b\\s","\n\r\t\b\f\x00\x1f\x7f","é€","😀 astral"], separators=(",",":"))
    expect(pyJsonDumps(['plain', 'q"b\\s', '\n\r\t\b\f\x00\x1f\x7f', 'é€', '😀 astral'])).toBe(
      '["plain","q\\"b\\\\s","\\n\\r\\t\\b\\f\\u0000\\u001f\\u007f","\\u00e9\\u20ac","\\ud83d\\ude00 astral"]',
    )
    expect(pyJsonString('\ud800')).toBe('"\\ud800"')
    expect(pyJsonString("/<>&'")).toBe('"/<>&\'"')
  })
})

describe('pyJsonLoads keeps Python int/float distinction', () => {
  it('round-trips Python text exactly', () => {
    const text =
      '{"window":100,"provider_shift":{"shifts":{"xai":{"baseline_pct":6.0,"current_pct":50.0}}},"d":-95.0,"e":1e-05,"big":12345678901234567890,"s":"\\u00e9"}'
    const v = pyJsonLoads(text, { typed: true })
    expect(pyJsonDumps(v)).toBe(text)
  })
  it('parses indented files and distinguishes 94 from 94.0', () => {
    const v = pyJsonLoads('{\n  "a": 94.0,\n  "b": 94,\n  "c": [1.5e3, -0.0, true, null]\n}', {
      typed: true,
    }) as Map<string, unknown>
    expect(v.get('a')).toBeInstanceOf(PyFloat)
    expect(v.get('b')).toBe(94)
    expect(pyJsonDumps(v as never)).toBe('{"a":94.0,"b":94,"c":[1500.0,-0.0,true,null]}')
  })
  it('rejects malformed input', () => {
    expect(() => pyJsonLoads('{"a":1,}', { typed: true })).toThrow(SyntaxError)
    expect(() => pyJsonLoads('[1] x', { typed: true })).toThrow(SyntaxError)
    expect(() => pyJsonLoads('"abc', { typed: true })).toThrow(SyntaxError)
  })
})

describe('compareCodePoints = Python str ordering', () => {
  it('orders astral characters after the BMP top (unlike UTF-16 sort)', () => {
    const a = '\uffff'
    const b = '😀'
    expect([a, b].sort()).toEqual([b, a]) // JS: by code unit, 0xd83d < 0xffff
    expect([a, b].sort(compareCodePoints)).toEqual([a, b]) // Python: 0xffff < 0x1f600
    expect(['xai', 'anthropic', '10', '9', 'Z'].sort(compareCodePoints)).toEqual([
      '10',
      '9',
      'Z',
      'anthropic',
      'xai',
    ])
    expect(compareCodePoints('ab', 'abc')).toBeLessThan(0)
    expect(compareCodePoints('abc', 'abc')).toBe(0)
  })
})

// Expected strings printed by CPython 3 (repr / json.dumps / json.loads).
describe('pyFloatRepr = repr(float), more cases', () => {
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
