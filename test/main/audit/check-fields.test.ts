// report verify compares each field of a report with what the chain gives now by their RFC 8785
// texts. Round 8 compares them value by value instead (a report of 390,000 findings built two 40 MB
// texts for one comparison): generated pairs — a value and its copy with members reordered, and
// copies with one leaf changed, a member added or dropped, an undefined member, -0 for 0, an item
// moved — must be the same exactly when their canonical texts are (the comparison as it was).
import { describe, expect, it } from 'vitest'
import { sameJson } from '../../../src/main/audit/check-fields'
import { canonicalize } from '../../../src/main/chain/jcs'
import { mulberry32 } from '../testing/prng'

const LEAVES: unknown[] = [
  0,
  -0,
  1,
  1.5,
  -2,
  1e21,
  5e-324,
  '',
  'a',
  'A',
  '\u0041',
  '😀',
  'é',
  true,
  false,
  null,
]

function randomValue(r: () => number, depth: number): unknown {
  const k = r()
  if (depth > 3 || k < 0.4) return LEAVES[Math.floor(r() * LEAVES.length)]
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1))
  const o: Record<string, unknown> = {}
  for (let i = Math.floor(r() * 4); i > 0; i--)
    o[String.fromCharCode(97 + Math.floor(r() * 5))] = randomValue(r, depth + 1)
  return o
}

/** A deep copy with every object's members in reverse order. */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered)
  if (typeof v !== 'object' || v === null) return v
  const o = v as Record<string, unknown>
  return Object.fromEntries(
    Object.keys(o)
      .reverse()
      .map((k) => [k, reordered(o[k])]),
  )
}

/** A copy with one change somewhere (which may or may not change its canonical text). */
function mutated(v: unknown, r: () => number): unknown {
  if (Array.isArray(v)) {
    if (v.length === 0 || r() < 0.2) return r() < 0.5 ? [...v, null] : [undefined, ...v]
    const i = Math.floor(r() * v.length)
    if (r() < 0.2) return [...v.slice(0, i), ...v.slice(i + 1)]
    return v.map((x, j) => (j === i ? mutated(x, r) : x))
  }
  if (typeof v === 'object' && v !== null) {
    const o = { ...(v as Record<string, unknown>) }
    const keys = Object.keys(o)
    const p = r()
    if (keys.length === 0 || p < 0.15) o[`n${Math.floor(r() * 3)}`] = r() < 0.5 ? undefined : 1
    else if (p < 0.3) delete o[keys[Math.floor(r() * keys.length)]!]
    else {
      const k = keys[Math.floor(r() * keys.length)]!
      o[k] = mutated(o[k], r)
    }
    return o
  }
  return r() < 0.3 ? (v === 0 ? -0 : v) : LEAVES[Math.floor(r() * LEAVES.length)]
}

function byText(a: unknown, b: unknown): boolean {
  try {
    return canonicalize(a === undefined ? null : a) === canonicalize(b === undefined ? null : b)
  } catch {
    return false
  }
}

describe('sameJson: equal exactly when the RFC 8785 texts are', () => {
  it('on 20,000 generated pairs', () => {
    const r = mulberry32(0x5a3e)
    let same = 0
    for (let n = 0; n < 20_000; n++) {
      const a = randomValue(r, 0)
      const b = n % 3 === 0 ? reordered(a) : mutated(reordered(a), r)
      const want = byText(a, b)
      if (sameJson(a, b) !== want) expect({ a, b, same: sameJson(a, b) }).toEqual({ a, b, same: want })
      if (want) same++
    }
    // Both outcomes are exercised.
    expect(same).toBeGreaterThan(5_000)
    expect(same).toBeLessThan(19_000)
  })

  it('what has no canonical text is never the same, even as itself', () => {
    for (const v of [NaN, Infinity, 'x\ud800', { a: -Infinity }, [new Date(0)], 2n ** 60n])
      expect(sameJson(v, v)).toBe(false)
    expect(sameJson(undefined, null)).toBe(true)
    expect(sameJson(5n, 5)).toBe(true)
  })
})
