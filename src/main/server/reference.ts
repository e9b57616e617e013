// Routes with the shapes of the reference REST API (§5.4, §6.5, §7), answered from the same session
// and handlers as the contract calls. Differences from Python are deliberate and listed in
// docs/server.md: hmac_valid is null without a secret (§11.12), /chain/verify always verifies
// fully (there is no "smoke" mode), ranges are honoured, times are exact.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EntryFilter } from '../../shared/chain-types'
import type { JobStatus } from '../../shared/job-types'
import type { VerifyRangeOptions, VerifyVerdict } from '../../shared/verify-types'
import { listEntries, text, type RawEntry } from '../chain/views'
import { parseBody } from '../chain/body'
import { errorBody } from '../handlers/dispatch'
import { runIntegrityFor } from '../handlers/engine'
import type { AuditSession } from '../session/session'
import type { CallContext, HandlerTable } from '../handlers/table'
import { reportJson } from '../integrity'
import { referenceReplayAnswer } from '../replay/format'
import { TOOL_NAME, TOOL_VERSION } from '../base/version'
import { headlineReason } from '../verify/describe'
import { makeSealer, sha256Hex } from '../chain/seal'
import { existsSync } from 'node:fs'
import { AuditError } from '../base/errors'
import { obj, optBool, optNs, shown } from '../handlers/validate'
import { laxInt } from './lax-int'
import { parseExactIntegers } from './exact-json'
import {
  HttpError,
  LIMITS,
  parseJson,
  readRequestBody,
  sendJson,
  sendJsonText,
  STATUS_OF,
  type ErrorCode,
} from './http'
import { parseIsoNs, pyIsoFromNs } from '../../shared/time'

export interface RefDeps {
  session: AuditSession
  table: HandlerTable
}

/** Reference status for an engine error: no open chain is "DB not found" (503), bad input 422. */
function refError(e: unknown, validationStatus = 422): HttpError {
  if (e instanceof HttpError) return e
  const b = errorBody(e)
  const status = b.code === 'no_chain' ? 503 : b.code === 'bad_request' ? validationStatus : STATUS_OF[b.code]
  const message =
    b.code === 'no_chain'
      ? `chain DB not found: ${b.error} (open one with openChain, or start serve with --db)`
      : b.error
  return new HttpError(status, b.code as ErrorCode, message)
}

function invalid(message: string): HttpError {
  return new HttpError(422, 'bad_request', message)
}

function requireMethod(req: IncomingMessage, method: 'GET' | 'POST'): void {
  const ok = method === 'GET' ? req.method === 'GET' || req.method === 'HEAD' : req.method === 'POST'
  if (!ok)
    throw new HttpError(405, 'bad_request', `use ${method} for this route`, {
      Allow: method === 'GET' ? 'GET, HEAD' : 'POST',
    })
}

/**
 * An integer query parameter within [min, max] (a safe integer: a 16-digit value beyond 2^53 would
 * otherwise round to its neighbour); anything else is the reference's 422, naming the parameter.
 */
