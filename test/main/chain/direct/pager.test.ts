// The pager's reads for recovery (src/main/chain/direct/pager.ts): `tryPage` is the reader's page n
// or null — never a throw — for any number a hostile pointer may hold; `filePage` is the database
// file's own bytes under a WAL image; `imageAt`/`walBytes` are the WAL's bytes where the frame is.
// Checked against the files' bytes, on a WAL fixture and on a generated chain whose newest leaf
// images are in the WAL (the file keeps older ones).
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDirect } from '../../../../src/main/chain/direct/open'
import { Pager } from '../../../../src/main/chain/direct/pager'
import { Unsupported } from '../../../../src/main/chain/sqlite/decline'
import { dbPath } from '../../testing/fixtures'
import { scatteredWalChain } from '../../testing/wal-chains'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-pager-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function check(path: string): { walPages: number } {
  const chain = openDirect(path)
  try {
    const pager = new Pager(chain.spec)
    const { pageSize, dbPages } = chain.spec
    const file = readFileSync(path)
    const wal = readFileSync(`${path}-wal`)
    const walAt = new Map<number, number>()
    chain.spec.walPagesNo.forEach((p, i) => walAt.set(p, chain.spec.walPagesOff[i]!))
    for (const bad of [0, -1, 1.5, dbPages + 1, 2 ** 31, Number.NaN]) {
      expect(pager.tryPage(bad), String(bad)).toBeNull()
      expect(() => pager.pageCopy(bad)).toThrow(Unsupported)
    }
    for (let n = 1; n <= dbPages; n++) {
      const own = file.subarray((n - 1) * pageSize, n * pageSize)
      const off = walAt.get(n)
      // The live page n: the newest committed WAL image, else the file's page — the reader's own.
      expect(pager.tryPage(n)!.equals(pager.pageCopy(n)), `page ${n}`).toBe(true)
      expect(pager.tryPage(n)!.equals(off === undefined ? own : wal.subarray(off, off + pageSize))).toBe(true)
      if (n * pageSize <= file.length) expect(pager.filePage(n)!.equals(own), `file page ${n}`).toBe(true)
      if (off !== undefined)
        expect(pager.imageAt('wal', off)!.equals(wal.subarray(off, off + pageSize))).toBe(true)
    }
    expect(pager.filePage(file.length / pageSize + 1)).toBeNull()
    expect(pager.imageAt('wal', wal.length - pageSize + 1)).toBeNull()
    expect(pager.imageAt('journal', 0)).toBeNull()
    const run = Buffer.alloc(4 * pageSize)
    expect(pager.fileRun(1, run)).toBe(Math.min(4, file.length / pageSize))
    expect(run.equals(file.subarray(0, run.length))).toBe(true)
    return { walPages: walAt.size }
  } finally {
    chain.close()
  }
}

describe("the pager's reads for recovery", () => {
  it('wal-tail fixture', () => {
    expect(check(dbPath('wal-tail')).walPages).toBeGreaterThan(0)
  })
  it('a generated chain whose newest leaves are in the WAL, the file holding older images', () => {
    const path = scatteredWalChain(root)
    expect(check(path).walPages).toBeGreaterThan(1)
    // The file's own page under a WAL image differs from the live one somewhere.
    const chain = openDirect(path)
    try {
      const pager = new Pager(chain.spec)
      const differ = [...chain.spec.walPagesNo].filter((p) => {
        const own = pager.filePage(p)
        return own !== null && !own.equals(pager.tryPage(p)!)
      })
      expect(differ.length).toBeGreaterThan(0)
    } finally {
      chain.close()
    }
  })
})
