// Rows recovered from what the SQLite files still remember (deleted cells, old page versions, WAL
// frames), with what can be proven about each. Shapes of `verify --json`'s `recovered`, of
// `bijotel recover --json` and of the report's recovery block.

/** Which file the bytes were read from: the database file, its `-wal` or its rollback `-journal`. */
export type RecoveryFile = 'db' | 'wal' | 'journal'

/**
 * Where in the files a record was found:
 * - `wal_frame`: a WAL frame that is not the newest committed image of its page (an older version,
 *   a frame after the last commit, or a frame of an earlier checkpoint generation);
 * - `superseded_page`: a page of the database file that committed WAL frames supersede (or that
 *   lies beyond the database's current end), not free in the file's own view;
 * - `freelist`: a freelist trunk or leaf page (file-format §1.5) — of the database as SQLite reads it
 *   now, or, for a page of the database file that WAL frames supersede, of the file's own freelist;
 * - `freeblock`: a freeblock of a b-tree page in use (§1.6);
 * - `unallocated`: the gap between a b-tree page's cell pointer array and its cell content area;
 * - `journal_page`: a page image of the rollback journal (file-format §4.1): an earlier version of
 *   its page, or, in a hot journal, the image SQLite's rollback writes back.
 */
export type RecoverySourceKind =
  'wal_frame' | 'superseded_page' | 'freelist' | 'freeblock' | 'unallocated' | 'journal_page'

export interface RecoverySource {
  file: RecoveryFile
  kind: RecoverySourceKind
  /** Page number (1-based, as SQLite numbers pages). */
  page: number
  /**
   * Byte offset in that file where the record (its header) starts; for a row of which only its three
   * hashes survived (src/main/recovery/orphan-hashes.ts), where its canonical_hash starts.
   */
  offset: number
  /** WAL frames only: the frame's number, 1-based in file order, as SQLite numbers frames. */
  frame?: number
  /** WAL frames only: the frame's salt-1 and salt-2, as hex `xxxxxxxx-xxxxxxxx`. */
  salt?: string
  /**
   * WAL frames only: the checkpoint generation the salt places the frame in, 0 for the WAL header's
   * (each checkpoint that restarts the WAL adds one to salt-1), -1 for the one before, and so on.
   */
  generation?: number
  /**
   * WAL frames: whether the frame belongs to a committed transaction (null when unknowable). Database
   * pages: `false` when a hot journal's rollback replaces the page (or truncates it away), or when it
   * lies past the end a rollback-journal file's header records: it holds a version never committed.
   */
  committed?: boolean | null
}

/** How a recovered row's seq was found. */
export type SeqOrigin = 'rowid' | 'chain'

/** What a recovered row's prev_hash links to. */
export interface RecoveredLink {
  to: 'genesis' | 'live' | 'recovered' | 'none'
  /** The seq of the row it links to (null for genesis and none). */
  seq: number | null
}

/** Where a live row is now (the page image SQLite reads for it). */
export interface LivePlace {
  page: number
  /** The WAL frame of the page's current image (1-based), or null when it is the database file's page. */
  frame: number | null
  /** That frame's salt-1 and salt-2 as hex `xxxxxxxx-xxxxxxxx` (null for the database file's page). */
  salt: string | null
}

/**
 * What a recovered row is, as far as its sealed links prove (issue 39):
 * - `deleted`: placed by links at a seq the live chain no longer has (after its first row);
 * - `superseded`: placed by links at a seq the live chain still has, with other content;
 * - `before_live`: placed by links before the live chain's first row — what archiving leaves behind
 *   as much as a deletion does (no finding; the archive segments tell which);
 * - `archived`: found in an archive segment given with `--segment` (never a finding);
 * - `unplaced`: no sealed link joins it to this chain (a key proves who sealed it, not which chain it
 *   was of): never a finding.
 */
export type RecoveredStatus = 'deleted' | 'superseded' | 'before_live' | 'archived' | 'unplaced'

