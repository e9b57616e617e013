// Overflow chains that come back on themselves under a cell claiming a huge payload (file format
// §1.6: nothing in the format bounds a chain, and SQLite reads only the bytes a column asks for).
// A generator gives an overflowing cell a payload size up to SQLITE_MAX_LENGTH and loops its chain
// (onto itself, back to its first page, onto page 1) or leaves it: the direct reader must answer
// promptly — rows equal to SQLite's, or a decline — and so must verify, whatever size was claimed.
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../../src/main/chain/keys'
import { Rng } from '../../reliability/chainkit'
import { cellAt, rewriteLeaf, withPayloadSize } from '../../testing/cell-recode'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'
import { basePages } from '../../testing/mutations'
import { directReading, sqliteReading } from '../../testing/readings'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-cell-overflow-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])

const SIZES = [3_000_000, 100_000_000, 999_999_000]
const LOOPS = ['self', 'to-first', 'to-page-1', 'none'] as const

/** Seconds a reading or a verdict of one small mutant may take (the unbounded walk took minutes). */
const BOUND_MS = 3000

describe('an overflowing cell claiming a huge payload over a looping chain', () => {
  it('is read as SQLite reads it, or declined, promptly', async () => {
    const rng = new Rng(1806)
    const base = join(root, 'base')
    writeChainFolder(base, { ...SMALL, rows: 30, pageSize: 1024, bodyBytes: 2500 })
    const probe = join(root, 'probe')
    cpSync(base, probe, { recursive: true })
    const pages = basePages(join(probe, 'chain.db'))
    const failures: string[] = []
    let cases = 0
    for (const size of SIZES)
      for (const loop of LOOPS) {
        const dir = join(root, `${size}-${loop}`)
        cpSync(base, dir, { recursive: true })
        const path = join(dir, 'chain.db')
        const file = readFileSync(path)
        const ps = pages.pageSize
        const leaf = rng.pick(pages.leaf.filter((n) => n > 1))
        let first = 0
        const ok = rewriteLeaf(file, ps, leaf, (page, at, usable) => {
          const c = cellAt(page, at, usable)
          if (first !== 0 || c.overflow === 0) return c.bytes
          first = c.overflow
          return withPayloadSize(page, at, usable, size)
        })
        if (!ok || first === 0) continue
        // The chain's pages as stored, then its last page (or its first) pointed where the loop goes.
        const chain: number[] = []
        for (let n = first; n !== 0 && chain.length < 100; n = file.readUInt32BE((n - 1) * ps)) chain.push(n)
        const last = loop === 'self' ? first : chain[chain.length - 1]!
        if (loop !== 'none') file.writeUInt32BE(loop === 'to-page-1' ? 1 : first, (last - 1) * ps)
        writeFileSync(path, file)
        cases++
        const label = `leaf ${leaf}: payload ${size}, chain ${loop}`
        let t = Date.now()
        const direct = directReading(path)
        if (Date.now() - t > BOUND_MS) failures.push(`${label}: the direct reader took ${Date.now() - t} ms`)
        const oracle = sqliteReading(path, root)
        if (
          direct.kind === 'rows' &&
          !(oracle.kind === 'rows' && isDeepStrictEqual(direct.rows, oracle.rows))
        )
          failures.push(`${label}: direct read ${direct.rows.length} rows, SQLite ${oracle.kind}`)
        t = Date.now()
        await verifyFile(path, keys, {}).catch(() => null)
        if (Date.now() - t > BOUND_MS) failures.push(`${label}: verify took ${Date.now() - t} ms`)
        rmSync(dir, { recursive: true, force: true })
      }
    expect(failures).toEqual([])
    expect(cases).toBe(SIZES.length * LOOPS.length)
  }, 600_000)
})
