// A `-wal` whose page size differs from its database's (file format §1.3.2 offset 16, §4.1 offset
// 8). No writer leaves one: the page size cannot change in WAL mode. SQLite opens the file at its
// header's size and reads each WAL frame at the WAL's (wal.c sqlite3WalReadFrame copies min(both)
// bytes into the page buffer, the rest of the buffer keeping whatever it held before; btree.c
// lockBtree starts again at page 1's size when it differs). Frames shorter than the page leave
// SQLite reading cells out of stale or zeroed buffer bytes — rows of rowid 0 and NULL columns that a
// verdict would call tampered bodies. The direct reader declines such a folder (./direct/wal.ts);
// the copy path refuses it with one line instead of reading it through SQLite.
import { AuditError } from '../base/errors'
import { readAt, type OpenedFile } from './evidence-files'
import { DB_HEADER_BYTES, headerPageSize } from './sqlite/header'
import { walHeader, WAL_HEADER_BYTES, WAL_VERSION } from './sqlite/wal'
import { indexWal } from './direct/wal'

/**
 * Throws `corrupt` when the WAL `wal` holds a committed frame (by SQLite's recovery rules) of fewer
 * bytes than the page size SQLite reads the database at: page 1's (its newest committed WAL image,
 * else the file's; lockBtree starts again at it). A WAL of larger pages is read by SQLite from each
 * frame's first bytes, the same whatever its buffers held: left to it, as is a WAL without a commit
 * (SQLite reads the file alone). Reads two headers, and the WAL's frames only when the sizes differ.
 */
export function refuseWalOfOtherPageSize(db: OpenedFile, wal: OpenedFile | null): void {
  if (wal === null || wal.stat.size <= WAL_HEADER_BYTES) return
  const head = Buffer.alloc(DB_HEADER_BYTES)
  const walHead = Buffer.alloc(WAL_HEADER_BYTES)
  if (readAt(db.fd, head, 0, DB_HEADER_BYTES, 0) < DB_HEADER_BYTES) return
  if (readAt(wal.fd, walHead, 0, WAL_HEADER_BYTES, 0) < WAL_HEADER_BYTES) return
  const hdr = walHeader(walHead, 'tolerant')
  // A header SQLite ignores (its frames are not read) or refuses (another version): left to it.
  if (!hdr.valid || hdr.version !== WAL_VERSION || hdr.pageSize === headerPageSize(head)) return
  const index = indexWal(wal.fd, wal.stat.size, hdr.pageSize)
  if (index.frames === 0) return
  const one = index.pages.get(1)
  if (one !== undefined && readAt(wal.fd, head, 0, DB_HEADER_BYTES, one) < DB_HEADER_BYTES) return
  const pageSize = headerPageSize(head)
  if (pageSize === 0 || hdr.pageSize >= pageSize) return
  throw new AuditError(
    'corrupt',
    `${wal.name} holds committed pages of ${hdr.pageSize} bytes but the database is read in pages of ${pageSize} bytes: SQLite would fill the rest of each page from whatever its buffers held, so what the chain holds cannot be settled here`,
  )
}
