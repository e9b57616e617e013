// `bijotel serve`, in process: opens the chain through the session, prints the URL, serves until
// stopped; argument, chain and listen errors are one line with exit codes 2, 1 and 3.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCommand } from '../../../src/main/cli/command'
import { runCli } from '../../../src/main/cli/main'
import { dbPath, FIXTURES, fingerprintFolder, SECRETS } from '../testing/fixtures'
import { startServer } from '../../../src/main/server/index'
import { AuditSession } from '../../../src/main/session/session'
import { callApi, fakeRenderer, fetchAppToken, http, tempDir } from './testkit'
import { createServeCommand, memoryIO } from '../testing/cli-io'

const before = fingerprintFolder()
const tmp = tempDir('bijotel-serve-')
const PRIMARY = SECRETS['primary']!

afterAll(() => {
  tmp.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

/** Start `serve` with `argv`; resolves once it printed its URL (or ended). */
async function serve(argv: string[], env: Record<string, string> = {}) {
  let stop!: (sig: string) => void
  const stopped = new Promise<string>((r) => (stop = r))
  const io = memoryIO(env)
  const exit = runCommand(createServeCommand({ stop: () => stopped }), argv, io)
  let code: number | null = null
  void exit.then((c) => (code = c))
  const deadline = Date.now() + 20_000
  while (code === null && !/ at (http:\/\/\S+)\n/.test(io.stdout)) {
    if (Date.now() > deadline) throw new Error(`serve did not start: ${io.stdout} ${io.stderr}`)
    await new Promise((r) => setTimeout(r, 10))
  }
  const url = / at (http:\/\/\S+)\n/.exec(io.stdout)?.[1] ?? null
  return {
    io,
    url,
    base: url?.replace(/\/$/, '') ?? '',
    exit,
    code: () => code,
    stop: async (sig = 'SIGTERM') => {
      stop(sig)
      return exit
    },
  }
}

describe('bijotel serve --sign-key (issue 34)', () => {
  it('needs an API key; with one, reports are signed for the key holder only and each is logged on stderr', async () => {
    const { generateKeyPairSync } = await import('node:crypto')
    const { writeFileSync } = await import('node:fs')
    const pem = join(tmp.dir, 'auditor-sign.pem')
    writeFileSync(pem, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }))
    const apiKeyFile = join(tmp.dir, 'api.key')
    writeFileSync(apiKeyFile, 'the-api-key-of-the-auditor-0001\n')
    const without = await serve(['--db', dbPath('clean'), '--port', '0', '--sign-key', pem])
    expect(await without.exit).toBe(2)
    expect(without.io.stderr).toContain('--sign-key needs an API key')
    expect(without.io.stderr).not.toMatch(/\n\s+at /)
    for (const bad of [join(tmp.dir, 'none.pem'), '/dev/zero', tmp.dir]) {
      const s = await serve([
        '--db',
        dbPath('clean'),
        '--port',
        '0',
        '--api-key-file',
        apiKeyFile,
        '--sign-key',
        bad,
      ])
      expect(await s.exit, bad).toBe(2)
      expect(s.io.stderr, bad).toMatch(/error: [^\n]*--sign-key/)
      expect(s.io.stderr, bad).not.toMatch(/\n\s+at /)
    }
    const s = await serve([
      '--db',
      dbPath('clean'),
      '--port',
      '0',
      '--api-key-file',
      apiKeyFile,
      '--sign-key',
      pem,
    ])
    try {
      expect(s.url).not.toBeNull()
      const fp = /with key ([0-9a-f]{16})\n/.exec(s.io.stderr)?.[1]
      expect(fp).toBeDefined()
      expect((await callApi(s.base, 'buildReport', {})).status).toBe(401)
      const r = await callApi(
        s.base,
        'buildReport',
        {},
        { Authorization: 'Bearer the-api-key-of-the-auditor-0001' },
      )
      expect(r.status).toBe(200)
      const report = r.json as { signature?: { fingerprint: string }; generated_at: string }
      expect(report.signature?.fingerprint).toBe(fp)
      expect(s.io.stderr).toContain(`report signed with key ${fp} (${report.generated_at})\n`)
    } finally {
      expect(await s.stop()).toBe(0)
    }
  })
})

