// The state behind the contract: the opened chain (one at a time), the candidate keys (in this
// process's memory only, never written or returned), the last verdict and integrity run, and the
// replay checks made in this session.
import { realpathSync } from 'node:fs'
import { resolve, sep } from 'node:path'
import type { ChainIdentity } from '../../shared/app-events'
import { SIDE_SUFFIX, type OpenOptions, type OpenPolicy } from '../chain/evidence-files'
import type { ChainOverview, EntryFilter, EntrySort } from '../../shared/chain-types'
import type { IntegrityRun } from '../../shared/integrity-types'
import type { ReplayCheck } from '../../shared/replay-types'
import type { VerifyVerdict } from '../../shared/verify-types'
import { buildChainIndex, type ChainIndex } from '../chain/chain-index'
import { buildTableColumns } from '../chain/columns/table-columns'
import { filteredPositions, needsTableColumns, orderPositions, servedByFirstPass } from '../chain/entry-order'
import { endWorkers, startColumnWorkers } from '../chain/columns/parallel'
import { QUICK_COLUMNS } from '../chain/columns/types'
import { directAllowed, openDirect } from '../chain/direct/open'
import { DirectSource } from '../chain/source/direct-source'
import { OpenedChain } from '../chain/source/opened-chain'
import { buildOverview, overviewMeta, selectPositions, sourceEntryRows, type EntryRows } from '../chain/views'
import { AuditError } from '../base/errors'
import type { KeyMaterial } from '../chain/keys'
import { JobRegistry, type JobContext } from './jobs'
import { ListingCache, type EntrySource } from './listing'

export type { EntrySource } from './listing'

export interface SessionOptions {
  samplePath?: string | null
  initialPath?: string | null
  /** The row to show first in initialPath (`--seq N`). */
  initialSeq?: number | null
  /** Folders whose files a web client may open by path (the served --db is always allowed). */
  openRoots?: string[]
  recent?: string[]
  onRecent?: (paths: string[]) => void
  /**
   * Chains of at least this many rows (estimated) open in stages: a first overview and timeline
   * from seq and timestamps read in place, then the private copy, hashes and full index in the
   * background (default 100 000; tests lower it).
   */
  stagedOpenRows?: number
}

/** A chain being opened in stages: what the first pass gives, and the rest to come. */
interface PendingOpen {
  openId: number
  overview: ChainOverview
  index: ChainIndex
  done: Promise<Opened>
  /** The evidence as the first pass read it in place: rows for the table until the copy is made. */
  direct: DirectSource
  /** Gives up the first pass's hold on the evidence's descriptors (once). */
  release: () => void
}

const STAGED_OPEN_ROWS = 100_000

interface Opened {
  openId: number
  chain: OpenedChain
  index: ChainIndex
  overview: ChainOverview
  /** Entry rows by seq, through the chain's source. */
  rows: EntryRows
}

function openedOf(openId: number, chain: OpenedChain, index: ChainIndex): Opened {
  return {
    openId,
    chain,
    index,
    overview: buildOverview(overviewMeta(chain.copy.facts()), index),
    rows: (seqs) => chain.readNow((source) => sourceEntryRows(source)(seqs)),
  }
}

const MAX_FLAGGED = 1_000_000
const MAX_RECENT = 10

/** Told whenever the chain the session holds changes (see AppEvents.chainChanged). */
export type ChainListener = (chain: ChainIdentity | null) => void

function identityOf(openId: number, overview: ChainOverview): ChainIdentity {
  const db = overview.evidence.db
  return { open_id: openId, path: db.path, sha256: db.sha256 ? db.sha256 : null }
}

export class AuditSession {
  readonly jobs = new JobRegistry()
  readonly options: SessionOptions
  keys: KeyMaterial[] = []
  verdict: VerifyVerdict | null = null
  /** The keyless verdict of the check run on open (hmac_checked: false), until the chain changes. */
  keylessVerdict: VerifyVerdict | null = null
  integrity: IntegrityRun | null = null
  replayChecks: ReplayCheck[] = []
  /** The row an open asked to be shown first (openChain's focus_seq), for that open only. */
  focus: { open_id: number; seq: number } | null = null
  /** Finished searches' matching seqs by search_id (the newest few; forgotten with the chain). */
  readonly searches = new Map<string, Set<number>>()
  recent: string[]
  private opened: Opened | null = null
  private pendingOpen: PendingOpen | null = null
  private pendingError: unknown = null
  private readonly listing = new ListingCache()
  private opening: Promise<ChainOverview> | null = null
  private opens = 0
  private held: ChainIdentity | null = null
  private readonly chainListeners = new Set<ChainListener>()

