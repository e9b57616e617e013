// Evidence untouched: verifying (library and CLI) must leave the chain.db, its -wal and the folder
// exactly as they were — bytes (SHA-256), size, mtime, ctime, mode and the directory listing (no
// -shm/-journal or any new file) — on the fixtures, on a live WAL chain whose newest rows exist only
// in the -wal, in a read-only folder, and on a true read-only mount. Tests run as root, for whom
// permission bits stop nothing: hence the byte/metadata/listing checks rather than relying on EACCES.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { ChainFile } from '../../../src/main/chain/reader'
import { AuditError } from '../../../src/main/base/errors'
import { dbPath, expected, FIXTURES, fixtureNames, SECRETS, secretInputs } from '../testing/fixtures'
import { parseSecrets } from '../../../src/main/chain/keys'
import { verifyRows } from '../../../src/main/verify/verify'
import { sqliteSource } from '../testing/sources'
import { appendRows, CHAIN_SCHEMA, copyFixture, GENESIS, openScratch, scratchDir, spanRows } from './chainkit'
import { classify, cliAvailable, runCli } from './cli-runner'

const cli = cliAvailable()
const PRIMARY = SECRETS['primary']!

/** Everything about a folder that reading it must not change (atime excluded: reading sets it). */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const d = statSync(dir)
  out['.'] = `dir:${(d.mode & 0o7777).toString(8)}:${d.mtimeMs}:${d.ctimeMs}`
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f)
    const st = statSync(p)
    const sha = st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : 'dir'
    out[f] = `${sha}:${st.size}:${(st.mode & 0o7777).toString(8)}:${st.mtimeMs}:${st.ctimeMs}`
  }
  return out
}

let work: ReturnType<typeof scratchDir>
/** TMPDIR of the CLI runs: every private copy must be gone afterwards. */
let cliTmp: string
beforeAll(() => {
  work = scratchDir('evidence')
  cliTmp = join(work.dir, 'cli-tmp')
  mkdirSync(cliTmp)
})
afterAll(() => {
  spawnSync('chmod', ['-R', 'u+rwX', work.dir])
  work.cleanup()
})

async function libVerify(path: string, secrets = [PRIMARY]): Promise<VerifyVerdict | AuditError> {
  try {
    const c = await ChainFile.open(path)
    try {
      return await verifyRows(
        sqliteSource(c),
        parseSecrets(secrets.map((value) => ({ encoding: 'hex' as const, value }))),
        { workers: 1 },
      )
    } finally {
      c.close()
    }
  } catch (e) {
    if (e instanceof AuditError) return e
    throw e
  }
}

function cliVerify(
  path: string,
  secrets = [PRIMARY],
): { status: number | null; verdict?: VerifyVerdict; stderr: string } {
  const r = runCli(['verify', '--db', path, ...secrets.flatMap((s) => ['--secret-hex', s]), '--json'], {
    env: { TMPDIR: cliTmp },
  })
  expect(classify(r).outcome, r.stderr).not.toBe('crash')
  return {
    status: r.status,
    stderr: r.stderr,
    ...(r.status === 0 || r.status === 3 ? { verdict: JSON.parse(r.stdout) as VerifyVerdict } : {}),
  }
}

function expectNoLeftovers(): void {
  expect(readdirSync(cliTmp)).toEqual([])
}

describe('(a) the shared fixtures', () => {
  it('every fixture, library and CLI: folder byte-identical afterwards; verdicts as expected', async () => {
    const before = fingerprint(FIXTURES)
    const dbs = readdirSync(FIXTURES).filter((f) => f.endsWith('.db'))
    expect(dbs.length).toBeGreaterThan(20)
    const expectedNames = new Set(fixtureNames())
    for (const f of dbs) {
      const name = f.slice(0, -3)
      const secrets = expectedNames.has(name)
        ? secretInputs(expected(name).secrets)
            .filter((s) => s.encoding === 'hex')
            .map((s) => s.value)
        : [PRIMARY]
      if (secrets.length === 0) secrets.push(PRIMARY)
      const lib = await libVerify(dbPath(name), secrets)
      if (cli) {
        const c = cliVerify(dbPath(name), secrets)
        if (lib instanceof AuditError) expect(c.status).toBe(1)
        else expect(c.verdict?.entries).toBe(lib.entries)
      }
      if (name === 'wal-tail' && !(lib instanceof AuditError)) expect(lib.entries).toBe(240)
    }
    expect(fingerprint(FIXTURES)).toEqual(before)
    if (cli) expectNoLeftovers()
  }, 120_000)
})

