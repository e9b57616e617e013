// A replay check's row part ("row verifies: … HMAC reproduced by key #N", "row does NOT verify: HMAC
// mismatch") is a statement about the keys held when it was made. After the keys are replaced (a key
// typed wrong, then right; a rotated key added; keys removed) the session's list and the report
// must say what the keys held NOW make of that row, never the old keys' words: a wrong key's
// "does NOT verify" stayed in the list and the report under the right key, and "key #2" named a key
// no longer held. A check that ends after the keys or the chain changed is held to the same rule.
// Generated: random sequences of key sets and checks, every list and report compared with a fresh
// check under the keys held at that moment.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { ReplayCheck } from '../../../src/shared/replay-types'
import type { AuditReport } from '../../../src/shared/report-types'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { KEY_HEX, SMALL, tamperRows, writeChainFolder } from '../testing/exact-chains'
import { mulberry32 } from '../testing/prng'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-replay-keys-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const web = { transport: 'http' as const, trusted: true }

const chain = writeChainFolder(join(scratch, 'a'), { ...SMALL, rows: 60 })
const edited = writeChainFolder(join(scratch, 'edited'), { ...SMALL, rows: 60 })
tamperRows(edited, { body: [7], name: [], link: [] })
const other = writeChainFolder(join(scratch, 'b'), { ...SMALL, rows: 30 })
const WRONG = 'ab'.repeat(32)
const OTHER_WRONG = 'cd'.repeat(32)
const KEY_SETS: string[][] = [
  [],
  [WRONG],
  [KEY_HEX],
  [WRONG, KEY_HEX],
  [KEY_HEX, WRONG],
  [OTHER_WRONG, WRONG],
]
const keys = (hex: string[]) => ({ secrets: hex.map((value) => ({ encoding: 'hex' as const, value })) })

/** What a check made now says of `seq`'s row: its row_verified and row_detail. */
async function freshRow(h: ReturnType<typeof createHandlers>, s: AuditSession, seq: number) {
  const before = [...s.replayChecks]
  const c = (await h.checkReplay({ seq, text: 'fresh' }, web)) as ReplayCheck
  s.replayChecks = before
  return { row_verified: c.row_verified, row_detail: c.row_detail }
}

async function expectCurrent(
  h: ReturnType<typeof createHandlers>,
  s: AuditSession,
  what: string,
  withReport = true,
) {
  const listed = structuredClone((await h.listReplayChecks(undefined, web)) as ReplayCheck[])
  const report = withReport ? ((await h.buildReport({}, web)) as AuditReport) : null
  if (report) expect(report.replay_checks.length, what).toBe(listed.length)
  const now = new Map<number, Awaited<ReturnType<typeof freshRow>>>()
  for (const [i, c] of listed.entries()) {
    if (!now.has(c.seq)) now.set(c.seq, await freshRow(h, s, c.seq))
    const want = now.get(c.seq)
    expect({ row_verified: c.row_verified, row_detail: c.row_detail }, `${what}: list #${i}`).toEqual(want)
    if (!report) continue
    const r = report.replay_checks[i]!
    expect({ row_verified: r.row_verified, row_detail: r.row_detail }, `${what}: report #${i}`).toEqual(want)
  }
}

describe('replay checks follow the keys held', () => {
  for (const [label, path] of [
    ['an untouched chain', chain],
    ['a chain with an edited body', edited],
  ] as const)
    it(`${label}: random key changes between checks, the list and report never keep the old keys' words`, async () => {
      const rnd = mulberry32(label.length * 7919)
      session = new AuditSession({ openRoots: [scratch] })
      const h = createHandlers(session)
      await h.openChain({ path }, web)
      const trail: string[] = []
      for (let step = 0; step < 18; step++) {
        if (rnd() < 0.45) {
          const set = KEY_SETS[Math.floor(rnd() * KEY_SETS.length)]!
          trail.push(`keys ${set.map((k) => k.slice(0, 2)).join('+') || 'none'}`)
          await h.setSecrets(keys(set), web)
        } else {
          const seq = 1 + Math.floor(rnd() * 60)
          trail.push(`check ${seq}`)
          await h.checkReplay({ seq, text: `out ${step}` }, web)
        }
        await expectCurrent(h, session, trail.join(', '), step % 6 === 5)
      }
    })

  /** Let `n` turns of the event loop pass (setImmediate): the change lands at a different point of the check. */
  async function turns(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r))
  }

  it('keys replaced while a check runs (at every point of it): the check lands with the words of the keys now held', async () => {
    const orders: [string[], string[]][] = [
      [[WRONG], [KEY_HEX]],
      [[KEY_HEX], [WRONG]],
      [[KEY_HEX], []],
      [[WRONG, KEY_HEX], [KEY_HEX]],
    ]
    for (const [first, then] of orders)
      for (let wait = 0; wait < 12; wait += 1) {
        session?.dispose()
        session = new AuditSession({ openRoots: [scratch] })
        const h = createHandlers(session)
        await h.openChain({ path: chain }, web)
        await h.setSecrets(keys(first), web)
        const running = h.checkReplay({ seq: 5, text: 'x' }, web)
        await turns(wait)
        await h.setSecrets(keys(then), web)
        const answered = (await running) as ReplayCheck
        const what = `${first.length} key(s) then ${then.length}, after ${wait} turns`
        await expectCurrent(h, session, what, false)
        // The answer itself is not the old keys' either once it lands after the change.
        const now = await freshRow(h, session, 5)
        expect({ row_verified: answered.row_verified, row_detail: answered.row_detail }, what).toEqual(now)
      }
  })

  it('another chain opened while a check runs (at every point of it): the check is not listed for it', async () => {
    for (let wait = 0; wait < 12; wait += 1) {
      session?.dispose()
      session = new AuditSession({ openRoots: [scratch] })
      const h = createHandlers(session)
      await h.openChain({ path: chain }, web)
      const running = h.checkReplay({ seq: 20, text: 'x' }, web)
      await turns(wait)
      await h.openChain({ path: other }, web)
      await running.catch(() => undefined)
      expect((await h.listReplayChecks(undefined, web)) as ReplayCheck[], `after ${wait} turns`).toEqual([])
    }
  })
})
