// The handlers of the replay check: a response (text or file) held against a sealed row, the checks
// made so far, and a JSONL batch of them.
import type { ApiName } from '../../shared/contract'
import type { ReplayBatchItem, ReplayCheckRequest } from '../../shared/replay-types'
import { REPLAY_BATCH_BASE64_MAX } from '../../shared/replay-names'
import { AuditError } from '../base/errors'
import type { AuditSession } from '../session/session'
import { checkReplayBatchFor, checkReplayFor, heldReplayChecks, MAX_KEPT_BATCH_CHECKS } from './engine'
import type { HandlerTable } from './handler-types'
import { int, obj, optEnum, optStr } from './validate'

type ReplayCall = Extract<ApiName, 'checkReplay' | 'listReplayChecks' | 'checkReplayBatch'>

/** A replay batch's JSONL (the server's body bound for a replay file holds it). */
const MAX_BATCH_BODY_CHARS = REPLAY_BATCH_BASE64_MAX

function replayRequestFrom(req: unknown): ReplayCheckRequest {
  const o = obj(req)
  const r: ReplayCheckRequest = { seq: int(o, 'seq') }
  const text = optStr(o, 'text', 64 * 1024 * 1024)
  const file = optStr(o, 'file_base64', 90 * 1024 * 1024)
  if ((text === undefined) === (file === undefined))
    throw new AuditError('bad_argument', 'give exactly one of text or file_base64')
  if (text !== undefined) r.text = text
  if (file !== undefined) r.file_base64 = file
  const name = optStr(o, 'file_name', 1000)
  if (name !== undefined) r.file_name = name
  const mode = optEnum(o, 'mode', ['python', 'raw'] as const)
  if (mode !== undefined) r.mode = mode
  const prompt = optStr(o, 'prompt', 64 * 1024 * 1024)
  if (prompt !== undefined) r.prompt = prompt
  return r
}

export function replayHandlers(session: AuditSession): Pick<HandlerTable, ReplayCall> {
  return {
    checkReplay: async (req) => checkReplayFor(session, replayRequestFrom(req)),
    listReplayChecks: async () => heldReplayChecks(session),
    checkReplayBatch: async (req) => {
      const o = obj(req)
      const text = optStr(o, 'jsonl', MAX_BATCH_BODY_CHARS)
      const b64 = optStr(o, 'jsonl_base64', MAX_BATCH_BODY_CHARS)
      if ((text === undefined) === (b64 === undefined))
        throw new AuditError('bad_argument', 'give exactly one of jsonl or jsonl_base64')
      if (b64 !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(b64))
        throw new AuditError('bad_argument', 'jsonl_base64 is not base64')
      // The answer lists the first lines only: a body of short lines is millions of items.
      const items: ReplayBatchItem[] = []
      let omitted = 0
      const jsonl = text ?? Buffer.from(b64 as string, 'base64')
      const { not_kept, ...summary } = await checkReplayBatchFor(session, jsonl, (i) => {
        if (items.length < MAX_KEPT_BATCH_CHECKS) items.push(i)
        else omitted++
      })
      return {
        items,
        summary,
        ...(omitted > 0 ? { items_omitted: omitted } : {}),
        ...(not_kept > 0 ? { checks_not_kept: not_kept } : {}),
      }
    },
  }
}
