// `verify-continuity`: do archive segments and the live chain join into one chain? Each segment is
// verified from its own rows (hashes, links, seqs, and HMACs when a secret is given), then each
// adjacent pair must join: the earlier segment's last hmac_hash is the next one's first prev_hash,
// and the next seq follows the last. Python BIJOTEL (reference §3.6, §11.4) reads only the first
// and last rows, prefers the unauthenticated archive_meta table over them, and checks neither the
// rows nor seq contiguity; archive_meta is not read here at all.
import type {
  ContinuityBoundary,
  ContinuityResult,
  ContinuitySegment,
  VerifyVerdict,
} from '../../shared/verify-types'
import { AuditError, oneLine } from '../base/errors'
import { describeFinding } from '../verify/describe'
import { verifySource } from './verify-file'
import { overlapOf, type Held, type OverlapFacts } from './segment-overlap'
import { readChain } from '../chain/source/open-source'
import type { RowSource } from '../chain/source/row-source'
import { GENESIS_HASH } from '../chain/seal'
import type { KeyMaterial } from '../chain/keys'

export interface ContinuityOptions {
  env?: Record<string, string | undefined>
  /** Called before each segment is read (index, count). */
  onSegment?: (index: number, count: number) => void
  /** Rows per digest where two segments overlap (./segment-overlap.ts CHUNK; smaller in tests). */
  overlapChunk?: number
}

/**
 * An error of a later segment's read, passing through an earlier one's: an answer to that read (an
 * AuditError, so the earlier segment's read is neither redone nor called unreadable for it).
 */
class FromLater extends AuditError {
  constructor(readonly inner: unknown) {
    super(inner instanceof AuditError ? inner.code : 'io', oneLine(inner))
  }
}

/** A segment that could not be judged from its rows. */
function unreadable(path: string, reason: string): ContinuitySegment {
  return {
    db_path: path,
    valid: false,
    reason,
    count: null,
    first_seq: null,
    last_seq: null,
    first_prev_hash: null,
    last_hmac_hash: null,
    first_bad_seq: null,
  }
}

/** The segment a verdict describes. */
export function segmentOf(path: string, v: VerifyVerdict): ContinuitySegment {
  if (v.entries === 0) return { ...unreadable(path, 'chain table empty'), count: 0 }
  const first = v.findings[0]
  return {
    db_path: path,
    valid: first === undefined,
    reason: first === undefined ? null : `seq ${first.from_seq}: ${describeFinding(first)}`,
    count: v.entries,
    first_seq: v.first_seq,
    last_seq: v.last_seq,
    // A segment from seq ≤ 1 starts the chain (a stored prev_hash other than GENESIS is a finding).
    first_prev_hash: v.boundary?.prev_hash ?? GENESIS_HASH,
    last_hmac_hash: v.head_hmac,
    first_bad_seq: first === undefined ? null : first.from_seq,
  }
}

/** Whether segment `b` continues segment `a` (`overlap`: what ./segment-overlap.ts read where b starts inside a). */
export function boundaryOf(
  a: ContinuitySegment,
  b: ContinuitySegment,
  overlap?: OverlapFacts | null,
): ContinuityBoundary {
  const join = { from_db: a.db_path, to_db: b.db_path, expected: a.last_hmac_hash, actual: b.first_prev_hash }
  if (!a.valid || !b.valid) return { ...join, matches: false, reason: 'one or both segments invalid' }
  if (overlap) return overlapBoundary(join, overlap)
  if (a.last_hmac_hash !== b.first_prev_hash)
    return {
      ...join,
      matches: false,
      reason: "the next segment's first prev_hash is not the last hmac_hash of this one",
    }
  if (b.first_seq !== a.last_seq! + 1)
    return {
      ...join,
      matches: false,
      reason: `seqs do not follow on: this segment ends at ${a.last_seq}, the next starts at ${b.first_seq}`,
    }
  return { ...join, matches: true }
}

/**
 * Two segments holding the same seqs: they join where the next one's first row was sealed after this
 * one's row before it, and are one chain when they hold the same rows on every shared seq.
 */