function intParam(url: URL, name: string, dflt: number, min: number, max: number): number {
  const raw = url.searchParams.get(name)
  if (raw === null || raw === '') return dflt
  const v = laxInt(raw)
  if (typeof v !== 'number' || v < min || v > max)
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${shown(raw)}`)
  return v
}

/** A body's integer field as the reference's pydantic reads it (lax-int.ts), a safe integer. */
function bodyInt(o: Record<string, unknown>, key: string): number {
  const v = laxInt(o[key])
  if (typeof v !== 'number')
    throw invalid(
      `${key} must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, got ${shown(o[key])}`,
    )
  return v
}

function optBodyInt(o: Record<string, unknown>, key: string): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : bodyInt(o, key)
}

/** The body's fields checked by the contract's validators; their `bad_argument` is the reference's 422. */
function validated<T>(read: () => T): T {
  try {
    return read()
  } catch (e) {
    if (e instanceof AuditError) throw invalid(e.message)
    throw e
  }
}

// GET /health, GET /version --------------------------------------------------------------------

export function health(deps: RefDeps, res: ServerResponse, showPath: boolean): void {
  const db = deps.session.chain?.overview.evidence.db.path ?? deps.session.options.initialPath ?? null
  sendJson(res, 200, {
    status: 'ok',
    version: TOOL_VERSION,
    db: showPath ? db : null,
    db_exists: deps.session.chain !== null || (db !== null && existsSync(db)),
  })
}

export function version(res: ServerResponse): void {
  sendJson(res, 200, { version: TOOL_VERSION, package: TOOL_NAME })
}

// GET /integrity?window=N ------------------------------------------------------------------------

export async function integrity(
  deps: RefDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  requireMethod(req, 'GET')
  const window = intParam(url, 'window', 100, 2, 10000)
  try {
    await deps.session.ready()
    // The engine directly, not the runIntegrity handler: a GET must not replace the session's
    // integrity run (which drives the app's "flagged" filter).
    const run = await runIntegrityFor(deps.session, { window })
    sendJsonText(res, 200, reportJson(run.report))
  } catch (e) {
    throw refError(e)
  }
}

// POST /replay/verify {seq, replayed_output} -------------------------------------------------------

export async function replayVerify(
  deps: RefDeps,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: CallContext,
): Promise<void> {
  requireMethod(req, 'POST')
  const body = parseJson(await readRequestBody(req, LIMITS.replay))
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body must be a JSON object {seq, replayed_output}')
  const o = body as Record<string, unknown>
  const seq = bodyInt(o, 'seq')
  if (typeof o['replayed_output'] !== 'string')
    throw invalid(`replayed_output must be a string, got ${shown(o['replayed_output'])}`)
  try {
    await deps.session.ready()
    const check = await deps.table.checkReplay({ seq, text: o['replayed_output'] }, ctx)
    sendJson(res, 200, referenceReplayAnswer(check))
  } catch (e) {
    throw refError(e)
  }
}

// GET /chain, GET /chain/{seq} ---------------------------------------------------------------------

function timestampOf(v: unknown): string {
  return typeof v === 'bigint' ? pyIsoFromNs(v) : (text(v) ?? '')
}

/**
 * The row's own body hash and HMAC under the server's candidate keys (no linkage, as the
 * reference); null when the server has no key (the reference says false, §11.12).
 */
function hmacChecker(session: AuditSession): (r: RawEntry) => boolean | null {
  const sealers = session.keys.map((k) => makeSealer(k.bytes))
  return (r) => {
    if (sealers.length === 0) return null
    const body = r[6] ?? Buffer.alloc(0)
    const ch = text(r[7])
    const prev = text(r[8])
    const mac = text(r[9])
    if (ch === null || prev === null || mac === null || sha256Hex(body) !== ch) return false
    return sealers.some((s) => s.seal(prev, ch) === mac)
  }
}

function isoParam(url: URL, name: 'since' | 'until'): bigint | null {
  const raw = url.searchParams.get(name)
  if (raw === null || raw === '') return null
  const ns = parseIsoNs(raw)
  if (ns === null) throw new HttpError(400, 'bad_request', `Invalid '${name}' ISO-8601: ${raw.slice(0, 100)}`)
  return ns
}

export async function chainList(
  deps: RefDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  requireMethod(req, 'GET')
  const limit = intParam(url, 'limit', 50, 1, 500)
  const offset = intParam(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER)
  const since = isoParam(url, 'since')
  const until = isoParam(url, 'until')
  try {
    const opened = await deps.session.ready()
    const filter: EntryFilter = {}
    if (since !== null) filter.from_ns = since.toString()
    if (until !== null) filter.to_ns = (until - 1n).toString() // until is exclusive, as in the reference
    const positions = deps.session.positions(Object.keys(filter).length > 0 ? filter : undefined, 'seq_desc')
    const page = listEntries(opened.rows, positions, opened.index, offset, limit)
    const raw = opened.rows(page.rows.map((r) => r.seq))
    const hmacValid = hmacChecker(deps.session)
    const entries = page.rows.map((s) => {
      const r = raw.get(s.seq)
      return {
        seq: s.seq,
        timestamp: r ? timestampOf(r[1]) : s.time,
        trace_id: r ? text(r[2]) : null,
        span_id: r ? text(r[3]) : null,
        span_name: s.span_name,
        span_kind: s.span_kind,
        canonical_hash: s.canonical_hash,
        hmac_valid: r ? hmacValid(r) : null,
      }
    })
    sendJson(res, 200, {
      total: page.total,
      entries,
      pagination: { limit, offset, has_more: offset + entries.length < page.total },
    })
  } catch (e) {
    throw refError(e, 400)
  }
}

export async function chainEntry(
  deps: RefDeps,
  req: IncomingMessage,
  res: ServerResponse,
  seqText: string,
): Promise<void> {
  requireMethod(req, 'GET')
  // The path segment as the reference's router reads it: percent-decoded, then pydantic's int.
  let decoded: string | null
  try {
    decoded = decodeURIComponent(seqText)
  } catch {
    decoded = null
  }
  const seq = decoded === null ? null : laxInt(decoded)
  if (typeof seq !== 'number')
    throw invalid(
      `seq must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}, got ${shown(decoded ?? seqText)}`,
    )
  if (seq < 1) throw new HttpError(400, 'bad_request', 'seq must be >= 1')
  try {
    const opened = await deps.session.ready()
    const r = opened.rows([seq]).get(seq)
    if (!r) throw new HttpError(404, 'not_found', `chain entry seq=${seq} not found`)
    const parsed = parseBody(r[6] ?? Buffer.alloc(0))
    sendJson(res, 200, {
      seq,
      timestamp: timestampOf(r[1]),
      trace_id: text(r[2]),
      span_id: text(r[3]),
      span_name: text(r[4]),
      span_kind: text(r[5]),
      canonical_body: parsed === undefined ? { _error: 'body not valid UTF-8 JSON' } : parsed,
      canonical_hash: text(r[7]),
      prev_hash: text(r[8]),
      hmac_hash: text(r[9]),
      hmac_valid: hmacChecker(deps.session)(r),
      cas_ref: text(r[10]),
    })
  } catch (e) {
    throw refError(e, 400)
  }
}

// POST /chain/verify ---------------------------------------------------------------------------------

/**
 * The optional body of `POST /chain/verify`. ns bounds may be JSON integers (read exactly beyond
 * 2^53, see exact-json.ts) or decimal strings, within int64; seqs are safe integers read as the
 * reference's pydantic reads them (lax-int.ts); `last_n` of 0 or below means 1, as in the reference.
 */
function rangeFromBody(body: unknown): VerifyRangeOptions | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalid(`body must be a JSON object, got ${shown(body)}`)
  return validated(() => {
    const o = obj(body)
    optBool(o, 'full')
    const r: VerifyRangeOptions = {}
    const a = optBodyInt(o, 'seq_start')
    const b = optBodyInt(o, 'seq_end')
    const since = optNs(o, 'since_ns', { numbers: true })
    const until = optNs(o, 'until_ns', { numbers: true })
    const last = optBodyInt(o, 'last_n')
    if (a !== undefined) r.seq_start = a
    if (b !== undefined) r.seq_end = b
    if (since !== undefined) r.since_ns = since
    if (until !== undefined) r.until_ns = until
    if (last !== undefined) r.last_n = Math.max(1, last)
    return Object.keys(r).length > 0 ? r : undefined
  })
}

function waitForJob(session: AuditSession, id: string, res: ServerResponse): Promise<JobStatus> {
  return new Promise((resolve, reject) => {
    const onClose = (): void => {
      // The client went away: nobody will read this verdict.
      if (!res.writableEnded) {
        try {
          session.jobs.cancel(id)
        } catch {
          // already pruned
        }
      }
    }
    res.once('close', onClose)
    const timer = setInterval(() => {
      try {
        const s = session.jobs.status(id)
        if (s.state === 'running') return
        clearInterval(timer)
        res.off('close', onClose)
        resolve(s)
      } catch (e) {
        clearInterval(timer)
        res.off('close', onClose)
        reject(e)
      }
    }, 10)
  })
}

export async function chainVerify(
  deps: RefDeps,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: CallContext,
): Promise<void> {
  requireMethod(req, 'POST')
  const buf = await readRequestBody(req, LIMITS.json)
  const parsed = parseJson(buf)
  const body = parsed === undefined ? undefined : parseExactIntegers(buf.toString('utf8'), parsed)
  const range = rangeFromBody(body)
  try {
    await deps.session.ready()
    if (deps.session.keys.length === 0) {
      throw new HttpError(
        400,
        'bad_request',
        'HMAC secret required: start serve with --secret-hex / --secret-text or BIJOTEL_HMAC_SECRET (this server has no "smoke" check: without the secret nothing can be verified)',
      )
    }
    const job = await deps.table.startVerify(range ? { range } : {}, ctx)
    const done = await waitForJob(deps.session, job.id, res)
    if (done.state !== 'done' || done.result === null) {
      const message =
        done.state === 'cancelled'
          ? 'verification was cancelled'
          : `verification failed: ${done.error ?? 'unknown error'}`
      throw new HttpError(
        done.state === 'cancelled' ? 503 : 500,
        done.state === 'cancelled' ? 'unavailable' : 'internal',
        message,
      )
    }
    const v = done.result as VerifyVerdict
    sendJson(res, 200, {
      valid: v.valid,
      entries_verified: v.entries,
      first_seq: v.first_seq,
      last_seq: v.last_seq,
      error: v.valid ? null : headlineReason(v),
      error_seq: v.first_bad_seq,
      verdict: v,
    })
  } catch (e) {
    throw refError(e, 400)
  }
}