  constructor(options: SessionOptions = {}) {
    this.options = options
    this.recent = [...(options.recent ?? [])]
  }

  get chain(): Opened | null {
    return this.opened
  }

  /** The chain this session holds, as the renderer knows it; null when none is open. */
  identity(): ChainIdentity | null {
    return this.held
  }

  /**
   * Listen to changes of the chain held: called synchronously at the moment the session swaps, so
   * over IPC the event is sent before any answer computed from the new chain (one ordered channel).
   */
  onChainChanged(listener: ChainListener): () => void {
    this.chainListeners.add(listener)
    return () => this.chainListeners.delete(listener)
  }

  private announce(chain: ChainIdentity | null): void {
    this.held = chain
    for (const l of [...this.chainListeners]) {
      try {
        l(chain)
      } catch {
        // A listener that fails (a closed window, a broken stream) must not disturb the session.
      }
    }
  }

  require(): Opened {
    if (!this.opened) {
      if (this.pendingError) throw this.pendingError
      throw new AuditError(
        'no_chain',
        this.pendingOpen ? 'the chain is still being opened' : 'no chain is open',
      )
    }
    return this.opened
  }

  /** The opened chain once every stage of the open is done (waits for a staged open). */
  async ready(): Promise<Opened> {
    const p = this.pendingOpen
    if (p) await p.done.catch(() => undefined)
    return this.require()
  }

  /**
   * `ready()` from inside a job, so a job can be started (and given its id) while a staged open is
   * still making the copy: its phase says so, and a cancel ends the wait at once.
   */
  async readyForJob(job: JobContext): Promise<Opened> {
    if (!this.pendingOpen) return this.ready()
    job.progress(0, 0, 'waiting for the verified copy')
    let timer: ReturnType<typeof setInterval> | undefined
    const cancelled = new Promise<never>((_, reject) => {
      timer = setInterval(() => {
        if (job.signal.aborted) reject(new AuditError('cancelled', 'cancelled'))
      }, 50)
    })
    try {
      return await Promise.race([this.ready(), cancelled])
    } finally {
      clearInterval(timer)
    }
  }

  /** Overview and index as far as they go now: the first pass of a staged open, else the full ones. */
  current(): { overview: ChainOverview; index: ChainIndex } | null {
    // A staged open whose background stage failed (e.g. the file changed under it) says so.
    if (!this.opened && !this.pendingOpen && this.pendingError) throw this.pendingError
    return this.opened ?? this.pendingOpen
  }

  view(): { overview: ChainOverview; index: ChainIndex } {
    const v = this.current()
    if (!v) return this.require()
    return v
  }

  /**
   * The open policy of a web client, on real paths: inside an --open-root, or the served chain (or
   * the sample) itself and its side files under their own names. It is applied by the open step to
   * the chain and to every side file (a `-wal` linked outside the roots is refused), on the paths
   * it has resolved and checked after opening them.
   */
  openPolicy(): OpenPolicy {
    const real = (p: string): string | null => {
      try {
        return realpathSync.native(p)
      } catch {
        return null
      }
    }
    const exact = new Set<string>()
    for (const p of [this.options.initialPath, this.options.samplePath]) {
      const r = p ? real(p) : null
      if (r === null) continue
      exact.add(r)
      for (const suffix of Object.values(SIDE_SUFFIX)) exact.add(r + suffix)
    }
    const roots = (this.options.openRoots ?? [])
      .map(real)
      .filter((r): r is string => r !== null)
      .map((r) => (r.endsWith(sep) ? r : r + sep))
    return (p) => exact.has(p) || roots.some((r) => p.startsWith(r))
  }

  /** Whether a web client may open `path` (its real path passes openPolicy). */
  mayOpen(path: string): boolean {
    try {
      return this.openPolicy()(realpathSync.native(path))
    } catch {
      return false
    }
  }

  async open(
    path: string,
    onProgress?: (done: number, total: number) => void,
    opts: OpenOptions = {},
  ): Promise<ChainOverview> {
    // One open at a time: a second request waits for the first, then replaces it.
    while (this.opening) await this.opening.catch(() => undefined)
    const work = (async () => {
      const staged = await this.openStaged(path, onProgress, opts)
      if (staged) return staged
      const chain = await OpenedChain.open(path, { copy: opts.policy ? { policy: opts.policy } : {} })
      try {
        const index = await chain.read((source) => buildChainIndex(source, onProgress ? { onProgress } : {}))
        this.reset()
        const openId = ++this.opens
        this.opened = openedOf(openId, chain, index)
        this.announce(identityOf(openId, this.opened.overview))
        this.addRecent(resolve(path))
        return this.opened.overview
      } catch (e) {
        chain.close()
        throw e
      }
    })()
    this.opening = work
    try {
      return await work
    } finally {
      this.opening = null
    }
  }

