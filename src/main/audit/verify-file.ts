// Verifying a chain.db given by path: read directly from the file when the direct reader takes it
// (the common case: a reference-schema chain, WAL or not), else through SQLite on a verified
// private copy. BIJOTEL_READER=sqlite forces the copy path (for comparisons).
import type { EvidenceStatement } from '../../shared/custody-types'
import type { RecoveredRow } from '../../shared/recovery-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { readChain } from '../chain/source/open-source'
import type { HeldChain } from '../chain/source/held-chain'
import type { ReaderKind, RowSource } from '../chain/source/row-source'
import type { SnapshotOptions } from '../chain/snapshot'
import { buildStatement, startStating, timestampsOf, type Stating } from '../chain/statement'
import {
  bodyBadSeqs,
  searchEvidence,
  startRecovery,
  verdictWith,
  type RunningSearch,
} from '../recovery/verdict'
import type { ArchiveSegments } from '../recovery/findings'
import { withWitness } from './witness'
import { applySegments } from './segment-forks'
import { defaultWorkerCount, workersBeside } from '../base/workers'
import { nativeFileHashActive } from '../chain/addon/file-hash'
import { dropWarmWorkers, warmVerifyWorkers } from '../verify/parallel'
import { keyInfo, type KeyMaterial } from '../chain/keys'
import { verifyRows, type VerifyOptions } from '../verify/verify'
import { OtherChainPrior, priorHeadPlaced } from '../verify/prior-chain'

export type { ReaderKind } from '../chain/source/row-source'

export interface FileVerifyResult {
  verdict: VerifyVerdict
  reader: ReaderKind
  /** Milliseconds spent opening (and, on the copy path, copying and hashing) the evidence. */
  openMs: number
  /** What the verdict judged (files, rows, keys), when asked for with `statement: true`. */
  statement?: EvidenceStatement
}

export interface FileVerifyOptions extends VerifyOptions {
  copy?: SnapshotOptions
  env?: Record<string, string | undefined>
  /**
   * Also state the evidence judged: read in place, the file and its -wal are hashed on their own
   * threads while the rows are verified (the copy path hashed them while copying).
   */
  statement?: boolean
  /** Search the files for deleted and earlier rows and add what they prove (../recovery). */
  recover?: boolean
  /** The archive segments given (`--segment`), read by ./segments.ts. */
  segments?: ArchiveSegments
}

type RecoverWith = { signal?: { aborted: boolean }; segments?: ArchiveSegments }

const ctxOf = (r: RecoverWith): { segments?: ArchiveSegments } => (r.segments ? { segments: r.segments } : {})
const searchOpts = (r: RecoverWith): { signal?: { aborted: boolean } } =>
  r.signal ? { signal: r.signal } : {}

/**
 * `verify` run with the prior; when it refuses the prior as of another chain and the files are
 * searched, the search may still place the prior's head in this chain (a truncated head recovered
 * from free space, issue 39 "Priors"): the files are searched on their own (`search`), and `verify`
 * is run again with the prior accepted when a placed, proven row is its head or links to it.
 * Otherwise the refusal.
 */
async function withPriorPlaced(
  opts: VerifyOptions,
  search: (() => Promise<RecoveredRow[]>) | null,
  verify: (opts: VerifyOptions) => Promise<VerifyVerdict>,
): Promise<VerifyVerdict> {
  const prior = opts.prior
  if (!prior || !search) return verify(opts)
  try {
    return await verify(opts)
  } catch (e) {
    if (!(e instanceof OtherChainPrior)) throw e
    if (!priorHeadPlaced(prior, await search())) throw e
    return verify({ ...opts, priorLinked: true })
  }
}

/** The recovered rows of the files `source` reads, searched on their own (no verify). */
async function searchOnly(source: RowSource, keys: KeyMaterial[], r: RecoverWith): Promise<RecoveredRow[]> {
  const files = source.evidenceFiles()
  if (files === null) return []
  const found =
    'held' in files
      ? await searchEvidence(files.held, keys, searchOpts(r))
      : await startRecovery(files.inPlace, keys, searchOpts(r)).done()
  return found.result.rows
}

