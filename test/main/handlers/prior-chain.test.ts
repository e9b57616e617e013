// Issue 39 ("Priors") in the app: "compare with an earlier report…" (setPrior) refuses a prior of
// another chain in the words `verify --prior` uses, and takes an honest one — the chain's own
// report, and the report of a chain whose tail was then cut, whose verify still shows the cut.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JobStatus } from '../../../src/shared/job-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { dispatch, type Reply } from '../../../src/main/handlers/dispatch'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers, type CallContext, type HandlerTable } from '../../../src/main/handlers/table'
import { parseSecrets } from '../../../src/main/chain/keys'
import { OTHER_CHAIN } from '../../../src/main/verify/prior-chain'
import { copyFixture, scratchDir, spanRows, writeChain } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { verdictOnly } from '../testing/evidence'
import { fingerprintFolder, secretInputs, SECRETS } from '../testing/fixtures'
import { deleteRows, rewriteFrom } from '../testing/reports'

const IPC: CallContext = { transport: 'ipc', trusted: true }
const KEY = SECRETS['primary']!
const OTHER = 'cd'.repeat(32)
const before = fingerprintFolder()
const scratch = scratchDir('prior-chain-handlers')
let session: AuditSession
let table: HandlerTable
let n = 0

async function call(name: keyof HandlerTable, req?: unknown): Promise<Reply> {
  return dispatch(table, name, req, IPC)
}

async function verifyJob(): Promise<VerifyVerdict> {
  const r = await call('startVerify', {})
  if (!r.ok) throw new Error(r.error.error)
  const { id } = r.value as JobStatus
  for (let i = 0; i < 2000; i++) {
    const s = await call('jobStatus', { id })
    if (!s.ok) throw new Error(s.error.error)
    const st = s.value as JobStatus
    if (st.state !== 'running') return st.result as VerifyVerdict
    await new Promise((res) => setTimeout(res, 10))
  }
  throw new Error('verify did not finish')
}

async function openWithKey(db: string): Promise<void> {
  await session.open(db)
  session.keys = parseSecrets(secretInputs(['primary']))
}

function reportOf(db: string, key: string): string {
  const out = join(scratch.dir, `report-${++n}.json`)
  expect(bijotel(['report', '--db', db, '--secret-hex', key, '-o', out]).code).toBe(0)
  return out
}

function verdictOf(db: string, key: string): string {
  const out = join(scratch.dir, `verdict-${++n}.json`)
  const r = bijotel(['verify', '--db', db, '--no-recover', '--secret-hex', key, '--json'])
  expect(r.code).toBe(0)
  writeFileSync(out, JSON.stringify(verdictOnly(r.stdout)))
  return out
}

beforeAll(() => {
  ensureBuilt()
  session = new AuditSession({})
  table = createHandlers(session, {})
})

afterAll(() => {
  session.dispose()
  scratch.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

describe('setPrior: a prior must be of the chain open now', () => {
  it('priors of other chains are refused in one line, and the prior held before stays', async () => {
    const live = copyFixture('clean', scratch.dir, `live-${++n}.db`)
    const own = reportOf(live, KEY)
    const foreign: string[] = []
    const resealed = copyFixture('clean', scratch.dir, `resealed-${++n}.db`)
    rewriteFrom(resealed, Buffer.from(KEY, 'hex'), 1n)
    foreign.push(reportOf(resealed, KEY), verdictOf(resealed, KEY))
    const otherKey = copyFixture('clean', scratch.dir, `other-${++n}.db`)
    rewriteFrom(otherKey, Buffer.from(OTHER, 'hex'), 1n, false)
    foreign.push(reportOf(otherKey, OTHER), verdictOf(otherKey, OTHER))
    for (const rows of [3, 240, 500]) {
      const fresh = join(scratch.dir, `fresh-${++n}.db`)
      writeChain(fresh, Buffer.from(KEY, 'hex'), spanRows(rows, 1_650_000_000_000_000_000n))
      foreign.push(reportOf(fresh, KEY))
    }
    await openWithKey(live)
    const held = await call('setPrior', { path: own })
    expect(held.ok).toBe(true)
    for (const p of foreign) {
      const r = await call('setPrior', { path: p })
      expect({ p, ok: r.ok, error: r.ok ? null : r.error.error }).toEqual({
        p,
        ok: false,
        error: OTHER_CHAIN,
      })
    }
    const v = await verifyJob()
    expect(v.valid).toBe(true)
    expect(v.prior_check).toMatchObject({ found: true, rows_unchanged: true })
  })

  it('the report of a chain whose tail was then cut is taken, and the verify shows the cut', async () => {
    for (const cut of [1, 100, 239]) {
      const db = copyFixture('clean', scratch.dir, `cut-${++n}.db`)
      const priors = [reportOf(db, KEY), verdictOf(db, KEY)]
      deleteRows(db, `seq > ${cut}`)
      await openWithKey(db)
      for (const p of priors) {
        const r = await call('setPrior', { path: p })
        expect({ cut, p, ok: r.ok }).toEqual({ cut, p, ok: true })
        const v = await verifyJob()
        expect(v.valid).toBe(false)
        // The app's verify also searches the file's free pages, which may prove the same cut.
        expect(v.findings).toContainEqual(
          expect.objectContaining({ kind: 'truncated', from_seq: cut + 1, to_seq: 240 }),
        )
        expect(v.prior_check).toMatchObject({ found: false, prior: { last_seq: 240 } })
      }
    }
  })
})
