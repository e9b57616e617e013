import { createHmac, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { makeSealer } from '../../../src/main/chain/seal'

const reference = (key: Buffer, prev: string, canonical: string): string =>
  createHmac('sha256', key)
    .update(prev + canonical, 'utf8')
    .digest('hex')

describe('makeSealer', () => {
  const hex64 = (): string => randomBytes(32).toString('hex')
  const keys = [
    Buffer.alloc(0),
    randomBytes(16),
    randomBytes(32),
    randomBytes(64),
    randomBytes(65),
    randomBytes(200),
  ]

  it('equals createHmac on the chain shape (two 64-character hex strings), every key length', () => {
    for (const key of keys) {
      const sealer = makeSealer(key)
      for (let i = 0; i < 50; i++) {
        const prev = hex64()
        const canonical = hex64()
        expect(sealer.seal(prev, canonical)).toBe(reference(key, prev, canonical))
      }
    }
  })

  it('equals createHmac off that shape: other lengths, upper case, non-ASCII', () => {
    const key = randomBytes(32)
    const sealer = makeSealer(key)
    const odd: [string, string][] = [
      ['', ''],
      ['0'.repeat(64), ''],
      [hex64().toUpperCase(), hex64()],
      [hex64().slice(0, 63) + 'é', hex64()],
      [hex64(), hex64().slice(0, 62) + '€'],
      ['x'.repeat(65), 'y'.repeat(63)],
      [hex64().slice(0, 63) + '\ud800', hex64()],
      [hex64(), '\ufffd' + hex64().slice(1)],
      ['\u00ff'.repeat(64), hex64()],
      [hex64(), '\u00ff'.repeat(64)],
      [hex64(), '€'.repeat(64)],
      [hex64(), '\ud83d\ude00'.repeat(32)],
      ['\u0000'.repeat(64), '\u007f'.repeat(64)],
      [hex64(), hex64()],
    ]
    for (const [prev, canonical] of odd)
      expect(sealer.seal(prev, canonical)).toBe(reference(key, prev, canonical))
  })

  it('does not carry state from one row to the next', () => {
    const key = randomBytes(32)
    const sealer = makeSealer(key)
    const rows = Array.from({ length: 20 }, () => [hex64(), hex64()] as const)
    const first = rows.map(([p, c]) => sealer.seal(p, c))
    const again = rows.map(([p, c]) => sealer.seal(p, c))
    expect(again).toEqual(first)
    expect(first).toEqual(rows.map(([p, c]) => reference(key, p, c)))
  })
})
