// Detector 6 — rotation boundaries. A stub in Python BIJOTEL (always []); here it is real when
// candidate keys are given: the analysed seq range is verified and a boundary is reported wherever
// the key that reproduces the HMAC changes from one key segment to the next.
import type { RotationBoundary } from '../../shared/integrity-types'
import type { KeySegment, VerifyVerdict } from '../../shared/verify-types'
import type { KeyMaterial } from '../chain/keys'
import type { VerifyOptions } from '../verify/options'

/** Verifies a seq range of the analysed chain (on whichever reader opened it). */
export type RangeVerifier = (keys: KeyMaterial[], opts: VerifyOptions) => Promise<VerifyVerdict>

export interface RotationResult {
  boundaries: RotationBoundary[]
  note: string
}

export const NO_KEYS_NOTE =
  'not checked: no candidate keys given (rotation boundaries are found by verifying the HMACs, which needs the chain key). Python BIJOTEL never fills this list (its detector is a stub).'

/** Boundaries between consecutive key segments sealed by different keys. */
export function boundariesOf(segments: KeySegment[]): RotationBoundary[] {
  const out: RotationBoundary[] = []
  for (let i = 1; i < segments.length; i++) {
    const a = segments[i - 1]!
    const b = segments[i]!
    if (a.key_index === b.key_index) continue
    let detail = `sealing key changed from key #${a.key_index + 1} to key #${b.key_index + 1} at seq=${b.from_seq}`
    if (b.from_seq !== a.to_seq + 1)
      detail += ` (last row sealed by key #${a.key_index + 1}: seq=${a.to_seq})`
    out.push({ seq: b.from_seq, detail })
  }
  return out
}

export function rotationNote(verdict: VerifyVerdict, keys: number, boundaries: RotationBoundary[]): string {
  const span = verdict.first_seq === null ? 'no rows' : `seq ${verdict.first_seq}..${verdict.last_seq}`
  const sealed = verdict.key_segments.reduce((n, s) => n + s.count, 0)
  const parts = [
    `checked with ${keys} candidate key${keys === 1 ? '' : 's'} over ${span}:`,
    `${verdict.key_segments.length} key segment${verdict.key_segments.length === 1 ? '' : 's'},`,
    `${boundaries.length} boundar${boundaries.length === 1 ? 'y' : 'ies'}`,
  ]
  let note = parts.join(' ')
  if (sealed < verdict.entries) {
    note += `; ${verdict.entries - sealed} of ${verdict.entries} rows reproduced by no candidate key (run verify for details)`
  }
  return note
}

export interface RotationOptions {
  onProgress?: (done: number, total: number) => void
  signal?: { aborted: boolean }
  /** A verdict already computed over exactly this range (e.g. the report's whole-chain verdict). */
  verdict?: VerifyVerdict
}

export async function detectRotation(
  verify: RangeVerifier,
  keys: KeyMaterial[],
  firstSeq: number | null,
  lastSeq: number | null,
  opts: RotationOptions = {},
): Promise<RotationResult> {
  if (keys.length === 0) return { boundaries: [], note: NO_KEYS_NOTE }
  if (firstSeq === null || lastSeq === null)
    return { boundaries: [], note: 'not checked: no rows to analyse' }
  const verdict =
    opts.verdict ??
    (await verify(keys, {
      range: { seq_start: firstSeq, seq_end: lastSeq },
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    }))
  const boundaries = boundariesOf(verdict.key_segments)
  return { boundaries, note: rotationNote(verdict, keys.length, boundaries) }
}
