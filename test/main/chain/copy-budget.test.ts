// The disk a private copy may take (chain/copy-budget.ts). A file inside the open roots that begins
// like SQLite but that the direct reader declines is copied whole; a web client could name one as
// large as the free space allows, and four at once each saw the same free space. Generated: sparse
// files (no disk used) of a random share of the free space, opened as a web client opens them (a
// policy), refused before a byte is copied when over half of it; and reservations made at once,
// counted together. On the old code the sparse file was copied (progress reported: aborted here at
// the first byte) and every reservation saw the whole free space.
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync, ftruncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { reserveCopySpace, WEB_COPY_SHARE } from '../../../src/main/chain/copy-budget'
import { takeSnapshot } from '../../../src/main/chain/snapshot'
import { SQLITE_MAGIC } from '../../../src/main/chain/sqlite/header'
import { mulberry32 } from '../testing/prng'

const root = mkdtempSync(join(tmpdir(), 'bijotel-copy-budget-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function freeBytes(): number {
  const st = statfsSync(root)
  return st.bavail * st.bsize
}

/** A sparse file of `size` bytes that begins with SQLite's magic and a page size, zeros after. */
function sparseSqlite(path: string, size: number): void {
  const fd = openSync(path, 'wx')
  try {
    const head = Buffer.alloc(100)
    SQLITE_MAGIC.copy(head, 0)
    head.writeUInt16BE(4096, 16)
    writeSync(fd, head, 0, head.length, 0)
    ftruncateSync(fd, size)
  } finally {
    closeSync(fd)
  }
}

describe('a web client cannot fill the disk with a private copy', () => {
  const rnd = mulberry32(2934)
  for (let i = 0; i < 5; i++) {
    const share = WEB_COPY_SHARE + 0.05 + rnd() * 0.35
    it(`a file of ${share.toFixed(2)} of the free space is refused before a byte is copied`, async () => {
      const path = join(root, `big-${i}.db`)
      sparseSqlite(path, Math.floor(freeBytes() * share))
      const abort = new AbortController()
      let copied = 0
      const attempt = takeSnapshot(path, {
        policy: () => true,
        sqliteOnly: true,
        tempRoot: root,
        signal: abort.signal,
        onProgress: (n) => {
          copied = n
          abort.abort()
        },
      })
      await expect(attempt).rejects.toThrow(
        /over half of the \d+ bytes free .*a web client may not take more/,
      )
      expect(copied).toBe(0)
      rmSync(path)
    })
  }
})

describe('copies being made are counted together', () => {
  it('reservations at once never add up to more than the free space', async () => {
    const rnd = mulberry32(29)
    for (let round = 0; round < 20; round++) {
      const free = freeBytes()
      const releases: (() => void)[] = []
      let reserved = 0
      let refused = 0
      for (let k = 0; k < 6; k++) {
        const size = Math.floor(free * (0.1 + rnd() * 0.4))
        try {
          releases.push(await reserveCopySpace(root, size, rnd() < 0.5))
          reserved += size
        } catch (e) {
          expect((e as Error).message).toMatch(/free/)
          refused++
        }
      }
      // A little slack: other processes write to the same disk meanwhile.
      expect(reserved).toBeLessThanOrEqual(free * 1.02)
      expect(refused).toBeGreaterThan(0)
      for (const r of releases) r()
      // Released, the whole space is there again for one copy.
      const again = await reserveCopySpace(root, Math.floor(freeBytes() * 0.4), false)
      again()
    }
  })
})
