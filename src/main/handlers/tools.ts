// The handlers of the auditor's working tools (issue 26): the keyless verify started whenever a
// chain opens, search, typed time ranges, export of the rows in view, payload drift. Spread into the
// table by createHandlers (./table.ts); each validates its request at the edge (./validate.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import type { ChainIdentity } from '../../shared/app-events'
import type { EntrySort } from '../../shared/chain-types'
import type { DriftDimension } from '../../shared/drift-types'
import type { JobStatus } from '../../shared/job-types'
import type { SearchField, ViewExport, ViewExportFormat } from '../../shared/tools-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { DIMENSIONS } from '../drift/dimensions'
import { DRIFT_WINDOW, DRIFT_Z_THRESHOLD } from '../../shared/drift-rules'
import { driftSeries } from '../drift/series'
import { AuditError } from '../base/errors'
import { checkOutputTarget } from '../export/output-file'
import { writeExport } from '../export/write-export'
import { SEARCH_FIELDS, searchChain } from '../search/search'
import { PRESETS, resolveTimeRange } from '../search/time-range'
import { headerText, rowsText, viewRows, writeParts } from '../export/view-export'
import { keylessVerifyOpened } from '../audit/keyless'
import type { AuditSession } from '../session/session'
import { ENTRY_SORTS, filterFrom, NAME_CHARS } from './filter-request'
import type { HandlerTable, Platform } from './handler-types'
import { fileNamePart } from '../../shared/printable'
import { num, obj, optBool, optEnum, optInt, optNs, optObj, optStr, str, type Obj } from './validate'

type ToolCalls =
  'keylessVerdict' | 'startSearch' | 'resolveTimeRange' | 'exportView' | 'saveViewExport' | 'startDriftSeries'

const FORMATS: readonly ViewExportFormat[] = ['jsonl', 'csv', 'reference']
const KEEP_SEARCHES = 8
/** Rows exportView returns in one answer (saveViewExport streams any number to a file). */
export const MAX_VIEW_ROWS = 200_000

/** The keyless check of each session: the job started for the chain it holds now. */
const keyless = new WeakMap<AuditSession, { openId: number; jobId: string }>()
const watched = new WeakSet<AuditSession>()

/**
 * Start the keyless verify whenever the session takes a new chain (once per open, not per stage),
 * and for the chain it already holds: `bijotel serve --db` and the desktop app's command line open
 * the chain before the handler table exists.
 */
function watchOpens(session: AuditSession): void {
  if (watched.has(session)) return
  watched.add(session)
  session.onChainChanged((chain) => startKeyless(session, chain))
  const held = session.identity()
  if (held) startKeyless(session, held)
}

function startKeyless(session: AuditSession, chain: ChainIdentity | null): void {
  if (chain === null) {
    keyless.delete(session)
    return
  }
  if (keyless.get(session)?.openId === chain.open_id) return
  let opened: Awaited<ReturnType<typeof session.ready>> | null = null
  const job = session.jobs.start(
    'keyless-verify',
    async (ctx) => {
      const o = (opened = await session.readyForJob(ctx))
      ctx.progress(0, o.overview.entries, 'verifying without the key')
      return keylessVerifyOpened(o.chain, {
        onProgress: (d, t) => ctx.progress(d, t, 'verifying without the key'),
        signal: ctx.signal,
      })
    },
    (v) => {
      if (opened && session.chain === opened) session.setKeylessVerdict(v)
    },
    { background: true },
  )
  keyless.set(session, { openId: chain.open_id, jobId: job.id })
}

function keylessStatus(session: AuditSession): JobStatus<VerifyVerdict> | null {
  const k = keyless.get(session)
  if (!k || session.identity()?.open_id !== k.openId) return null
  try {
    return session.jobs.status(k.jobId) as JobStatus<VerifyVerdict>
  } catch (e) {
    // A finished job the registry has let go of: its verdict is kept by the session.
    const v = session.keylessVerdict
    if (!(e instanceof AuditError) || !v) throw e
    return {
      id: k.jobId,
      kind: 'keyless-verify',
      state: 'done',
      progress: { done: v.entries, total: v.entries, phase: 'done' },
      started_at: '',
      result: v,
      error: null,
    }
  }
}

