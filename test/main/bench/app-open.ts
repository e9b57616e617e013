// The bench's app-open line (issue 36): what the auditor waits for when the app opens a chain, read
// in place. Measured in a fresh process of its own (`bench.js --app-open PATH`, the same bundle), so
// its peak RSS is the open's alone: the session and the handler table the app and the server use,
// timed to the overview (first pass), the timeline and the first page of rows, then to the evidence
// record's hash (polled: the record fills in once the background hash is done; a staged open starts
// it when the overview is given, so its time is counted from there) and to the full index. Reported beside the one-stream SHA-256 of the same file measured in the parent.
import { spawnSync } from 'node:child_process'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'

export interface AppOpen {
  overviewMs: number
  timelineMs: number
  rowsMs: number
  hashMs: number
  readyMs: number
  rssMb: number
  method: string
  pending: boolean
}

const CTX = { transport: 'http', trusted: true } as const

/** The child's side: open `path` as the app does and print one JSON line. */
export async function appOpenChild(path: string): Promise<void> {
  const session = new AuditSession()
  const h = createHandlers(session)
  const t0 = performance.now()
  let hashMs = -1
  const poll = setInterval(() => {
    const ev = session.current()?.overview.evidence
    if (hashMs < 0 && ev && ev.db.sha256 !== '') hashMs = performance.now() - t0
  }, 5)
  const first = await session.open(path)
  const overviewMs = performance.now() - t0
  await h.timeline({ buckets: 200 }, CTX)
  const timelineMs = performance.now() - t0
  await h.listEntries({ offset: 0, limit: 100, sort: 'seq_desc' }, CTX)
  const rowsMs = performance.now() - t0
  const o = await session.ready()
  const readyMs = performance.now() - t0
  clearInterval(poll)
  if (hashMs < 0) hashMs = readyMs
  // A staged open starts the hash when its first pass is done (the overview's moment).
  if (first.pending === true) hashMs -= overviewMs
  const out: AppOpen = {
    overviewMs,
    timelineMs,
    rowsMs,
    hashMs,
    readyMs,
    rssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    method: o.overview.evidence.method,
    pending: first.pending === true,
  }
  session.dispose()
  process.stdout.write(JSON.stringify(out) + '\n')
}

/** The parent's side: the child run on `path`, and its line of the bench. */
export function appOpenLine(bundle: string, path: string, oneStreamMs: number): string {
  const r = spawnSync(process.execPath, [bundle, '--app-open', path], { encoding: 'utf8' })
  const json = r.stdout.trim().split('\n').pop() ?? ''
  if (r.status !== 0 || !json.startsWith('{'))
    return `app open (in place): failed (${(r.stderr.trim().split('\n').pop() ?? '').slice(0, 200)})`
  const a = JSON.parse(json) as AppOpen
  const ms = (n: number): string => `${Math.round(n).toLocaleString('en-US')} ms`
  const inPlace = a.method.startsWith('read in place') ? 'in place, no copy' : `NOT in place: ${a.method}`
  return (
    `app open (${inPlace}${a.pending ? ', staged' : ''}): overview ${ms(a.overviewMs)}, timeline ${ms(a.timelineMs)}, ` +
    `first rows ${ms(a.rowsMs)} (goal < 1 s); evidence hash${a.pending ? ' (from the overview on)' : ''} ${ms(a.hashMs)} = ` +
    `${(a.hashMs / oneStreamMs).toFixed(2)}x the one-stream SHA-256 ${ms(oneStreamMs)} (goal <= 1.2x); ` +
    `full index ${ms(a.readyMs)}; peak RSS ${a.rssMb} MB (goal < 400 MB)`
  )
}
