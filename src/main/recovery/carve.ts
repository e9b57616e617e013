// Carving chain records out of every page version the files hold. What is read, and how much of it:
// - pages of the database file that committed WAL frames supersede, pages past the database's end,
//   and WAL frames that are not the newest committed image of their page: older versions, carved
//   whole (their cells were the rows of their time);
// - freelist pages (file-format §1.5) in the current view: carved whole (a trunk page after its list);
// - every other b-tree page in the current view: only its free space (the gap and the freeblocks,
//   ./regions.ts), and only where that space contains the anchor's first byte; live cells are never
//   parsed again (verify has read them);
// - any other page in the current view (overflow pages, whose slack keeps an older page's bytes):
//   whole, where it contains the anchor's first byte.
// The database file is read in 1 MB runs through the reader's pager (./pages.ts); the pass is linear in the file's
// size and each candidate is checked in time bounded by the record's size, so a 2 GB file costs one
// read of it.
import type { RecoveryFile, RecoverySource, RecoverySourceKind } from '../../shared/recovery-types'
import { readBuffer } from '../chain/read-buffer'
import { readFreelist, type Freelist } from '../chain/sqlite/freelist'
import { pageOffset } from '../chain/sqlite/header'
import { WAL_FRAME_HEADER_BYTES } from '../chain/sqlite/wal'
import { cellGap, headerOffset, isBtreeType, leafCellRowids } from '../chain/sqlite/page'
import { AuditError } from '../base/errors'
import type { RecordLayout } from './layout'
import type { PageStore, PageView } from './pages'
import type { CarvedRecord, RawHit } from './record'
import { matchAt, type WalkBudget } from './overflow-walk'
import { OrphanHashes } from './orphan-hashes'
import { freeblocksOf, gapOf, mayHoldRecord, type Region } from './regions'

export interface CarveScan {
  db_pages: number
  wal_frames: number
  freelist_pages: number
  carved_regions: number
  journal_pages?: number
}

export interface CarveOutput {
  hits: RawHit[]
  scanned: CarveScan
  freelist: Freelist
  orphans: OrphanHashes // three hashes side by side in the same regions (./orphan-hashes.ts)
}

/** Bytes read from the database file per call. */
const RUN_BYTES = 1 << 20

/**
 * Page marks (Carver.pageMarks): an older version carved whole, a freelist page carved whole, a
 * version a hot journal's rollback replaces (or truncates away), or a page past a rollback-journal
 * file's end, carved whole and never committed.
 */
const SUPERSEDED = 1
const FREE = 2
const ROLLED_BACK = 3

interface Version {
  file: RecoveryFile
  page: number
  /** Byte offset of the page image in its file. */
  at: number
  /** A database page a hot journal's rollback replaces: its version was never committed. */
  rolledBack?: boolean
  frame?: { frame: number; salt: string; generation: number | null; committed: boolean | null }
  /** Where the overflow pages of its records are looked for, in order. */
  views: PageView[]
}

export class Carver {
  readonly hits: RawHit[] = []
  readonly scanned: CarveScan = { db_pages: 0, wal_frames: 0, freelist_pages: 0, carved_regions: 0 }
  readonly freelist: Freelist
  readonly orphans = new OrphanHashes()
  /**
   * The freelist as the database file's own page 1 describes it (file-format §1.5), where committed
   * WAL frames supersede pages: a page free in the file that a WAL frame now uses still holds what a
   * transaction rolled back in rollback-journal mode left there (./prove.ts onFreePages).
   */
  private readonly mainFreelist: Freelist
  private readonly anchorByte: number
  private readonly maxPage: number
  private runBuf: Buffer | null = null
  /** Overflow pages the walks may still read (see overflowChain). */
  private readonly budget: WalkBudget
  private marks: Uint8Array | null = null

  constructor(
    private readonly store: PageStore,
    /** The table's layout first, then any other its records may have been written in (./layout.ts). */
    private readonly layouts: RecordLayout[],
    /**
     * The usable size (page size less the reserved bytes, file format §1.3.4): it splits a record
     * between its page and its overflow chain, and nothing else. Regions, anchors and local records
     * run to the end of the page, as SQLite reads a cell's local payload (btree.c fetchPayload, up to
     * aDataEnd = aData + pageSize): a reserved-bytes value raised after the rows were written puts
     * the first cells of every page past the usable size, and SQLite still reads them (./record.ts).
     */
    private readonly usable: number,
    private readonly dbPagesNow: number,
    private readonly signal?: { aborted: boolean },
  ) {
    this.freelist = readFreelist(store.current, store.pageSize, dbPagesNow)
    this.mainFreelist =
      store.wal.currentByPage.size > 0
        ? readFreelist(store.main, store.pageSize, store.filePages)
        : this.freelist
    // Every anchor starts with a hash column's serial type (./layout.ts HASH_TYPE).
    this.anchorByte = layouts[0]!.anchor[0]!
    const sizes = Math.max(store.filePages, store.wal.dbPages, dbPagesNow)
    this.maxPage = sizes
    // The largest page any version holds: a WAL frame or journal image of a page past every size the
    // files now give (a commit that shrank the database — auto-vacuum's, a VACUUM's — leaves the
    // frames of its older pages, overflow pages among them, file-format §4.1 and §4.3). The walks'
    // total stays bounded by the images there are.
    let held = sizes
    for (const f of store.wal.frames) if (f.page > held) held = f.page
    for (const r of store.journal.records) if (r.page > held) held = r.page
    this.budget = { maxPage: held, left: 4 * (sizes + store.wal.frames.length) + 65536 }
  }

