// One served session for a server suite: a real AuditSession (on a shared fixture, or none), the
// server `bijotel serve` starts, on a free port with a stand-in renderer, and the app token its page
// carries; on the way out the server closed, the session disposed, the temporary folder removed and
// the shared fixtures proven unchanged. The server suites each wrote these lines again.
import { afterAll, beforeAll, expect } from 'vitest'
import type { JobStatus } from '../../../src/shared/job-types'
import { parseSecrets } from '../../../src/main/chain/keys'
import { startServer, type RunningServer } from '../../../src/main/server/index'
import { AuditSession } from '../../../src/main/session/session'
import { callApi, fakeRenderer, fetchAppToken, tempDir, type Reply } from '../server/testkit'
import { dbPath, FIXTURES, fingerprintFolder, secretInputs } from './fixtures'

export interface ServedOptions {
  /** The temporary folder's name prefix (`bijotel-contract-`). */
  prefix: string
  /** The session's initial path (what `/health` names); default the clean fixture. */
  initialPath?: string
  /** A chain opened before the server starts. */
  open?: string
  /** Fixture secrets (by name) held for the opened chain: an open clears the keys (issue 35). */
  keys?: string[]
  /** Folders a client may open chains in, given the temporary folder; default the fixtures. */
  openRoots?: (tmpDir: string) => string[]
  /** A chain the suite writes in the temporary folder (given it): the session's initial path, opened. */
  written?: (tmpDir: string) => string
  /** Run first, before the session is made (a build the suite needs, say). */
  setup?: () => void | Promise<void>
}

export interface Served {
  readonly dir: string
  readonly session: AuditSession
  readonly server: RunningServer
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly base: string
  readonly token: string
  /** POST /api/call/<name> as the local app (with its token). */
  call(name: string, req?: unknown, headers?: Record<string, string>): Promise<Reply>
}

/** Registers the suite's beforeAll and afterAll; the fields are there once beforeAll has run. */
export function serveForSuite(opts: ServedOptions): Served {
  const before = fingerprintFolder()
  const tmp = tempDir(opts.prefix)
  let session: AuditSession | undefined
  let server: RunningServer | undefined
  let base = ''
  let token = ''
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`${what} is there only once the suite's beforeAll has run`)
    return v
  }

  beforeAll(async () => {
    await opts.setup?.()
    const written = opts.written?.(tmp.dir)
    session = new AuditSession({ initialPath: written ?? opts.initialPath ?? dbPath('clean') })
    const open = written ?? opts.open
    if (open !== undefined) await session.open(open)
    if (opts.keys) session.keys = parseSecrets(secretInputs(opts.keys))
    const openRoots = opts.openRoots ? opts.openRoots(tmp.dir) : [FIXTURES]
    server = await startServer({ session, port: 0, staticDir: fakeRenderer(tmp.dir), openRoots })
    base = server.url.replace(/\/$/, '')
    token = await fetchAppToken(base)
  })

  afterAll(async () => {
    await server?.close()
    session?.dispose()
    tmp.cleanup()
    expect(fingerprintFolder()).toEqual(before)
  })

  return {
    dir: tmp.dir,
    get session() {
      return need(session, 'the session')
    },
    get server() {
      return need(server, 'the server')
    },
    get base() {
      return base
    },
    get token() {
      return token
    },
    call: (name, req, headers = {}) => callApi(base, name, req, { 'X-Bijotel-App-Token': token, ...headers }),
  }
}

/** A job's status polled until it is no longer running (every 10 ms, `tries` times at most). */
export async function untilJobDone<R = unknown>(
  call: (name: 'jobStatus', req: { id: string }) => Promise<Reply>,
  id: string,
  tries = 2000,
): Promise<JobStatus<R>> {
  for (let i = 0; i < tries; i++) {
    const r = await call('jobStatus', { id })
    expect(r.status, r.text).toBe(200)
    const s = r.json as JobStatus<R>
    if (s.state !== 'running') return s
    await new Promise((res) => setTimeout(res, 10))
  }
  throw new Error('job did not finish')
}
