// Issue 35 point 10: what the app is told never cites a command-line flag ("use --secret-text",
// "pass --secret-hex", "with --segment", "serve --open-root", "serve --sign-key"): the page has
// fields and buttons, not flags. Each message the engine sends the app for a case an auditor meets is
// drawn through the handler table on real files, and the renderer's own text is scanned.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { IntegrityRun } from '../../../src/shared/integrity-types'
import type { JobStatus } from '../../../src/shared/job-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { FIXTURES, REPO_ROOT, SECRETS } from '../testing/fixtures'

/** A command-line flag or the secret's environment variable, as a message might cite them. */
const FLAG = /(^|[\s(`'"/])--[a-z][a-z-]+|BIJOTEL_HMAC_SECRET/

let session: AuditSession | null = null
afterEach(() => session?.dispose())
const web = { transport: 'http' as const, trusted: true }
const ipc = { transport: 'ipc' as const, trusted: true }

async function settled<R>(h: ReturnType<typeof createHandlers>, id: string): Promise<JobStatus<R>> {
  for (;;) {
    const s = (await h.jobStatus({ id }, ipc)) as JobStatus<R>
    if (s.state !== 'running') return s
    await new Promise((r) => setTimeout(r, 10))
  }
}

const messageOf = async (p: Promise<unknown>): Promise<string> => {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  )
  expect(e, 'expected a refusal').toBeInstanceOf(Error)
  return (e as Error).message
}

describe('messages the engine sends the app', () => {
  it('a secret that is not hex, integrity without a key, a refused segment, the signing key over HTTP', async () => {
    session = new AuditSession({ openRoots: [FIXTURES] })
    const h = createHandlers(session)
    await h.openChain({ path: join(FIXTURES, 'clean.db') }, web)
    const said: string[] = []
    for (const value of ['not-hex: correct horse', 'abc', 'zz'.repeat(32), '0x' + 'ab'.repeat(32)])
      said.push(await messageOf(h.setSecrets({ secrets: [{ encoding: 'hex', value }] }, web)))
    const run = (await settled<IntegrityRun>(h, (await h.startIntegrity({}, ipc)).id)).result!
    said.push(run.rotation_note)
    said.push(await messageOf(h.startVerify({ segments: ['/etc/passwd'] }, web)))
    said.push(await messageOf(h.setSigningKey({ path: join(FIXTURES, 'no-such-key.pem') }, web)))
    for (const m of said) expect(m, m).not.toMatch(FLAG)
    // Not an empty test: each says something.
    for (const m of said) expect(m.length).toBeGreaterThan(10)
  })

  it("rows before the live chain (an archived prefix) are a notice in the app's words", async () => {
    session = new AuditSession()
    const h = createHandlers(session)
    await session.open(join(FIXTURES, 'claims', 'claims-archived-prefix.db'))
    await h.setSecrets({ secrets: [{ encoding: 'hex', value: SECRETS['primary']! }] }, ipc)
    const v = (await settled<VerifyVerdict>(h, (await h.startVerify({}, ipc)).id)).result!
    const notices = v.notices ?? []
    expect(notices.some((n) => n.includes('stood before the live chain'))).toBe(true)
    for (const n of notices) expect(n, n).not.toMatch(FLAG)
  })
})

/** Every file under `dir` with one of the extensions. */
function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? files(p, ext) : ext.test(n) ? [p] : []
  })
}

describe("the renderer's own text", () => {
  it('no string or JSX text in src/renderer cites a command-line flag', () => {
    const found: string[] = []
    for (const f of files(join(REPO_ROOT, 'src', 'renderer', 'src'), /\.tsx?$/)) {
      const text = readFileSync(f, 'utf8')
        // Comments say why, in the code's words; they are not shown.
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:])\/\/.*$/gm, '$1')
      text.split('\n').forEach((line, i) => {
        // CSS custom properties (var(--x), '--sidebar-w') are not flags.
        const l = line.replace(/var\(--[a-z-]+/g, '').replace(/(['"`])--[a-z-]+\1/g, '')
        if (FLAG.test(l)) found.push(`${f}:${i + 1}: ${line.trim()}`)
      })
    }
    expect(found).toEqual([])
  })
})
