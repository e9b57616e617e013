// The app reads the evidence in place (issue 36): every file the direct reader takes is opened with
// no private copy — no `bijotel-evidence-*` folder appears under the copy roots at any moment of the
// open, staged or not — and its evidence record carries hashes equal to an independent SHA-256 of
// the files. Only a file the reader declines (a hot journal) is copied, and its record says why.
// The adversary: the people handing over the folder can write it after the open — the record must
// then say CHANGED and no row is served from the changed bytes; before the hash is known the open
// says "pending" (checking…), never unchanged or changed.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, utimesSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDirect } from '../../../src/main/chain/direct/open'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { copyFixture, scratchDir } from '../reliability/chainkit'
import { dbPath, fingerprintFolder, fixtureNames } from '../testing/fixtures'
import { hotJournalFolder, SMALL, type ChainShape } from '../testing/exact-chains'

const ctx = { transport: 'http', trusted: true } as const
const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex')

let session: AuditSession | null = null
let copyRoot: { dir: string; cleanup: () => void }
const savedTmp = process.env['BIJOTEL_TMPDIR']
beforeEach(() => {
  copyRoot = scratchDir('copyroot')
  process.env['BIJOTEL_TMPDIR'] = copyRoot.dir
})
afterEach(() => {
  session?.dispose()
  session = null
  if (savedTmp === undefined) delete process.env['BIJOTEL_TMPDIR']
  else process.env['BIJOTEL_TMPDIR'] = savedTmp
  copyRoot.cleanup()
})

/** Every private copy folder under the roots a copy can go to, seen while `work` runs. */
async function copiesDuring<T>(work: () => Promise<T>): Promise<{ value: T; seen: Set<string> }> {
  const roots = [copyRoot.dir, tmpdir(), ...(existsSync('/dev/shm') ? ['/dev/shm'] : [])]
  const list = (): string[] =>
    roots.flatMap((r) => {
      try {
        return readdirSync(r)
          .filter((n) => n.startsWith(`bijotel-evidence-${process.pid}-`))
          .map((n) => join(r, n))
      } catch {
        return []
      }
    })
  const before = new Set(list())
  const seen = new Set<string>()
  const look = (): void => {
    for (const p of list()) if (!before.has(p)) seen.add(p)
  }
  const timer = setInterval(look, 2)
  try {
    const value = await work()
    look()
    return { value, seen }
  } finally {
    clearInterval(timer)
  }
}

function acceptedByReader(path: string): boolean {
  try {
    openDirect(path).close()
    return true
  } catch {
    return false
  }
}

describe('the app reads every chain the direct reader takes in place', () => {
  const names = fixtureNames().filter((n) => acceptedByReader(dbPath(n)))

  it('the fixtures the reader takes are most of them (the generator is not empty)', () => {
    expect(names.length).toBeGreaterThan(10)
  })

  for (const staged of [false, true])
    for (const name of names) {
      it(`${name}${staged ? ' (staged)' : ''}: no copy, the record hashed equal to the files`, async () => {
        const before = fingerprintFolder()
        session = new AuditSession(staged ? { stagedOpenRows: 1 } : {})
        const s = session
        const { value: o, seen } = await copiesDuring(async () => {
          const first = await s.open(dbPath(name))
          if (staged) {
            // Not known yet: pending, no hash, never shown as unchanged.
            expect(first.pending).toBe(true)
            expect(first.evidence.db.sha256).toBe('')
            expect(first.evidence.unchanged_after_copy).toBe(false)
          }
          return s.ready()
        })
        expect([...seen]).toEqual([])
        expect(o.chain.kind).toBe('in-place')
        const ev = o.overview.evidence
        expect(ev.method).toMatch(/^read in place, read-only/)
        expect(ev.unchanged_after_copy).toBe(true)
        expect(ev.db.sha256).toBe(sha(dbPath(name)))
        const wal = `${dbPath(name)}-wal`
        if (existsSync(wal) && readFileSync(wal).length > 0) expect(ev.wal?.sha256).toBe(sha(wal))
        else expect(ev.wal).toBeNull()
        // The rows as SQLite reads them (the oracle is the CLI's copy-free count here: the index).
        expect(o.overview.entries).toBe(o.index.rows)
        expect(fingerprintFolder()).toEqual(before)
      })
    }
})

