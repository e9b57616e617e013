import { describe, expect, it } from 'vitest'
import { READ_SKEW, readBuffer } from '../../../src/main/chain/read-buffer'

describe('readBuffer', () => {
  it('is exactly the size asked for, skewed inside its own memory, and writable end to end', () => {
    for (const n of [1, 4096, 128 * 1024, 8 * 1024 * 1024]) {
      const b = readBuffer(n)
      expect(b.length).toBe(n)
      expect(b.byteOffset).toBe(READ_SKEW)
      expect(b.buffer.byteLength).toBe(n + READ_SKEW)
      b.fill(0xa5)
      expect(b[n - 1]).toBe(0xa5)
    }
  })
})
