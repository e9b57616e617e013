// A file a client names is opened once and read through the descriptor checked (issue 34,
// src/main/base/client-file.ts). The adversary is a local user who can write inside an --open-root:
// it flips symbolic links between a file inside and a file outside while calling every call that
// takes a path, puts FIFOs, devices, directories and sockets where a file is expected, and uses `..`
// after a link. Nothing outside may reach an answer (values, error messages), nothing may block the
// server, and the file read is always the one the kernel resolves the name to.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditSession } from '../../../src/main/session/session'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { parseSecrets } from '../../../src/main/chain/keys'
import { createHandlers } from '../../../src/main/handlers/table'
import { dispatch } from '../../../src/main/handlers/dispatch'
import { readClientFile } from '../../../src/main/base/client-file'
import { openEvidence } from '../../../src/main/chain/evidence-files'
import { readReplayFile } from '../../../src/main/replay/text'
import { loadSigningKey } from '../../../src/main/export/sign-key'
import { AuditError } from '../../../src/main/base/errors'
import { callApi, http, tempDir, writeSyntheticChain, type Reply } from './testkit'

const KEY = Buffer.from('client-files-key-0123456789', 'utf8')
const tmp = tempDir('bijotel-client-files-')
const root = join(tmp.dir, 'root')
const outside = join(tmp.dir, 'outside')
/** In every outside file; must never appear in an answer. */
const MARK = 'OUTSIDE-SECRET-7f3a9c'
const OUT_SEQ = 987654321
let session: AuditSession
let server: RunningServer
let base: string
const flippers: ChildProcess[] = []
const sockets: Server[] = []

/** Everything an answer must never contain: the outside file's bytes, its values, its folder. */
function leaks(r: Reply): string[] {
  return [MARK, String(OUT_SEQ), outside, 'OUTSIDE'].filter((s) => r.text.includes(s))
}

/**
 * A child process that flips `link` between `a` and `b` as fast as it can (a new link renamed
 * over the old: the name always exists), until killed.
 */
function flipper(link: string, a: string, b: string): ChildProcess {
  const script = `
const fs = require('node:fs')
const [link, a, b] = process.argv.slice(1)
let i = 0
for (;;) {
  const tmp = link + '.tmp'
  try { fs.rmSync(tmp, { force: true }); fs.symlinkSync(i++ % 2 ? a : b, tmp); fs.renameSync(tmp, link) } catch {}
}`
  const p = spawn(process.execPath, ['-e', script, link, a, b], { stdio: 'ignore' })
  flippers.push(p)
  return p
}

function stop(p: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (p.exitCode !== null || p.signalCode !== null) return res()
    p.once('exit', () => res())
    p.kill('SIGKILL')
  })
}

beforeAll(async () => {
  mkdirSync(root)
  mkdirSync(outside)
  mkdirSync(join(root, 'dir'))
  mkdirSync(join(outside, 'sub'))
  // Inside: a chain, a prior (a verdict's head) and a report-shaped text.
  writeSyntheticChain(join(root, 'chain.db'), 40, KEY)
  writeSyntheticChain(join(root, 'dir', 'chain.db'), 40, KEY)
  const inPrior = JSON.stringify({ last_seq: 7, head_hmac: 'ab'.repeat(32) })
  writeFileSync(join(root, 'prior.json'), inPrior)
  writeFileSync(join(root, 'dir', 'prior.json'), inPrior)
  // Outside: a chain of another length, a prior with its own values, text with the mark.
  writeSyntheticChain(join(outside, 'chain.db'), 33, KEY)
  const outPrior = JSON.stringify({ last_seq: OUT_SEQ, head_hmac: MARK })
  writeFileSync(join(outside, 'prior.json'), outPrior)
  writeFileSync(join(outside, 'sub', 'prior.json'), outPrior)
  writeFileSync(join(outside, 'secret.txt'), `${MARK} not JSON at all`)
  writeSyntheticChain(join(outside, 'sub', 'chain.db'), 33, KEY)
  // The decoy `..` would name lexically: root/prior.json, root/chain.db (inside).
  symlinkSync(join(outside, 'sub'), join(root, 'up'))
  session = new AuditSession({ initialPath: join(root, 'chain.db'), openRoots: [root] })
  await session.open(join(root, 'chain.db'))
  // Keys belong to a chain (issue 35): an open clears them.
  session.keys = parseSecrets([{ encoding: 'hex', value: KEY.toString('hex') }])
  server = await startServer({ session, port: 0, log: () => undefined })
  base = server.url.replace(/\/$/, '')
})