  /**
   * A large chain the direct reader takes: index seq and timestamps in place (no copy, no SQLite,
   * nothing written), answer with that overview, and make the verified copy, the evidence hashes
   * and the full index in the background. Null when the chain is small or not for the direct reader.
   */
  private async openStaged(
    path: string,
    onProgress?: (done: number, total: number) => void,
    opts: OpenOptions = {},
  ): Promise<ChainOverview | null> {
    // The first pass: small chains, and files the direct reader declines, open in one stage.
    const first = await this.firstPass(path, onProgress, opts)
    if (!first) return null
    const { direct, index } = first
    let held = true
    const release = (): void => {
      if (held) direct.close()
      held = false
    }
    const meta = overviewMeta(direct.facts())
    const overview: ChainOverview = {
      ...buildOverview(
        {
          ...meta,
          evidence: {
            ...meta.evidence,
            method:
              'first pass read in place, read-only, by the direct file reader; the verified private copy and the evidence hashes are being made',
          },
        },
        index,
      ),
      pending: true,
    }
    this.reset()
    const openId = ++this.opens
    const holder: { pending: PendingOpen | null } = { pending: null }
    const done = (async (): Promise<Opened> => {
      const chain = await OpenedChain.open(path, { copy: opts.policy ? { policy: opts.policy } : {} })
      try {
        const full = await chain.read((source) => buildChainIndex(source))
        const opened = openedOf(openId, chain, full)
        if (this.pendingOpen !== holder.pending)
          throw new AuditError('cancelled', 'a newer open replaced this one')
        this.pendingOpen = null
        release()
        this.opened = opened
        this.listing.clear()
        // Same chain, now with its hashes: the renderer keeps what the auditor did meanwhile.
        this.announce(identityOf(openId, opened.overview))
        return opened
      } catch (e) {
        chain.close()
        throw e
      }
    })()
    holder.pending = { openId, overview, index, done, direct, release }
    this.pendingOpen = holder.pending
    this.announce(identityOf(openId, overview))
    done.catch((e: unknown) => {
      if (this.pendingOpen === holder.pending) {
        this.pendingOpen = null
        this.pendingError = e
      }
      release()
    })
    this.addRecent(resolve(path))
    return overview
  }

  /**
   * The first pass of a staged open: seq and timestamps of every row, read in place by the direct
   * reader. Null when the chain is small or the direct reader declines it.
   */
  private async firstPass(
    path: string,
    onProgress: ((done: number, total: number) => void) | undefined,
    opts: OpenOptions,
  ): Promise<{ direct: DirectSource; index: ChainIndex } | null> {
    if (!directAllowed()) return null
    let direct: DirectSource
    try {
      direct = DirectSource.owning(openDirect(path, opts))
    } catch (e) {
      if (e instanceof AuditError) throw e
      return null
    }
    // The first pass's workers load their code while the leaves are listed; buildChainIndex ends them.
    const early = startColumnWorkers(direct, QUICK_COLUMNS)
    try {
      if (direct.estimateRows() < (this.options.stagedOpenRows ?? STAGED_OPEN_ROWS)) {
        endWorkers(early)
        direct.close()
        return null
      }
      const index = await buildChainIndex(direct, onProgress ? { onProgress } : {}, QUICK_COLUMNS, early)
      return { direct, index }
    } catch (e) {
      endWorkers(early)
      direct.close()
      if (e instanceof AuditError) throw e
      return null
    }
  }

  /** Close the chain (File → Close, closeChain): the renderer is told there is none. */
  close(): void {
    const had = this.held !== null || this.opened !== null || this.pendingOpen !== null
    this.reset()
    if (had) this.announce(null)
  }

  /** Forget the chain held, without telling anyone (an open replacing it tells). */
  private reset(): void {
    this.pendingOpen?.release()
    this.pendingOpen = null
    this.pendingError = null
    this.jobs.cancelAll()
    this.opened?.chain.close()
    this.opened = null
    this.verdict = null
    // Keys belong to the chain they were given for (issue 35): a key carried over to another chain
    // would make its verdict BROKEN for a reason that is not in the evidence.
    this.keys = []
    this.keylessVerdict = null
    this.integrity = null
    this.replayChecks = []
    this.searches.clear()
    this.listing.forget()
  }

