// The words for a recovered row's status and for where it was found, one text for the CLI and the
// app (issue 35): a row is called what the verdict's finding calls it, and "superseded" names only
// a row status, never a place in the files.
import type { RecoveredRow, RecoverySource } from './recovery-types'
import type { Finding } from './verify-types'

/**
 * The word for a recovered row's status. A `deleted` row past the live head is what a `truncated`
 * finding names (findings.ts merges such rows into one), so where a `truncated` finding covers its
 * seq the row is called `truncated`, not `deleted`: one word for the same rows in the findings and
 * in the recovered list. The JSON keeps the status `deleted` (the recovery fixtures' contract).
 */
export function recoveredStatusWord(
  row: Pick<RecoveredRow, 'status' | 'seq'>,
  findings: readonly Pick<Finding, 'kind' | 'from_seq' | 'to_seq'>[],
): RecoveredRow['status'] | 'truncated' {
  if (row.status !== 'deleted' || row.seq === null) return row.status
  const seq = row.seq
  return findings.some((f) => f.kind === 'truncated' && seq >= f.from_seq && seq <= f.to_seq)
    ? 'truncated'
    : 'deleted'
}

/** What a truncated row's word means, for a tooltip or a note. */
export const TRUNCATED_MEANING = 'deleted from the tail (after the live chain head)'

/**
 * The words for a kind of place records are read from. `superseded_page` (a database page that a
 * committed WAL frame replaces, or one past the database's end) is an "older page image": the word
 * "superseded" is kept for the row status alone.
 */
export const SOURCE_KIND_WORDS: Record<RecoverySource['kind'], string> = {
  wal_frame: 'WAL frame',
  superseded_page: 'older page image',
  freelist: 'freelist page',
  freeblock: 'freeblock',
  unallocated: 'unallocated space',
  journal_page: 'journal image',
}

/**
 * What a run of unplaced rows may be (issue 39), by whether a given key proves them. A proven row's
 * links are sealed, and none joins it to this chain; an unproven row has no sealed link at all (no
 * given key reproduces its HMAC), so it may well be of this chain — under a key not given, a wrong
 * one or a missing rotated one — and nothing about it may be said beyond that.
 */
export function unplacedMeaning(proven: boolean): string {
  return proven
    ? 'not linked to this chain by any sealed link (rows of another chain sealed under the same key, of one cleared from this file, or of this chain past a row that is lost: the keys cannot tell)'
    : 'not placed: no given key reproduces their HMAC, so none of their links is sealed (rows of this chain under a key not given, a wrong or a missing rotated key, rows of another chain, or forged rows: nothing tells which)'
}

/**
 * Where a recovered row's seq comes from (issue 39): its sealed links, always (a placed row's seq is
 * never read off its rowid, src/main/recovery/place.ts). The rowid beside it is unsealed and proves
 * nothing: `seq_origin` "rowid" says only that a copy's rowid is the same number, `rowid` that a copy's
 * is another — both at once where the copies disagree (a table rebuilt with seq as a column of its own
 * numbers its rows with rowids of its own, so the rows written after it carry other numbers).
 */
export function seqFromWords(r: Pick<RecoveredRow, 'seq' | 'seq_origin' | 'rowid'>): string {
  if (r.seq === null) return 'unplaced: no sealed link joins it to this chain'
  const same = r.seq_origin === 'rowid'
  if (r.rowid === undefined)
    return same
      ? 'its sealed links (its rowid is the same number: unsealed, no proof)'
      : 'its sealed links (no rowid survived with it)'
  const rowids = same ? `its rowids are the same number and ${r.rowid}` : `its rowid is ${r.rowid}`
  return `its sealed links (${rowids}: unsealed, no proof; a rebuilt table's rowids are its own)`
}

/** The same, short, for a text line: `by links`, and a rowid that is another number. */
export function seqFromShort(r: Pick<RecoveredRow, 'seq' | 'seq_origin' | 'rowid'>): string {
  if (r.seq === null) return ''
  return r.rowid !== undefined ? `by links; rowid ${r.rowid}, unsealed` : 'by links'
}
