// The one handler table implementing the contract (src/shared/contract.ts). Electron registers it on
// ipcMain, `bijotel serve` exposes it over HTTP; neither adds logic of its own. Each area's handlers
// live in their own module; the table only assembles them, and its type makes sure every call of the
// contract has exactly one handler.
import type { AuditSession } from '../session/session'
import { custodyHandlers } from './custody'
import { entryHandlers } from './entries'
import type { HandlerTable, Platform } from './handler-types'
import { integrityHandlers } from './integrity'
import { jobHandlers } from './jobs'
import { keyHandlers } from './keys'
import { openHandlers } from './open'
import { replayHandlers } from './replay'
import { reportHandlers } from './reports'
import { toolHandlers } from './tools'
import { verifyHandlers } from './verify'

export type { CallContext, Handler, HandlerTable, Platform } from './handler-types'

export function createHandlers(session: AuditSession, platform: Platform = {}): HandlerTable {
  return {
    ...openHandlers(session, platform),
    ...entryHandlers(session),
    ...keyHandlers(session),
    ...verifyHandlers(session),
    ...integrityHandlers(session),
    ...jobHandlers(session),
    ...replayHandlers(session),
    ...reportHandlers(session, platform),
    ...custodyHandlers(session, platform),
    ...toolHandlers(session, platform),
  }
}
