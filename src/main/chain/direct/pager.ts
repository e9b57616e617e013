// Pages of a database file as SQLite would see them: the newest committed WAL image of a page if
// there is one, else the page in the main file. Pages are read through the descriptors the open
// step made (../evidence-files.ts), read-only, never by name: a worker thread is given the same
// descriptor numbers (threads share them) and the owner keeps them open until the pass ends.
// The one page access of the engine: the reader's rows and recovery's page versions (the file's own
// page under a WAL image, every WAL frame, a rollback journal's images: ../../recovery/pages.ts) are
// all read here, where the format module (../sqlite/header.ts, wal.ts, journal.ts) places them.
import { readAt } from '../evidence-files'
import { readBuffer } from '../read-buffer'
import { Unsupported } from '../sqlite/decline'
import { lockPage, pageOffset } from '../sqlite/header'
import type { WalIndex } from './wal'

/** Read-ahead window: its size barely matters; 128 KB keeps it in cache for the hashing that follows. */
const WINDOW_BYTES = 128 * 1024

export interface PagerSpec {
  /** For messages only: files are read through the descriptors. */
  dbPath: string
  walPath: string
  /** Read-only descriptors of the file and of its WAL (-1 without one), owned by the open step. */
  dbFd: number
  walFd: number
  /** The rollback journal's descriptor, for recovery's older page images (-1 or absent: none). */
  journalFd?: number
  pageSize: number
  /**
   * Pages of the b-tree layer (btree.c `btreePagecount`): the page count of page 1 as SQLite sees
   * it, or the pager's count where that field is not valid; a page beyond it is corrupt to SQLite.
   */
  dbPages: number
  /** Root page of the table the rows are read from (0 until the schema is read). */
  root: number
  /** Records of that table with fewer fields than this are declined (see ColumnLayout.minFields). */
  minFields: number
  /** From the WAL index: page numbers and their offsets, as parallel arrays (cheap to post to a worker). */
  walPagesNo: Int32Array
  walPagesOff: Float64Array
}

export function pagerSpec(
  files: { dbPath: string; walPath: string; dbFd: number; walFd: number; journalFd?: number },
  pageSize: number,
  dbPages: number,
  wal: WalIndex,
): PagerSpec {
  const walPagesNo = new Int32Array(wal.pages.size)
  const walPagesOff = new Float64Array(wal.pages.size)
  let i = 0
  for (const [p, o] of wal.pages) {
    walPagesNo[i] = p
    walPagesOff[i++] = o
  }
  return { ...files, pageSize, dbPages, root: 0, minFields: 0, walPagesNo, walPagesOff }
}

export class Pager {
  readonly pageSize: number
  readonly dbPages: number
  /** Read-only descriptors of the file and (-1 without one) its WAL: the open step's, not closed here. */
  readonly fd: number
  readonly walFd: number
  private readonly wal = new Map<number, number>()
  private readonly window: Buffer
  private readonly windowPages: number
  private winFirst = 0
  private winCount = 0
  private readonly walPage: Buffer
  private behind: Buffer | null = null
  private behindWal: Buffer | null = null
  private behindWalPage = 0
  private behindFirst = 0
  private behindCount = 0

  constructor(readonly spec: PagerSpec) {
    this.pageSize = spec.pageSize
    this.dbPages = spec.dbPages
    this.fd = spec.dbFd
    for (let i = 0; i < spec.walPagesNo.length; i++) this.wal.set(spec.walPagesNo[i]!, spec.walPagesOff[i]!)
    this.walFd = this.wal.size > 0 ? spec.walFd : -1
    if (this.fd < 0 || (this.wal.size > 0 && this.walFd < 0)) throw new Unsupported('no descriptor to read')
    this.windowPages = Math.max(1, Math.floor(WINDOW_BYTES / spec.pageSize))
    this.window = readBuffer(this.windowPages * spec.pageSize)
    this.walPage = Buffer.allocUnsafe(spec.pageSize)
  }

  private check(n: number): void {
    if (!Number.isInteger(n) || n < 1 || n > this.dbPages) throw new Unsupported(`page ${n} out of range`)
    // The page holding the lock bytes is never part of a database (file format §1.4; pager.c
    // getPageNormal: reading it is SQLITE_CORRUPT).
    if (n === lockPage(this.pageSize)) throw new Unsupported(`page ${n} is the lock-byte page`)
  }

  /**
   * Page `n`, valid only until the next call: pages are served from a read-ahead window, since a
   * table's leaves mostly follow one another in the file.
   */
  page(n: number): Buffer {
    this.check(n)
    const walOff = this.wal.get(n)
    if (walOff !== undefined) {
      if (readAt(this.walFd, this.walPage, 0, this.pageSize, walOff) < this.pageSize)
        throw new Unsupported('short read in the WAL')
      return this.walPage
    }
    if (n < this.winFirst || n >= this.winFirst + this.winCount) {
      const count = Math.min(this.windowPages, this.dbPages - n + 1)
      const got = readAt(this.fd, this.window, 0, count * this.pageSize, pageOffset(n, this.pageSize))
      if (got < this.pageSize) throw new Unsupported(`page ${n} is beyond the end of the file`)
      this.winFirst = n
      this.winCount = Math.floor(got / this.pageSize)
    }
    const at = (n - this.winFirst) * this.pageSize
    return this.window.subarray(at, at + this.pageSize)
  }

