// Searching a chain file the direct reader declines (a hot rollback journal, above all: SQLite rolls
// it back before reading, so the verdict is read through SQLite on the verified private copy). The
// search must not be switched off by it (issue 39): the evidence's own bytes are searched as they
// are — the database file, its -wal, and the journal's page images (./journal-pages.ts) — and the
// live chain they are compared with is the one SQLite reads, after the rollback: the private copy,
// opened by the direct reader. The record layout is the copy's table's; the evidence's header gives
// the page size its bytes are read at.
import { closeSync, fstatSync, openSync } from 'node:fs'
import { AuditError, oneLine } from '../base/errors'
import { plainView } from '../chain/plain-view'
import { openDirect, type DirectChain } from '../chain/direct/open'
import { readAt, type EvidenceFiles as ChainFiles } from '../chain/evidence-files'
import { Unsupported } from '../chain/sqlite/decline'
import { DB_HEADER_BYTES, headerPageSize } from '../chain/sqlite/header'
import type { SearchTarget } from './recover'

/** The copy the live rows are read from, opened by the direct reader. */
export interface CopyView {
  chain: DirectChain
  /**
   * The copy's own pages when they are not numbered as the evidence's (a plain view): the database's
   * size in pages then comes from the copy, and no live row is placed on a page of the evidence.
   */
  plain: { dbPages: number; pageSize: number; seqStored: boolean } | null
  release(): void
}

function openCopyChain(path: string): DirectChain | Unsupported {
  try {
    return openDirect(path)
  } catch (e) {
    if (e instanceof AuditError) throw e
    if (e instanceof Unsupported) return e
    throw e
  }
}

/**
 * The copy's page size and its size in pages as SQLite reads it (file-format §1.3: the in-header size
 * when valid), or null when its header is not one SQLite takes.
 */
function copyPages(copyPath: string): { dbPages: number; pageSize: number } | null {
  const fd = openSync(copyPath, 'r')
  try {
    const header = Buffer.alloc(DB_HEADER_BYTES)
    if (readAt(fd, header, 0, DB_HEADER_BYTES, 0) < DB_HEADER_BYTES) return null
    const pageSize = headerPageSize(header)
    if (pageSize === 0) return null
    const filePages = Math.floor(fstatSync(fd).size / pageSize)
    const n = header.readUInt32BE(28)
    const valid = n !== 0 && header.readUInt32BE(24) === header.readUInt32BE(92) && n <= filePages
    return { dbPages: valid ? n : filePages, pageSize }
  } finally {
    closeSync(fd)
  }
}

/**
 * A column added with a DEFAULT (ALTER TABLE … ADD COLUMN … DEFAULT): the records written before it
 * are short, and SQLite reads the default where they end (file-format §2.1, a record may hold fewer
 * values than the table has columns); the direct reader opens such a table but declines its short
 * records, so the live rows are read from a plain view, whose rows hold the values SQLite read.
 */
export const DEFAULTED = 'a column with a DEFAULT'

/**
 * Declines a plain view answers: auto-vacuum (the pointer map), and a schema the reader does not
 * replay that SQLite opens all the same — statements after a CREATE TABLE (prepare.c
 * sqlite3InitCallback parses the first only), the word SELECT or VALUES in a comment or a name, a
 * view or a trigger beside the chain (their root page is 0) — since the view's table is made from the
 * columns SQLite read, not from that text, and SQLite's reading of the chain table is what the record
 * layout is. An operator's view must not switch the search off, nor an insider's edit of the text;
 * nor a table rebuilt so that seq is no longer the rowid (the view makes it the rowid again, and the
 * records are matched with seq's value or NULL in its place, ./layout.ts); nor a column added with a
 * DEFAULT (DEFAULTED) or of REAL affinity, nor a table rebuilt WITHOUT ROWID (its records hold
 * seq's value, in index b-tree cells: file-format §1.6), an operator's migration as much as an
 * insider's. Nor a reserved-bytes value (§1.3.4, offset 20) raised after the rows were written: the
 * reader declines a local payload that runs past the usable size, SQLite reads it to the end of its
 * page (btree.c fetchPayload), and a raised byte must not hide a cut tail from the search.
 */
const VIEWABLE =
  /^(auto-vacuum|seq is not the rowid|a WITHOUT ROWID table|a column with a DEFAULT|column .* reads as REAL|a schema statement with a query|schema not replayable: .*more than one statement.*|a schema row with an unusual root page|a (view|trigger) in the schema|cell runs past the usable page)$/

/**
 * The copy, opened by the direct reader; or why it cannot be. A copy the reader declines for
 * auto-vacuum (its pointer map) or its schema's text (VIEWABLE) is read through a plain view of it
 * (../chain/plain-view.ts): its rows and columns are the copy's, its page numbers are not.
 */
export function openCopyDirect(copyPath: string, evidence: { dev: number; ino: number }): CopyView | string {
  let why: string
  try {
    const chain = openCopyChain(copyPath)
    if (chain instanceof Unsupported) why = chain.message
    else if (chain.spec.minFields > 0) {
      chain.close()
      why = DEFAULTED
    } else return { chain, plain: null, release: () => chain.close() }
  } catch (e) {
    if (e instanceof AuditError) throw e
    return oneLine(e)
  }
  const declined = `the file reader does not read this file (${why})`
  if (!VIEWABLE.test(why)) return declined
  const pages = copyPages(copyPath)
  if (pages === null) return `${declined}, and its copy's header is not one SQLite takes`
  const view = plainView(copyPath, evidence)
  if (typeof view === 'string') return `${declined}, and ${view}`
  try {
    const chain = openCopyChain(view.path)
    if (chain instanceof Unsupported) {
      view.release()
      return `${declined}, nor its copy rebuilt without it (${chain.message})`
    }
    return {
      chain,
      plain: { ...pages, seqStored: view.seqStored },
      release: () => {
        chain.close()
        view.release()
      },
    }
  } catch (e) {
    view.release()
    if (e instanceof AuditError) throw e
    return `${declined}, nor its copy rebuilt without it (${oneLine(e)})`
  }
}

/**
 * What to search in the evidence `files` when the direct reader declined them (`why`), the live rows
 * read from `copy`; or why the evidence's bytes cannot be read as pages.
 */
export function declinedTarget(files: ChainFiles, view: CopyView, why: string): SearchTarget | string {
  const copy = view.chain
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
  // same size (a plain view's pages are not the copy's: the copy's own header says); else the
  // evidence's bytes are all there is.
  const sized = view.plain ?? copy.spec
  const dbPages = pageSize === sized.pageSize ? sized.dbPages : Math.floor(files.db.stat.size / pageSize)
  return {
    files,
    pageSize,
    reserved,
    dbPages,
    columns: copy.columns,
    ncols: copy.ncols,
    seqColumn: copy.seqColumn,
    ...(view.plain?.seqStored ? { seqStored: true } : {}),
    declined: why,
  }
}
