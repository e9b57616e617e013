// Page images by version: the database file's own page, a WAL frame's image, and the views an
// overflow chain is followed in (the database as SQLite sees it now, the database file alone, or the
// database as it was when a given WAL frame was written). Pages sit where the format module says
// (../chain/sqlite/: page n at (n−1)·pageSize, a frame's image after its 24-byte header) and are read
// through the open step's descriptors, like the direct reader's Pager.
import { pageOffset } from '../chain/sqlite/header'
import { WAL_FRAME_HEADER_BYTES } from '../chain/sqlite/wal'
import { readAt, type EvidenceFiles } from './files'
import type { WalFrames } from './wal-frames'
import { NO_JOURNAL, type JournalPages } from './journal-pages'

/** A way of reading page `n` as of some moment; null when that page does not exist then. */
export type PageView = (n: number) => Buffer | null

export class PageStore {
  readonly filePages: number
  /** gen-0 frames (indexes into wal.frames) per page, in file order: for "as of frame k" views. */
  private byPage: Map<number, number[]> | null = null

  constructor(
    readonly files: EvidenceFiles,
    readonly pageSize: number,
    readonly wal: WalFrames,
    readonly journal: JournalPages = NO_JOURNAL,
  ) {
    this.filePages = Math.floor(files.dbSize / pageSize)
  }

  /** Page `n` of the database file itself, in a buffer of its own. */
  mainPage(n: number): Buffer | null {
    if (!Number.isInteger(n) || n < 1 || n > this.filePages) return null
    const buf = Buffer.allocUnsafe(this.pageSize)
    return readAt(this.files.dbFd, buf, 0, this.pageSize, pageOffset(n, this.pageSize)) === this.pageSize
      ? buf
      : null
  }

  /** The page image of WAL frame `idx` (index into wal.frames). */
  framePage(idx: number): Buffer | null {
    const f = this.wal.frames[idx]
    if (!f) return null
    const buf = Buffer.allocUnsafe(this.pageSize)
    return readAt(this.files.walFd, buf, 0, this.pageSize, f.offset + WAL_FRAME_HEADER_BYTES) ===
      this.pageSize
      ? buf
      : null
  }

  /** The page image of journal record `idx` (index into journal.records). */
  journalPage(idx: number): Buffer | null {
    const r = this.journal.records[idx]
    if (!r) return null
    const buf = Buffer.allocUnsafe(this.pageSize)
    return readAt(this.files.journalFd, buf, 0, this.pageSize, r.offset) === this.pageSize ? buf : null
  }

  /**
   * Page `n` as SQLite reads it now: its newest committed WAL image, else the file's — after a hot
   * journal's rollback (the image it plays back; nothing past the size it restores).
   */
  readonly current: PageView = (n) => {
    const idx = this.wal.currentByPage.get(n)
    if (idx !== undefined) return this.framePage(idx)
    const { restoredPages, playedByPage } = this.journal
    if (restoredPages !== null && n > restoredPages) return null
    const played = playedByPage.get(n)
    if (played !== undefined) return this.journalPage(played)
    const limit = this.wal.dbPages > 0 ? this.wal.dbPages : this.filePages
    return n <= limit ? this.mainPage(n) : null
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

  /** Page `n` as it was once frame `idx` of the current generation was written. */
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
    return (n) => {
      const list = this.byPage!.get(n)
      let best = -1
      if (list) for (const i of list) if (i <= idx) best = i
      return best >= 0 ? this.framePage(best) : this.mainPage(n)
    }
  }
}
