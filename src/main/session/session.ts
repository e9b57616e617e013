// The state behind the contract: the opened chain (one at a time), the candidate keys (in this
// process's memory only, never written or returned), the last verdict and integrity run, and the
// replay checks made in this session. How a chain is opened is ./open-stages.ts; what is held of it
// ./opened.ts.
import { resolve } from 'node:path'
import type { ChainIdentity } from '../../shared/app-events'
import type { OpenOptions, OpenPolicy } from '../chain/evidence-files'
import type { ChainOverview, EntryFilter, EntrySort } from '../../shared/chain-types'
import type { IntegrityRun } from '../../shared/integrity-types'
import type { ReplayCheck } from '../../shared/replay-types'
import type { ReplayBatchRecord } from '../../shared/report-types'
import type { KeyInfo, VerifyVerdict } from '../../shared/verify-types'
import type { ChainIndex } from '../chain/chain-index'
import { selectPositions } from '../chain/views'
import { buildTableColumns } from '../chain/columns/table-columns'
import { filteredPositions, needsTableColumns, orderPositions, servedByFirstPass } from '../chain/entry-order'
import { AuditError } from '../base/errors'
import { keyInfo, type KeyMaterial } from '../chain/keys'
import { flaggedSeqs } from './flagged'
import { JobRegistry, type JobContext } from './jobs'
import { fullIndex, openInPlace, openThroughCopy, type InPlaceOpen, type Progress } from './open-stages'
import { mayOpenUnder, openPolicyOf, type PolicyOptions } from './open-policy'
import { entryRowsOf, identityOf, openedOf, pendingOf, type Opened, type PendingOpen } from './opened'
import { ListingCache, type EntrySource } from './listing'
import { withRecent } from './recent'

export type { EntrySource } from './listing'

export interface SessionOptions extends PolicyOptions {
  /** The row to show first in initialPath (`--seq N`). */
  initialSeq?: number | null
  recent?: string[]
  onRecent?: (paths: string[]) => void
  /**
   * Chains of at least this many rows (estimated) open in stages: a first overview and timeline
   * from seq and timestamps, then the full index and the evidence hash in the background (default
   * 100 000; tests lower it).
   */
  stagedOpenRows?: number
}

const STAGED_OPEN_ROWS = 100_000

/** Told whenever the chain the session holds changes (see AppEvents.chainChanged). */
export type ChainListener = (chain: ChainIdentity | null) => void

/** Told whenever a client replaces the keys held (see AppEvents.keysChanged). */
export type KeysListener = (keys: KeyInfo[]) => void

export class AuditSession {
  readonly jobs = new JobRegistry()
  readonly options: SessionOptions
  keys: KeyMaterial[] = []
  verdict: VerifyVerdict | null = null
  /** The keyless verdict of the check run on open (hmac_checked: false), until the chain changes. */
  keylessVerdict: VerifyVerdict | null = null
  integrity: IntegrityRun | null = null
  replayChecks: ReplayCheck[] = []
  /** The replay batches among `replayChecks` (where their checks are, how many were not kept). */
  replayBatches: ReplayBatchRecord[] = []
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
  private readonly keysListeners = new Set<KeysListener>()

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

  /**
   * Listen to a client replacing the keys (setSecrets): the keys are the session's, not a tab's, so
   * every other tab's verdict, replay words and batch lines were made under keys no longer held.
   */
  onKeysChanged(listener: KeysListener): () => void {
    this.keysListeners.add(listener)
    return () => this.keysListeners.delete(listener)
  }