  /**
   * The read-ahead window as it holds page `n` (after page(n)): its bytes, first page and page
   * count, for a caller that takes several of its pages in one call (verify's native prover). Null
   * where the window does not hold `n`, or a WAL holds images of some page (each page then goes
   * through page(), which reads the newest image).
   */
  windowOf(n: number): { buf: Buffer; first: number; count: number } | null {
    if (this.wal.size > 0 || n < this.winFirst || n >= this.winFirst + this.winCount) return null
    return { buf: this.window, first: this.winFirst, count: this.winCount }
  }

  /**
   * Page `n` for a backward walk, valid until the next call of this method: served from a
   * read-behind window ending at `n` (the newest leaves mostly precede one another in the file), kept
   * apart from `page()`'s window so the caller may read other pages meanwhile.
   */
  pageBehind(n: number): Buffer {
    this.check(n)
    const walOff = this.wal.get(n)
    if (walOff !== undefined) {
      // The walk asks for a page twice (its type, then its rows): read a WAL frame once.
      this.behindWal ??= Buffer.allocUnsafe(this.pageSize)
      if (this.behindWalPage !== n) this.pageInto(n, this.behindWal)
      this.behindWalPage = n
      return this.behindWal
    }
    if (n < this.behindFirst || n >= this.behindFirst + this.behindCount) {
      this.behind ??= readBuffer(this.windowPages * this.pageSize)
      const first = Math.max(1, n - this.windowPages + 1)
      const count = n - first + 1
      const got = readAt(this.fd, this.behind, 0, count * this.pageSize, pageOffset(first, this.pageSize))
      if (got < count * this.pageSize) throw new Unsupported(`page ${n} is beyond the end of the file`)
      this.behindFirst = first
      this.behindCount = count
    }
    const at = (n - this.behindFirst) * this.pageSize
    return this.behind!.subarray(at, at + this.pageSize)
  }

  /** Page `n` in a buffer of its own (for pages kept while others are read). */
  pageCopy(n: number): Buffer {
    return this.pageInto(n, Buffer.allocUnsafe(this.pageSize))
  }

  /** Page `n` read into `buf` (one page long). */
  pageInto(n: number, buf: Buffer): Buffer {
    this.check(n)
    const walOff = this.wal.get(n)
    const got =
      walOff !== undefined
        ? readAt(this.walFd, buf, 0, this.pageSize, walOff)
        : readAt(this.fd, buf, 0, this.pageSize, pageOffset(n, this.pageSize))
    if (got < this.pageSize) throw new Unsupported(`page ${n} is beyond the end of the file`)
    return buf
  }

  /**
   * Page `n` as SQLite reads it now, read into `buf`; null where the reader would decline it (out of
   * range, the lock-byte page, short): for walks over hostile pointers (recovery's overflow chains).
   */
  tryPage(n: number, buf: Buffer = Buffer.allocUnsafe(this.pageSize)): Buffer | null {
    if (!Number.isInteger(n) || n < 1 || n > this.dbPages || n === lockPage(this.pageSize)) return null
    const walOff = this.wal.get(n)
    const got =
      walOff !== undefined
        ? readAt(this.walFd, buf, 0, this.pageSize, walOff)
        : readAt(this.fd, buf, 0, this.pageSize, pageOffset(n, this.pageSize))
    return got === this.pageSize ? buf : null
  }

  // Older page images (recovery): what the files hold beside the page SQLite reads now. Nothing
  // here checks a range or a commit: a page past the database's end, a frame after the last commit
  // and a journal record are read as they are; a short read answers null (or what was read).

  /** Page `n` of the database file itself, whatever the WAL holds (file format §1: at (n−1)·pageSize). */
  filePage(n: number, buf: Buffer = Buffer.allocUnsafe(this.pageSize)): Buffer | null {
    if (!Number.isInteger(n) || n < 1) return null
    return readAt(this.fd, buf, 0, this.pageSize, pageOffset(n, this.pageSize)) === this.pageSize ? buf : null
  }

  /** Pages from `first` of the database file into `buf` (as many as fit): how many were read whole. */
  fileRun(first: number, buf: Buffer): number {
    const want = Math.floor(buf.length / this.pageSize) * this.pageSize
    return Math.floor(readAt(this.fd, buf, 0, want, pageOffset(first, this.pageSize)) / this.pageSize)
  }

  /** `buf.length` bytes at `offset` of the WAL (its header, a frame, a frame's image): bytes read. */
  walBytes(offset: number, buf: Buffer): number {
    return this.spec.walFd < 0 ? 0 : readAt(this.spec.walFd, buf, 0, buf.length, offset)
  }

  /** `buf.length` bytes at `offset` of the rollback journal (its header, a record's image): bytes read. */
  journalBytes(offset: number, buf: Buffer): number {
    const fd = this.spec.journalFd ?? -1
    return fd < 0 ? 0 : readAt(fd, buf, 0, buf.length, offset)
  }

  /** A page image at `offset` of the WAL or the journal, in a buffer of its own; null when short. */
  imageAt(file: 'wal' | 'journal', offset: number): Buffer | null {
    const buf = Buffer.allocUnsafe(this.pageSize)
    const got = file === 'wal' ? this.walBytes(offset, buf) : this.journalBytes(offset, buf)
    return got === this.pageSize ? buf : null
  }

  /** The descriptors belong to the open step, which closes them when its last holder is done. */
  close(): void {}
}
