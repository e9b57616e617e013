// Issue 23: `integrity --all` on a chain of ≥50k rows whose column worker declines a page printed its
// report (read again through SQLite) and then never exited — the pollers of the workers ended early
// kept running. The process must end promptly after its answer.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readVarint, varint } from '../../../src/main/chain/sqlite/varint'
import { BIN, ensureBuilt } from '../testing/cli'
import { SMALL, writeChainFolder } from '../testing/exact-chains'
import { basePages } from '../testing/mutations'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-worker-exit-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
beforeAll(() => ensureBuilt())

/**
 * A chain of 52,000 rows (≈45 MB: its column workers start before the leaves are listed) in which
 * one record deep in the file gives its last column serial type 11: NULL to SQLite, declined by the
 * direct reader, found only by the worker reading that part.
 */
function chainWithOneDeclinedRecord(): string {
  const path = writeChainFolder(join(scratch, 'big'), { ...SMALL, rows: 52_000, bodyBytes: 700 })
  const { pageSize, leaf } = basePages(path)
  const file = readFileSync(path)
  const n = leaf[Math.floor(leaf.length * 0.7)]!
  const page = file.subarray((n - 1) * pageSize, n * pageSize)
  let p = page.readUInt16BE(8)
  p += readVarint(page, p) // payload size
  p += readVarint(page, p) // rowid
  const headerStart = p
  p += readVarint(page, p)
  const headerEnd = headerStart + varint.value
  while (p + readVarint(page, p) < headerEnd) p += readVarint(page, p)
  expect(page[p]).toBe(0) // semantic_body_hash: NULL, a type of no bytes
  page[p] = 11
  writeFileSync(path, file)
  return path
}

describe('integrity --all ends after its answer', () => {
  it('exits within 30 s when a column worker declines and SQLite reads the chain', () => {
    const path = chainWithOneDeclinedRecord()
    const t0 = Date.now()
    const r = spawnSync(process.execPath, [BIN, 'integrity', '--db', path, '--all', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, BIJOTEL_WORKERS: '2', BIJOTEL_TIMING: '1' },
      timeout: 60_000,
    })
    const seconds = (Date.now() - t0) / 1000
    expect(r.signal).toBeNull()
    expect(seconds).toBeLessThan(30)
    expect(r.stderr).toContain('reader sqlite-copy')
    expect([0, 1]).toContain(r.status)
    expect(JSON.parse(r.stdout)).toHaveProperty('window', 52_000)
  }, 180_000)
})
