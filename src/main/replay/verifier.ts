// `verify_replay` of Python BIJOTEL (reference §6.2): compare the sealed
// `bijotel.replay.output_hash` of a chain entry with the SHA-256 of a replayed output. Never throws.
import type { ReplayResult } from '../../shared/replay-types'
import { pyTruthy } from '../python/truthy'
import { sha256Hex } from '../chain/seal'
import { hasLoneSurrogate, PyFloat, pyJsonLoads } from '../python/pyformat'
import { pyRepr, pyStr } from '../python/repr'

export const REASON_NO_METADATA =
  'chain entry has no bijotel.replay.output_hash (logged before v2.7.0 or replay metadata not attached)'
export const REASON_NOT_TEXT =
  'the replayed output holds a lone surrogate: it is not Unicode text and has no UTF-8 bytes to hash'
export const REASON_NOT_DETERMINISTIC =
  'output hash mismatch \u2014 original call did not record a seed (deterministic=False); replay drift is expected'

/** The deterministic-mismatch reason, with the model version as Python's `repr` (`'x'` or `None`). */
export function reasonDeterministic(modelVersion: unknown): string {
  return (
    'output hash mismatch \u2014 re-execute against the SAME model version that produced the original ' +
    `(${pyRepr(modelVersion)}) and verify the prompt hash before treating this as tampering`
  )
}

/**
 * The entry as Python's CLI reads it: a body given as bytes (or JSON text) is decoded as strict UTF-8
 * and parsed like `json.loads`; any failure gives `{}` (→ "no output_hash"). Anything else is taken
 * as the already-parsed entry dict.
 */
export function entryOf(entryBody: unknown): unknown {
  if (entryBody instanceof Uint8Array) {
    try {
      return pyJsonLoads(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(entryBody))
    } catch {
      return {}
    }
  }
  if (typeof entryBody === 'string') {
    try {
      return pyJsonLoads(entryBody)
    } catch {
      return {}
    }
  }
  return entryBody
}

/**
 * A sealed value (model_version, output_hash) as the reference's text shows it: a string as it is; a
 * non-string as Python's `str()` prints it (`1.0`, `True`, `{'a': 1.0}`, an int of any size); a
 * falsy non-string (0, False, [], {}) as null: Python prints `value or '(unknown)'` and
 * `original_hash or '(none — …)'`, the placeholder, and the block (shared/replay-lines.ts) shows
 * null as that placeholder. The reason still says what the comparison found (a falsy output_hash is
 * not None: Python compares it, a mismatch).
 */
function sealedText(v: unknown): string | null {
  if (v === undefined || v === null) return null
  if (typeof v === 'string') return v
  return pyTruthy(v) ? pyStr(v) : null
}

/**
 * The entry's attributes with the values as `json.loads` gives them (typed: `1.0` stays a float, an
 * int past 2^53 exact): the reason quotes the model version's repr, and JSON.stringify threw on a
 * BigInt ("internal error", a whole batch lost to one sealed row).
 */
function replayAttrs(entryBody: unknown): (key: string) => unknown {
  let entry: unknown
  try {
    entry =
      entryBody instanceof Uint8Array || typeof entryBody === 'string'
        ? pyJsonLoads(
            typeof entryBody === 'string'
              ? entryBody
              : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(entryBody),
            { typed: true },
          )
        : entryBody
  } catch {
    entry = {}
  }
  const member = (o: unknown, k: string): unknown => {
    if (o instanceof Map) return o.get(k)
    if (o !== null && typeof o === 'object' && !Array.isArray(o) && !(o instanceof PyFloat))
      return Object.prototype.hasOwnProperty.call(o, k) ? (o as Record<string, unknown>)[k] : undefined
    return undefined
  }
  const attrs = member(entry, 'attributes')
  const isDict =
    attrs instanceof Map ||
    (attrs !== null && typeof attrs === 'object' && !Array.isArray(attrs) && !(attrs instanceof PyFloat))
  return (key) => (isDict ? member(attrs, key) : undefined)
}

/**
 * Replayed output: a string is hashed as its UTF-8 bytes (no normalisation), bytes are hashed as
 * they are (the CLI's --raw mode).
 */
export function verifyReplay(entryBody: unknown, replayedOutput: string | Uint8Array): ReplayResult {
  if (typeof replayedOutput === 'string' && hasLoneSurrogate(replayedOutput)) {
    // No UTF-8 bytes exist for this text (RFC 3629 §3): hashing U+FFFD's bytes in place of the
    // surrogate could read MATCH against a row sealed for U+FFFD. Python's encode raises; never a match.
    const r = replayResultFor(entryBody, '')
    return { ...r, match: false, replay_hash: '', reason: REASON_NOT_TEXT }
  }
  const bytes = typeof replayedOutput === 'string' ? Buffer.from(replayedOutput, 'utf8') : replayedOutput
  return replayResultFor(entryBody, sha256Hex(Buffer.from(bytes)))
}

/**
 * `verify_replay` given the replayed output's SHA-256 instead of the output (a report records only
 * the hash: `bijotel report verify` re-runs its replay checks from it).
 */
export function replayResultFor(entryBody: unknown, replayHash: string): ReplayResult {
  const attr = replayAttrs(entryBody)
  const originalRaw = attr('bijotel.replay.output_hash')
  const deterministic = pyTruthy(attr('bijotel.replay.deterministic'))
  const modelRaw = attr('bijotel.replay.model_version') ?? null
  const model_version = sealedText(modelRaw)

  if (originalRaw === undefined || originalRaw === null) {
    return {
      match: false,
      original_hash: null,
      replay_hash: replayHash,
      deterministic,
      model_version,
      reason: REASON_NO_METADATA,
    }
  }
  const original_hash = sealedText(originalRaw)
  if (typeof originalRaw === 'string' && originalRaw === replayHash) {
    return { match: true, original_hash, replay_hash: replayHash, deterministic, model_version, reason: null }
  }
  return {
    match: false,
    original_hash,
    replay_hash: replayHash,
    deterministic,
    model_version,
    reason: deterministic ? reasonDeterministic(modelRaw) : REASON_NOT_DETERMINISTIC,
  }
}

/** The reference's six ReplayResult fields, in its key order and nothing else (CLI --json, REST). */
export function referenceReplayFields(r: ReplayResult): ReplayResult {
  return {
    match: r.match,
    original_hash: r.original_hash,
    replay_hash: r.replay_hash,
    deterministic: r.deterministic,
    model_version: r.model_version,
    reason: r.reason,
  }
}
