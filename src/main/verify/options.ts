// What a verification is asked for: a range, a prior head, progress and cancel, threads.
import type { PriorHead, VerifyRangeOptions } from '../../shared/verify-types'
import { AuditError } from '../base/errors'
import type { KeyMaterial } from '../chain/keys'

export interface VerifyOptions {
  range?: VerifyRangeOptions
  prior?: PriorHead
  /**
   * The prior's head is a recovered row placed in this chain by its sealed links (or a placed row
   * links to it): it is of this chain even though no live row shows it (issue 39, "Priors").
   */
  priorLinked?: boolean
  onProgress?: (done: number, total: number) => void
  /**
   * The rows of the range when the caller already knows them exactly (the app's index of the whole
   * chain): progress counts against it, not the source's estimate (issue 35: "74,787 / 201,979" on
   * a 200,000-row chain — the direct reader samples leaves, the copy counts the seq span).
   */
  rowsKnown?: number
  signal?: { aborted: boolean }
  /** Worker threads to use for large ranges (default: the cores available; 1 = this thread only). */
  workers?: number
  /**
   * Large ranges go to worker threads even when `workers` is 1: this thread has other work during
   * the pass (the evidence hash's jobs and the recovery carver beside verify, ../audit/verify-file.ts).
   */
  offThread?: boolean
  /**
   * When this settles, this thread takes runs too, beside the workers (with `offThread`: what kept
   * it busy — the evidence hash's jobs — is done, and its core is free).
   */
  helpAfter?: Promise<unknown>
  /**
   * Runs to cut the range into when it is verified on this thread (default 1): each run checks
   * its own predecessor and the verdict is merged as from workers. Tests use it to hold the merge
   * to a single pass without starting threads.
   */
  runs?: number
  /**
   * Allow an empty key set: body hashes, links, seqs and columns are checked, HMACs are not (no
   * hmac_mismatch, no key segments). Only verify-continuity asks for it, and says so in its output.
   */
  keyless?: boolean
}

/** The refusal of an empty key set, unless the caller asked for a keyless check. */
export function requireKeys(keys: KeyMaterial[], opts: VerifyOptions): void {
  if (keys.length === 0 && !opts.keyless)
    throw new AuditError('no_secret', 'no candidate key: an HMAC chain cannot be verified without its secret')
}

export function hasRange(r: VerifyRangeOptions | undefined): boolean {
  return (
    r !== undefined &&
    (r.seq_start !== undefined ||
      r.seq_end !== undefined ||
      r.since_ns !== undefined ||
      r.until_ns !== undefined ||
      r.last_n !== undefined)
  )
}
