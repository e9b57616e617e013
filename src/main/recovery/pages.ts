// Page images by version: the database file's own page, a WAL frame's image, a rollback journal's
// image, and the views an overflow chain is followed in (the database as SQLite sees it now, the
// database file alone, or the database as it was when a given WAL frame was written). Every byte is
// read through the reader's pager (../chain/direct/pager.ts), the one page access: "the live page n"
// is the pager's own page n, its WAL index made from the frames the WAL holds (./wal-frames.ts).
import { Pager, pagerSpec } from '../chain/direct/pager'
import { NO_WAL } from '../chain/direct/wal'
import { WAL_FRAME_HEADER_BYTES } from '../chain/sqlite/wal'
import type { EvidenceFiles } from './files'
import { listWalFrames, walIndexOf, type WalFrames } from './wal-frames'
import { listJournalPages, NO_JOURNAL, type JournalPages } from './journal-pages'

/** A way of reading page `n` as of some moment; null when that page does not exist then. */
export type PageView = (n: number) => Buffer | null

/**
 * The page versions of the files `files` holds, read at `pageSize`. The pager's page count is
 * SQLite's pager's (pager.c pagerPagecount): the WAL's after its last commit, else the file's.
 */
export function openPages(files: EvidenceFiles, pageSize: number): PageStore {
  const fds = {
    dbPath: files.dbPath,
    walPath: files.walPath,
    dbFd: files.dbFd,
    walFd: files.walFd,
    journalFd: files.journalFd,
  }
  const filePages = Math.floor(files.dbSize / pageSize)
  // The side files' bytes are read through a pager of the file alone; the WAL's frames then give the
  // pager that reads the database as SQLite sees it now.
  const raw = new Pager(pagerSpec(fds, pageSize, filePages, NO_WAL))
  const wal = listWalFrames(raw, files.walSize)
  const journal = listJournalPages(raw, files.journalSize)
  const index = walIndexOf(wal)
  const pager = new Pager(pagerSpec(fds, pageSize, wal.dbPages > 0 ? wal.dbPages : filePages, index))
  return new PageStore(pager, filePages, wal, journal)
}

export class PageStore {
  readonly pageSize: number
  /** gen-0 frames (indexes into wal.frames) per page, in file order: for "as of frame k" views. */
  private byPage: Map<number, number[]> | null = null

  constructor(
    readonly pager: Pager,
    /** Whole pages the database file holds. */
    readonly filePages: number,
    readonly wal: WalFrames,
    readonly journal: JournalPages = NO_JOURNAL,
  ) {
    this.pageSize = pager.pageSize
  }

  /** Page `n` of the database file itself, in a buffer of its own. */
  mainPage(n: number): Buffer | null {
    return n <= this.filePages ? this.pager.filePage(n) : null
  }

  /** The page image of WAL frame `idx` (index into wal.frames). */
  framePage(idx: number): Buffer | null {
    const f = this.wal.frames[idx]
    return f ? this.pager.imageAt('wal', f.offset + WAL_FRAME_HEADER_BYTES) : null
  }

  /** The page image of journal record `idx` (index into journal.records). */
  journalPage(idx: number): Buffer | null {
    const r = this.journal.records[idx]
    return r ? this.pager.imageAt('journal', r.offset) : null
  }

  /**
   * Page `n` as SQLite reads it now: the pager's page (its newest committed WAL image, else the
   * file's) — after a hot journal's rollback, the image it plays back, and nothing past the size it
   * restores.
   */
  readonly current: PageView = (n) => {
    if (!this.wal.currentByPage.has(n)) {
      const { restoredPages, playedByPage } = this.journal
      if (restoredPages !== null && n > restoredPages) return null
      const played = playedByPage.get(n)
      if (played !== undefined) return this.journalPage(played)
    }
    return this.pager.tryPage(n)
  }

  readonly main: PageView = (n) => this.mainPage(n)

  /** Journal records (indexes into journal.records) by page, first image first: the "before" view. */
  private journalByPage: Map<number, number> | null = null

  /**
   * Page `n` as it was before the journal's transaction: its first image in the journal, else the
   * database file's (where an earlier image's overflow pages are looked for).
   */
  readonly beforeJournal: PageView = (n) => {
    if (this.journalByPage === null) {
      this.journalByPage = new Map()
      this.journal.records.forEach((r, i) => {
        if (!this.journalByPage!.has(r.page)) this.journalByPage!.set(r.page, i)
      })
    }
    const idx = this.journalByPage.get(n)
    return idx !== undefined ? this.journalPage(idx) : this.mainPage(n)
  }

  /** Per frame, the index of its transaction's last frame (built once: a WAL may hold many frames). */
  private txEnd: Int32Array | null = null

  private transactionEnd(): Int32Array {
    if (this.txEnd) return this.txEnd
    const frames = this.wal.frames
    const end = new Int32Array(frames.length)
    for (let k = frames.length - 1; k >= 0; k--) {
      const next = frames[k + 1]
      end[k] = frames[k]!.commit || next?.generation !== 0 ? k : end[k + 1]!
    }
    this.txEnd = end
    return end
  }

  /**
   * Page `n` as of the end of the transaction that wrote frame `idx` of the current generation (its
   * commit frame, or the last frame when none follows): a transaction's frames go out in page order
   * at commit (wal.c sqlite3WalFrames, one frame per page), so a leaf's overflow pages may follow it.
   * Read as of the leaf's own frame, they would be their older images: another record's bytes.
   */
  asOfFrame(idx: number): PageView {
    const frame = this.wal.frames[idx]
    if (!frame || frame.generation !== 0) return this.main
    if (this.byPage === null) {
      this.byPage = new Map()
      this.wal.frames.forEach((f, i) => {
        if (f.generation === 0) {
          const list = this.byPage!.get(f.page)
          if (list) list.push(i)
          else this.byPage!.set(f.page, [i])
        }
      })
    }
    const end = this.transactionEnd()[idx]!
    return (n) => {
      const list = this.byPage!.get(n)
      let best = -1
      if (list) for (const i of list) if (i <= end) best = i
      return best >= 0 ? this.framePage(best) : this.mainPage(n)
    }
  }
}
