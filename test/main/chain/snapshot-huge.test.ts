// A huge file that is not SQLite, named where a chain (or a segment, or a chain a web client opens)
// is expected, is refused from its first bytes in well under a second — not copied whole first (a
// sparse 8 GiB file of zeros, or of any non-SQLite bytes, would otherwise be written to the temp
// folder, filling the disk and holding a long-work slot, before SQLite gives the same one line).
// With a WAL or a hot journal beside it, page 1 may still come from them: that file goes to SQLite.
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, truncateSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { takeSnapshot } from '../../../src/main/chain/snapshot'
import { readChain } from '../../../src/main/chain/source/open-source'
import { AuditSession } from '../../../src/main/session/session'

const dir = mkdtempSync(join(tmpdir(), 'bijotel-snapshot-huge-'))
const copies = mkdtempSync(join(tmpdir(), 'bijotel-snapshot-huge-copies-'))
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(copies, { recursive: true, force: true })
})

const GIB = 1024 * 1024 * 1024
/** A sparse file of `size` bytes beginning with `head` (no disk used for the rest). */
function sparse(name: string, head: string, size: number): string {
  const p = join(dir, name)
  const fd = openSync(p, 'w')
  if (head) writeSync(fd, Buffer.from(head, 'latin1'))
  closeSync(fd)
  truncateSync(p, size)
  return p
}

const HEADS = [
  '',
  'SQLite format 2\0',
  'SQLite format 3\x01',
  'sqlite format 3\0',
  '\0'.repeat(16),
  'PK\x03\x04',
  '{"x":1}',
]

describe('a huge file that is not SQLite is refused at once', () => {
  it.each(HEADS.map((h, i) => ({ h, i })))(
    'head #$i: snapshot, readChain and a session open',
    async ({ h, i }) => {
      const p = sparse(`h${i}.db`, h, 8 * GIB)
      for (const open of [
        () => takeSnapshot(p, { tempRoot: copies, sqliteOnly: true }),
        () => readChain(p, async () => 0, { env: { BIJOTEL_TMPDIR: copies } }),
        async () => {
          const s = new AuditSession({})
          try {
            return await s.open(p)
          } finally {
            s.dispose()
          }
        },
      ]) {
        const t0 = Date.now()
        await expect(open()).rejects.toThrow(/not a SQLite database: .* \(no SQLite header\)$/)
        expect(Date.now() - t0).toBeLessThan(2000)
      }
      expect(readdirSync(copies)).toEqual([])
    },
  )
})
