// The one handler table is assembled from one module per area (src/main/handlers/table.ts). Spreading
// them into one object would let a later area silently replace an earlier one's handler of the same
// name: here each area is built on its own, and together they must name every call of the contract
// exactly once, and the assembled table must hold exactly those calls, each a handler.
import { afterEach, describe, expect, it } from 'vitest'
import { API_CALLS } from '../../../src/shared/contract'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { custodyHandlers } from '../../../src/main/handlers/custody'
import { entryHandlers } from '../../../src/main/handlers/entries'
import { integrityHandlers } from '../../../src/main/handlers/integrity'
import { jobHandlers } from '../../../src/main/handlers/jobs'
import { keyHandlers } from '../../../src/main/handlers/keys'
import { openHandlers } from '../../../src/main/handlers/open'
import { replayHandlers } from '../../../src/main/handlers/replay'
import { reportHandlers } from '../../../src/main/handlers/reports'
import { toolHandlers } from '../../../src/main/handlers/tools'
import { verifyHandlers } from '../../../src/main/handlers/verify'

let session: AuditSession | null = null
afterEach(() => session?.dispose())

describe('the handler table', () => {
  it('each call of the contract has its handler in exactly one area', () => {
    session = new AuditSession()
    const s = session
    const areas: Record<string, object> = {
      open: openHandlers(s, {}),
      entries: entryHandlers(s),
      keys: keyHandlers(s),
      verify: verifyHandlers(s),
      integrity: integrityHandlers(s),
      jobs: jobHandlers(s),
      replay: replayHandlers(s),
      reports: reportHandlers(s, {}),
      custody: custodyHandlers(s, {}),
      tools: toolHandlers(s, {}),
    }
    const owners = new Map<string, string[]>()
    for (const [area, part] of Object.entries(areas))
      for (const name of Object.keys(part)) owners.set(name, [...(owners.get(name) ?? []), area])
    const twice = [...owners].filter(([, a]) => a.length > 1).map(([n, a]) => `${n}: ${a.join(', ')}`)
    expect(twice).toEqual([])
    expect([...owners.keys()].sort()).toEqual([...API_CALLS].sort())
  })

  it('the assembled table holds every call of the contract, and only those, as functions', () => {
    session = new AuditSession()
    const table = createHandlers(session)
    expect(Object.keys(table).sort()).toEqual([...API_CALLS].sort())
    for (const name of API_CALLS) expect(typeof table[name], name).toBe('function')
  })
})
