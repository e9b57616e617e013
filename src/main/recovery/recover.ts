// Recovery of a chain file: carve every page version (./carve.ts), prove what was found
// (./prove.ts), and say what was searched. Reads the evidence through the descriptors of the direct
// reader's open step, which also supplies the table layout and the live chain's rows.
import type { RecoveredRow, RecoveryResult, RecoverySummary } from '../../shared/recovery-types'
import type { DirectChain } from '../chain/direct/open'
import type { EvidenceFiles as ChainFiles } from '../chain/evidence-files'
import type { KeyMaterial } from '../chain/keys'
import { Carver, type CarveOutput } from './carve'
import { assertEvidenceUnchanged, closeEvidence, evidenceOf, type EvidenceFiles } from './files'
import { recordLayout, recordLayouts } from './layout'
import type { LiveChain } from './live'
import { openPages, type PageStore } from './pages'
import { MAX_ORPHANS, orphansToProve } from './orphan-hashes'
import { proveHits } from './prove'

export interface RecoverOptions {
  signal?: { aborted: boolean }
}

/** What a search that did not happen reports. */
export function notSearched(why: string): RecoveryResult {
  return {
    summary: {
      searched: false,
      note: `not searched for recoverable rows: ${why}`,
      recovered: 0,
      proven: 0,
      copies_of_live: 0,
      uncommitted_only: 0,
      scanned: { db_pages: 0, wal_frames: 0, freelist_pages: 0, carved_regions: 0 },
    },
    rows: [],
    uncommitted: [],
  }
}

export function note(s: Omit<RecoverySummary, 'note'>, keys: number): string {
  if (s.recovered === 0)
    return (
      'no deleted or earlier versions of rows found in free space, freelist, old page versions or WAL frames ' +
      '(absence of remnants proves nothing: VACUUM, secure_delete and page reuse erase them)'
    )
  const rows = `${s.recovered} recovered row${s.recovered === 1 ? '' : 's'}`
  if (keys === 0)
    return `${rows}, unproven: no candidate key was given, so only body hashes and links are checked (a row is proven only when a key reproduces its HMAC)`
  const unproven = s.recovered - s.proven
  const proof =
    unproven === 0
      ? `${rows}, all proven (a candidate key reproduces each HMAC: a key holder sealed it)`
      : `${rows}: ${s.proven} proven, ${unproven} unproven (no candidate key reproduces their HMAC: not findings)`
  const un = s.unplaced ?? 0
  if (un === 0) return proof
  const runs = s.unplaced_runs ?? 0
  // Unproven rows have no sealed link at all: they may be of this chain under a key not given.
  const notGiven = unproven > 0 ? '; unproven ones may also be rows of this chain under a key not given' : ''
  return `${proof}; ${un} not linked to this chain by any sealed link (${runs} run${runs === 1 ? '' : 's'}: rows of another chain, of one cleared from this file, or of this chain past a row that is lost${notGiven}; never findings)`
}

/** How many rows of each status that is not a finding, for the summary. */
export function statusCounts(
  rows: RecoveredRow[],
): Pick<RecoverySummary, 'unplaced' | 'unplaced_runs' | 'before_live' | 'archived'> {
  const runs = new Set<number>()
  let unplaced = 0
  let before = 0
  let archived = 0
  for (const r of rows) {
    if (r.status === 'unplaced') {
      unplaced++
      if (r.run !== undefined) runs.add(r.run)
    } else if (r.status === 'before_live') before++
    else if (r.status === 'archived') archived++
  }
  return {
    ...(unplaced > 0 ? { unplaced, unplaced_runs: runs.size } : {}),
    ...(before > 0 ? { before_live: before } : {}),
    ...(archived > 0 ? { archived } : {}),
  }
}

/**
 * Where the live version of a superseded row's seq is now: its leaf page, and the committed WAL frame
 * SQLite reads that page from (wal.c: the newest frame of the page up to the last commit), if any.
 */
function placeLive(r: RecoveredRow, live: LiveChain, store: PageStore): void {
  const page = live.pageOf(BigInt(r.seq_exact ?? r.seq!))
  if (page === null) return
  const idx = store.wal.currentByPage.get(page)
  const f = idx === undefined ? undefined : store.wal.frames[idx]
  r.live_at = f
    ? {
        page,
        frame: f.frame,
        salt: `${f.salt1.toString(16).padStart(8, '0')}-${f.salt2.toString(16).padStart(8, '0')}`,
      }
    : { page, frame: null, salt: null }
}

/**
 * What a search reads: the evidence's files, and how its records are laid out. From the direct
 * reader's open of the evidence (targetOf), or, where that reader declines the evidence, from its
 * open of the verified private copy with the evidence's own files (../recovery/declined.ts).
 */
