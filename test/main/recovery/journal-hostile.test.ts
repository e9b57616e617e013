// Hostile rollback journals beside an honest chain (issue 39): garbage, lying headers (nRec past the
// file, absurd sector and page sizes, page 0, the lock-byte page, huge page numbers), records cut
// short, images of the file's own pages named as other pages. The answer is a verdict or one
// one-line error — never a stack trace, a hang, a finding, or a write to the evidence.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { AuditError } from '../../../src/main/base/errors'
import { recoverPath } from '../../../src/main/recovery/verdict'
import { Rng } from '../reliability/chainkit'
import { generateJournal } from './journal-generator'

const MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])

type Hostile = (rng: Rng, file: Buffer, pageSize: number) => Buffer

/** A header with these fields, padded to 512 bytes. */
function hdr(nRec: number, nonce: number, pages: number, sector: number, page: number): Buffer {
  const h = Buffer.alloc(512)
  MAGIC.copy(h)
  h.writeUInt32BE(nRec >>> 0, 8)
  h.writeUInt32BE(nonce >>> 0, 12)
  h.writeUInt32BE(pages >>> 0, 16)
  h.writeUInt32BE(sector >>> 0, 20)
  h.writeUInt32BE(page >>> 0, 24)
  return h
}

function rec(page: number, image: Buffer): Buffer {
  const out = Buffer.alloc(image.length + 8)
  out.writeUInt32BE(page >>> 0, 0)
  image.copy(out, 4)
  out.writeUInt32BE(0, 4 + image.length)
  return out
}

const HOSTILE: Record<string, Hostile> = {
  garbage: (rng) => rng.bytes(rng.int(1, 9000)),
  'magic then garbage': (rng) => Buffer.concat([MAGIC, rng.bytes(rng.int(0, 9000))]),
  'nRec past the file': (rng, file, ps) =>
    Buffer.concat([hdr(0x7fffffff, 0, file.length / ps, 512, ps), rng.bytes(ps + 3)]),
  'nRec computed (0xffffffff)': (rng, file, ps) =>
    Buffer.concat([hdr(0xffffffff, 0, file.length / ps, 512, ps), rng.bytes(3 * (ps + 8) + 5)]),
  'absurd sector size': (rng, file, ps) =>
    Buffer.concat([
      hdr(1, 0, file.length / ps, rng.pick([0, 33, 0x20000, 0xffffffff]), ps),
      rng.bytes(ps + 8),
    ]),
  'absurd page size': (rng, file, ps) =>
    Buffer.concat([hdr(1, 0, file.length / ps, 512, rng.pick([0, 300, 3000, 0x20000])), rng.bytes(ps + 8)]),
  'page 0, huge pages': (rng, file, ps) =>
    Buffer.concat([
      hdr(3, 0, file.length / ps, 512, ps),
      rec(rng.pick([0, 0xffffffff, 0x7fffffff]), rng.bytes(ps)),
      rec(0xfffffffe, rng.bytes(ps)),
      rec(0, rng.bytes(ps)),
    ]),
  'cut mid-record': (rng, file, ps) =>
    Buffer.concat([
      hdr(2, 0, file.length / ps, 512, ps),
      rec(2, file.subarray(ps, 2 * ps)).subarray(0, ps / 2),
    ]),
  'own pages under other numbers (stale)': (rng, file, ps) => {
    const pages = file.length / ps
    const recs = Array.from({ length: 4 }, () => {
      const from = rng.int(1, pages)
      return rec(rng.int(1, pages + 3), file.subarray((from - 1) * ps, from * ps))
    })
    return Buffer.concat([Buffer.alloc(512), ...recs])
  },
  'zeroed header, random records': (rng, _file, ps) =>
    Buffer.concat([
      Buffer.alloc(512),
      ...Array.from({ length: 3 }, () => rec(rng.int(1, 50), rng.bytes(ps))),
    ]),
}

const fingerprint = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir).map((f) => [
      f,
      createHash('sha256')
        .update(readFileSync(join(dir, f)))
        .digest('hex'),
    ]),
  )

describe('hostile rollback journals beside an honest chain', () => {
  let n = 0
  for (const [name, make] of Object.entries(HOSTILE))
    for (const pageSize of [1024, 4096]) {
      const seed = 0x4057 + 13 * n++
      it(`${name} (p${pageSize})`, async () => {
        const g = generateJournal(
          {
            name,
            pageSize,
            history: 'persist-appends',
            attack: 'none',
            hot: false,
            foreign: false,
            rows: 20,
          },
          seed,
        )
        try {
          const rng = new Rng(seed)
          writeFileSync(`${g.db}-journal`, make(rng, readFileSync(g.db), pageSize))
          const before = fingerprint(dirname(g.db))
          const keys = [{ index: 0, encoding: 'hex' as const, bytes: g.key }]
          for (const run of [
            async () => (await verifyFile(g.db, keys, { recover: true, workers: 1 })).verdict.findings,
            async () => (await recoverPath(g.db, keys)).rows.filter((r) => r.status !== 'unplaced'),
          ]) {
            try {
              const claims = await run()
              expect(
                claims.filter((f) =>
                  ['truncated', 'deleted', 'rewritten', 'superseded'].includes(
                    'kind' in f ? f.kind : f.status,
                  ),
                ),
              ).toEqual([])
            } catch (e) {
              // SQLite itself may refuse what a hostile hot journal makes of the copy: one line.
              expect(e).toBeInstanceOf(AuditError)
              expect((e as Error).message).not.toContain('\n')
            }
          }
          expect(fingerprint(dirname(g.db))).toEqual(before)
        } finally {
          g.cleanup()
        }
      })
    }
})