describe('a file the direct reader declines is read through a private copy, and says so', () => {
  const shapes: ChainShape[] = [
    SMALL,
    { ...SMALL, rows: 120, pageSize: 1024 },
    { ...SMALL, rows: 60, pageSize: 512, reserved: 8 },
    { ...SMALL, rows: 30, pageSize: 8192, bodyBytes: 3000 },
  ]
  for (const [i, shape] of shapes.entries()) {
    it(`hot journal, shape ${i}: private copy, the record naming why, rows as SQLite rolls back to`, async () => {
      const scratch = scratchDir('hot')
      try {
        const p = hotJournalFolder(join(scratch.dir, 'f'), shape, (db) =>
          db.exec('DELETE FROM chain WHERE seq % 3 = 0'),
        )
        expect(acceptedByReader(p)).toBe(false)
        // SQLite's answer on a copy of its own (read-write: it rolls the journal back).
        const oracle = join(scratch.dir, 'oracle.db')
        appendFileSync(oracle, readFileSync(p))
        appendFileSync(`${oracle}-journal`, readFileSync(`${p}-journal`))
        const db = new Database(oracle)
        const rows = (db.prepare('SELECT COUNT(*) AS n FROM chain').get() as { n: number }).n
        db.close()
        const journalBefore = sha(`${p}-journal`)
        session = new AuditSession()
        const s = session
        const { value: ov, seen } = await copiesDuring(() => s.open(p))
        expect(seen.size).toBe(1)
        expect(s.chain?.chain.kind).toBe('copy')
        expect(ov.evidence.method).toMatch(/^read through a private copy because it has a hot -journal/)
        expect(ov.evidence.unchanged_after_copy).toBe(true)
        expect(ov.entries).toBe(rows)
        expect(ov.evidence.db.sha256).toBe(sha(p))
        // The evidence's own hot journal is never rolled back: only the copy's is.
        expect(sha(`${p}-journal`)).toBe(journalBefore)
        s.close()
        expect([...seen].filter((d) => existsSync(d))).toEqual([])
      } finally {
        scratch.cleanup()
      }
    })
  }
})

describe('the change check on a chain read in place', () => {
  type Change = { name: string; apply: (p: string) => void }
  const changes: Change[] = [
    {
      name: 'mtime moved, same bytes',
      apply: (p) => utimesSync(p, new Date(), new Date(Date.now() + 60_000)),
    },
    { name: 'a page appended', apply: (p) => appendFileSync(p, Buffer.alloc(4096)) },
    { name: 'a -wal appeared', apply: (p) => appendFileSync(`${p}-wal`, Buffer.alloc(32)) },
  ]
  for (const fixture of ['clean', 'wal-tail'])
    for (const change of changes)
      it(`${fixture}, ${change.name} after the open: CHANGED, and no row is served`, async () => {
        const scratch = scratchDir('changed')
        try {
          const p = copyFixture(fixture, scratch.dir, 'chain.db')
          session = new AuditSession()
          const h = createHandlers(session)
          const ov = await session.open(p)
          expect(ov.evidence.unchanged_after_copy).toBe(true)
          expect((await h.listEntries({ offset: 0, limit: 3 }, ctx)).rows).toHaveLength(3)
          change.apply(p)
          expect(session.current()?.overview.evidence.unchanged_after_copy).toBe(false)
          await expect(h.listEntries({ offset: 0, limit: 3 }, ctx)).rejects.toThrow(/evidence changed/)
          await expect(h.getEntry({ seq: 2 }, ctx)).rejects.toThrow(/evidence changed/)
        } finally {
          scratch.cleanup()
        }
      })
})

describe('every call of the app on a chain read in place makes no copy', () => {
  const IPC = { transport: 'ipc', trusted: true } as const
  for (const name of ['clean', 'wal-tail', 'body-edit'])
    it(`${name}: verify, integrity, search, the report and its check read the chain held`, async () => {
      const { writeFileSync } = await import('node:fs')
      const { secretInputs, expected } = await import('../testing/fixtures')
      const scratch = scratchDir('calls')
      try {
        session = new AuditSession()
        const s = session
        const h = createHandlers(s)
        const settled = async (id: string): Promise<{ state: string; result?: unknown }> => {
          for (;;) {
            const st = await h.jobStatus({ id }, IPC)
            if (st.state !== 'running') return st
            await new Promise((r) => setTimeout(r, 10))
          }
        }
        const { value: report, seen } = await copiesDuring(async () => {
          await s.open(dbPath(name))
          await h.setSecrets({ secrets: secretInputs(expected(name).secrets) }, IPC)
          const v = await settled((await h.startVerify({}, IPC)).id)
          expect(v.state).toBe('done')
          expect((await settled((await h.startIntegrity({}, IPC)).id)).state).toBe('done')
          expect((await settled((await h.startSearch({ query: 'a' }, IPC)).id)).state).toBe('done')
          await h.checkRow({ seq: 1 }, IPC)
          const r = await h.buildReport({}, IPC)
          const file = join(scratch.dir, 'report.json')
          writeFileSync(file, JSON.stringify(r))
          const checked = await h.checkReport({ path: file }, IPC)
          expect(checked.subject?.status).toBe('same_file')
          return r
        })
        expect([...seen]).toEqual([])
        // The report carries the record the open hashed: the files' own SHA-256.
        expect(report.evidence.db.sha256).toBe(sha(dbPath(name)))
        expect(report.evidence).toEqual(s.chain?.overview.evidence)
      } finally {
        scratch.cleanup()
      }
    })
})
