// The database file (https://www.sqlite.org/fileformat2.html §1.2 "Pages", §1.3 "The Database
// Header", §1.4 "The Lock-Byte Page"): a whole number of pages numbered from 1, page 1 starting with
// the 100-byte header. Strict reading (pageOneFacts) declines anything SQLite refuses or reads in a
// way the direct reader does not follow; the tolerant fields (freelistHead) are read as stored.
import { Unsupported } from './decline'

/** The header string (§1.3, offset 0). */
export const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

/** Bytes of the database header at the start of page 1. */
export const DB_HEADER_BYTES = 100

const be32 = (b: Uint8Array, o: number): number =>
  ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0

/** Page size of a database header as btree.c reads it, or 0 when SQLite would not accept it. */
export function headerPageSize(h: Uint8Array): number {
  // btree.c lockBtree: (byte 16 << 8) | (byte 17 << 16), so the stored 1 means 65536.
  const size = (h[16]! << 8) | (h[17]! << 16)
  return size >= 512 && size <= 65536 && (size & (size - 1)) === 0 ? size : 0
}

/**
 * The page holding the lock bytes at offset 2^30 (§1.4; PENDING_BYTE, pager.c PAGER_SJ_PGNO): never
 * a database page, reading it is SQLITE_CORRUPT (pager.c getPageNormal). native/src/pages.c
 * lock_page mirrors this.
 */
export const lockPage = (pageSize: number): number => Math.floor(0x40000000 / pageSize) + 1

/** Byte offset of page `n` in the database file (§1.2: pages are numbered from 1). */
export const pageOffset = (n: number, pageSize: number): number => (n - 1) * pageSize

/** The header fields of page 1 that decide how every other page is read. */
export interface PageOneFacts {
  /** Usable bytes of a page: the page size less the reserved bytes (offset 20). */
  usable: number
  reserved: number
  /** Pages of the b-tree layer (btree.c `btreePagecount`). */
  nPage: number
  walMode: boolean
}

/**
 * Strict: page 1 as SQLite checks it when it locks the b-tree (btree.c `lockBtree`, `sqlite3InitOne`
 * in prepare.c; §1.3), read from the copy SQLite uses: the WAL's newest committed image when there
 * is one. `pagerPages` is the pager's page count (the WAL's database size after its last commit,
 * else the file's pages). Anything SQLite refuses, or reads in a way the direct reader does not
 * follow, is Unsupported.
 */
export function pageOneFacts(page1: Uint8Array, pageSize: number, pagerPages: number): PageOneFacts {
  if (!SQLITE_MAGIC.equals(page1.subarray(0, 16))) throw new Unsupported('page 1 has no SQLite header')
  // Read/write versions: above 2 SQLite refuses to write or to read at all; 0 is left to it.
  const write = page1[18]!
  const read = page1[19]!
  if (write < 1 || write > 2 || read < 1 || read > 2) throw new Unsupported('file format version')
  // Payload fractions: fixed at 64, 32, 32 since 3.6.0, else SQLITE_NOTADB.
  if (page1[21] !== 64 || page1[22] !== 32 || page1[23] !== 32) throw new Unsupported('payload fractions')
  // A page size on page 1 other than the one the file was opened with makes SQLite start again
  // with it: left to SQLite.
  if (headerPageSize(page1) !== pageSize) throw new Unsupported('page size of page 1 differs')
  const reserved = page1[20]!
  const usable = pageSize - reserved
  if (usable < 480) throw new Unsupported('usable page size below 480')
  // In-header page count: valid when nonzero and "version-valid-for" equals the change counter;
  // else the pager's count. More pages than the pager has is corruption to SQLite.
  let nPage = be32(page1, 28)
  if (nPage === 0 || be32(page1, 24) !== be32(page1, 92)) nPage = pagerPages
  if (nPage > pagerPages) throw new Unsupported('header page count beyond the file')
  // Auto-vacuum: getOverflowPage (btree.c) may take the next overflow page from the pointer map
  // instead of the page's own link; this reader follows links only.
  if (be32(page1, 52) !== 0 || be32(page1, 64) !== 0) throw new Unsupported('auto-vacuum')
  // Text encoding (meta 4 & 3 in sqlite3InitOne): only UTF-8 is read here.
  if (be32(page1, 56) !== 1) throw new Unsupported('text encoding is not UTF-8')
  // Schema format: above 4 SQLite refuses ("unsupported file format").
  const format = be32(page1, 44)
  if (format < 1 || format > 4) throw new Unsupported('schema format')
  return { usable, reserved, nPage, walMode: read === 2 || write === 2 }
}

/** Tolerant: the freelist's first trunk page (offset 32) and its page count (offset 36), as stored (§1.3). */
export function freelistHead(page1: Uint8Array): { first: number; count: number } {
  return { first: be32(page1, 32), count: be32(page1, 36) }
}
