// Server-Sent Events. Job progress: `GET /api/jobs/<id>/events` sends `event: progress` with the
// JobStatus every PROGRESS_MS while the job runs (150 ms: under 250 ms even when timers run late), and one `event: done` with the final
// status as soon as it ends (done, failed or cancelled), then closes. And the main → renderer
// events of web mode (`GET /api/events`, streamAppEvents below).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AppEvent } from '../../shared/app-events'
import type { JobStatus } from '../../shared/job-types'
import type { JobRegistry } from '../session/jobs'
import { heldPrior, onPriorChanged, onReportSigned } from '../session/custody-state'
import type { AuditSession } from '../session/session'
import { BASE_HEADERS, HttpError, toJsonText } from './http'

export const PROGRESS_MS = 150
const TICK_MS = 25

export interface EventStreams {
  /** Open streams, so the server can end them on close. */
  readonly open: Set<() => void>
}

function frame(event: string, status: JobStatus): string {
  return `event: ${event}\ndata: ${toJsonText(status)}\n\n`
}

export function streamJob(
  jobs: JobRegistry,
  id: string,
  req: IncomingMessage,
  res: ServerResponse,
  streams: EventStreams,
): void {
  if (req.method !== 'GET')
    throw new HttpError(405, 'bad_request', 'job events are read with GET', { Allow: 'GET' })
  let status: JobStatus
  try {
    status = jobs.status(id)
  } catch {
    throw new HttpError(404, 'not_found', `no job ${id.slice(0, 100)}`)
  }
  for (const [k, v] of Object.entries(BASE_HEADERS)) res.setHeader(k, v)
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  })
  res.flushHeaders()
  let lastSent = 0
  let ended = false
  const end = (): void => {
    if (ended) return
    ended = true
    clearInterval(timer)
    streams.open.delete(end)
    res.end()
  }
  const send = (s: JobStatus): void => {
    if (s.state === 'running') {
      res.write(frame('progress', { ...s, result: null }))
      lastSent = Date.now()
    } else {
      res.write(frame('done', s))
      end()
    }
  }
  const tick = (): void => {
    if (ended) return
    try {
      status = jobs.status(id)
    } catch {
      // Pruned meanwhile: report what we last knew, as failed.
      send({
        ...status,
        state: status.state === 'running' ? 'failed' : status.state,
        error: status.error ?? 'job no longer known',
      })
      return
    }
    if (status.state !== 'running' || Date.now() - lastSent >= PROGRESS_MS) send(status)
  }
  const timer = setInterval(tick, TICK_MS)
  streams.open.add(end)
  req.on('close', end)
  res.write('retry: 1000\n\n')
  send(status)
}

/**
 * The main → renderer events of web mode (src/shared/app-events.ts): `GET /api/events` sends
 * `event: <name>` with the payload as JSON for as long as the page listens. It starts with the chain
 * the engine holds, so a page that connects (or reconnects) late still learns it; then every change,
 * whichever client made it. The shell's menu events do not exist in web mode.
 */
export function streamAppEvents(
  session: AuditSession,
  req: IncomingMessage,
  res: ServerResponse,
  streams: EventStreams,
): void {
  if (req.method !== 'GET')
    throw new HttpError(405, 'bad_request', 'events are read with GET', { Allow: 'GET' })
  for (const [k, v] of Object.entries(BASE_HEADERS)) res.setHeader(k, v)
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  })
  res.flushHeaders()
  const send = (ev: AppEvent): void => {
    res.write(`event: ${ev.name}\ndata: ${toJsonText(ev.payload)}\n\n`)
  }
  let ended = false
  const stopChain = session.onChainChanged((chain) => send({ name: 'chainChanged', payload: { chain } }))
  const stopKeys = session.onKeysChanged((keys) => send({ name: 'keysChanged', payload: { keys } }))
  const stopPrior = onPriorChanged(session, (prior) => send({ name: 'priorChanged', payload: { prior } }))
  const stopSigned = onReportSigned(session, (signed) => send({ name: 'reportSigned', payload: signed }))
  const stop = (): void => {
    stopChain()
    stopKeys()
    stopPrior()
    stopSigned()
  }
  const end = (): void => {
    if (ended) return
    ended = true
    stop()
    streams.open.delete(end)
    res.end()
  }
  streams.open.add(end)
  req.on('close', end)
  res.write('retry: 1000\n\n')
  send({ name: 'chainChanged', payload: { chain: session.identity() } })
  // A page loaded (or reloaded) while a prior is held is told of it: its next verify applies it.
  const prior = heldPrior(session)
  if (prior !== null) send({ name: 'priorChanged', payload: { prior } })
}
