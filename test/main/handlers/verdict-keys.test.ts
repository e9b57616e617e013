// A verdict belongs to the keys it was made with. A verify started with one key set (a key typed
// wrong) that ends after the auditor replaced the keys (the right key typed) is that job's answer
// only: it never becomes the chain's verdict, which lastVerdict, the flagged rows and the report
// read — the wrong key's "HMAC mismatch" would be shown under the right key. Every order of
// replacing the keys while a verify runs is generated: wrong → right, right → wrong, key → more keys.
// The integrity monitor's run (its key and rotation notes are its keys') is held the same way, and
// a run that ends after another chain was opened is not kept for that chain.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { JobStatus } from '../../../src/shared/job-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { KEY_HEX, SMALL, writeChainFolder } from '../testing/exact-chains'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-verdict-keys-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const web = { transport: 'http' as const, trusted: true }

const chain = writeChainFolder(join(scratch, 'a'), { ...SMALL, rows: 3000 })
const other = writeChainFolder(join(scratch, 'b'), { ...SMALL, rows: 50 })
const WRONG = 'ab'.repeat(32)
const keys = (...hex: string[]) => ({ secrets: hex.map((value) => ({ encoding: 'hex' as const, value })) })

async function settled(h: ReturnType<typeof createHandlers>, id: string): Promise<JobStatus<VerifyVerdict>> {
  for (;;) {
    const s = (await h.jobStatus({ id }, web)) as JobStatus<VerifyVerdict>
    if (s.state !== 'running') return s
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('a verdict belongs to the keys it was made with', () => {
  const orders: [string, string[], string[]][] = [
    ['wrong, then right', [WRONG], [KEY_HEX]],
    ['right, then wrong', [KEY_HEX], [WRONG]],
    ['right, then right and another', [KEY_HEX], [KEY_HEX, WRONG]],
    ['wrong, then the same wrong again', [WRONG], [WRONG]],
  ]
  for (const [name, first, then] of orders)
    it(`keys replaced while a verify runs (${name}): its answer is not the chain's verdict`, async () => {
      session = new AuditSession({ openRoots: [scratch] })
      const h = createHandlers(session)
      await h.openChain({ path: chain }, web)
      await h.setSecrets(keys(...first), web)
      const job = (await h.startVerify({}, web)) as JobStatus<VerifyVerdict>
      await h.setSecrets(keys(...then), web)
      const done = await settled(h, job.id)
      expect(done.state).toBe('done')
      // The job answers for its own keys…
      expect(done.result!.valid).toBe(first[0] === KEY_HEX)
      // …but the chain has no verdict for the keys now held until a verify with them.
      expect(await h.lastVerdict(undefined, web)).toBeNull()
      const again = await settled(h, ((await h.startVerify({}, web)) as JobStatus<VerifyVerdict>).id)
      expect(again.result!.valid).toBe(then[0] === KEY_HEX)
      expect(((await h.lastVerdict(undefined, web)) as VerifyVerdict).valid).toBe(then[0] === KEY_HEX)
    })
})

describe('an integrity run belongs to the keys and the chain it was made with', () => {
  for (const all of [false, true])
    for (const change of ['keys', 'chain'] as const)
      it(`${all ? 'whole-chain job' : 'window call'}: ${change} replaced while it runs: not kept`, async () => {
        session = new AuditSession({ openRoots: [scratch] })
        const h = createHandlers(session)
        await h.openChain({ path: chain }, web)
        await h.setSecrets(keys(WRONG), web)
        const opts = all ? { all: true } : { window: 3000 }
        const started = all ? h.startIntegrity(opts, web) : h.runIntegrity(opts, web)
        // Replaced before the run has read its chain's rows (the open step alone awaits).
        if (change === 'keys') await h.setSecrets(keys(KEY_HEX), web)
        else await h.openChain({ path: other }, web)
        const first = await started
        if (all) expect((await settledAny(h, (first as JobStatus).id)).state).toBe('done')
        expect(session.integrity).toBeNull()
        // A run with what is held now is kept.
        const again = await h.runIntegrity({ window: 20 }, web)
        expect(session.integrity).toBe(again)
      })
})

async function settledAny(h: ReturnType<typeof createHandlers>, id: string): Promise<JobStatus> {
  for (;;) {
    const s = (await h.jobStatus({ id }, web)) as JobStatus
    if (s.state !== 'running') return s
    await new Promise((r) => setTimeout(r, 5))
  }
}
