// The rollback journal's page images as recovery reads them (format: ../chain/sqlite/journal.ts,
// file-format §4.1): each image is an earlier version of its page. When the journal is hot (pager.c
// hasHotJournal: not empty, its first byte not 0), SQLite rolls it back before reading anything:
// the images it plays back are the pages SQLite reads, the database file's own versions of those
// pages (where they differ) and every page past the size the journal restores belong to the
// transaction rolled back — never committed.
import { journalRecords, type JournalRecord } from '../chain/sqlite/journal'
import { lockPage } from '../chain/sqlite/header'
import type { Pager } from '../chain/direct/pager'

export interface JournalPages {
  records: JournalRecord[]
  /** The journal is hot: SQLite plays it back before reading the database. */
  hot: boolean
  /** Hot only: page → index of the record whose image SQLite reads for it after the rollback. */
  playedByPage: Map<number, number>
  /** Hot only: the database's size in pages after the rollback (pages past it are truncated). */
  restoredPages: number | null
}

export const NO_JOURNAL: JournalPages = {
  records: [],
  hot: false,
  playedByPage: new Map(),
  restoredPages: null,
}

/**
 * The records of the journal of `journalSize` bytes, read through `pager` (its journal descriptor;
 * the database's page size), and what a rollback of it would restore.
 */
export function listJournalPages(pager: Pager, journalSize: number): JournalPages {
  const pageSize = pager.pageSize
  if (journalSize === 0) return NO_JOURNAL
  const read = (buf: Buffer, at: number): number => pager.journalBytes(at, buf)
  const first = Buffer.alloc(1)
  const hot = read(first, 0) === 1 && first[0] !== 0
  const layout = journalRecords(journalSize, pageSize, lockPage(pageSize), read)
  const playedByPage = new Map<number, number>()
  // Played back in file order: a page named twice ends with its last image.
  if (hot) layout.records.forEach((r, i) => r.played && playedByPage.set(r.page, i))
  return {
    records: layout.records,
    hot,
    playedByPage,
    restoredPages: hot ? layout.initialPages : null,
  }
}
