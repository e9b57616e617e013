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