afterAll(async () => {
  for (const p of flippers) await stop(p)
  for (const s of sockets) s.close()
  await server.close()
  session.dispose()
  tmp.cleanup()
})

/** Each call that takes a path, with the request naming `path`. */
const PATH_CALLS: [string, (path: string) => unknown][] = [
  ['openChain', (path) => ({ path })],
  ['setPrior', (path) => ({ path })],
  ['checkReport', (path) => ({ path })],
]

/** For a call: the inside file its path should name, and the outside one the flip offers. */
function targets(call: string, inDir: string, outDir: string, text = false): [string, string] {
  if (call === 'openChain') return [join(inDir, 'chain.db'), join(outDir, 'chain.db')]
  return [join(inDir, 'prior.json'), join(outDir, text ? 'secret.txt' : 'prior.json')]
}

describe('a link flipped between inside and outside, 300 calls per path-taking call: 0 leaks', () => {
  for (const [call, req] of PATH_CALLS) {
    for (const variant of ['file', 'file-text', 'folder'] as const) {
      if (call === 'openChain' && variant === 'file-text') continue
      it(`${call}: the ${variant} flipped`, async () => {
        const link = join(root, `flip-${call}-${variant}`)
        let named: string
        let p: ChildProcess
        if (variant === 'folder') {
          // A folder on the path flipped: root/flip → root/dir | outside/sub.
          const [a] = targets(call, join(root, 'dir'), join(outside, 'sub'))
          const [b] = targets(call, join(outside, 'sub'), join(outside, 'sub'))
          symlinkSync(join(root, 'dir'), link)
          p = flipper(link, join(root, 'dir'), join(outside, 'sub'))
          named = join(link, a.slice(join(root, 'dir').length + 1))
          void b
        } else {
          const [a, b] = targets(call, root, outside, variant === 'file-text')
          symlinkSync(a, link)
          p = flipper(link, a, b)
          named = link
        }
        try {
          const seen = new Map<number, number>()
          for (let i = 0; i < 300; i++) {
            const r = await callApi(base, call, req(named))
            seen.set(r.status, (seen.get(r.status) ?? 0) + 1)
            expect(leaks(r), `${call} #${i}: ${r.status} ${r.text.slice(0, 300)}`).toEqual([])
            if (r.status === 200 && call === 'openChain')
              expect((r.json as { entries: number }).entries, r.text.slice(0, 200)).toBe(40)
            if (r.status === 200 && call === 'setPrior') expect(r.json).toMatchObject({ last_seq: 7 })
          }
          // The race was run: some answers read the inside file, some were refused.
          expect(seen.size, JSON.stringify([...seen])).toBeGreaterThanOrEqual(1)
        } finally {
          await stop(p)
        }
        expect((await http(`${base}/health`)).status).toBe(200)
      })
    }
  }
})

