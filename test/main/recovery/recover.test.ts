// The page history of a superseded row (what the app's entry panel draws): where the live version of
// its seq is now (`live_at`: the leaf page, and the committed WAL frame SQLite reads it from) and which
// older page versions already held the live version (`live_sources`). Checked against the files'
// bytes (file-format §4: frame headers) and against SQLite itself (better-sqlite3 on a copy) for the
// live rows.
import { openSync, readSync, closeSync, statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { RecoveredRow } from '../../../src/shared/recovery-types'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { parseSecrets } from '../../../src/main/chain/keys'
import { dbPath, secretInputs, withSqliteCopy } from '../testing/fixtures'
import { recoveryCase, recoveryCaseNames } from './recovery-expect'

function readBytes(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r')
  try {
    const buf = Buffer.alloc(length)
    const n = readSync(fd, buf, 0, length, offset)
    return buf.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}

interface Frame {
  frame: number
  page: number
  commit: boolean
  image: Buffer
}

/** Every frame of a -wal (file-format §4.1: 32-byte header, then 24-byte frame headers + images). */
function walFrames(path: string): { pageSize: number; frames: Frame[] } {
  const size = statSync(path).size
  const header = readBytes(path, 0, 32)
  const pageSize = header.readUInt32BE(8)
  const frames: Frame[] = []
  for (let off = 32, i = 1; off + 24 + pageSize <= size; off += 24 + pageSize, i++) {
    const h = readBytes(path, off, 24)
    frames.push({
      frame: i,
      page: h.readUInt32BE(0),
      commit: h.readUInt32BE(4) !== 0,
      image: readBytes(path, off + 24, pageSize),
    })
  }
  return { pageSize, frames }
}

/** The page image (db or wal) that holds a source's byte offset. */
function imageAt(dbFile: string, s: RecoveredRow['source']): Buffer {
  if (s.file === 'wal') {
    const { frames } = walFrames(`${dbFile}-wal`)
    return frames[s.frame! - 1]!.image
  }
  const pageSize = readBytes(dbFile, 16, 2).readUInt16BE(0)
  return readBytes(
    dbFile,
    (s.page - 1) * (pageSize === 1 ? 65536 : pageSize),
    pageSize === 1 ? 65536 : pageSize,
  )
}

function liveHmacs(file: string): Map<number, string> {
  return withSqliteCopy(file, (db) => {
    const rows = db.prepare('SELECT seq, hmac_hash FROM chain').all() as { seq: number; hmac_hash: string }[]
    return new Map(rows.map((r) => [r.seq, r.hmac_hash]))
  })
}

describe('the page history of superseded rows', () => {
  it('rec-live-rewrite: live_at names the committed frame SQLite reads the live row from', () => {
    const file = dbPath('rec-live-rewrite')
    const c = recoveryCase('rec-live-rewrite')
    const rows = recoverFile(file, parseSecrets(secretInputs(c.secrets))).rows
    const live = liveHmacs(file)
    const { frames } = walFrames(`${file}-wal`)
    const lastCommit = Math.max(...frames.filter((f) => f.commit).map((f) => f.frame))
    const superseded = rows.filter((r) => r.status === 'superseded')
    expect(superseded.length).toBeGreaterThan(0)
    for (const r of superseded) {
      const at = r.live_at
      expect(at, `seq ${r.seq}: live_at`).toBeDefined()
      // Its page's newest committed image is the frame named, and it holds the live row, not this one.
      const newest = frames.filter((f) => f.page === at!.page && f.frame <= lastCommit).pop()
      expect(newest?.frame ?? null).toBe(at!.frame)
      const image = newest
        ? newest.image
        : imageAt(file, { file: 'db', kind: 'superseded_page', page: at!.page, offset: 0 })
      expect(image.includes(live.get(r.seq!)!, 0, 'latin1')).toBe(true)
      expect(at!.salt === null || /^[0-9a-f]{8}-[0-9a-f]{8}$/.test(at!.salt)).toBe(true)
    }
  })

  it('rec-live-rewrite: live_sources are older page versions that hold the live version', () => {
    const file = dbPath('rec-live-rewrite')
    const c = recoveryCase('rec-live-rewrite')
    const rows = recoverFile(file, parseSecrets(secretInputs(c.secrets))).rows
    const live = liveHmacs(file)
    const withLive = rows.filter((r) => (r.live_sources?.length ?? 0) > 0)
    // The service rewrote one row per transaction: some earlier frame already holds a rewritten row.
    expect(withLive.length).toBeGreaterThan(0)
    for (const r of withLive) {
      for (const s of r.live_sources!) {
        const image = imageAt(file, s)
        expect(image.includes(live.get(r.seq!)!, 0, 'latin1'), `seq ${r.seq} at ${JSON.stringify(s)}`).toBe(
          true,
        )
        // Never the page image SQLite reads now (that one is live_at, not a copy).
        if (s.file === 'wal') expect(s.frame).not.toBe(r.live_at?.frame)
      }
    }
  })

  it('deleted rows and clean chains carry no page history of a live version', () => {
    for (const name of recoveryCaseNames()) {
      const c = recoveryCase(name)
      const rows = recoverFile(dbPath(name), parseSecrets(secretInputs(c.secrets))).rows
      for (const r of rows)
        if (r.status === 'deleted') {
          expect(r.live_at).toBeUndefined()
          expect(r.live_sources).toBeUndefined()
        }
    }
  })
})
