// A -wal whose page size is not its database's (src/main/chain/wal-page-size.ts). Seeded folders:
// honest WAL chains of several page sizes, their WAL re-laid at another size (images cut or
// zero-padded, checksums redone), the file header's page size changed under an intact WAL, or both
// with the WAL's page-1 images agreeing with the WAL (test/main/testing/mutations-ten.ts). SQLite
// reads such a folder out of its page buffers' leftover bytes (rows of rowid 0 and NULL columns,
// which verify called "canonical_hash mismatch (body mutated)"): no verdict may come of it, by
// either reader — one `corrupt` line. A WAL of another size with no committed frame is ignored by
// SQLite, and by us: its verdict is SQLite's row count, VALID. The honest folders stay VALID.
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../src/main/chain/keys'
import { Rng } from '../reliability/chainkit'
import { KEY_HEX, SMALL, writeChainFolder, type ChainShape } from '../testing/exact-chains'
import { sqliteReading } from '../testing/readings'
import { TEN_MUTATIONS } from '../testing/mutations-ten'
import { basePages } from '../testing/mutations'
import { rechecksumWal, walLayout } from '../testing/wal-edit'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-wal-page-size-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const keys = parseSecrets([{ encoding: 'hex', value: KEY_HEX }])
const SHAPES: ChainShape[] = [
  ...[1024, 4096].map((pageSize) => ({
    ...SMALL,
    rows: 50,
    pageSize,
    wal: true,
    walRows: 20,
    walCommits: 2,
    bodyBytes: pageSize / 2,
  })),
  // Rows on pages of 16 and 32 KiB: cells sit at the end of the page, past a cut-short frame.
  ...[16384, 32768].map((pageSize) => ({
    ...SMALL,
    rows: 30,
    pageSize,
    wal: true,
    walRows: 10,
    walCommits: 2,
  })),
]
const relay = TEN_MUTATIONS.find((m) => m.name === 'wal.pagesize')!

type Outcome = { verdict: string; entries: number } | { error: string; code: string }

/**
 * Whether SQLite reads the folder's committed WAL frames cut short: the WAL's page size below page
 * 1's (the last committed page-1 frame's, else the file's), the size SQLite settles on.
 */
function cutShort(dir: string): boolean {
  const path = join(dir, 'chain.db')
  const w = existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : null
  const l = w && walLayout(w)
  if (!w || !l) return false
  const last = l.frames.reduce((k, f, i) => (f.commit ? i : k), -1)
  if (last < 0) return false
  const ones = l.frames.slice(0, last + 1).filter((f) => f.page === 1)
  const page1 = ones.length ? w.subarray(ones.at(-1)!.at + 24) : readFileSync(path)
  const field = page1.readUInt16BE(16)
  return l.pageSize < (field === 1 ? 65536 : field)
}

async function outcome(path: string, env?: Record<string, string>): Promise<Outcome> {
  try {
    const v = (await verifyFile(path, keys, env ? { env } : {})).verdict
    return { verdict: v.valid ? 'VALID' : 'BROKEN', entries: v.entries }
  } catch (e) {
    if (!(e instanceof AuditError)) throw e
    return { error: e.message, code: e.code }
  }
}

describe('a -wal of another page size than its database', () => {
  it('is refused in one line when SQLite would read its committed frames cut short; else read as SQLite reads it', async () => {
    const bases = SHAPES.map((shape, i) => {
      const dir = join(root, `base-${i}`)
      writeChainFolder(dir, shape)
      const probe = join(root, `probe-${i}`)
      cpSync(dir, probe, { recursive: true })
      const pages = basePages(join(probe, 'chain.db'))
      rmSync(probe, { recursive: true, force: true })
      return { dir, pages, rows: shape.rows }
    })
    const wrong: string[] = []
    let refused = 0
    let ignored = 0
    for (const [i, b] of bases.entries()) {
      // The honest folder: VALID over every row.
      expect(await outcome(join(b.dir, 'chain.db'))).toEqual({ verdict: 'VALID', entries: b.rows })
      for (let k = 0; k < 8; k++) {
        const seed = 910_100 + i * 100 + k
        const r = new Rng(seed)
        const dir = join(root, `m-${seed}`)
        cpSync(b.dir, dir, { recursive: true })
        const what = relay.apply(dir, r, b.pages)!
        const wal = `${join(dir, 'chain.db')}-wal`
        // One in four: no frame committed (every commit field 0) — SQLite reads the file alone.
        const uncommitted = k % 4 === 3 && existsSync(wal)
        if (uncommitted) {
          const w = readFileSync(wal)
          for (const f of walLayout(w)?.frames ?? []) w.writeUInt32BE(0, f.at + 4)
          rechecksumWal(w)
          writeFileSync(wal, w)
        }
        const label = `seed ${seed} (${what}${uncommitted ? ', no commit' : ''})`
        const cut = cutShort(dir)
        const oracle = sqliteReading(join(dir, 'chain.db'), root)
        for (const env of [undefined, { BIJOTEL_READER: 'sqlite' }]) {
          const o = await outcome(join(dir, 'chain.db'), env)
          const who = env ? 'copy path' : 'verify'
          if (!cut) {
            ignored++
            const rows = oracle.kind === 'rows' ? oracle.rows.length : -1
            const same =
              rows < 0 ? 'code' in o : 'verdict' in o && (o.verdict !== 'VALID' || o.entries === rows)
            if (!same) wrong.push(`${label}: ${who} ${JSON.stringify(o)}, SQLite ${rows} rows`)
          } else if (!('code' in o) || o.code !== 'corrupt' || o.error.includes('\n')) {
            wrong.push(`${label}: ${who} ${JSON.stringify(o)}`)
          } else refused++
        }
        rmSync(dir, { recursive: true, force: true })
      }
    }
    if (wrong.length) console.log(`${wrong.length} wrong:\n${wrong.join('\n')}`)
    expect(wrong).toEqual([])
    expect(refused).toBeGreaterThan(8)
    expect(ignored).toBeGreaterThan(10)
  }, 120_000)
})