  run(): CarveOutput {
    for (let next = 1; next > 0;) next = this.mainFile(next, Infinity)
    this.walFrames()
    this.journalPages()
    return this.output()
  }

  /**
   * The same, giving the event loop a turn after every `sliceBytes` of the database file: run on the
   * main thread while verify's worker threads hash (the main thread only hands them their jobs),
   * recovery costs the cores only what it computes. `from`: the first page not yet carved (pages
   * before it came through `feed`).
   */
  async runInSlices(sliceBytes = 8 << 20, from = 1): Promise<CarveOutput> {
    const pages = Math.max(1, Math.floor(sliceBytes / this.store.pageSize))
    for (let next = from; next > 0;) {
      next = this.mainFile(next, pages)
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    this.walFrames()
    this.journalPages()
    return this.output()
  }

  private output(): CarveOutput {
    const { hits, scanned, freelist, orphans } = this
    return { hits, scanned, freelist, orphans }
  }

  private checkCancel(): void {
    if (this.signal?.aborted) throw new AuditError('cancelled', 'recovery cancelled')
  }

  /**
   * What each page number is in the current view, for the run loop: 0 a page in use (only its free
   * space is looked at), or one of the marks below.
   */
  private pageMarks(): Uint8Array {
    const marks = new Uint8Array(this.store.filePages + 1)
    for (const n of this.store.wal.currentByPage.keys()) if (n < marks.length) marks[n] = SUPERSEDED
    // Past the database's end: in a WAL file, the file's pages of a state before a commit that shrank
    // it (committed then). In a rollback-journal file whose WAL holds no commit, the end is the page
    // count of its header (file-format §1.3, in-header database size), which every commit writes: a
    // page past it was written by a transaction that never committed (its pages spilled, then a crash
    // with journal_mode=MEMORY or OFF, which leave no journal to roll them back; pager.c).
    const page1 = this.store.mainPage(1)
    const rollbackFile = this.store.wal.dbPages === 0 && page1 !== null && page1[18] === 1 && page1[19] === 1
    for (let n = this.dbPagesNow + 1; n < marks.length; n++)
      marks[n] = rollbackFile ? ROLLED_BACK : SUPERSEDED
    for (const n of this.freelist.leaves) if (n < marks.length && marks[n] === 0) marks[n] = FREE
    for (const n of this.freelist.trunks.keys()) if (n < marks.length && marks[n] === 0) marks[n] = FREE
    const { journal } = this.store
    if (journal.hot) {
      // The rollback writes these images back: where the file's version differs, it is the version of
      // the transaction rolled back; pages past the size the rollback restores are cut off.
      for (const [n, idx] of journal.playedByPage)
        if (n < marks.length && !this.sameAsFile(idx)) marks[n] = ROLLED_BACK
      const keep = journal.restoredPages
      if (keep !== null) for (let n = keep + 1; n < marks.length; n++) marks[n] = ROLLED_BACK
    }
    return marks
  }

  /** Journal records whose image is the database file's page byte for byte (index → answer). */
  private readonly sameCache = new Map<number, boolean>()

  private sameAsFile(idx: number): boolean {
    let same = this.sameCache.get(idx)
    if (same === undefined) {
      const img = this.store.journalPage(idx)
      const file = img && this.store.mainPage(this.store.journal.records[idx]!.page)
      same = img !== null && file !== null && img.equals(file)
      this.sameCache.set(idx, same)
    }
    return same
  }

  /**
   * Every page image of the rollback journal, whole: an earlier version of its page (or, in a hot
   * journal, the image the rollback restores). An image that is the file's own page adds nothing
   * (a benign journal changes nothing).
   */
  private journalPages(): void {
    const { records } = this.store.journal
    records.forEach((r, idx) => {
      if (idx % 256 === 0) this.checkCancel()
      if (this.sameAsFile(idx)) return
      const image = this.store.journalPage(idx)
      if (!image) return
      this.scanned.journal_pages = (this.scanned.journal_pages ?? 0) + 1
      const version: Version = {
        file: 'journal',
        page: r.page,
        at: r.offset,
        views: [this.store.beforeJournal, this.store.current, this.store.main],
      }
      this.whole(image, version, 'journal_page', headerOffset(r.page))
    })
  }

  /**
   * Pages [from, from + max) of the database file, in runs; a page in use costs a look at its header
   * and gap. Returns the next page to read, or 0 at the end of the file.
   */
  private mainFile(from: number, max: number): number {
    const { pageSize, pager } = this.store
    const perRun = Math.max(1, Math.floor(RUN_BYTES / pageSize))
    const run = (this.runBuf ??= readBuffer(perRun * pageSize))
    const end = Math.min(this.store.filePages + 1, from + max)
    for (let first = from; first < end; first += perRun) {
      this.checkCancel()
      const count = Math.min(perRun, end - first)
      const got = pager.fileRun(first, run.subarray(0, count * pageSize))
      this.pages(run, first, got)
    }
    return end > this.store.filePages ? 0 : end
  }

  /** The next page `feed` expects (1 before any bytes). */
  private fedTo = 1

  /**
   * The database file's bytes [pos, pos + bytes.length), handed over by another reader of the same
   * descriptor in file order (the evidence hash, chain/addon/file-hash.ts `FileTap`): carved as
   * `mainFile` carves its runs. Returns the next page; `runInSlices(…, that page)` reads the rest.
   */
  feed(pos: number, bytes: Buffer): number {
    const { pageSize } = this.store
    if (pos !== (this.fedTo - 1) * pageSize) throw new Error(`bytes at ${pos}, expected page ${this.fedTo}`)
    this.checkCancel()
    const first = this.fedTo
    const count = Math.min(this.store.filePages + 1 - first, Math.floor(bytes.length / pageSize))
    if (count > 0) {
      this.pages(bytes, first, count)
      this.fedTo = first + count
    }
    return this.fedTo
  }

  /** `got` pages of the database file from page `first`, as they lie in `run` (whole pages, in order). */
  private pages(run: Buffer, first: number, got: number): void {
    const { pageSize } = this.store
    const marks = (this.marks ??= this.pageMarks())
    const anchorByte = this.anchorByte
    this.scanned.db_pages += got
    // The next anchor byte at or after the last place looked from: searches only move forward, so
    // a run is scanned once however many pages have no anchor byte in their free space.
    let next = -1
    const anchorFrom = (at: number): number => {
      if (next < at) {
        next = run.indexOf(anchorByte, at)
        if (next < 0) next = run.length
      }
      return next
    }
    for (let i = 0; i < got; i++) {
      const n = first + i
      const base = i * pageSize
      const mark = marks[n]!
      if (mark === SUPERSEDED || mark === ROLLED_BACK) {
        const version = this.dbVersion(n, [this.store.main, this.store.current])
        if (mark === ROLLED_BACK) version.rolledBack = true
        const trunkList = mark === SUPERSEDED ? this.mainFreelist.trunks.get(n) : undefined
        if (trunkList !== undefined || (mark === SUPERSEDED && this.mainFreelist.leaves.has(n)))
          this.whole(run.subarray(base, base + pageSize), version, 'freelist', trunkList ?? 0)
        else this.whole(run.subarray(base, base + pageSize), version, 'superseded_page', headerOffset(n))
        continue
      }
      if (mark === 0) {
        // The common case: not a b-tree page, or no anchor byte in its gap (the format module's cellGap) and no freeblock.
        const h = base + headerOffset(n)
        const type = run[h]!
        if (!isBtreeType(type)) {
          // An overflow (or other) page: its slack after the data may hold an older page's bytes.
          if (anchorFrom(base) >= base + pageSize) continue
          this.current(run, base, this.dbVersion(n, [this.store.current, this.store.main]))
          continue
        }
        const gap = cellGap(run, base, h - base, pageSize)
        const inGap = gap !== null && anchorFrom(base + gap.from) < base + gap.to
        if (!inGap && (run[h + 1]! | run[h + 2]!) === 0) continue
      }
      this.current(run, base, this.dbVersion(n, [this.store.current, this.store.main]))
    }
  }

  private dbVersion(n: number, views: PageView[]): Version {
    return { file: 'db', page: n, at: pageOffset(n, this.store.pageSize), views }
  }

  /** Every WAL frame: the current image of a page like a database page, any other whole. */
  private walFrames(): void {
    const { wal } = this.store
    wal.frames.forEach((f, idx) => {
      if (idx % 256 === 0) this.checkCancel()
      const page = this.store.framePage(idx)
      if (!page) return
      this.scanned.wal_frames++
      const version: Version = {
        file: 'wal',
        page: f.page,
        at: f.offset + WAL_FRAME_HEADER_BYTES,
        frame: {
          frame: f.frame,
          salt: `${f.salt1.toString(16).padStart(8, '0')}-${f.salt2.toString(16).padStart(8, '0')}`,
          generation: f.generation,
          committed: f.committed,
        },
        views: [],
      }
      if (f.current) {
        version.views = [this.store.current, this.store.main]
        this.current(page, 0, version)
      } else {
        version.views =
          f.generation === 0
            ? [this.store.asOfFrame(idx), this.store.current]
            : [this.store.main, this.store.current]
        this.whole(page, version, 'wal_frame', headerOffset(f.page))
      }
    })
  }

  /** A page in the current view: whole when free, else its free space where it may hold a record. */
  private current(buf: Buffer, base: number, version: Version): void {
    const n = version.page
    const page = (): Buffer => buf.subarray(base, base + this.store.pageSize)
    if (this.freelist.leaves.has(n)) {
      this.scanned.freelist_pages++
      this.whole(page(), version, 'freelist', 0)
      return
    }
    const trunkList = this.freelist.trunks.get(n)
    if (trunkList !== undefined) {
      this.scanned.freelist_pages++
      this.whole(page(), version, 'freelist', trunkList)
      return
    }
    const h = headerOffset(n)
    if (!isBtreeType(buf[base + h])) {
      // Not a b-tree page: an overflow page of a live row (its slack past the data is old bytes), a
      // pointer-map or the lock-byte page. JCS bodies never hold the anchor (a raw 0x0D): carved whole.
      this.whole(page(), version, 'unallocated', 0)
      return
    }
    const regions: Region[] = []
    const gap = gapOf(buf, base, h, this.store.pageSize)
    if (gap && mayHoldRecord(buf, base, gap, this.anchorByte)) regions.push(gap)
    if (buf[base + h + 1]! | buf[base + h + 2]!)
      for (const fb of freeblocksOf(buf, base, h, this.store.pageSize))
        if (mayHoldRecord(buf, base, fb, this.anchorByte)) regions.push(fb)
    if (regions.length > 0) this.regions(page(), version, regions)
  }

  private whole(page: Buffer, version: Version, kind: RecoverySourceKind, from: number): void {
    this.regions(page, version, [{ from, to: page.length, kind }], kind !== 'unallocated')
  }

  /**
   * Every anchor in the regions of one page version, matched into records; with `orphans`, the hash
   * triples in them too (./orphan-hashes.ts). Those are looked for on pages carved whole that no
   * live row holds — free, superseded, journal and older WAL images — where a cut row's overflow
   * part outlives its cell. Not in the free space of a live b-tree page (it holds hex of the rows
   * moved out of it: scanning every leaf's gap took 0.85 s of a 1M-row verify, 2.4 → 3.25 s), nor on
   * a page that is no b-tree page (a live row's overflow page holds that row's own hashes: with
   * bodies past a 1 KiB page, +0.7 s and +63 MB a 100k-row verify, and the bound filled with live
   * rows' triples).
   */
  private regions(view: Buffer, version: Version, regions: Region[], orphans = false): void {
    // A page of its own: a database page is a view into the run buffer the next read overwrites, and
    // a record's body is read from its page only when it is reported.
    const page = Buffer.from(view)
    let neighbours: bigint[] | null = null
    for (const r of regions) {
      this.scanned.carved_regions++
      if (orphans) this.orphans.scan(page, r.from, r.to, (t) => this.source(version, r.kind, t))
      for (
        let a = page.indexOf(this.anchorByte, r.from);
        a >= 0 && a < r.to;
        a = page.indexOf(this.anchorByte, a + 1)
      ) {
        let rec: CarvedRecord | null = null
        for (const layout of this.layouts) {
          const anchor = layout.anchor
          if (
            a + anchor.length > page.length ||
            page.compare(anchor, 0, anchor.length, a, a + anchor.length) !== 0
          )
            continue
          rec = matchAt(page, a, version.views, this.usable, layout, this.budget)
          if (rec) break
        }
        if (!rec) continue
        neighbours ??= leafCellRowids(page, headerOffset(version.page), page.length)
        this.hits.push({ rec, source: this.source(version, r.kind, rec.start), neighbours })
      }
    }
  }

  private source(version: Version, kind: RecoverySourceKind, start: number): RecoverySource {
    const s: RecoverySource = { file: version.file, kind, page: version.page, offset: version.at + start }
    if (version.rolledBack) s.committed = false
    if (version.frame) {
      s.frame = version.frame.frame
      s.salt = version.frame.salt
      if (version.frame.generation !== null) s.generation = version.frame.generation
      s.committed = version.frame.committed
    }
    return s
  }
}

export { matchAt, overflowChain, type WalkBudget } from './overflow-walk'
