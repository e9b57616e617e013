// Verdict of a chain verification. Field names and shapes are those of the shared fixtures'
// `NAME.expected.json` (`verify`), so the `--json` output can be compared field for field.
import type { RowsDigest } from './custody-types'
import type { RecoveredRow, RecoverySource, RecoverySummary } from './recovery-types'

export type FindingKind =
  | 'seq_gap'
  | 'body_hash_mismatch'
  | 'link_mismatch'
  | 'hmac_mismatch'
  | 'column_mismatch'
  | 'seq_out_of_range'
  | 'truncated'
  /** A seq whose live row differs from a proven earlier version of it (recovered from the files). */
  | 'rewritten'
  /** Proven rows recovered at seqs absent from the live chain, before its head. */
  | 'deleted'

/** Consecutive rows with the same kind of failure, merged into one range. */
export interface Finding {
  kind: FindingKind
  from_seq: number
  to_seq: number
  count: number
  /**
   * Only for findings against a prior report (`verify --prior REPORT`, issue 25): `rewritten` rows
   * differ from what the report recorded, `deleted` rows it recorded are gone. The range is that of
   * the report's digest blocks that differ (exact when a block is one seq).
   */
  against_prior?: true
  /** Only for `seq_gap` and `truncated`: how many seq numbers are absent. */
  missing?: number
  /** Only for findings made from recovered rows: where in the files they were found. */
  evidence?: RecoverySource[]
  /**
   * Only for a `deleted` finding of proven rows whose seq neither a surviving rowid nor a link to a
   * known row gives: how many. The range is then where they can be (the live chain and as many seqs
   * after it), not where they were.
   */
  unplaced?: number
  /**
   * Only for a `rewritten` finding where a recovered version verifies and the live row does not:
   * the recovered row is the original (the live one was edited without the key).
   */
  original?: 'recovered'
  /** Only for recovered `rewritten` findings: the sealed fields (and `body`) the live row changed. */
  changed?: string[]
  /** Only for findings drawn from an unsigned (or unverified) prior: true. */
  unsigned_prior?: true
  /**
   * Only for findings drawn from a signed prior: the fingerprint of the Ed25519 key the prior carries
   * and was checked against — the key, not its holder (anyone can sign an edited report anew).
   */
  prior_signed_by?: string
  /**
   * Only for `rewritten` and `deleted` findings an archive segment given proves (a row it holds,
   * sealed under a candidate key after a live row, where the live chain holds another row or none):
   * the segments' paths.
   */
  segments?: string[]
}

/** A run of consecutive rows whose HMAC was reproduced by the same candidate key. */
export interface KeySegment {
  key_index: number
  from_seq: number
  to_seq: number
  count: number
}

/** How the expected prev_hash of the first verified row was obtained. */
export type BoundaryKind = 'genesis' | 'predecessor' | 'trusted'

export interface VerifyBoundary {
  seq: number
  kind: BoundaryKind
  /** The first verified row's stored prev_hash. */
  prev_hash: string
  /** Only for `predecessor`: the row before it in the file, whose hmac_hash prev_hash must equal. */
  predecessor?: { seq: number; hmac_hash: string }
  detail: string
}

export interface VerifyRangeInfo {
  /** The options as given, for the record. */
  requested: VerifyRangeOptions
  /** Rows inside the resolved seq range (null when empty). */
  from_seq: number | null
  to_seq: number | null
  total_in_chain: number
}

export interface PriorHead {
  last_seq: number
  head_hmac: string
  /** A report as the prior (issue 25): the rows it covered, to find any that is gone or changed. */
  rows?: RowsDigest
  /**
   * A report as the prior: the first row its evidence statement names (coverage.statement's
   * first_seq and first_timestamp_ns), to tell another chain whose rows the digest cannot compare.
   */
  first?: { seq: number; timestamp_ns: string }
  /** What the prior was, for the record (verdicts echo it in prior_check). */
  source?: PriorSource
  /**
   * Whether the prior carried a signature that verified. false for a verdict, an unsigned report or
   * one whose signature does not verify: what it says is only what its author wrote.
   */
  signed?: boolean
}

/** Where a prior head came from: an earlier verdict (`verify --json`) or an exported report. */
export interface PriorSource {
  kind: 'verdict' | 'report'
  /** A report's generated_at. */
  generated_at?: string
  /** A signed report's key fingerprint (its signature was checked when the prior was read). */
  signed_by?: string
}