function overlapBoundary(join: Omit<ContinuityBoundary, 'matches'>, o: OverlapFacts): ContinuityBoundary {
  const { from_seq, to_seq, first_differing_seq } = o
  const at = { ...join, expected: o.join_hmac, overlap: { from_seq, to_seq, first_differing_seq } }
  const both = `both segments hold seqs ${from_seq}-${to_seq}`
  if (o.join_hmac !== join.actual)
    return {
      ...at,
      matches: false,
      reason:
        `${both}, but the next segment's first prev_hash is not the hmac_hash of this one's row ` +
        `before seq ${from_seq}: they are not one chain`,
    }
  if (first_differing_seq === null) return { ...at, matches: true }
  return {
    ...at,
    matches: false,
    reason:
      `${both} and hold different rows from seq ${first_differing_seq}, each sealed after the same row: ` +
      'two versions of the chain (one rewritten, or a copy continued), not one chain; the hashes do not say which is the original',
  }
}

export async function verifyContinuity(
  paths: string[],
  keys: KeyMaterial[],
  opts: ContinuityOptions = {},
): Promise<ContinuityResult> {
  const hmacChecked = keys.length > 0
  const segments: ContinuitySegment[] = []
  const sources: (RowSource | null)[] = []
  // Every segment is opened once and held until the joins are read: an overlap is read from the very
  // source the segment was verified through, never from the path again (a file put there since would
  // be read as the segment). Nested, so each is closed by its own read, however the run ends.
  const holdFrom = async (i: number): Promise<void> => {
    if (i === paths.length) return joinAll()
    const path = paths[i]!
    opts.onSegment?.(i, paths.length)
    try {
      await readChain(
        path,
        async (source) => {
          try {
            segments[i] = segmentOf(path, await verifySource(source, keys, { keyless: true }))
            sources[i] = source
          } catch (e) {
            if (!(e instanceof AuditError)) throw e // a shape the direct reader declines: redone by SQLite
            segments[i] = unreadable(path, e.message)
            sources[i] = null
          }
          try {
            await holdFrom(i + 1)
          } catch (e) {
            throw e instanceof FromLater ? e : new FromLater(e)
          }
        },
        opts.env ? { env: opts.env } : {},
      )
    } catch (e) {
      // A segment that is missing or not a readable chain makes the whole chain unprovable, not the
      // command fail: the other segments and joins are still reported.
      if (e instanceof FromLater || !(e instanceof AuditError)) throw e
      segments[i] = unreadable(path, e.code === 'db_missing' ? 'file not found' : e.message)
      sources[i] = null
      await holdFrom(i + 1)
    }
  }
  const boundaries: ContinuityBoundary[] = []
  const held = (i: number): Held | null => {
    const source = sources[i]
    return source ? { ...segments[i]!, source } : null
  }
  const joinAll = async (): Promise<void> => {
    boundaries.length = 0
    // Each segment joins the one reaching furthest before it: a segment wholly inside an earlier one
    // (the same rows cut twice) leaves the next to join the earlier one's end.
    let reach = 0
    for (let j = 1; j < segments.length; j++) {
      const a = segments[reach]!
      const b = segments[j]!
      const ha = held(reach)
      const hb = held(j)
      let overlap: OverlapFacts | null = null
      if (a.valid && b.valid && ha && hb)
        try {
          overlap = await overlapOf(ha, hb, opts.overlapChunk)
        } catch (e) {
          if (!(e instanceof AuditError)) throw e
          b.valid = false
          b.reason = oneLine(e)
        }
      boundaries.push(boundaryOf(a, b, overlap))
      if (a.last_seq === null || b.last_seq === null || b.last_seq > a.last_seq) reach = j
    }
  }
  try {
    await holdFrom(0)
  } catch (e) {
    throw e instanceof FromLater ? e.inner : e
  }
  return {
    valid: segments.every((s) => s.valid) && boundaries.every((b) => b.matches),
    hmac_checked: hmacChecked,
    segments,
    boundaries,
  }
}
