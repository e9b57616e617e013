// Replay verification, as Python BIJOTEL's `ReplayResult` plus what the reference leaves out (§11.7).

export interface ReplayResult {
  match: boolean
  original_hash: string | null
  replay_hash: string
  deterministic: boolean
  model_version: string | null
  reason: string | null
}

/** How a dropped or given file was turned into the text that is hashed. */
export type ReplayTextMode = 'python' | 'raw'

export interface ReplayCheckRequest {
  seq: number
  /** The replayed output as text (used verbatim, like the REST API). */
  text?: string
  /** Or the bytes of a replay file, base64, decoded as the CLI's `--output-file` does. */
  file_base64?: string
  file_name?: string
  /** `python` (default): strict UTF-8, CRLF/CR → LF, BOM kept. `raw`: hash the file's bytes as they are. */
  mode?: ReplayTextMode
  /** The original prompt, if the auditor has it: checked against the sealed prompt_hash. */
  prompt?: string
}

export interface ReplayCheck {
  seq: number
  result: ReplayResult
  /** Does the row itself verify (body hash, link, HMAC)? null when no key was available. */
  row_verified: boolean | null
  row_detail: string
  /** null when no prompt was supplied or the row has no prompt_hash. */
  prompt_match: boolean | null
  prompt_detail: string | null
  source: {
    kind: 'text' | 'file'
    name: string | null
    bytes: number
    sha256_of_bytes: string
    mode: ReplayTextMode
  }
  checked_at: string
}

/**
 * What a line of a replay batch came to (issue 37). `row_not_verified` and `prompt_differs` are the
 * checks the single-entry command fails with exit 3 even on a matching output.
 */
export type ReplayBatchStatus =
  | 'matched'
  | 'mismatch_seeded'
  | 'mismatch_unseeded'
  | 'no_metadata'
  | 'row_not_verified'
  | 'prompt_differs'
  | 'seq_missing'
  | 'bad_line'

/** One line of a batch as decided: its verdict (`check`) when the line could be checked. */
export interface ReplayBatchItem {
  /** 1-based line of the JSONL (a folder: the file's place in the sorted listing). */
  line: number
  /** The file named (output_file, `name`, a folder's file) or `line N`. */
  name: string
  seq: number | null
  status: ReplayBatchStatus
  /** The verdict's reason, or why the line could not be checked; null for a plain match. */
  reason: string | null
  check: ReplayCheck | null
}

export interface ReplayBatchSummary {
  lines: number
  counts: Record<ReplayBatchStatus, number>
  /** Per sealed model_version (`(unknown)` when none is sealed), the count of each status. */
  models: Record<string, Partial<Record<ReplayBatchStatus, number>>>
  /** 0 every deterministic entry matched, 3 a failing verdict, 1 lines that could not be checked. */
  exit: 0 | 1 | 3
}

export interface ReplayBatchRequest {
  /** The batch as JSON Lines: {seq, output | output_base64 [, name, raw, prompt]} a line. */
  jsonl?: string
  /** Or the bytes of a JSONL file, base64 (a line that is not UTF-8 is then reported as such). */
  jsonl_base64?: string
}

export interface ReplayBatchResult {
  /** The batch's first lines (at most the engine's bound); every line is counted in `summary`. */
  items: ReplayBatchItem[]
  summary: ReplayBatchSummary
  /** Only when lines were decided but not listed in `items` (counted in `summary`). */
  items_omitted?: number
  /** Only when checks were made but not kept for the session's list and report (counted in `summary`). */
  checks_not_kept?: number
}