export interface PriorCheck {
  /** The prior head (a report prior's rows digest is not repeated here). */
  prior: PriorHead
  found: boolean
  detail: string
  /** Only for a report prior: whether every row it covered is still there and unchanged, and how that was found. */
  rows_unchanged?: boolean
  rows_detail?: string
}

export interface VerifyVerdict {
  valid: boolean
  entries: number
  first_seq: number | null
  last_seq: number | null
  head_hmac: string | null
  first_bad_seq: number | null
  findings: Finding[]
  key_segments: KeySegment[]
  /** Present only when a range option was given. */
  range?: VerifyRangeInfo
  /** Present only when the first verified row's predecessor is not GENESIS. */
  boundary?: VerifyBoundary
  /** Present only when `--prior` was given. */
  prior_check?: PriorCheck
  /** Present only when the run was cancelled before the end (never for a finished verdict). */
  cancelled?: boolean
  /**
   * Present (false) only on a keyless verdict (`verify --keyless`, the app's check on open): body
   * hashes, links, seqs and columns were checked, HMACs were not.
   */
  hmac_checked?: boolean
  /** Present only when the files were searched for deleted and earlier rows (verify's default). */
  recovery?: RecoverySummary
  /** Deleted and superseded rows recovered from the files (rows identical to a live row are not listed). */
  recovered?: RecoveredRow[]
  /**
   * Present (true) only when candidate keys were given and no row verifies under any of them (a wrong
   * key, or every row resealed).
   */
  no_key_matches?: true
  /** The archive segments given (`--segment`), as given. */
  segments?: string[]
  /**
   * Notices: what the evidence shows but does not prove to be tampering (rows that stood before the
   * live chain, a raised sqlite_sequence, an unsigned prior). Never findings.
   */
  notices?: string[]
}

export interface VerifyRangeOptions {
  /** Inclusive seq bounds; either may be open. */
  seq_start?: number
  seq_end?: number
  /** Inclusive ns bounds on the `timestamp_ns` column, as decimal strings (exact beyond 2^53). */
  since_ns?: string
  until_ns?: string
  last_n?: number
}

/** What the auditor learns about a candidate key, never the key itself. */
export interface KeyInfo {
  index: number
  encoding: 'hex' | 'text'
  bytes: number
  /** First 8 hex chars of SHA-256(key): lets two people agree they hold the same key without sharing it. */
  fingerprint: string
}

/** One row's own verification status, for the entry detail view. */
export interface RowCheck {
  seq: number
  body_hash_ok: boolean
  link_ok: boolean
  /** null when no candidate key was available. */
  hmac_ok: boolean | null
  key_index: number | null
  columns_ok: boolean | null
  column_mismatches: string[]
  computed_canonical_hash: string
  expected_prev_hash: string
}

/** One segment of `verify-continuity` (an archive segment or the live chain), in the order given. */
export interface ContinuitySegment {
  db_path: string
  valid: boolean
  /** Why the segment is not valid (null when it is). */
  reason: string | null
  count: number | null
  first_seq: number | null
  last_seq: number | null
  /** The first row's stored prev_hash: what the previous segment's last hmac must be. */
  first_prev_hash: string | null
  last_hmac_hash: string | null
  /** The segment's first bad seq, when its rows were verified and one failed. */
  first_bad_seq: number | null
}

/** The join between two adjacent segments. */
export interface ContinuityBoundary {
  from_db: string
  to_db: string
  matches: boolean
  /** Why it does not match (absent when it does). */
  reason?: string
  /** The earlier segment's last hmac_hash, and the next one's first prev_hash. */
  expected: string | null
  actual: string | null
  /**
   * Present when the next segment starts inside this one's seqs: the seqs both hold, and the first of
   * them where the two hold different rows (null: the same rows twice). `expected` is then the hmac_hash
   * of this segment's row before the next one's first.
   */
  overlap?: { from_seq: number; to_seq: number; first_differing_seq: number | null }
}

export interface ContinuityResult {
  valid: boolean
  /** Whether each segment's HMACs were checked (a secret was given), or only hashes, links and seqs. */
  hmac_checked: boolean
  segments: ContinuitySegment[]
  boundaries: ContinuityBoundary[]
}
