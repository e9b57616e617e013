// Calling the handler table by name, for both transports: unknown names and thrown errors become
// `{ error, code }` replies, never a stack trace.
import { API_CALLS, type ApiErrorBody, type ApiName } from '../../shared/contract'
import { AuditError, CHAIN_FILE_ERRORS, oneLine } from '../base/errors'
import type { CallContext, HandlerTable } from './table'

export type Reply = { ok: true; value: unknown } | { ok: false; error: ApiErrorBody }

export function isApiName(name: string): name is ApiName {
  return (API_CALLS as readonly string[]).includes(name)
}

export function errorBody(e: unknown): ApiErrorBody {
  if (e instanceof AuditError) {
    if (e.code === 'not_found') return { error: e.message, code: 'not_found' }
    if (e.code === 'no_chain') return { error: e.message, code: 'no_chain' }
    if (e.code === 'unavailable') return { error: e.message, code: 'unavailable' }
    if (CHAIN_FILE_ERRORS.has(e.code)) return { error: e.message, code: 'not_a_chain' }
    return { error: e.message, code: 'bad_request' }
  }
  return { error: `internal error: ${oneLine(e)}`, code: 'internal' }
}

export async function dispatch(
  table: HandlerTable,
  name: string,
  req: unknown,
  ctx: CallContext,
): Promise<Reply> {
  // The name is the caller's: echoed cut to 100 characters (a renderer may send megabytes), as the
  // HTTP transport's 404 does.
  if (!isApiName(name))
    return { ok: false, error: { error: `unknown call ${name.slice(0, 100)}`, code: 'not_found' } }
  try {
    const handler = table[name] as (req: unknown, ctx: CallContext) => Promise<unknown>
    return { ok: true, value: await handler(req, ctx) }
  } catch (e) {
    return { ok: false, error: errorBody(e) }
  }
}
