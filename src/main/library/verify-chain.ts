// `verifyChain(path, { secrets, range })`: Python BIJOTEL's `verify_chain` (reference §3.3) as the
// Auditor does it — every row checked, findings merged into ranges, rotation by candidate keys,
// truncation against a prior head, rows recovered from the files — returning the verdict `bijotel
// verify --json` prints; and `recoverChain`, `bijotel recover`. The file is
// read in place, read-only (the direct reader), or through SQLite on a verified private copy for
// files the direct reader declines.
import { existsSync } from 'node:fs'
import type { RecoveryResult } from '../../shared/recovery-types'
import type { PriorHead, VerifyRangeOptions, VerifyVerdict } from '../../shared/verify-types'
import { AuditError } from '../base/errors'
import { recoverPath } from '../recovery/verdict'
import { verifyFile } from '../audit/verify-file'
import { keyMaterial, type ChainSecrets } from './secrets'

/** Python's `verify_chain` keyword arguments, in TypeScript style. All bounds are inclusive. */
export interface ChainRange {
  seqStart?: number
  seqEnd?: number
  /** Bounds on `timestamp_ns` (ns since the epoch; a bigint or decimal string stays exact). */
  sinceNs?: bigint | string | number
  untilNs?: bigint | string | number
  /** The last N rows by seq (seqStart/seqEnd are then ignored, as in the reference). */
  lastN?: number
}

export interface VerifyChainOptions {
  /** The chain's key, or every candidate key of a rotated chain (hex string, bytes or `{ text }`). */
  secrets: ChainSecrets
  /** Verify one contiguous seq range instead of the whole chain. */
  range?: ChainRange
  /** The head of an earlier verdict (`last_seq`, `head_hmac`): a cut tail then fails as `truncated`. */
  prior?: PriorHead
  /** Rows done / total, as the verification goes. */
  onProgress?: (done: number, total: number) => void
  /** Set `aborted` to stop; the promise then rejects with AuditError('cancelled'). */
  signal?: { aborted: boolean }
  /**
   * Search the files for deleted and earlier versions of rows and add the findings the key proves
   * (`truncated`, `rewritten`, `deleted`) and the `recovered` rows, as `bijotel verify` does by
   * default. Default true; false gives the live chain's verdict alone (`--no-recover`).
   */
  recover?: boolean
}

function nsString(name: string, v: bigint | string | number): string {
  const s = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : v.toString()
  if (!/^-?\d+$/.test(s) || (typeof v === 'number' && !Number.isSafeInteger(v)))
    throw new AuditError('bad_argument', `range.${name} must be an integer number of nanoseconds`)
  return s
}

function seqBound(name: string, v: number): number {
  if (!Number.isSafeInteger(v)) throw new AuditError('bad_argument', `range.${name} must be an integer`)
  return v
}

/** The engine's range options (the CLI's `--range/--last/--since/--until`). */
function rangeOptions(r: ChainRange | undefined): VerifyRangeOptions | undefined {
  if (!r) return undefined
  const o: VerifyRangeOptions = {}
  if (r.seqStart !== undefined) o.seq_start = seqBound('seqStart', r.seqStart)
  if (r.seqEnd !== undefined) o.seq_end = seqBound('seqEnd', r.seqEnd)
  if (r.sinceNs !== undefined) o.since_ns = nsString('sinceNs', r.sinceNs)
  if (r.untilNs !== undefined) o.until_ns = nsString('untilNs', r.untilNs)
  if (r.lastN !== undefined) {
    if (!Number.isSafeInteger(r.lastN) || r.lastN < 1)
      throw new AuditError('bad_argument', 'range.lastN must be a positive integer')
    o.last_n = r.lastN
  }
  return Object.keys(o).length > 0 ? o : undefined
}

/**
 * Verify a chain.db. Resolves to the verdict (a broken chain is a verdict with `valid: false`, not an
 * error); rejects with an AuditError (`code`, one-line `message`) when the file is missing or not a
 * readable chain, or the options are wrong. The evidence is never written.
 */
export async function verifyChain(path: string, options: VerifyChainOptions): Promise<VerifyVerdict> {
  const keys = keyMaterial(options.secrets)
  if (keys.length === 0) throw new AuditError('no_secret', 'verifyChain needs at least one secret')
  const range = rangeOptions(options.range)
  const { verdict } = await verifyFile(path, keys, {
    ...(range ? { range } : {}),
    ...(options.prior ? { prior: options.prior } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    recover: options.recover !== false,
  })
  return verdict
}

export interface RecoverChainOptions {
  /** Candidate keys: a recovered row is proven when one of them reproduces its HMAC. Optional. */
  secrets?: ChainSecrets
}

/**
 * `bijotel recover` as a function: every row the files of `path` still remember that the live chain
 * no longer has as it was (deleted rows, earlier versions of rewritten ones), carved from freed
 * pages, free space, superseded pages and WAL frames, each with its body-hash check, the candidate
 * key that proves it (if any) and where it was found. Read in place, read-only, never through
 * SQLite; a file the carver does not read resolves with `summary.searched: false` and the reason.
 */
export function recoverChain(path: string, options: RecoverChainOptions = {}): Promise<RecoveryResult> {
  try {
    if (!existsSync(path)) throw new AuditError('db_missing', `DB not found: ${path}`)
    return recoverPath(path, keyMaterial(options.secrets))
  } catch (e) {
    return Promise.reject(e as Error)
  }
}