describe('(b) a live WAL chain with un-checkpointed rows', () => {
  it('rows only in -wal are seen; the live files and a copied db+wal are untouched', async () => {
    const live = join(work.dir, 'live')
    const evid = join(work.dir, 'wal-evidence')
    mkdirSync(live)
    mkdirSync(evid)
    const livePath = join(live, 'chain.db')
    const key = Buffer.from(PRIMARY, 'hex')
    const writer = openScratch(livePath)
    try {
      writer.pragma('journal_mode = WAL')
      writer.pragma('wal_autocheckpoint = 0')
      writer.exec(CHAIN_SCHEMA)
      const rows = spanRows(100)
      const head = appendRows(writer, key, rows.slice(0, 60), GENESIS)
      writer.pragma('wal_checkpoint(TRUNCATE)')
      appendRows(writer, key, rows.slice(60), head)
      // The writer stays open: rows 61..100 exist only in chain.db-wal.
      expect(statSync(`${livePath}-wal`).size).toBeGreaterThan(0)
      copyFileSync(livePath, join(evid, 'chain.db'))
      copyFileSync(`${livePath}-wal`, join(evid, 'chain.db-wal'))

      // The main file alone holds only the checkpointed rows: the -wal rows are real evidence.
      const mainOnly = join(work.dir, 'main-only')
      mkdirSync(mainOnly)
      copyFileSync(livePath, join(mainOnly, 'chain.db'))
      const v60 = await libVerify(join(mainOnly, 'chain.db'))
      expect((v60 as VerifyVerdict).entries).toBe(60)

      for (const dir of [evid, live]) {
        const before = fingerprint(dir)
        const lib = (await libVerify(join(dir, 'chain.db'))) as VerifyVerdict
        expect(lib.valid).toBe(true)
        expect(lib.entries).toBe(100)
        if (cli) {
          const c = cliVerify(join(dir, 'chain.db'))
          expect(c.status).toBe(0)
          expect(c.verdict!.entries).toBe(100)
        }
        expect(fingerprint(dir)).toEqual(before)
      }
      expect(readdirSync(evid).sort()).toEqual(['chain.db', 'chain.db-wal'])
    } finally {
      writer.close()
    }
    if (cli) expectNoLeftovers()
  })
})

describe('(c) a read-only folder (0555 dir, 0444 files)', () => {
  it('library and CLI verify; no new file, bytes, mtime, ctime and modes unchanged', async () => {
    const ro = join(work.dir, 'ro')
    mkdirSync(ro)
    copyFixture('clean', ro)
    copyFixture('wal-tail', ro)
    for (const f of readdirSync(ro)) chmodSync(join(ro, f), 0o444)
    chmodSync(ro, 0o555)
    const before = fingerprint(ro)
    for (const [name, entries] of [
      ['clean', 240],
      ['wal-tail', 240],
    ] as const) {
      const lib = (await libVerify(join(ro, `${name}.db`))) as VerifyVerdict
      expect(lib.entries).toBe(entries)
      if (cli) {
        const c = cliVerify(join(ro, `${name}.db`))
        expect(c.verdict!.entries).toBe(entries)
      }
    }
    expect(fingerprint(ro)).toEqual(before)
    expect(readdirSync(ro).sort()).toEqual(['clean.db', 'wal-tail.db', 'wal-tail.db-wal'])
    if (cli) expectNoLeftovers()
  })
})

/** Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN); the reason when not. */
function mountProbe(dir: string): string | null {
  if (process.getuid?.() !== 0) return 'not running as root'
  mkdirSync(dir, { recursive: true })
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir], { encoding: 'utf8' })
  if (m.status !== 0) return `mount -t tmpfs failed: ${(m.stderr || m.error?.message || '').trim()}`
  spawnSync('umount', [dir])
  return null
}

describe('(d) a true read-only mount', () => {
  it('tmpfs remounted ro: library and CLI verify clean.db and wal-tail (db + -wal), nothing changes', async (ctx) => {
    const mnt = join(work.dir, 'mnt')
    const why = mountProbe(mnt)
    if (why) {
      ctx.skip(`read-only mount test skipped: ${why}`)
      return
    }
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mnt]).status).toBe(0)
    try {
      copyFixture('clean', mnt)
      copyFixture('wal-tail', mnt)
      expect(spawnSync('mount', ['-o', 'remount,ro', mnt]).status).toBe(0)
      // Really read-only, even for root:
      const touch = spawnSync('touch', [join(mnt, 'probe')], { encoding: 'utf8' })
      expect(touch.status).not.toBe(0)
      const before = fingerprint(mnt)
      for (const name of ['clean', 'wal-tail']) {
        const lib = (await libVerify(join(mnt, `${name}.db`))) as VerifyVerdict
        expect(lib.valid).toBe(true)
        expect(lib.entries).toBe(240)
        if (cli) {
          const c = cliVerify(join(mnt, `${name}.db`))
          expect(c.status).toBe(0)
          expect(c.verdict!.entries).toBe(240)
        }
      }
      expect(fingerprint(mnt)).toEqual(before)
    } finally {
      spawnSync('umount', [mnt])
      rmSync(mnt, { recursive: true, force: true })
    }
  })
})