/** Verdict marks by seq: the verify findings (keyed, else keyless) and integrity anomalies. */
function marksOf(session: AuditSession, wanted: ReadonlySet<number>): Map<number, string[]> {
  const marks = new Map<number, string[]>()
  const add = (seq: number, mark: string): void => {
    if (!wanted.has(seq)) return
    const list = marks.get(seq)
    if (!list) marks.set(seq, [mark])
    else if (!list.includes(mark)) list.push(mark)
  }
  const v = session.verdict ?? session.keylessVerdict
  const source = session.verdict ? 'verify' : 'keyless'
  for (const f of v?.findings ?? []) {
    if (f.kind === 'truncated') continue
    // Only the rows in view are looked up: a finding over a million seqs costs the view's size.
    // Past 2^53 `s++` gives `s` again (doubles there are 2 apart): only the rows in view are tried.
    const exact = Number.isSafeInteger(f.from_seq) && Number.isSafeInteger(f.to_seq)
    if (!exact || f.to_seq - f.from_seq + 1 > wanted.size) {
      for (const s of wanted) if (s >= f.from_seq && s <= f.to_seq) add(s, `${source}:${f.kind}`)
    } else for (let s = f.from_seq; s <= f.to_seq; s++) add(s, `${source}:${f.kind}`)
  }
  const r = session.integrity?.report
  if (r) {
    for (const g of r.sequence_gaps) add(g.before_seq, 'integrity:sequence_gap')
    for (const t of r.timestamp_anomalies) add(t.seq, `integrity:${t.type}`)
    for (const h of r.hash_anomalies) add(h.seq, `integrity:${h.type}`)
    for (const b of r.rotation_boundaries) add(b.seq, 'integrity:rotation_boundary')
  }
  return marks
}

interface ViewRequest {
  format: ViewExportFormat
  sort: EntrySort
  filter: ReturnType<typeof filterFrom>
}

function viewRequestFrom(req: unknown): ViewRequest {
  const o = obj(req)
  const format = optEnum(o, 'format', FORMATS)
  if (format === undefined)
    throw new AuditError('bad_argument', `format must be one of ${FORMATS.join(', ')}`)
  return {
    format,
    sort: optEnum(o, 'sort', ENTRY_SORTS) ?? 'seq_asc',
    filter: filterFrom(optObj(o, 'filter')),
  }
}

function fileName(session: AuditSession, format: ViewExportFormat): string {
  const ext = format === 'reference' ? 'json' : format
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  // The chain's own file name is the audited party's choice: offered to the auditor only as
  // fileNamePart() makes it (no bidi override reversing the extension, no separator, bounded).
  const path = session.identity()?.path
  const own = fileNamePart(path === undefined ? '' : basename(path).replace(/\.db$/i, ''))
  return `${own === '' ? 'chain' : own}-view-${stamp}.${ext}`
}

const MEDIA: Record<ViewExportFormat, string> = {
  jsonl: 'application/jsonl',
  csv: 'text/csv; charset=utf-8',
  reference: 'application/json',
}

/** The reference export file (§9.1) of the view's seq span, written to `output`. */
async function referenceExport(session: AuditSession, v: ViewRequest, output: string): Promise<number> {
  const o = await session.ready()
  await session.prepareListing(v.filter, 'seq_asc')
  if (session.keys.length === 0)
    throw new AuditError('no_secret', 'a reference export needs the chain secret: enter it first')
  const positions = session.positions(v.filter, 'seq_asc')
  if (positions.length === 0) throw new AuditError('bad_argument', 'no rows in view to export')
  const first = o.index.seq[positions[0]!]!
  const last = o.index.seq[positions[positions.length - 1]!]!
  const whole = first === o.index.seq[0] && last === o.index.seq[o.index.rows - 1]
  const r = await writeExport({
    source: { opened: o.chain },
    output,
    keys: session.keys,
    ...(whole ? {} : { range: { seq_start: first, seq_end: last } }),
  })
  if (!r.written)
    throw new AuditError(
      'bad_argument',
      `the rows ${first}-${last} do not verify (first bad seq ${r.verdict.first_bad_seq}): nothing exported`,
    )
  return r.entries_count
}

/** The rows in view as text parts: a header, then a slice of rows at a time. */
function* viewParts(
  session: AuditSession,
  o: Awaited<ReturnType<AuditSession['ready']>>,
  v: ViewRequest,
  format: 'jsonl' | 'csv',
  count: (n: number) => void,
): Generator<string> {
  const positions = session.positions(v.filter, v.sort)
  const wanted = new Set(Array.from(positions, (p) => o.index.seq[p]!))
  const marks = marksOf(session, wanted)
  yield headerText(format)
  for (const rows of viewRows(o.chain, o.index, positions, marks)) {
    count(rows.length)
    yield rowsText(format, rows)
  }
}