describe('`..` after a link is resolved by the kernel, in the policy and the open step alike', () => {
  it('over HTTP: root/up/../x (up → outside/sub) is outside, refused; the inside decoy is not read either', async () => {
    for (const [call, req] of PATH_CALLS) {
      const name = call === 'openChain' ? 'chain.db' : 'prior.json'
      // Written out: path.join would take `up/..` away lexically, which is the very mistake tested.
      const r = await callApi(base, call, req(`${root}/up/../${name}`))
      expect(r.status, r.text).toBe(400)
      expect(leaks(r)).toEqual([])
      if (call === 'setPrior') expect(r.text).not.toContain('"last_seq":7')
    }
  })

  it('without a policy (the desktop app): the file the kernel names is the one read, never the lexical one', () => {
    const given = `${root}/up/../prior.json`
    expect(readClientFile(given, { label: 'prior', maxBytes: 1 << 20 }).toString()).toContain(MARK)
    const files = openEvidence(`${root}/up/../chain.db`)
    try {
      expect(files.db.real).toBe(join(outside, 'chain.db'))
    } finally {
      files.close()
    }
  })
})

/** Special files a client can put where a file is expected, inside the root (and a few outside). */
function specials(): string[] {
  const fifo = join(root, 'fifo.json')
  execFileSync('mkfifo', [fifo])
  const fifoDb = join(root, 'fifo.db')
  execFileSync('mkfifo', [fifoDb])
  const zero = join(root, 'zero.json')
  symlinkSync('/dev/zero', zero)
  const sock = join(root, 'sock.json')
  const s = createServer()
  s.listen(sock)
  sockets.push(s)
  return [
    fifo,
    fifoDb,
    zero,
    sock,
    join(root, 'dir'),
    '/dev/zero',
    '/dev/stdin',
    '/proc/self/fd/0',
    `${root}/fifo.json/..`,
  ]
}

describe('FIFOs, devices, directories and sockets: refused in under a second, the server answering', () => {
  let paths: string[] = []
  beforeAll(() => {
    paths = specials()
  })

  it('over HTTP, every path-taking call', async () => {
    for (const [call, req] of PATH_CALLS) {
      for (const p of paths) {
        const t0 = Date.now()
        const r = await callApi(base, call, req(p))
        const ms = Date.now() - t0
        expect(r.status, `${call} ${p}: ${r.text}`).toBeGreaterThanOrEqual(400)
        expect(r.status).toBeLessThan(500)
        expect(ms, `${call} ${p}`).toBeLessThan(1000)
        expect(r.text).not.toContain('\n')
        expect((await http(`${base}/health`)).status).toBe(200)
      }
    }
  })

  it('the desktop calls and the CLI readers (no policy): the same refusals', async () => {
    const s = new AuditSession({})
    try {
      await s.open(join(root, 'chain.db'))
      let pick = ''
      const table = createHandlers(s, { pickKeyPath: async () => pick })
      const ipc = { transport: 'ipc' as const, trusted: true }
      for (const p of paths) {
        const t0 = Date.now()
        for (const [call, req] of PATH_CALLS) {
          const r = await dispatch(table, call as 'setPrior', req(p), ipc)
          expect(r.ok, `${call} ${p}`).toBe(false)
        }
        pick = p
        expect((await dispatch(table, 'pickSigningKey', {}, ipc)).ok).toBe(false)
        for (const read of [
          () => readReplayFile(p),
          () => loadSigningKey(p),
          () => readClientFile(p, { label: 'file', maxBytes: 1 << 20 }),
        ])
          expect(read, p).toThrow(AuditError)
        expect(Date.now() - t0, p).toBeLessThan(1000)
      }
    } finally {
      s.dispose()
    }
  })
})

describe('outside the roots: one answer for absent and present', () => {
  it('no call tells whether a path outside the roots exists', async () => {
    for (const [call, req] of PATH_CALLS) {
      const answers = new Set<string>()
      for (const p of [
        join(outside, 'prior.json'),
        join(outside, 'absent.json'),
        join(outside, 'chain.db'),
        join(outside, 'nope', 'x.db'),
        '/etc/passwd',
        '/etc/shadow',
        '/nonexistent/file',
      ]) {
        const r = await callApi(base, call, req(p))
        expect(r.status).toBe(400)
        answers.add(r.text.replace(p, 'P'))
      }
      expect([...answers], call).toHaveLength(1)
    }
  })
})