/**
 * Verify `source`; with `recover`, search the files too and add what they prove (../recovery).
 * Read in place, the files are searched through the source's own descriptors while the rows are
 * verified (see startRecovery); on the copy path, the evidence's files the open step holds are
 * searched after the verdict (never the copy: SQLite recovered its WAL into it).
 */
async function verifyAndRecover(
  source: RowSource,
  keys: KeyMaterial[],
  opts: VerifyOptions,
  recover: RecoverWith | null,
  started: RunningSearch | null = null,
): Promise<VerifyVerdict> {
  let first = started // the search started with the evidence hash serves the first pass only
  return withPriorPlaced(opts, recover && (() => searchOnly(source, keys, recover)), (o) => {
    const s = first
    first = null
    return verifyAndRecoverOnce(source, keys, o, recover, s)
  })
}

async function verifyAndRecoverOnce(
  source: RowSource,
  keys: KeyMaterial[],
  opts: VerifyOptions,
  recover: RecoverWith | null,
  started: RunningSearch | null,
): Promise<VerifyVerdict> {
  if (!recover) return withWitness(source, await verifyRows(source, keys, opts))
  // The archive segments given prove forks of the live chain too (./segment-forks.ts).
  const withSegments = (v: VerifyVerdict): Promise<VerifyVerdict> =>
    applySegments(v, source, keys, recover.segments, recover.signal)
  const files = source.evidenceFiles()
  if (files === null || 'held' in files) {
    const verdict = withWitness(source, await verifyRows(source, keys, opts))
    if (files === null || verdict.cancelled) return verdict
    return withSegments(
      verdictWith(
        verdict,
        await searchEvidence(files.held, keys, searchOpts(recover), bodyBadSeqs(verdict)),
        ctxOf(recover),
      ),
    )
  }
  const search = started ?? startRecovery(files.inPlace, keys, searchOpts(recover))
  try {
    const verdict = withWitness(source, await verifyRows(source, keys, opts))
    return withSegments(verdictWith(verdict, await search.done(bodyBadSeqs(verdict)), ctxOf(recover)))
  } catch (e) {
    search.abort()
    throw e
  }
}

/**
 * `verify` of a source its caller opened and holds (verify-continuity holds every segment it was
 * given until the joins are read from the same sources): no statement, no search.
 */
export function verifySource(
  source: RowSource,
  keys: KeyMaterial[],
  opts: VerifyOptions,
): Promise<VerifyVerdict> {
  return verifyAndRecover(source, keys, opts, null)
}

/**
 * Bytes of a chain below which no row worker is warmed: fewer than PARALLEL_MIN_ROWS rows of ≈650
 * bytes, which stay on this thread (a larger file of fewer rows warms one it does not use).
 */
const WARM_MIN_BYTES = 32 * 1024 * 1024

/** Row workers to warm for a verify with its evidence hash read in place: those `workersBeside` gives. */
function stateBeside(source: RowSource, opts: FileVerifyOptions): number {
  if (opts.workers !== undefined || source.kind !== 'direct' || !nativeFileHashActive()) return 0
  return source.facts().evidence.db.size >= WARM_MIN_BYTES ? workersBeside() : 0
}

/**
 * Row workers started while the private copy of `bytes` is made (the direct reader declined the
 * file, or BIJOTEL_READER=sqlite): the copy's pass runs on them, and their start-up — SQLite's side
 * loaded too — overlaps the copy instead of following it.
 */
function warmForCopy(bytes: number, opts: FileVerifyOptions): void {
  const workers = opts.workers ?? defaultWorkerCount()
  if (opts.statement && bytes >= WARM_MIN_BYTES && workers > 1) warmVerifyWorkers(workers, 'sqlite-copy')
}

