// `record_replay_context` of Python BIJOTEL (reference §6.1): the `bijotel.replay.*` attributes to
// set on the span of an LLM call, sealed with it in the canonical body.
import { sha256Hex } from '../chain/seal'
import { pyJsonDumpsSorted } from '../python/pyformat'

/** A prompt: the joined text, or the GenAI messages list (`[{"role": "user", "content": "..."}]`). */
export type ReplayPrompt = string | Record<string, unknown>[]

export interface ReplayContextInput {
  prompt: ReplayPrompt
  output: string
  model: string
  /** Integer seed; absent/null means the call was not deterministic. */
  seed?: number | bigint | null
  temperature?: number
  topP?: number
  /** Model checkpoint; falls back to `model` when absent or empty (Python's `model_version or model`). */
  modelVersion?: string | null
}

export interface ReplayAttributes {
  'bijotel.replay.prompt_hash': string
  'bijotel.replay.output_hash': string
  'bijotel.replay.temperature': number
  'bijotel.replay.top_p': number
  'bijotel.replay.model_version': string
  'bijotel.replay.deterministic': boolean
  'bijotel.replay.seed'?: number
}

/**
 * SHA-256 hex of a prompt: a string hashes its UTF-8 bytes; a list is encoded like Python's
 * `json.dumps(prompt, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` first — keys in
 * code-point order and Python float formatting (`1.0`), which is not JCS.
 */
export function hashPrompt(prompt: ReplayPrompt): string {
  if (typeof prompt === 'string') return sha256Hex(Buffer.from(prompt, 'utf8'))
  return sha256Hex(Buffer.from(pyJsonDumpsSorted(prompt), 'utf8'))
}

/** Python's float(x); a JS number already is one (0 seals as `0` in JCS, like Python's 0.0). */
function toFloat(v: number | undefined, dflt: number): number {
  return v === undefined ? dflt : Number(v)
}

function toInt(v: number | bigint): number {
  // Python's int(seed): truncates a float toward zero.
  const n = typeof v === 'bigint' ? Number(v) : Math.trunc(v)
  if (!Number.isFinite(n)) throw new TypeError('seed must be a finite integer')
  return n
}

/** The attributes, in Python's insertion order; `seed` only when one was given. */
export function recordReplayContext(input: ReplayContextInput): ReplayAttributes {
  const attrs: ReplayAttributes = {
    'bijotel.replay.prompt_hash': hashPrompt(input.prompt),
    'bijotel.replay.output_hash': sha256Hex(Buffer.from(input.output, 'utf8')),
    'bijotel.replay.temperature': toFloat(input.temperature, 1.0),
    'bijotel.replay.top_p': toFloat(input.topP, 1.0),
    'bijotel.replay.model_version': input.modelVersion || input.model,
    'bijotel.replay.deterministic': input.seed !== undefined && input.seed !== null,
  }
  if (input.seed !== undefined && input.seed !== null) attrs['bijotel.replay.seed'] = toInt(input.seed)
  return attrs
}
