// The schema's rows sized before SQLite loads them. Whatever the first query, SQLite reads every row
// of sqlite_master whole when it loads the schema (prepare.c sqlite3InitOne, sqlite3InitCallback), up
// to SQLITE_MAX_LENGTH (1 GB) a value. Every overflow page belongs to one cell (file format §1.6),
// so the schema's rows together fit in the file; a row claiming more can only be read by following
// an overflow chain that comes back on itself, which SQLite does as given: a 430 KB copy had SQLite
// allocate and read 491 MB for 5 s while opening it, before any bound of ours (./value-budget.ts
// bounds the chain's own values) could run. Here only the cells' payload sizes are read (the
// first varint of each cell, §1.6), from the leaves of the tree rooted at page 1.
import { readAt } from '../evidence-files'
import { DB_HEADER_BYTES, headerPageSize } from '../sqlite/header'
import { headerOffset, PAGE_LEAF_TABLE } from '../sqlite/page'
import { readVarint, varint } from '../sqlite/varint'
import { collectLeavesHere } from './btree'
import { Pager, pagerSpec } from './pager'
import { NO_WAL } from './wal'

/**
 * The bytes the schema's rows of the database file open at `fd` (`fileBytes` long, `path` for
 * messages; no -wal beside it: a private copy SQLite has already recovered) claim together, and
 * the file's size, when they claim more than the file holds; else null — also for any tree this
 * walk does not follow, which is left to SQLite.
 */
export function schemaOversize(
  fd: number,
  fileBytes: number,
  path: string,
): { claimed: number; fileBytes: number } | null {
  const header = Buffer.alloc(DB_HEADER_BYTES)
  if (readAt(fd, header, 0, DB_HEADER_BYTES, 0) < DB_HEADER_BYTES) return null
  const pageSize = headerPageSize(header)
  if (pageSize === 0) return null
  const pages = Math.floor(fileBytes / pageSize)
  const spec = pagerSpec(
    { dbPath: path, walPath: `${path}-wal`, dbFd: fd, walFd: -1 },
    pageSize,
    pages,
    NO_WAL,
  )
  const pager = new Pager(spec)
  let claimed = 0
  try {
    for (const n of collectLeavesHere(pager, 1).pages) {
      const page = pager.pageCopy(n)
      const h = headerOffset(n)
      if (page[h] !== PAGE_LEAF_TABLE) return null
      const count = page.readUInt16BE(h + 3)
      for (let i = 0; i < count && h + 8 + 2 * i + 2 <= page.length; i++) {
        const at = page.readUInt16BE(h + 8 + 2 * i)
        if (at >= page.length) continue
        readVarint(page, at)
        claimed += varint.big !== null ? Number.MAX_SAFE_INTEGER : varint.value
      }
    }
  } catch {
    // A tree the walk does not follow (a page out of range, a cycle): SQLite says what it is.
    return null
  } finally {
    pager.close()
  }
  return claimed > fileBytes ? { claimed, fileBytes } : null
}
