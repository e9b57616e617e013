import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dbPath } from '../testing/fixtures'
import { takeSnapshot } from '../../../src/main/chain/snapshot'

const root = mkdtempSync(join(tmpdir(), 'snapshot-test-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('evidence snapshot', () => {
  it('records the original hash, size and mtime, and the copy has the same bytes', async () => {
    const src = dbPath('clean')
    const snap = await takeSnapshot(src, { tempRoot: root })
    try {
      const bytes = readFileSync(src)
      expect(snap.evidence.db.sha256).toBe(createHash('sha256').update(bytes).digest('hex'))
      expect(snap.evidence.db.size).toBe(bytes.length)
      expect(snap.evidence.db.mtime).toBe(new Date(statSync(src).mtimeMs).toISOString())
      expect(readFileSync(snap.dbPath).equals(bytes)).toBe(true)
      expect(snap.evidence.wal).toBeNull()
      expect(snap.evidence.unchanged_after_copy).toBe(true)
    } finally {
      snap.dispose()
    }
    expect(readdirSync(root)).toEqual([])
  })

  it('copies the -wal beside the chain and records it', async () => {
    const snap = await takeSnapshot(dbPath('wal-tail'), { tempRoot: root })
    try {
      expect(snap.evidence.wal).not.toBeNull()
      expect(readFileSync(`${snap.dbPath}-wal`).equals(readFileSync(`${dbPath('wal-tail')}-wal`))).toBe(true)
    } finally {
      snap.dispose()
    }
  })

  it('removes copies left behind by a process that no longer exists', async () => {
    // pid 2^22+1 is above Linux's pid_max default range: certainly not running.
    const stale = join(root, 'bijotel-evidence-4194305-abc')
    mkdirSync(stale)
    writeFileSync(join(stale, 'chain.db'), 'x')
    const mine = join(root, `bijotel-evidence-${process.pid}-keep`)
    mkdirSync(mine)
    const snap = await takeSnapshot(dbPath('clean'), { tempRoot: root })
    snap.dispose()
    const left = readdirSync(root)
    expect(left).not.toContain('bijotel-evidence-4194305-abc')
    expect(left).toContain(`bijotel-evidence-${process.pid}-keep`)
    rmSync(mine, { recursive: true })
  })

  it('refuses a missing path, a folder and an empty file with one-line errors', async () => {
    await expect(takeSnapshot(join(root, 'nope.db'), { tempRoot: root })).rejects.toThrow(/^DB not found: /)
    await expect(takeSnapshot(root, { tempRoot: root })).rejects.toThrow(/not a regular file/)
    const empty = join(root, 'empty.db')
    writeFileSync(empty, '')
    await expect(takeSnapshot(empty, { tempRoot: root })).rejects.toThrow(/empty \(0 bytes\)/)
    rmSync(empty)
  })
})