  private addRecent(path: string): void {
    this.recent = [path, ...this.recent.filter((p) => p !== path)].slice(0, MAX_RECENT)
    this.options.onRecent?.(this.recent)
  }

  setVerdict(v: VerifyVerdict | null): void {
    this.verdict = v
    this.listing.clear()
  }

  setKeylessVerdict(v: VerifyVerdict | null): void {
    this.keylessVerdict = v
    this.listing.clear()
  }

  setIntegrity(r: IntegrityRun | null): void {
    this.integrity = r
    this.listing.clear()
  }

  /** Seqs inside a verify finding or named by an integrity anomaly. */
  flaggedSeqs(): Set<number> {
    const out = new Set<number>()
    // The keyed verdict when there is one, else the keyless check's (its findings need no key).
    for (const f of (this.verdict ?? this.keylessVerdict)?.findings ?? []) {
      if (f.kind === 'truncated') continue
      for (let s = f.from_seq; s <= f.to_seq && out.size < MAX_FLAGGED; s++) out.add(s)
    }
    const r = this.integrity?.report
    if (r) {
      for (const g of r.sequence_gaps) out.add(g.before_seq)
      for (const t of r.timestamp_anomalies) if (t.seq > 0) out.add(t.seq)
      for (const h of r.hash_anomalies) out.add(h.seq)
      for (const b of r.rotation_boundaries) out.add(b.seq)
    }
    return out
  }

  /**
   * The table's rows: from the opened chain; or, while a staged open is still making the copy, the
   * first pass's index (seq and timestamps) with rows read in place, read-only, by the direct reader —
   * for orders and filters on seq and time; others wait for the full index (entry-order.ts).
   */
  async entrySource(filter?: EntryFilter, sort: EntrySort = 'seq_asc'): Promise<EntrySource> {
    const p = this.pendingOpen
    if (p && servedByFirstPass(filter, sort)) {
      const positions = (sort: EntrySort): Int32Array =>
        this.listing.cached(['first pass', filter ?? {}, sort], () =>
          orderPositions(p.index, selectPositions(p.index, filter, 'seq_asc', null), sort, null),
        )
      const read = sourceEntryRows(p.direct, () => p.direct.assertUnchanged())
      const rows: EntryRows = (seqs) => {
        // The first pass's descriptors close once the copy is made: a late call is not served.
        if (p.direct.file?.files.closed !== false)
          throw new AuditError('cancelled', 'the chain finished opening meanwhile; ask again')
        return read(seqs)
      }
      return { rows, index: p.index, positions }
    }
    const o = await this.ready()
    await this.prepareListing(filter, sort)
    return { rows: o.rows, index: o.index, positions: (s) => this.positions(filter, s) }
  }

  /**
   * Waits for what `positions(filter, sort)` needs: the table columns (span name, status, tokens…),
   * one pass over every row, the first time a listing sorts or filters on one of them.
   */
  async prepareListing(filter: EntryFilter | undefined, sort: EntrySort): Promise<void> {
    if (!needsTableColumns(filter, sort)) return
    const o = await this.ready()
    await this.listing.columns(o, () => o.chain.read((source) => buildTableColumns(source, o.index)))
  }

  /** The listing's positions; a sort or filter on a table column needs `prepareListing` first. */
  positions(filter: EntryFilter | undefined, sort: EntrySort): Int32Array {
    const o = this.require()
    const found = this.searchSeqs(filter?.search_id)
    const cols = this.listing.built(o)
    if (cols === null && needsTableColumns(filter, sort))
      throw new AuditError('unavailable', 'the table columns are still being read; ask again')
    const seqSel = this.listing.cached([filter ?? {}, 'seq_asc'], () =>
      filteredPositions(o.index, filter, filter?.flagged_only ? this.flaggedSeqs() : null, found, cols),
    )
    if (sort === 'seq_asc') return seqSel
    return this.listing.cached([filter ?? {}, sort], () => orderPositions(o.index, seqSel, sort, cols))
  }

  /** The seqs a finished search found (null when no search is named); unknown ids are an error. */
  searchSeqs(id: string | undefined): Set<number> | null {
    if (id === undefined) return null
    const found = this.searches.get(id)
    if (!found) throw new AuditError('not_found', `no search ${id} (searches end when the chain changes)`)
    return found
  }

  dispose(): void {
    this.close()
    this.keys = []
  }
}
