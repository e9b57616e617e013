// The one handler table implementing the contract. Electron registers it on ipcMain, `bijotel serve`
// exposes it over HTTP; neither adds logic of its own.
import { AtomicOutput, checkOutputTarget } from '../export/output-file'
import { resolve } from 'node:path'
import type { AppInfo, SecretInput } from '../../shared/contract'
import type { EntrySort } from '../../shared/chain-types'
import type { IntegrityOptions } from '../../shared/integrity-types'
import { INTEGRITY_WINDOW, THRESHOLD_RULES } from '../../shared/integrity-rules'
import type { ReplayBatchItem, ReplayCheckRequest } from '../../shared/replay-types'
import type { VerifyRangeOptions } from '../../shared/verify-types'
import { positionOfSeq } from '../chain/chain-index'
import { buildTimeline, getEntry, listEntries } from '../chain/views'
import { MAX_SEQ_TIMES, seqGaps, seqTimes } from '../chain/seq-facts'
import { AuditError } from '../base/errors'
import { readSegments } from '../audit/segments'
import { TOOL_NAME, TOOL_VERSION } from '../base/version'
import { checkRow } from '../verify/row'
import { keyInfo, parseSecrets } from '../chain/keys'
import { verifyOpened } from '../audit/verify-file'
import { renderReportHtml } from '../custody/html/render'
import { custodyHandlers } from './custody'
import { priorFor } from '../session/custody-state'
import { searchEvidence } from '../recovery/verdict'
import { buildReportFor, checkReplayBatchFor, checkReplayFor, maySign, runIntegrityFor } from './engine'
import { filterFrom } from './filter-request'
import type { CallContext, HandlerTable, Platform } from './handler-types'
import { toolHandlers } from './tools'
import { openRefusal, refusalMessage } from './open-refusal'
import type { AuditSession } from '../session/session'
import { int, num, obj, optBool, optEnum, optInt, optNs, optObj, optStr, str, type Obj } from './validate'

export type { CallContext, Handler, HandlerTable, Platform } from './handler-types'

const SORTS: readonly EntrySort[] = ['seq_asc', 'seq_desc', 'time_asc', 'time_desc']

function rangeFrom(o: Obj | undefined): VerifyRangeOptions | undefined {
  if (!o) return undefined
  const r: VerifyRangeOptions = {}
  const a = optInt(o, 'seq_start')
  const b = optInt(o, 'seq_end')
  const since = optNs(o, 'since_ns')
  const until = optNs(o, 'until_ns')
  const last = optInt(o, 'last_n', { min: 1 })
  if (a !== undefined) r.seq_start = a
  if (b !== undefined) r.seq_end = b
  if (since !== undefined) r.since_ns = since
  if (until !== undefined) r.until_ns = until
  if (last !== undefined) r.last_n = last
  return Object.keys(r).length > 0 ? r : undefined
}

export function integrityOptionsFrom(req: unknown): IntegrityOptions {
  const o = obj(req)
  const opts: IntegrityOptions = {}
  const window = optInt(o, 'window', { min: INTEGRITY_WINDOW.min, max: INTEGRITY_WINDOW.max })
  if (window !== undefined) opts.window = window
  if (optBool(o, 'all')) opts.all = true
  const t = optObj(o, 'thresholds')
  if (t) {
    const th: NonNullable<IntegrityOptions['thresholds']> = {}
    // The bounds of resolveThresholds (src/main/integrity/thresholds.ts), checked here so the
    // message names the field as sent (`thresholds.rate_tol`).
    for (const { key: k, min, integer } of THRESHOLD_RULES) {
      if (t[k] === undefined || t[k] === null) continue
      th[k] = num(t, k, { min, integer })
    }
    opts.thresholds = th
  }
  return opts
}

/** A replay batch's JSONL (the server's body bound for a replay file holds it). */
const MAX_BATCH_BODY_CHARS = 96 * 1024 * 1024

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

function requireTrusted(ctx: CallContext, what: string): void {
  if (!ctx.trusted) throw new AuditError('bad_argument', `${what} is only accepted from the local app`)
}

