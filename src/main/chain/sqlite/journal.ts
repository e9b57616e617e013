// The rollback journal (https://www.sqlite.org/fileformat2.html §4.1 "The Rollback Journal"; pager.c
// readJournalHdr, pager_playback, pager_playback_one_page, pager_cksum): one or more segments, each
// a header padded to a sector (magic d9d505f920a163d7, page count nRec, checksum nonce, the
// database's size in pages before the transaction, sector size, page size), then nRec page records
// (page number, the page's original image, a checksum). The images are earlier versions of pages.
// Only recovery reads journals, so they are decoded tolerantly: anything malformed ends the walk
// there, and the question "which records would SQLite play back" is answered as pager.c answers it.

export const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])

/** Bytes of the header fields (§4.1: magic, nRec, nonce, initial size, sector size, page size). */
export const JOURNAL_HEADER_FIELDS = 28

/** pager.c MAX_SECTOR_SIZE; sector sizes below 32 are taken as 512 (sqlite3SectorSize). */
const MAX_SECTOR = 0x10000

const be32 = (b: Uint8Array, o: number): number =>
  ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0

export interface JournalHeader {
  /** The magic number is there (else SQLite plays nothing from here on). */
  magic: boolean
  nRec: number
  nonce: number
  /** The database's size in pages when the transaction began (pager.c mxPg). */
  initialPages: number
  sectorSize: number
  /** 0 when the field is not a page size SQLite accepts. */
  pageSize: number
}

const validSize = (n: number, min: number, max: number): boolean =>
  n >= min && n <= max && (n & (n - 1)) === 0

/** The fields of a segment header (`buf` holds at least JOURNAL_HEADER_FIELDS bytes). */
export function journalHeader(buf: Uint8Array): JournalHeader {
  const sector = be32(buf, 20)
  const page = be32(buf, 24)
  return {
    magic: JOURNAL_MAGIC.every((b, i) => buf[i] === b),
    nRec: be32(buf, 8),
    nonce: be32(buf, 12),
    initialPages: be32(buf, 16),
    sectorSize: validSize(sector, 32, MAX_SECTOR) ? sector : 0,
    pageSize: validSize(page, 512, 65536) ? page : 0,
  }
}

/** pager_cksum: the nonce plus every 200th byte of the image, from pageSize − 200 down (mod 2^32). */
export function journalChecksum(image: Uint8Array, pageSize: number, nonce: number): number {
  let sum = nonce
  for (let i = pageSize - 200; i > 0; i -= 200) sum = (sum + image[i]!) >>> 0
  return sum
}

export interface JournalRecord {
  /** Byte offset of the page image in the journal (its 4-byte page number lies just before). */
  offset: number
  page: number
  /** SQLite's rollback of this journal, were it hot, writes this image back to the database. */
  played: boolean
}

export interface JournalLayout {
  records: JournalRecord[]
  /** The first header's initial database size (null when the first header is not a journal's). */
  initialPages: number | null
}

/**
 * Every page record of a journal of `size` bytes read through `read(buf, at)` (bytes read), at
 * `pageSize`. Records are listed segment by segment; within the first run of valid segments they are
 * marked `played` as pager_playback would play them: a page number of 0 or the lock-byte page, or a
 * checksum that fails, ends the playback; a page past the initial size is skipped. Past what SQLite
 * plays (a zeroed header, nRec reached in the last segment, the rest of a longer journal kept by
 * journal_mode=PERSIST), records are still listed at the same stride: they are older images.
 */
export function journalRecords(
  size: number,
  pageSize: number,
  lockPage: number,
  read: (buf: Buffer, at: number) => number,
): JournalLayout {
  const records: JournalRecord[] = []
  const hdr = Buffer.alloc(JOURNAL_HEADER_FIELDS)
  if (size < JOURNAL_HEADER_FIELDS || read(hdr, 0) < JOURNAL_HEADER_FIELDS)
    return { records, initialPages: null }
  const first = journalHeader(hdr)
  // The sector size of the first header sets every segment's padding; a zeroed header (PERSIST after
  // a commit) leaves it unknown: 512, what SQLite uses on a powersafe-overwrite file system.
  const sector = first.sectorSize || 512
  // A journal of another page size is not played at this database's (pager.c would change the page
  // size first): its images are still listed, at the database's page size, none played.
  const samePage = first.pageSize === 0 || first.pageSize === pageSize
  const recordBytes = pageSize + 8
  const word = Buffer.alloc(4)
  const image = Buffer.alloc(pageSize)
  let playing = first.magic && samePage
  const initialPages = first.magic ? first.initialPages : null
  /** Records from `at` on, `count` at most; false when the file ended first. */
  const walk = (from: number, count: number, nonce: number): number => {
    let at = from
    for (let n = 0; n < count && at + recordBytes <= size; n++, at += recordBytes) {
      if (read(word, at) < 4 || read(image, at + 4) < pageSize) return -1
      const page = be32(word, 0)
      let played = false
      if (playing) {
        if (page === 0 || page === lockPage) playing = false
        else if (page <= first.initialPages) {
          if (read(word, at + 4 + pageSize) < 4) return -1
          if (journalChecksum(image, pageSize, nonce) === be32(word, 0)) played = true
          else playing = false
        }
      }
      if (page !== 0) records.push({ offset: at + 4, page, played })
    }
    return at
  }
  let at = 0
  let end = sector
  for (;;) {
    if (at + JOURNAL_HEADER_FIELDS > size || read(hdr, at) < JOURNAL_HEADER_FIELDS) break
    const h = journalHeader(hdr)
    if (!h.magic) {
      // No segment here (a zeroed header, or past the last one): what follows the last segment's
      // records at the same stride is left over from earlier transactions, never played.
      playing = false
      walk(at === 0 ? sector : end, Infinity, 0)
      break
    }
    const nRec = h.nRec === 0xffffffff ? Math.floor((size - at - sector) / recordBytes) : h.nRec
    const stop = walk(at + sector, nRec, h.nonce)
    if (stop < 0 || stop + recordBytes > size) break
    end = stop
    // The next segment's header starts at the next sector boundary (pager.c journalHdrOffset).
    at = Math.max(at + sector, Math.ceil(stop / sector) * sector)
    if (at + JOURNAL_HEADER_FIELDS > size) {
      playing = false
      walk(end, Infinity, 0)
      break
    }
  }
  return { records, initialPages }
}