export interface SearchTarget {
  files: ChainFiles
  pageSize: number
  reserved: number
  /** The database's size in pages as SQLite reads it now. */
  dbPages: number
  columns: ReadonlyMap<string, number>
  ncols: number
  seqColumn: number
  /** The evidence's table stores seq as a column (not the rowid alias): ./layout.ts. */
  seqStored?: boolean
  /** Why the direct reader declined the evidence, when it did. */
  declined?: string
}

export function targetOf(chain: DirectChain): SearchTarget {
  return {
    files: chain.files,
    pageSize: chain.spec.pageSize,
    reserved: chain.reserved,
    dbPages: chain.spec.dbPages,
    columns: chain.columns,
    ncols: chain.ncols,
    seqColumn: chain.seqColumn,
  }
}

/**
 * One search of a chain's files: opened on construction (read-only descriptors, checked to be the
 * state the chain was opened in), carved (at once, or in slices beside verify), then proven.
 */
export class Search {
  private readonly files: EvidenceFiles
  private readonly carver: Carver
  private readonly store: PageStore
  private out: CarveOutput | null = null
  private closed = false

  private readonly declined: string | undefined

  constructor(target: SearchTarget, opts: RecoverOptions = {}) {
    this.files = evidenceOf(target.files)
    this.declined = target.declined
    try {
      assertEvidenceUnchanged(this.files)
      const pageSize = target.pageSize
      const layout = recordLayout(target.columns, target.ncols, target.seqColumn, target.seqStored ?? false)
      const store = openPages(this.files, pageSize)
      this.store = store
      this.carver = new Carver(
        store,
        recordLayouts(layout),
        pageSize - target.reserved,
        target.dbPages,
        opts.signal,
      )
    } catch (e) {
      this.close()
      throw e
    }
  }

  carve(): void {
    this.out = this.carver.run()
  }

  /** Carve in slices from page `from` (the pages before it came through `feed`). */
  async carveInSlices(from = 1): Promise<void> {
    this.out = await this.carver.runInSlices(undefined, from)
  }

  /** The database file's descriptor and page size, for a tap (./fed-carving.ts). */
  get dbFd(): number {
    return this.files.dbFd
  }

  get pageSize(): number {
    return this.store.pageSize
  }

  /** Bytes of the database file read by another reader of `dbFd`, in order (Carver.feed). */
  feed(pos: number, bytes: Buffer): number {
    return this.carver.feed(pos, bytes)
  }

  /**
   * The recovered rows, proven against the keys and placed against the live chain by their links;
   * `liveBodyBad`: seqs whose live body does not hash right (verify's body_hash_mismatch).
   */
  prove(live: LiveChain, keys: KeyMaterial[], liveBodyBad?: ReadonlySet<bigint>): RecoveryResult {
    if (!this.out) throw new Error('prove before carve')
    const { hits, orphans } = this.out
    let proven = proveHits(hits, live, keys, liveBodyBad)
    // Hashes whose record is lost, following a row placed (./orphan-hashes.ts): proven with the records.
    const more = orphansToProve(orphans, hits, live, proven, keys)
    if (more.length > 0) proven = proveHits([...hits, ...more], live, keys, liveBodyBad)
    for (const r of proven.rows)
      if (r.status === 'superseded' && r.seq !== null) placeLive(r, live, this.store)
    assertEvidenceUnchanged(this.files)
    const base = {
      searched: true,
      recovered: proven.rows.length,
      proven: proven.rows.filter((r) => r.key_index !== null).length,
      copies_of_live: proven.copiesOfLive,
      uncommitted_only: proven.uncommitted.length,
      ...statusCounts(proven.rows),
      scanned: this.out.scanned,
      ...(this.declined !== undefined ? { declined: this.declined } : {}),
    }
    const declined =
      this.declined === undefined
        ? ''
        : `; the file reader declined the file (${this.declined}): its bytes, its -wal and its journal's page images were searched as they are, against the live rows SQLite reads (after its rollback, where a journal is hot: the verified private copy)`
    // Past the bound, triples were not kept: said, since a cut row known only by its hashes may be among them.
    const unexamined =
      orphans.dropped > 0
        ? `; ${orphans.dropped} sets of three hashes past the search's bound (${MAX_ORPHANS}) were not examined: a cut row known only by its hashes may be among them`
        : ''
    return {
      summary: { ...base, note: note(base, keys.length) + declined + unexamined },
      rows: proven.rows,
      uncommitted: proven.uncommitted,
    }
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    closeEvidence(this.files)
  }
}

/** Search the files of a chain opened by the direct reader, using `live` for the live rows. */
export function recoverWith(
  chain: DirectChain,
  live: LiveChain,
  keys: KeyMaterial[],
  opts: RecoverOptions = {},
): RecoveryResult {
  const search = new Search(targetOf(chain), opts)
  try {
    search.carve()
    return search.prove(live, keys)
  } finally {
    search.close()
  }
}
