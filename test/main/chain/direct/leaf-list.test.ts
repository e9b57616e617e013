// The leaf list verify's row workers get with the source's handle (issue 36): shared, not copied
// into every worker, and the same list — page for page, key for key — as the one it was made from,
// on every shared fixture the direct reader opens (the verify suites hold the verdicts).
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { sharedLeafList } from '../../../../src/main/chain/direct/leaf-list'
import { DirectSource } from '../../../../src/main/chain/source/direct-source'
import { FIXTURES } from '../../testing/fixtures'

describe('sharedLeafList', () => {
  it('holds the same pages and keys in shared memory, and a posted copy is the same memory', () => {
    const pages = Int32Array.from([5, 3, 9, 2 ** 31 - 1])
    const maxKey = BigInt64Array.from([10n, -4n, 2n ** 62n, 2n ** 63n - 1n])
    const shared = sharedLeafList({ pages, maxKey })
    expect(shared.pages.buffer).toBeInstanceOf(SharedArrayBuffer)
    expect(shared.maxKey.buffer).toBeInstanceOf(SharedArrayBuffer)
    expect([...shared.pages]).toEqual([...pages])
    expect([...shared.maxKey]).toEqual([...maxKey])
    expect(sharedLeafList(shared)).toBe(shared)
    // What postMessage does to it: the clone reads the very memory (nothing serialized but a handle).
    const posted = structuredClone(shared)
    shared.pages[0] = 77
    expect(posted.pages[0]).toBe(77)
    // The original was copied, not taken over.
    expect(pages[0]).toBe(5)
  })

  it('the handle a direct source posts to its workers carries every fixture chain’s leaf list, shared', () => {
    let seen = 0
    for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.db'))) {
      let chain
      try {
        chain = openDirect(join(FIXTURES, f))
      } catch {
        continue // declined or not a chain: no handle to post
      }
      const source = DirectSource.owning(chain)
      try {
        const { handle } = source.handle()
        if (handle.kind !== 'direct') continue
        const own = chain.leaves
        expect(handle.layout.leaves.pages.buffer, f).toBeInstanceOf(SharedArrayBuffer)
        expect([...handle.layout.leaves.pages], f).toEqual([...own.pages])
        expect([...handle.layout.leaves.maxKey], f).toEqual([...own.maxKey])
        seen++
      } finally {
        source.close()
      }
    }
    expect(seen).toBeGreaterThan(20)
  })
})
