// Chain of custody (issue 25): what a verdict judged, what a report covered, and how a report is
// signed and checked again. Shapes of `verify --json`'s `evidence`, the report's `coverage` and
// `signature`, and `bijotel report verify --json`.

/** One evidence file as a verdict names it. */
export interface StatedFile {
  /** Absolute path as read. */
  path: string
  size: number
  sha256: string
}

/**
 * What a verdict judged, in one statement: the files (with their SHA-256), the rows (seq range and
 * count, first and last timestamps) and the candidate keys (fingerprints only).
 */
export interface EvidenceStatement {
  db: StatedFile
  /** The `-wal` beside the file when it holds bytes (its rows are part of the chain), else null. */
  wal: StatedFile | null
  /** Rows judged (a range or window: its rows, not the whole file's). */
  entries: number
  first_seq: number | null
  last_seq: number | null
  /** `timestamp_ns` of the first and last judged rows, as exact decimal text (null if not an integer). */
  first_timestamp_ns: string | null
  last_timestamp_ns: string | null
  /** KeyInfo fingerprints (first 8 hex of SHA-256 of each key), in the order given. */
  key_fingerprints: string[]
}

/** One block of the rows digest: the covered rows whose seq falls in [from_seq, to_seq]. */
export interface RowsDigestBlock {
  from_seq: number
  to_seq: number
  rows: number
  /** First 16 hex of SHA-256 over the block's `seq:JSON(hmac_hash)\n` lines (text hmac_hash as a JSON string). */
  digest: string
}

/**
 * The (seq, hmac_hash) list a report covered, so a later audit can tell whether any of those rows
 * is gone or now differs, and where: `digest` covers every row; the rows are also digested in blocks
 * of `block_size` consecutive seq numbers (block k: seqs k·block_size … k·block_size + block_size − 1),
 * which locate the first changed block when the digest no longer matches.
 */
export interface RowsDigest {
  algorithm: 'sha256-seq-hmac-lines-v1'
  first_seq: number | null
  last_seq: number | null
  count: number
  /** hmac_hash of the last covered row (the head a later chain must still hold). */
  head_hmac: string | null
  /** SHA-256 over `seq:JSON(hmac_hash)\n` of every covered row, in seq order. */
  digest: string
  block_size: number
  blocks: RowsDigestBlock[]
}

/** What a report says it covered (issue 25): the evidence line, its statement and the rows digest. */
export interface ReportCoverage {
  /** The one line the CLI prints (`Evidence: …`), to paste into a case file. */
  line: string
  statement: EvidenceStatement
  rows: RowsDigest
}

/**
 * The Ed25519 signature of a report: over the RFC 8785 (JCS) canonical form of the report without
 * this `signature` member, as UTF-8 bytes.
 */
export interface ReportSignature {
  algorithm: 'Ed25519'
  /** What was signed, in words (fixed text). */
  signed_over: 'jcs-report-without-signature'
  /** The raw 32-byte public key, base64 (as Python BIJOTEL's export embeds it). */
  public_key: string
  /** First 16 hex of SHA-256 of the raw public key (Python BIJOTEL's fingerprint). */
  fingerprint: string
  /** The 64-byte signature, base64. */
  signature: string
}

export type FieldStatus = 'reproduces' | 'differs' | 'not_checked'

/** One field of a report checked again against the evidence. */
export interface FieldCheck {
  /** JSON path of the field in the report (`evidence.db.sha256`, `verification.verdict.findings`). */
  field: string
  status: FieldStatus
  /** Short renderings of what the report says and what was found now. */
  reported: string
  now: string
  /** Why a field was not checked, or where it differs. */
  note?: string
  /** Recorded for information (a path, a time): never counts against the report. */
  informational?: true
}

export interface SignatureCheck {
  /** unsigned: no signature block; valid: the signature holds (against `key`); invalid: it does not. */
  status: 'unsigned' | 'valid' | 'invalid'
  /** provided: checked against the auditor's --public-key; embedded: only against the report's own key. */
  key: 'provided' | 'embedded' | 'none'
  fingerprint: string | null
  detail: string
}

/** `bijotel report verify --json` and the app's "Check a report…". */
/** Whether a report is about the chain it is checked against (`report verify`, issue 38). */
export interface ReportSubject {
  /** same_file: SHA-256 equal; same_chain: rows it covered still here; no_common_rows: none is. */
  status: 'same_file' | 'same_chain' | 'no_common_rows' | 'unknown'
  detail: string
}

export interface ReportCheckResult {
  ok: boolean
  report_path: string
  format: 'json' | 'html'
  /** Settled first: with no_common_rows, no field is compared (fields is empty). */
  subject?: ReportSubject
  signature: SignatureCheck
  fields: FieldCheck[]
  summary: string
}

/** The report-signing key the app holds in its main process: only its public half is shown. */
export interface SigningKeyInfo {
  /** First 16 hex of SHA-256 of the raw public key. */
  fingerprint: string
  /** The raw 32-byte public key, base64 (what signed reports carry). */
  public_key: string
  /** Where the private key was read from. */
  path: string
}

/** The prior the app's next verify compares with ("compare with an earlier report…"). */
export interface PriorInfo {
  kind: 'verdict' | 'report'
  last_seq: number
  head_hmac: string
  /** A report prior: how many rows it covered (each is checked); null for a verdict or a 1.0 report. */
  rows: number | null
  generated_at: string | null
  /** A signed report: its signer's fingerprint (the signature was checked). */
  signed_by: string | null
}

export type ReportFormat = 'json' | 'html' | 'pdf'
