// The small LCS diff behind the side-by-side view: an edit script that rebuilds both texts, of the
// least length (checked against a brute-force LCS on random short inputs), paired changed lines with
// the changed words, and a bounded fallback on inputs too large to compare.
import { describe, expect, it } from 'vitest'
import {
  diffSequences,
  MAX_CELLS,
  sideBySide,
  tokens,
  wordDiff,
  type Op,
} from '../../../../src/renderer/src/lib/text-diff'

function rebuild<T>(ops: Op<T>[]): { a: T[]; b: T[] } {
  return {
    a: ops.filter((o) => o.kind !== 'add').map((o) => o.value),
    b: ops.filter((o) => o.kind !== 'del').map((o) => o.value),
  }
}

/** LCS length by recursion over all subsequences' table (independent of the implementation). */
function lcsLength(a: string[], b: string[]): number {
  const memo = new Map<string, number>()
  const go = (i: number, j: number): number => {
    if (i === a.length || j === b.length) return 0
    const k = `${i},${j}`
    const hit = memo.get(k)
    if (hit !== undefined) return hit
    const v = a[i] === b[j] ? 1 + go(i + 1, j + 1) : Math.max(go(i + 1, j), go(i, j + 1))
    memo.set(k, v)
    return v
  }
  return go(0, 0)
}

function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

describe('diffSequences', () => {
  it('rebuilds both inputs and keeps a longest common subsequence (random inputs, 300 seeds)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed)
      const pick = (): string[] =>
        Array.from({ length: Math.floor(r() * 12) }, () => 'abcd'[Math.floor(r() * 4)]!)
      const a = pick()
      const b = pick()
      const ops = diffSequences(a, b)
      expect(rebuild(ops)).toEqual({ a, b })
      expect(ops.filter((o) => o.kind === 'same').length).toBe(lcsLength(a, b))
    }
  })

  it('marks the middle wholly changed when it is too large to compare, and still rebuilds', () => {
    const n = Math.ceil(Math.sqrt(MAX_CELLS)) + 10
    const a = Array.from({ length: n }, (_, i) => `a${i}`)
    const b = ['same', ...Array.from({ length: n }, (_, i) => `b${i}`), 'end']
    const ops = diffSequences(['same', ...a, 'end'], b)
    expect(rebuild(ops)).toEqual({ a: ['same', ...a, 'end'], b })
    expect(ops[0]).toEqual({ kind: 'same', value: 'same' })
    expect(ops[ops.length - 1]).toEqual({ kind: 'same', value: 'end' })
  })
})

describe('side by side', () => {
  it('tokens are words, spaces and single marks; joined they are the line', () => {
    const line = '    "content": "The answer is 42, café."'
    expect(tokens(line).join('')).toBe(line)
    expect(tokens(line)).toContain('café')
    expect(tokens(line)).toContain('42')
  })

  it('a changed word is highlighted on both sides, the rest of the line is not', () => {
    const { left, right } = wordDiff('"answer": "approved for release"', '"answer": "rejected for release"')
    expect(left.filter((p) => p.changed).map((p) => p.text)).toEqual(['approved'])
    expect(right.filter((p) => p.changed).map((p) => p.text)).toEqual(['rejected'])
    expect(left.map((p) => p.text).join('')).toBe('"answer": "approved for release"')
  })

  it('pairs changed lines, numbers each side, and keeps added lines on the right only', () => {
    const a = ['{', '  "a": 1,', '  "b": "old text"', '}'].join('\n')
    const b = ['{', '  "a": 1,', '  "b": "new text",', '  "c": true', '}'].join('\n')
    const rows = sideBySide(a, b)
    const text = (c: (typeof rows)[number]['left']) => c?.parts.map((p) => p.text).join('') ?? null
    expect(rows.map((r) => [text(r.left), text(r.right), r.changed])).toEqual([
      ['{', '{', false],
      ['  "a": 1,', '  "a": 1,', false],
      ['  "b": "old text"', '  "b": "new text",', true],
      [null, '  "c": true', true],
      ['}', '}', false],
    ])
    expect(rows.map((r) => r.right?.line)).toEqual([1, 2, 3, 4, 5])
    expect(rows.map((r) => r.left?.line ?? null)).toEqual([1, 2, 3, null, 4])
    expect(rows[2]!.left!.parts.filter((p) => p.changed).map((p) => p.text)).toEqual(['old'])
    expect(rows[2]!.right!.parts.filter((p) => p.changed).map((p) => p.text)).toEqual(['new', ','])
  })

  it('identical texts have no changed row', () => {
    expect(sideBySide('x\ny', 'x\ny').every((r) => !r.changed)).toBe(true)
  })
})