/** `verifyAndRecover`, and with `statement` the evidence judged, its files hashed beside the pass. */
async function verifyAndState(
  source: RowSource,
  keys: KeyMaterial[],
  opts: FileVerifyOptions,
  recover: RecoverWith | null,
): Promise<{ verdict: VerifyVerdict; statement?: EvidenceStatement }> {
  if (!opts.statement) return { verdict: await verifyAndRecover(source, keys, opts, recover) }
  // A chain large enough for row workers: the one that runs beside the hash loads its code now,
  // while this thread starts the hash and lists the leaves (../verify/parallel.ts). Only the CLI
  // asks for the statement: this thread's share of the runs (helpAfter) never blocks the app's.
  const beside = stateBeside(source, opts)
  if (beside > 0) warmVerifyWorkers(beside)
  // Read in place with the search on, the carver scans the bytes the evidence hash reads (one read
  // of the file for both, ../recovery/fed-carving.ts); it reads them itself where the hash cannot.
  const evidence = recover ? source.evidenceFiles() : null
  const search =
    recover && evidence !== null && 'inPlace' in evidence
      ? startRecovery(evidence.inPlace, keys, { ...searchOpts(recover), fed: true })
      : null
  let stating: Stating
  try {
    stating = startStating(source, search?.tap)
  } catch (e) {
    search?.abort()
    dropWarmWorkers()
    throw e
  }
  // The hash holds one core to the end: the rows get the others, on worker threads (workersBeside),
  // and this thread takes runs too once the hash is done.
  const rowOpts: FileVerifyOptions =
    stating.hashing && opts.workers === undefined
      ? { ...opts, workers: workersBeside(), offThread: true, helpAfter: stating.done() }
      : opts
  let verdict: VerifyVerdict
  try {
    verdict = await verifyAndRecover(source, keys, rowOpts, recover, search)
  } catch (e) {
    stating.abort()
    throw e
  } finally {
    dropWarmWorkers()
  }
  const files = await stating.done()
  const ts = timestampsOf(source, verdict.first_seq, verdict.last_seq)
  return { verdict, statement: buildStatement(files, verdict, ts, keys.map(keyInfo)) }
}

export async function verifyFile(
  path: string,
  keys: KeyMaterial[],
  opts: FileVerifyOptions = {},
): Promise<FileVerifyResult> {
  const t0 = performance.now()
  let reader: ReaderKind = 'direct'
  let openMs = 0
  const recover = opts.recover
    ? {
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.segments ? { segments: opts.segments } : {}),
      }
    : null
  const copy: SnapshotOptions = {
    ...opts.copy,
    onCopyStart: (bytes) => {
      opts.copy?.onCopyStart?.(bytes)
      warmForCopy(bytes, opts)
    },
  }
  try {
    const done = await readChain(path, (source) => verifyAndState(source, keys, opts, recover), {
      ...(opts.env ? { env: opts.env } : {}),
      copy,
      onOpen: (kind) => {
        reader = kind
        openMs = performance.now() - t0
      },
    })
    return { ...done, reader, openMs }
  } finally {
    dropWarmWorkers() // those a copy that failed never handed a pass
  }
}

/** Verify a chain already opened (the session's: in place, or through its verified private copy). */
export async function verifyOpened(
  chain: HeldChain,
  keys: KeyMaterial[],
  opts: VerifyOptions & { recover?: boolean; segments?: ArchiveSegments } = {},
): Promise<VerifyVerdict> {
  const search = async (): Promise<RecoveredRow[]> =>
    (await searchEvidence(chain.searchTarget(), keys, opts.signal ? { signal: opts.signal } : {})).result.rows
  return withPriorPlaced(opts, opts.recover ? search : null, (o) =>
    verifyOpenedOnce(chain, keys, { ...opts, ...o }),
  )
}

async function verifyOpenedOnce(
  chain: HeldChain,
  keys: KeyMaterial[],
  opts: VerifyOptions & { recover?: boolean; segments?: ArchiveSegments },
): Promise<VerifyVerdict> {
  const verdict = await chain.read(async (source) => {
    const v = withWitness(source, await verifyRows(source, keys, opts))
    // The archive segments given prove forks of the live chain too (./segment-forks.ts).
    return opts.recover ? applySegments(v, source, keys, opts.segments, opts.signal) : v
  })
  // The evidence itself is searched, through the descriptors the open step holds (never a copy:
  // SQLite recovered the copy's WAL into it, so the page versions recovery reads are gone there).
  return opts.recover && !verdict.cancelled
    ? verdictWith(
        verdict,
        await searchEvidence(
          chain.searchTarget(),
          keys,
          opts.signal ? { signal: opts.signal } : {},
          bodyBadSeqs(verdict),
        ),
        opts.segments ? { segments: opts.segments } : {},
      )
    : verdict
}