/** One distinct recovered version of a row and what its links place it as. */
export interface RecoveredRow {
  /** null when no sealed link joins the row to this chain (status `unplaced`). */
  seq: number | null
  /** Only when the seq is beyond ±2^53 (`seq` is then the nearest double): its exact decimal text. */
  seq_exact?: string
  seq_origin: SeqOrigin | null
  canonical_hash: string
  prev_hash: string
  hmac_hash: string
  status: RecoveredStatus
  /**
   * Only when the record carried a rowid other than the seq its links give it (or, for an `unplaced`
   * row, any rowid): that rowid. A rowid is unsealed and proves nothing; the links decide.
   */
  rowid?: number
  /**
   * Only for `unplaced` rows: the run of unplaced rows joined to each other by their links (1, 2, …
   * in order of first appearance), so a foreign chain is described as one run.
   */
  run?: number
  /**
   * Only for `superseded` rows: the sealed fields (and `body`) in which it differs from the live row
   * at its seq.
   */
  changed?: ('canonical_hash' | 'prev_hash' | 'hmac_hash' | 'body')[]
  /**
   * Only for `superseded` rows: true when a candidate key reproduces this row's HMAC and none
   * reproduces the live row's — this row is the original and the live one was edited without the key.
   */
  original?: boolean
  /** sha256(body) = canonical_hash; null when the body bytes did not survive. */
  body_ok: boolean | null
  /** The candidate key that reproduces hmac_hash; null when none does (or no key was given). */
  key_index: number | null
  links_to: RecoveredLink
  /** The unsealed timestamp_ns column, as decimal text, when it survived. */
  timestamp_ns: string | null
  /** Every place this version was found (deduplicated copies). */
  sources: RecoverySource[]
  /** The first of `sources` (what the brief's `source` names). */
  source: RecoverySource
  /**
   * Only for `superseded` rows: the older page versions that hold the live version of its seq (copies
   * of the live row, not listed as rows), in file order — with `sources`, the row's page history: which
   * page image or WAL frame still held this version and which one already held the live one.
   */
  live_sources?: RecoverySource[]
  /**
   * Only for `superseded` rows: where the live version of its seq is now — its table leaf page and,
   * when SQLite reads that page from the `-wal`, the committed frame that holds its current image.
   */
  live_at?: LivePlace
  /** The recovered body, base64, when its bytes survived. */
  body_b64?: string
}

/** The summary a verdict (or `bijotel recover`) carries about the search. */
export interface RecoverySummary {
  /** false when the files were not searched (turned off, or a file shape the carver does not read). */
  searched: boolean
  /** One line: what was searched and what it means (unproven rows, nothing found, why not searched). */
  note: string
  /** Distinct rows reported (deleted or superseded). */
  recovered: number
  /** Of those, reproduced by a candidate key. */
  proven: number
  /** Records found that are copies of live rows (old page versions): not reported. */
  copies_of_live: number
  /** Records not known to have been committed (the `uncommitted` list's length): never findings. */
  uncommitted_only: number
  /** Of the rows reported, how many no sealed link joins to this chain (status `unplaced`). */
  unplaced?: number
  /** Of those, how many runs they form (rows of one run link to each other). */
  unplaced_runs?: number
  /** Of the rows reported, how many stood before the live chain's first row (status `before_live`). */
  before_live?: number
  /** Of the rows reported, how many were found in the archive segments given (status `archived`). */
  archived?: number
  /** What was read: page versions, WAL frames, freelist pages. */
  scanned: {
    db_pages: number
    wal_frames: number
    freelist_pages: number
    carved_regions: number
    /** Page images of the rollback journal read (absent when there is none). */
    journal_pages?: number
  }
  /**
   * Only when the direct reader declined the file (a hot journal, say): the search read the
   * evidence's bytes as they are, and the live rows SQLite reads (after its rollback) from the
   * verified private copy. Why the reader declined.
   */
  declined?: string
}

/** `bijotel recover --json` and the app's recover call. */
export interface RecoveryResult {
  summary: RecoverySummary
  rows: RecoveredRow[]
  /**
   * Rows not known to have been committed (listed by `recover`, never findings): seen only where a
   * transaction in flight or rolled back leaves rows (docs/recovery.md lists the places); where a cut
   * tail or a reseal could leave them too, a notice says so.
   */
  uncommitted: RecoveredRow[]
}