export function createHandlers(session: AuditSession, platform: Platform = {}): HandlerTable {
  /** `segments` of a verify request: archive segment paths; a web client only where it may open files. */
  const segmentsFrom = (o: Obj, ctx: CallContext): string[] => {
    const v = o['segments']
    if (v === undefined || v === null) return []
    if (!Array.isArray(v) || v.length > 64 || v.some((p) => typeof p !== 'string' || p.length > 4096))
      throw new AuditError('bad_argument', 'segments must be a list of at most 64 file paths')
    for (const p of v as string[])
      if (ctx.transport === 'http' && !session.mayOpen(p))
        throw new AuditError(
          'bad_argument',
          `reading the segment ${p} is not allowed here (start serve with --open-root for its folder)`,
        )
    return v as string[]
  }

  const openPath = async (path: string, ctx: CallContext) => {
    if (ctx.transport !== 'http') return session.open(path)
    const roots = (session.options.openRoots ?? []).map((r) => resolve(r))
    const refused = openRefusal(path, session.openPolicy(), roots)
    if (refused) throw new AuditError('bad_argument', refusalMessage(refused, path, roots))
    // The check above gives the usual message early; the open step applies the same policy to the
    // chain and every side file on the paths it opened (issue 29: no check-then-open by name).
    return session.open(path, undefined, { policy: session.openPolicy() })
  }

  return {
    ...custodyHandlers(session, platform, { requireTrusted, integrityOptionsFrom }),
    appInfo: async (_req, ctx): Promise<AppInfo> => ({
      name: TOOL_NAME,
      version: TOOL_VERSION,
      transport: ctx.transport,
      can_open_paths: ctx.transport === 'ipc' || (session.options.openRoots?.length ?? 0) > 0,
      has_dialogs: platform.pickOpenPath !== undefined,
      initial_path: session.options.initialPath ?? null,
      initial_seq: session.options.initialSeq ?? null,
      sample_path: session.options.samplePath ?? null,
      recent_paths: ctx.transport === 'ipc' ? session.recent : [],
      open_roots: ctx.transport === 'ipc' ? [] : (session.options.openRoots ?? []).map((r) => resolve(r)),
    }),
    openChain: async (req, ctx) => {
      const o = obj(req)
      const focus = optInt(o, 'focus_seq')
      const overview = await openPath(str(o, 'path', 4096), ctx)
      // Set in the same turn as the open's announcement: the page's currentChain comes after it.
      const id = session.identity()
      session.focus = focus !== undefined && id ? { open_id: id.open_id, seq: focus } : null
      return overview
    },
    pickAndOpenChain: async () => {
      if (!platform.pickOpenPath) throw new AuditError('bad_argument', 'no file dialog in web mode')
      const p = await platform.pickOpenPath()
      return p === null ? null : session.open(p)
    },
    closeChain: async () => {
      session.close()
      return null
    },
    overview: async () => session.current()?.overview ?? null,
    currentChain: async () => {
      // Read together, synchronously: the identity always names the overview beside it.
      const view = session.current()
      const chain = session.identity()
      if (!view || !chain) return null
      const focus = session.focus?.open_id === chain.open_id ? session.focus.seq : undefined
      return { chain, overview: view.overview, ...(focus !== undefined ? { focus_seq: focus } : {}) }
    },
    listEntries: async (req) => {
      const o = obj(req)
      const offset = int(o, 'offset', { min: 0 })
      const limit = int(o, 'limit', { min: 1, max: 1000 })
      const sort = optEnum(o, 'sort', SORTS) ?? 'seq_asc'
      const src = await session.entrySource(filterFrom(optObj(o, 'filter')))
      return listEntries(src.rows, src.positions(sort), src.index, offset, limit)
    },
    locateEntry: async (req) => {
      const o = obj(req)
      const seq = int(o, 'seq')
      const sort = optEnum(o, 'sort', SORTS) ?? 'seq_asc'
      const src = await session.entrySource(filterFrom(optObj(o, 'filter')))
      const pos = positionOfSeq(src.index, seq)
      if (pos === null) return { index: null }
      const i = src.positions(sort).indexOf(pos)
      return { index: i < 0 ? null : i }
    },
    getEntry: async (req) => {
      const src = await session.entrySource()
      return getEntry(src.rows, src.index, int(obj(req), 'seq'))
    },
    seqGaps: async () => seqGaps((await session.entrySource()).index),
    seqTimes: async (req) => {
      const list = obj(req)['seqs']
      if (!Array.isArray(list) || list.length > MAX_SEQ_TIMES)
        throw new AuditError('bad_argument', `seqs must be an array of at most ${MAX_SEQ_TIMES} seqs`)
      const seqs = list.map((v: unknown, i) => int({ [`seqs[${i}]`]: v }, `seqs[${i}]`))
      return seqTimes((await session.entrySource()).index, seqs)
    },
    timeline: async (req) => {
      const o = obj(req)
      const t: Parameters<typeof buildTimeline>[1] = { buckets: int(o, 'buckets', { min: 1, max: 2000 }) }
      const from = optNs(o, 'from_ns')
      const to = optNs(o, 'to_ns')
      const provider = optStr(o, 'provider', 1000)
      const model = optStr(o, 'model', 1000)
      if (from !== undefined) t.from_ns = from
      if (to !== undefined) t.to_ns = to
      if (provider !== undefined) t.provider = provider
      if (model !== undefined) t.model = model
      if (optBool(o, 'flagged_only')) t.flagged_only = true
      const search = optStr(o, 'search_id', 100)
      if (search !== undefined) t.search_id = search
      return buildTimeline(
        session.view().index,
        t,
        t.flagged_only ? session.flaggedSeqs() : null,
        session.searchSeqs(t.search_id),
      )
    },
    setSecrets: async (req, ctx) => {
      requireTrusted(ctx, 'a secret')
      const list = obj(req)['secrets']
      if (!Array.isArray(list) || list.length > 32)
        throw new AuditError('bad_argument', 'secrets must be an array of at most 32 entries')
      const inputs: SecretInput[] = list.map((s) => {
        const o = obj(s)
        const encoding = optEnum(o, 'encoding', ['hex', 'text'] as const) ?? 'hex'
        return { encoding, value: str(o, 'value', 4096) }
      })
      // `keep`: the held keys (by their index) that stay, first and in their order; the new ones
      // follow. Adding a rotated key never drops one the auditor did not remove (issue 35).
      const keepRaw = obj(req)['keep'] ?? []
      if (
        !Array.isArray(keepRaw) ||
        keepRaw.length > 32 ||
        !keepRaw.every((v) => Number.isSafeInteger(v)) ||
        new Set(keepRaw).size !== keepRaw.length
      )
        throw new AuditError('bad_argument', 'keep must be an array of distinct key indexes')
      const keep = keepRaw.map((v: number) => {
        const k = session.keys.find((x) => x.index === v)
        if (!k)
          throw new AuditError(
            'bad_argument',
            `no key #${Number(v) + 1} is held (keys are cleared when the chain changes)`,
          )
        return k
      })
      if (keep.length + inputs.length > 32) throw new AuditError('bad_argument', 'at most 32 keys')
      let added
      try {
        added = parseSecrets(inputs)
      } catch (e) {
        // The page's words: the encoding is chosen beside the field, not with a command-line flag.
        if (e instanceof AuditError && e.code === 'bad_secret')
          throw new AuditError(
            'bad_secret',
            e.message.replace(/; use --secret-text.*$/, '; choose "text" beside it for a raw UTF-8 secret'),
          )
        throw e
      }
      session.keys = [...keep, ...added].map((k, index) => ({ ...k, index }))
      session.setVerdict(null)
      return session.keys.map(keyInfo)
    },
    listKeys: async () => session.keys.map(keyInfo),
    startVerify: async (req, ctx) => {
      session.view() // no chain (or a failed open): one clear error now, not a failed job
      const range = rangeFrom(optObj(obj(req), 'range'))
      const segmentPaths = segmentsFrom(obj(req), ctx)
      const keys = session.keys
      if (keys.length === 0)
        throw new AuditError(
          'no_secret',
          'enter the chain secret first: an HMAC chain cannot be verified without it',
        )
      let opened: Awaited<ReturnType<typeof session.ready>> | null = null
      return session.jobs.start(
        'verify',
        async (job) => {
          const o = (opened = await session.readyForJob(job))
          job.progress(0, o.overview.entries, 'verifying')
          const prior = priorFor(session)
          const segments =
            segmentPaths.length > 0
              ? await readSegments(
                  segmentPaths,
                  undefined,
                  ctx.transport === 'http' ? session.openPolicy() : undefined,
                )
              : undefined
          return verifyOpened(o.chain, keys, {
            ...(range ? { range } : {}),
            ...(prior ? { prior } : {}),
            ...(segments ? { segments } : {}),
            onProgress: (d, t) => job.progress(d, t, 'verifying'),
            signal: job.signal,
            recover: true,
          })
        },
        (v) => {
          if (opened && session.chain === opened) session.setVerdict(v)
        },
      )
    },
    startRecover: async () => {
      session.view() // no chain (or a failed open): one clear error now, not a failed job
      const keys = session.keys
      return session.jobs.start('recover', async (job) => {
        const o = await session.readyForJob(job)
        job.progress(0, 1, 'searching the files')
        // The evidence itself, through the descriptors its snapshot holds (the copy's WAL is recovered).
        return (await searchEvidence(o.chain.file.snapshot, keys, { signal: job.signal })).result
      })
    },
    lastVerdict: async () => session.verdict,
    checkRow: async (req) => {
      const opened = await session.ready()
      return opened.chain.read((source) => checkRow(source, session.keys, int(obj(req), 'seq')))
    },
    runIntegrity: async (req) => {
      const opts = integrityOptionsFrom(req)
      const run = await runIntegrityFor(session, opts)
      session.setIntegrity(run)
      return run
    },
    startIntegrity: async (req) => {
      const opts = integrityOptionsFrom(req)
      session.view() // no chain (or a failed open): one clear error now, not a failed job
      let opened: Awaited<ReturnType<typeof session.ready>> | null = null
      return session.jobs.start(
        'integrity',
        async (job) => {
          opened = await session.readyForJob(job)
          return runIntegrityFor(session, opts, job)
        },
        (run) => {
          if (opened && session.chain === opened) session.setIntegrity(run)
        },
      )
    },
    jobStatus: async (req) => session.jobs.status(str(obj(req), 'id', 100)),
    cancelJob: async (req) => session.jobs.cancel(str(obj(req), 'id', 100)),
    checkReplay: async (req) => {
      const check = await checkReplayFor(session, replayRequestFrom(req))
      session.replayChecks.push(check)
      return check
    },
    listReplayChecks: async () => session.replayChecks,
    checkReplayBatch: async (req) => {
      const o = obj(req)
      const text = optStr(o, 'jsonl', MAX_BATCH_BODY_CHARS)
      const b64 = optStr(o, 'jsonl_base64', MAX_BATCH_BODY_CHARS)
      if ((text === undefined) === (b64 === undefined))
        throw new AuditError('bad_argument', 'give exactly one of jsonl or jsonl_base64')
      if (b64 !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(b64))
        throw new AuditError('bad_argument', 'jsonl_base64 is not base64')
      const items: ReplayBatchItem[] = []
      const jsonl = text ?? Buffer.from(b64 as string, 'base64')
      const summary = await checkReplayBatchFor(session, jsonl, (i) => items.push(i))
      return { items, summary }
    },
    buildReport: async (req, ctx) =>
      buildReportFor(session, integrityOptionsFrom(optObj(obj(req), 'integrity')), maySign(ctx)),
    saveReport: async (req, ctx) => {
      const opts = integrityOptionsFrom(optObj(obj(req), 'integrity'))
      if (!platform.pickSavePath)
        throw new AuditError('bad_argument', 'no save dialog in web mode: use buildReport and download it')
      const format = optEnum(obj(req), 'format', ['json', 'html', 'pdf'] as const) ?? 'json'
      if (format === 'pdf' && !platform.printToPdf)
        throw new AuditError('bad_argument', 'printing to PDF needs the desktop app')
      const report = await buildReportFor(session, opts, maySign(ctx))
      const path = await platform.pickSavePath(
        `bijotel-report-${report.generated_at.replace(/[:.]/g, '-')}.${format}`,
      )
      if (path === null) return { path: null }
      // The same check as every export (by name, through links, as a hard link), then a temporary
      // file beside it renamed into place: never a write over the evidence (issue 34).
      const target = checkOutputTarget(resolve(path), report.evidence.db.path, 'the report')
      const content =
        format === 'json'
          ? JSON.stringify(report, null, 2) + '\n'
          : format === 'html'
            ? renderReportHtml(report)
            : await platform.printToPdf!(renderReportHtml(report))
      const out = new AtomicOutput(target)
      try {
        out.writeBytes(typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content))
      } catch (e) {
        out.abort()
        throw e
      }
      out.commit()
      return { path: target }
    },
    ...toolHandlers(session, platform),
  }
}