  /** The keys a client gave, held from now on; every listener is told (before the call answers). */
  replaceKeys(keys: KeyMaterial[]): void {
    this.keys = keys
    const shown = keys.map(keyInfo)
    for (const l of [...this.keysListeners]) {
      try {
        l(shown)
      } catch {
        // A closed window or stream must not stop the call.
      }
    }
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
   * still indexing and hashing: its phase says so, and a cancel ends the wait at once.
   */
  async readyForJob(job: JobContext): Promise<Opened> {
    if (!this.pendingOpen) return this.ready()
    job.progress(0, 0, 'waiting for the open to finish (index and evidence hash)')
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

  /** The open policy of a web client (./open-policy.ts). */
  openPolicy(): OpenPolicy {
    return openPolicyOf(this.options)
  }

  /** Whether a web client may open `path` (its real path passes openPolicy). */
  mayOpen(path: string): boolean {
    return mayOpenUnder(this.options, path)
  }

  async open(path: string, onProgress?: Progress, opts: OpenOptions = {}): Promise<ChainOverview> {
    // One open at a time: a second request waits for the first, then replaces it.
    while (this.opening) await this.opening.catch(() => undefined)
    const work = (async () => {
      const staged = this.options.stagedOpenRows ?? STAGED_OPEN_ROWS
      const first = await openInPlace(path, opts, staged, onProgress)
      if ('declined' in first) {
        const { chain, facts, index } = await openThroughCopy(path, first.declined, opts, onProgress)
        return this.hold(path, (openId) => openedOf(openId, chain, facts, index)).overview
      }
      if (!first.complete) return this.holdPending(path, first)
      // A chain of few rows: its hash takes a moment; the open answers with the record complete.
      try {
        await first.chain.hashed()
      } catch (e) {
        first.chain.close()
        throw e
      }
      return this.hold(path, (openId) => openedOf(openId, first.chain, first.facts, first.index)).overview
    })()
    this.opening = work
    try {
      return await work
    } finally {
      this.opening = null
    }
  }

  /** Replace the chain held by the one `make` gives (numbered now), and tell the listeners. */
  private hold(path: string, make: (openId: number) => Opened): Opened {
    this.reset()
    const openId = ++this.opens
    this.opened = make(openId)
    this.announce(identityOf(openId, this.opened.overview))
    this.addRecent(resolve(path))
    return this.opened
  }

  /**
   * A large chain read in place: answer with the first pass's overview (seq and timestamps) at
   * once, and index the rest and finish the evidence hash in the background, on the same chain.
   */
  private holdPending(path: string, first: InPlaceOpen): ChainOverview {
    const { chain, facts } = first
    this.reset()
    const openId = ++this.opens
    const holder: { pending: PendingOpen | null } = { pending: null }
    const done = (async (): Promise<Opened> => {
      // The hash first, alone beside the table's reads: on two cores a full index running beside it
      // would take a core from it (issue 36: the hash within 1.2x of one stream's time).
      await chain.hashed()
      const full = await fullIndex(chain)
      if (this.pendingOpen !== holder.pending)
        throw new AuditError('cancelled', 'a newer open replaced this one')
      this.pendingOpen = null
      this.opened = openedOf(openId, chain, facts, full)
      this.listing.clear()
      // Same chain, now with its hashes: the renderer keeps what the auditor did meanwhile.
      this.announce(identityOf(openId, this.opened.overview))
      return this.opened
    })()
    holder.pending = pendingOf(openId, chain, facts, first.index, done)
    this.pendingOpen = holder.pending
    this.announce(identityOf(openId, holder.pending.overview))
    done.catch((e: unknown) => {
      if (this.pendingOpen === holder.pending) {
        this.pendingOpen = null
        this.pendingError = e
        chain.close()
      }
    })
    this.addRecent(resolve(path))
    return holder.pending.overview
  }

  /** Close the chain (File → Close, closeChain): the renderer is told there is none. */
  close(): void {
    const had = this.held !== null || this.opened !== null || this.pendingOpen !== null
    this.reset()
    if (had) this.announce(null)
  }

  /** Forget the chain held, without telling anyone (an open replacing it tells). */
  private reset(): void {
    this.pendingOpen?.chain.close()
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
    this.replayBatches = []
    this.searches.clear()
    this.listing.forget()
  }

  private addRecent(path: string): void {
    this.recent = withRecent(this.recent, path)
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

  /** Seqs inside a verify finding or named by an integrity anomaly (./flagged.ts). */
  flaggedSeqs(): Set<number> {
    // The keyed verdict when there is one, else the keyless check's (its findings need no key).
    return flaggedSeqs(this.verdict ?? this.keylessVerdict, this.integrity)
  }

  /**
   * The table's rows: from the opened chain; or, while a staged open is still indexing, the first
   * pass's index (seq and timestamps) with rows read from the same chain — for orders and filters on
   * seq and time; others wait for the full index (entry-order.ts).
   */
  async entrySource(filter?: EntryFilter, sort: EntrySort = 'seq_asc'): Promise<EntrySource> {
    const p = this.pendingOpen
    if (p && servedByFirstPass(filter, sort)) {
      const positions = (sort: EntrySort): Int32Array =>
        this.listing.cached(['first pass', filter ?? {}, sort], () =>
          orderPositions(p.index, selectPositions(p.index, filter, 'seq_asc', null), sort, null),
        )
      return { rows: entryRowsOf(p.chain), index: p.index, positions }
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