export function toolHandlers(session: AuditSession, platform: Platform): Pick<HandlerTable, ToolCalls> {
  watchOpens(session)
  return {
    keylessVerdict: async () => keylessStatus(session),

    startSearch: async (req) => {
      const o = obj(req)
      const query = str(o, 'query', 1000)
      if (query.length === 0) throw new AuditError('bad_argument', 'query must not be empty')
      const fields = fieldsFrom(o)
      const caseSensitive = optBool(o, 'case_sensitive') ?? false
      const from = optNs(o, 'from_ns')
      const to = optNs(o, 'to_ns')
      session.view() // no chain: one clear error now, not a failed job
      let opened: Awaited<ReturnType<typeof session.ready>> | null = null
      return session.jobs.start('search', async (job) => {
        const oc = (opened = await session.readyForJob(job))
        job.progress(0, oc.overview.entries, 'searching')
        const r = await oc.chain.read((src) =>
          searchChain(src, oc.index, {
            query,
            fields,
            caseSensitive,
            ...(from !== undefined ? { fromNs: BigInt(from) } : {}),
            ...(to !== undefined ? { toNs: BigInt(to) } : {}),
            signal: job.signal,
            onProgress: (d, t) => job.progress(d, t, 'searching'),
          }),
        )
        const search_id = `s${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
        if (opened && session.chain === opened) {
          session.searches.set(search_id, new Set(r.seqs))
          while (session.searches.size > KEEP_SEARCHES)
            session.searches.delete(session.searches.keys().next().value!)
        }
        return { search_id, ...r }
      })
    },

    resolveTimeRange: async (req) => {
      const o = obj(req)
      const preset = optEnum(o, 'preset', PRESETS)
      const from = optStr(o, 'from', 200)
      const to = optStr(o, 'to', 200)
      const offset = optInt(o, 'utc_offset_minutes', { min: -1440, max: 1440 }) ?? 0
      return resolveTimeRange(session.view().index, {
        ...(preset !== undefined ? { preset } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        utcOffsetMinutes: offset,
      })
    },

    exportView: async (req): Promise<ViewExport> => {
      const v = viewRequestFrom(req)
      const name = fileName(session, v.format)
      if (v.format === 'reference') {
        const dir = mkdtempSync(join(tmpdir(), 'bijotel-view-'))
        try {
          const path = join(dir, 'export.json')
          const rows = await referenceExport(session, v, path)
          const content = readFileSync(path, 'utf8')
          return { format: v.format, file_name: name, media_type: MEDIA[v.format], rows, content }
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
      const fmt = v.format
      const o = await session.ready()
      await session.prepareListing(v.filter, v.sort)
      const total = session.positions(v.filter, v.sort).length
      if (total > MAX_VIEW_ROWS)
        throw new AuditError(
          'too_large',
          `${total} rows in view: more than ${MAX_VIEW_ROWS} for one answer (narrow the view, or save it to a file)`,
        )
      let rows = 0
      const content = [...viewParts(session, o, v, fmt, (n) => (rows += n))].join('')
      return { format: fmt, file_name: name, media_type: MEDIA[fmt], rows, content }
    },

    saveViewExport: async (req) => {
      const v = viewRequestFrom(req)
      if (!platform.pickSavePath)
        throw new AuditError('bad_argument', 'no save dialog in web mode: use exportView and download it')
      const o = await session.ready()
      await session.prepareListing(v.filter, v.sort)
      const path = await platform.pickSavePath(fileName(session, v.format))
      if (path === null) return { path: null, rows: 0 }
      const target = checkOutputTarget(resolve(path), o.chain.evidence().db.path, 'the export')
      if (v.format === 'reference') return { path: target, rows: await referenceExport(session, v, target) }
      let rows = 0
      // Streamed a slice at a time into a temporary file renamed into place.
      writeParts(
        target,
        viewParts(session, o, v, v.format, (n) => (rows += n)),
      )
      return { path: target, rows }
    },

    startDriftSeries: async (req) => {
      const o = obj(req)
      const buckets = optInt(o, 'buckets', { min: 1, max: 2000 }) ?? 100
      const window =
        optInt(o, 'window', { min: DRIFT_WINDOW.min, max: DRIFT_WINDOW.max }) ?? DRIFT_WINDOW.default
      const z =
        o['z_threshold'] === undefined || o['z_threshold'] === null
          ? DRIFT_Z_THRESHOLD.default
          : num(o, 'z_threshold', { min: DRIFT_Z_THRESHOLD.min, max: DRIFT_Z_THRESHOLD.max })
      const dims = dimensionsFrom(o)
      const provider = optStr(o, 'provider', NAME_CHARS)
      const model = optStr(o, 'model', NAME_CHARS)
      const from = optNs(o, 'from_ns')
      const to = optNs(o, 'to_ns')
      session.view()
      return session.jobs.start('drift', async (job) => {
        const oc = await session.readyForJob(job)
        job.progress(0, oc.overview.entries, 'reading payloads')
        return oc.chain.read((src) =>
          driftSeries(src, oc.index, {
            buckets,
            window,
            zThreshold: z,
            dimensions: dims,
            ...(provider !== undefined ? { provider } : {}),
            ...(model !== undefined ? { model } : {}),
            ...(from !== undefined ? { fromNs: BigInt(from) } : {}),
            ...(to !== undefined ? { toNs: BigInt(to) } : {}),
            signal: job.signal,
            onProgress: (d, t) => job.progress(d, t, 'reading payloads'),
          }),
        )
      })
    },
  }
}

function listOf<T extends string>(o: Obj, key: string, allowed: readonly T[]): T[] | undefined {
  const v = o[key]
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => !(allowed as readonly unknown[]).includes(x)))
    throw new AuditError('bad_argument', `${key} must be a non-empty array of ${allowed.join(', ')}`)
  return [...new Set(v as T[])]
}

function fieldsFrom(o: Obj): SearchField[] {
  return listOf(o, 'fields', SEARCH_FIELDS) ?? [...SEARCH_FIELDS]
}

function dimensionsFrom(o: Obj): DriftDimension[] {
  return listOf(o, 'dimensions', DIMENSIONS) ?? [...DIMENSIONS]
}
