// The contract over HTTP: `POST /api/call/<name>` for every name in API_CALLS, body = the request,
// reply = the value (200) or `{ error, code }` with the status of the code. No per-call routes.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { API_CALLS, type ApiName } from '../../shared/contract'
import { dispatch, isApiName } from '../handlers/dispatch'
import { FILTER_CALLS } from '../handlers/filter-request'
import type { CallContext, HandlerTable } from '../handlers/table'
import { HttpError, LIMITS, parseJson, readRequestBody, sendError, sendJson, STATUS_OF } from './http'

export const CALL_PREFIX = '/api/call/'

/**
 * Body limit per call: checkReplay carries a file (checkReplayBatch many, within the same bound) (base64, up to 64 MiB of bytes); setPrior and
 * checkReport carry a report (its text, up to the handler's 64 MiB). The calls that take an entry
 * filter carry a name the chain holds back whole (a provider, model, span name or status offered
 * on screen, up to the handler's NAME_CHARS): a span name of a megabyte chosen from the table was a
 * 413 under the 1 MiB JSON limit, so a name the screen offered could not be filtered on in web mode.
 */
const LARGE: ReadonlySet<ApiName> = new Set<ApiName>([
  'checkReplay',
  'checkReplayBatch',
  'setPrior',
  'checkReport',
  ...FILTER_CALLS,
])
export const CALL_LIMITS: Record<ApiName, number> = Object.fromEntries(
  API_CALLS.map((n) => [n, LARGE.has(n) ? LIMITS.replay : LIMITS.json]),
) as Record<ApiName, number>

/**
 * Calls only the local app may make over HTTP (refused with 403 before they reach the handler): keys,
 * and the report-signing key (issue 25), are chosen by the auditor, never by another page.
 */
const APP_ONLY: ReadonlySet<ApiName> = new Set<ApiName>(['setSecrets'])

/**
 * Calls never taken over HTTP, whoever sends them (issue 34): the report-signing key is the
 * auditor's, given on the command line (`serve --sign-key PATH`); no page sets, swaps or drops it.
 */
export const NEVER_OVER_HTTP: ReadonlySet<ApiName> = new Set<ApiName>(['setSigningKey', 'pickSigningKey'])

export async function handleCall(
  table: HandlerTable,
  name: string,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: CallContext,
): Promise<void> {
  if (!isApiName(name)) throw new HttpError(404, 'not_found', `unknown call ${name.slice(0, 100)}`)
  if (req.method !== 'POST')
    throw new HttpError(405, 'bad_request', `${name} is called with POST`, { Allow: 'POST' })
  if (NEVER_OVER_HTTP.has(name))
    throw new HttpError(
      403,
      'forbidden',
      `${name} is not accepted over HTTP: the signing key is the one this server was started with`,
    )
  const body = parseJson(await readRequestBody(req, CALL_LIMITS[name]))
  if (APP_ONLY.has(name) && !ctx.trusted) {
    throw new HttpError(
      403,
      'forbidden',
      `${name} is only accepted from the local app (the page this server served, on loopback)`,
    )
  }
  const reply = await dispatch(table, name, body, ctx)
  if (reply.ok) sendJson(res, 200, reply.value)
  else sendError(res, STATUS_OF[reply.error.code], reply.error.code, reply.error.error)
}