describe('bijotel serve', () => {
  it('is registered and has help', async () => {
    const top = memoryIO()
    expect(await runCli(['--help'], top)).toBe(0)
    expect(top.stdout).toMatch(/^ {2}serve +serve a chain/m)
    const help = memoryIO()
    expect(await runCli(['serve', '--help'], help)).toBe(0)
    expect(help.stdout).toContain('usage: bijotel serve --db PATH')
    expect(help.stdout).toContain('--open-root DIR')
  })

  it('opens the chain, prints the URL (--port 0 picks a port), serves, and stops cleanly', async () => {
    const site = fakeRenderer(join(tmp.dir, 'site'))
    const s = await serve([
      '--db',
      dbPath('clean'),
      '--port',
      '0',
      '--secret-hex',
      PRIMARY,
      '--open-root',
      FIXTURES,
      '--static-dir',
      site,
    ])
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(Number(new URL(s.url!).port)).toBeGreaterThan(0)
    expect(s.io.stdout).toContain(`Serving ${dbPath('clean')} (240 entries, 1 key) at ${s.url}`)
    expect(s.io.stdout).not.toContain(PRIMARY)
    expect((await http(`${s.base}/health`)).json).toMatchObject({
      status: 'ok',
      db: dbPath('clean'),
      db_exists: true,
    })
    const list = (await http(`${s.base}/chain?limit=3`)).json as { entries: { hmac_valid: boolean }[] }
    expect(list.entries.map((e) => e.hmac_valid)).toEqual([true, true, true])
    expect((await callApi(s.base, 'overview')).json).toMatchObject({
      entries: 240,
      evidence: { db: { path: dbPath('clean') } },
    })
    // --open-root: other chains inside it may be opened, nothing else.
    expect((await callApi(s.base, 'openChain', { path: dbPath('rotation') })).status).toBe(200)
    expect((await callApi(s.base, 'openChain', { path: '/etc/hostname' })).status).toBe(400)
    expect(await fetchAppToken(s.base)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(await s.stop('SIGINT')).toBe(0)
    expect(s.io.stderr).toBe('stopped (SIGINT)\n')
    await expect(fetch(`${s.base}/health`)).rejects.toThrow()
  })

  it('without --open-root only the served chain may be opened', async () => {
    const s = await serve(['--db', dbPath('clean'), '--port', '0'])
    expect(s.io.stdout).toContain('(240 entries, 0 keys)')
    expect((await callApi(s.base, 'openChain', { path: dbPath('clean') })).status).toBe(200)
    expect((await callApi(s.base, 'openChain', { path: dbPath('rotation') })).status).toBe(400)
    expect((await callApi(s.base, 'appInfo')).json).toMatchObject({ can_open_paths: false, open_roots: [] })
    expect(await s.stop()).toBe(0)
  })

  it('reads BIJOTEL_HMAC_SECRET, BIJOTEL_API_KEY and BIJOTEL_DB_PATH', async () => {
    const key = 'env-api-key-0123456789'
    const s = await serve(['--port', '0', '--host', '0.0.0.0'], {
      BIJOTEL_HMAC_SECRET: PRIMARY,
      BIJOTEL_API_KEY: key,
      BIJOTEL_DB_PATH: dbPath('clean'),
    })
    expect(s.io.stdout).toContain('(240 entries, 1 key)')
    const port = new URL(s.url!).port
    expect((await http(`http://127.0.0.1:${port}/chain`)).status).toBe(401)
    const ok = await http(`http://127.0.0.1:${port}/chain?limit=1`, {
      headers: { Authorization: `Bearer ${key}` },
    })
    expect(ok.status).toBe(200)
    expect(await s.stop()).toBe(0)
  })

  it('a missing or unreadable DB exits 1 with one line', async () => {
    for (const db of [
      join(tmp.dir, 'nope.db'),
      dbPath('bad-not-sqlite'),
      dbPath('bad-no-chain-table'),
      dbPath('bad-truncated-file'),
    ]) {
      const s = await serve(['--db', db, '--port', '0'])
      expect(await s.exit, db).toBe(1)
      expect(s.io.stderr, db).toMatch(/^ERROR: [^\n]+\n$/)
      expect(s.io.stdout).toBe('')
    }
  })

  it('a served chain whose side file links elsewhere is refused, naming the file (issue 29)', async () => {
    const { copyFileSync, mkdirSync, symlinkSync, writeFileSync } = await import('node:fs')
    const dir = join(tmp.dir, 'linked-side')
    mkdirSync(dir)
    const db = join(dir, 'chain.db')
    copyFileSync(dbPath('clean'), db)
    const secret = join(tmp.dir, 'secret.txt')
    writeFileSync(secret, 'not for the web page')
    symlinkSync(secret, `${db}-shm`)
    const s = await serve(['--db', db, '--port', '0'])
    expect(await s.exit).toBe(2)
    expect(s.io.stderr).toMatch(
      /^ERROR: [^\n]*chain\.db-shm \(a link to [^\n]*secret\.txt\) is outside the open roots[^\n]*\n$/,
    )
    expect(s.io.stdout).toBe('')
  })

  it('argument errors exit 2 with one line, before anything is opened or bound', async () => {
    for (const [argv, pattern] of [
      [['--port', '0'], /required: --db/],
      [['--db', dbPath('clean'), '--port', 'abc'], /--port must be 0\.\.65535/],
      [['--db', dbPath('clean'), '--port', '70000'], /--port must be 0\.\.65535/],
      [
        ['--db', dbPath('clean'), '--host', '0.0.0.0', '--port', '0'],
        /refusing to listen on 0\.0\.0\.0 without an API key/,
      ],
      [['--db', dbPath('clean'), '--api-key', 'short', '--port', '0'], /at least 16 characters/],
      [['--db', dbPath('clean'), '--bogus'], /Unknown option '--bogus'/],
      [
        ['--db', dbPath('clean'), '--open-root', join(tmp.dir, 'missing-dir')],
        /--open-root .* does not exist/,
      ],
      [['--db', dbPath('clean'), '--static-dir', tmp.dir], /has no index\.html/],
    ] as [string[], RegExp][]) {
      const s = await serve(argv)
      expect(await s.exit, argv.join(' ')).toBe(2)
      expect(s.io.stderr, argv.join(' ')).toMatch(pattern)
      expect(s.io.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2) // message + "(see: --help)"
    }
    const bad = await serve(['--db', dbPath('clean'), '--port', '0', '--secret-hex', 'zz' + PRIMARY])
    expect(await bad.exit).toBe(2)
    expect(bad.io.stderr).toMatch(/^ERROR: Invalid hex in secret #1/)
    expect(bad.io.stderr).not.toContain(PRIMARY)
  })

  it('a port in use exits 3 with one line', async () => {
    const session = new AuditSession()
    const other = await startServer({ session, port: 0 })
    try {
      const s = await serve(['--db', dbPath('clean'), '--port', String(other.port)])
      expect(await s.exit).toBe(3)
      expect(s.io.stderr).toBe(
        `ERROR: cannot listen on 127.0.0.1:${other.port}: address already in use (EADDRINUSE)\n`,
      )
    } finally {
      await other.close()
      session.dispose()
    }
  })
})
