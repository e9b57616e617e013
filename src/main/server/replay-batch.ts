// POST /replay/verify-batch (issue 37): the lines of `bijotel replay --batch` as the body
// (Content-Type: application/x-ndjson; files as output_base64 — the server opens no path a client
// names), answered with the same objects, one JSON a line, streamed as each line is decided, then
// the summary object. Bounded like a replay file (LIMITS.replay) and run through the long-work gate.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorBody } from '../handlers/dispatch'
import { checkReplayBatchFor } from '../handlers/engine'
import { batchItemJson, summaryJson } from '../replay/batch-format'
import type { AuditSession } from '../session/session'
import {
  API_CSP,
  BASE_HEADERS,
  HttpError,
  LIMITS,
  NDJSON_TYPE,
  readRequestBody,
  STATUS_OF,
  toJsonText,
} from './http'

export async function replayVerifyBatch(
  session: AuditSession,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== 'POST')
    throw new HttpError(405, 'bad_request', 'use POST for this route', { Allow: 'POST' })
  // Bytes, not text: a line that is not UTF-8 is a bad line like any other, as in the CLI.
  const body = await readRequestBody(req, LIMITS.replay, { type: NDJSON_TYPE, name: 'application/x-ndjson' })
  // No chain (or one that failed to open): its status now, before any line is sent.
  try {
    await session.ready()
  } catch (e) {
    const b = errorBody(e)
    throw new HttpError(b.code === 'no_chain' ? 503 : STATUS_OF[b.code], b.code, b.error)
  }
  const keysGiven = session.keys.length > 0
  let started = false
  const write = (value: unknown): void => {
    if (!started) {
      started = true
      for (const [k, v] of Object.entries(BASE_HEADERS)) res.setHeader(k, v)
      res.setHeader('Content-Security-Policy', API_CSP)
      res.setHeader('Cache-Control', 'no-store')
      res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8')
      res.statusCode = 200
    }
    res.write(toJsonText(value) + '\n')
  }
  try {
    const summary = await checkReplayBatchFor(session, body, (item) => write(batchItemJson(item, keysGiven)))
    // Checks past the session's bound are counted in the summary, not kept for its list and report.
    write({ ...summaryJson(summary), ...(summary.not_kept > 0 ? { checks_not_kept: summary.not_kept } : {}) })
  } catch (e) {
    if (!started) throw e
    // Lines already sent: the failure ends the stream as one last object, never as a summary.
    const b = errorBody(e)
    write({ error: b.error, code: b.code })
  }
  res.end()
}
