// Searching a chain file the direct reader declines (a hot rollback journal, above all: SQLite rolls
// it back before reading, so the verdict is read through SQLite on the verified private copy). The
// search must not be switched off by it (issue 39): the evidence's own bytes are searched as they
// are — the database file, its -wal, and the journal's page images (./journal-pages.ts) — and the
// live chain they are compared with is the one SQLite reads, after the rollback: the private copy,
// opened by the direct reader. The record layout is the copy's table's; the evidence's header gives
// the page size its bytes are read at.
import { AuditError, oneLine } from '../base/errors'
import { openDirect, type DirectChain } from '../chain/direct/open'
import { readAt, type EvidenceFiles as ChainFiles } from '../chain/evidence-files'
import { Unsupported } from '../chain/sqlite/decline'
import { DB_HEADER_BYTES, headerPageSize } from '../chain/sqlite/header'
import type { SearchTarget } from './recover'

/** The copy, opened by the direct reader; or why it cannot be. */
export function openCopyDirect(copyPath: string): DirectChain | string {
  try {
    return openDirect(copyPath)
  } catch (e) {
    if (e instanceof AuditError) throw e
    return e instanceof Unsupported ? `the file reader does not read this file (${e.message})` : oneLine(e)
  }
}

/**
 * What to search in the evidence `files` when the direct reader declined them (`why`), the live rows
 * read from `copy`; or why the evidence's bytes cannot be read as pages.
 */
export function declinedTarget(files: ChainFiles, copy: DirectChain, why: string): SearchTarget | string {
  const header = Buffer.alloc(DB_HEADER_BYTES)
  if (readAt(files.db.fd, header, 0, DB_HEADER_BYTES, 0) < DB_HEADER_BYTES)
    return `the file reader does not read this file (${why}), and its header is short`
  const pageSize = headerPageSize(header)
  if (pageSize === 0)
    return `the file reader does not read this file (${why}), and its page size is not one SQLite takes`
  const reserved = header[20]!
  if (reserved >= pageSize - 480)
    return `the file reader does not read this file (${why}), and its reserved bytes leave no room`
  // The size SQLite reads the database at after its rollback: the copy's, where the pages are the
  // same size; else the evidence's bytes are all there is.
  const dbPages =
    pageSize === copy.spec.pageSize ? copy.spec.dbPages : Math.floor(files.db.stat.size / pageSize)
  return {
    files,
    pageSize,
    reserved,
    dbPages,
    columns: copy.columns,
    ncols: copy.ncols,
    seqColumn: copy.seqColumn,
    declined: why,
  }
}
