// Issue 29 items 1 and 2 through the handler table: a web client (transport http) opens a chain
// inside an --open-root, and the open root holds for every file of it — a side file linked outside
// the root is refused with one line naming it, and nothing of it (size, hash) reaches the evidence.
// The desktop app (ipc) has no root: it opens the chain and records where the link leads.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { ChainOverview } from '../../../src/shared/chain-types'
import { openRace } from '../testing/open-race'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers, type CallContext } from '../../../src/main/handlers/table'
import { SMALL, writeChainFolder } from '../testing/exact-chains'

// The race: a file swapped between the open step's check and its open (../testing/open-race.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../testing/open-race')).raceFs(await importOriginal<typeof import('node:fs')>()),
)

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-open-policy-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let session: AuditSession | null = null
afterEach(() => {
  session?.dispose()
  openRace.between = null
})

const web = { transport: 'http' as const, trusted: true }
const app = { transport: 'ipc' as const, trusted: true }

describe('open roots hold for every file of a chain', () => {
  it('refuses a chain whose side file links outside the root, and the race around the open', async () => {
    const root = join(scratch, 'root')
    const outside = join(scratch, 'outside')
    mkdirSync(outside, { recursive: true })
    const path = writeChainFolder(join(root, 'case'), SMALL)
    const secret = join(outside, 'passwd')
    writeFileSync(secret, 'root:x:0:0::/root:/bin/sh\n')
    session = new AuditSession({ openRoots: [root] })
    const h = createHandlers(session)
    const open = (p: string, ctx: CallContext = web): Promise<ChainOverview> =>
      h.openChain({ path: p }, ctx) as Promise<ChainOverview>

    expect((await open(path)).entries).toBe(SMALL.rows)
    for (const suffix of ['-wal', '-shm', '-journal']) {
      symlinkSync(secret, path + suffix)
      await expect(open(path)).rejects.toThrow(
        `${path}${suffix} (a link to ${secret}) is outside the open roots`,
      )
      // The desktop app opens it and records the link in the evidence.
      const ov = await open(path, app)
      const side = [ov.evidence.wal, ...ov.evidence.side_files].find((f) => f?.path === path + suffix)
      expect(side?.link_target).toBe(secret)
      rmSync(path + suffix)
    }

    // The chain swapped for a link to one outside the root right after the check.
    const away = writeChainFolder(join(outside, 'other'), SMALL)
    openRace.between = (real) => {
      if (real !== path) return
      rmSync(path)
      symlinkSync(away, path)
    }
    await expect(open(path)).rejects.toThrow(/replaced while it was being opened|outside the open roots/)
  })
})
