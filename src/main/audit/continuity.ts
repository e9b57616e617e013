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

/** A segment read and still open: its verdict, and the source it was verified through (held until released). */
interface OpenSegment {
  segment: ContinuitySegment
  source: RowSource | null
  /** Closes the segment's source (its read ends); the source is never read again. */
  release: () => Promise<void>
}

/**
 * Opens and verifies the segment at `path` once, and holds that open source until `release`: a join
 * is read from the very source the segment was verified through, never from the path again (round
 * 10: a file swapped in between two opens by name made two versions read CONTINUOUS). A missing or
 * unreadable segment is an unreadable verdict, not a failure of the command.
 */
async function openSegment(
  path: string,
  keys: KeyMaterial[],
  env?: Record<string, string | undefined>,
): Promise<OpenSegment> {
  let letGo!: () => void
  const released = new Promise<void>((r) => (letGo = r))
  let settle!: (o: Omit<OpenSegment, 'release'>) => void
  const ready = new Promise<Omit<OpenSegment, 'release'>>((r) => (settle = r))
  const done = readChain(
    path,
    async (source) => {
      try {
        settle({ segment: segmentOf(path, await verifySource(source, keys, { keyless: true })), source })
      } catch (e) {
        if (!(e instanceof AuditError)) throw e // a shape the direct reader declines: redone by SQLite
        settle({ segment: unreadable(path, e.message), source: null })
      }
      await released
    },
    env ? { env } : {},
  )
  const first = await Promise.race([
    ready.then((o) => ({ o })),
    done.then(
      () => ({ e: new AuditError('io', 'segment read ended before it was verified') as unknown }),
      (e: unknown) => ({ e }),
    ),
  ])
  if ('o' in first)
    return {
      ...first.o,
      release: async () => {
        letGo()
        await done
      },
    }
  const e = first.e
  if (!(e instanceof AuditError)) throw e
  return {
    segment: unreadable(path, e.code === 'db_missing' ? 'file not found' : e.message),
    source: null,
    release: async () => undefined,
  }
}

export async function verifyContinuity(
  paths: string[],
  keys: KeyMaterial[],
  opts: ContinuityOptions = {},
): Promise<ContinuityResult> {
  const hmacChecked = keys.length > 0
  const segments: ContinuitySegment[] = []
  const boundaries: ContinuityBoundary[] = []
  // At most two segments are open at once: the one reaching furthest so far, and the one being
  // joined to it (2–3 descriptors each). Holding every segment open until the joins were read ran
  // out of descriptors past ~340 segments under the usual 1,024 open-file limit (issue 38, round
  // 11). Each segment is still opened exactly once, and joined through that open source.
  const held = (o: OpenSegment): Held | null => (o.source ? { ...o.segment, source: o.source } : null)
  let reach: OpenSegment | null = null
  let next: OpenSegment | null = null
  try {
    for (let j = 0; j < paths.length; j++) {
      opts.onSegment?.(j, paths.length)
      next = await openSegment(paths[j]!, keys, opts.env)
      segments.push(next.segment)
      if (reach === null) {
        reach = next
        next = null
        continue
      }
      // Each segment joins the one reaching furthest before it: a segment wholly inside an earlier
      // one (the same rows cut twice) leaves the next to join the earlier one's end.
      const a = reach.segment
      const b = next.segment
      const ha = held(reach)
      const hb = held(next)
      let overlap: OverlapFacts | null = null
      if (a.valid && b.valid && ha && hb)
        try {
          overlap = await overlapOf(ha, hb, opts.overlapChunk)
        } catch (e) {
          // The overlap is read outside the segments' reads (they wait, open, for their release), so
          // a shape the direct reader declines in its ranged read is not redone by SQLite here: the
          // overlap is not judged and the segment says why (never read again from its path).
          b.valid = false
          b.reason = e instanceof AuditError ? oneLine(e) : `overlap not read: ${oneLine(e)}`
        }
      boundaries.push(boundaryOf(a, b, overlap))
      const done: OpenSegment =
        a.last_seq === null || b.last_seq === null || b.last_seq > a.last_seq ? reach : next
      if (done === reach) reach = next
      next = null
      await done.release()
    }
  } finally {
    // However the run ends, what is still open is closed (each by its own read).
    await next?.release().catch(() => undefined)
    await reach?.release().catch(() => undefined)
  }
  return {
    valid: segments.every((s) => s.valid) && boundaries.every((b) => b.matches),
    hmac_checked: hmacChecked,
    segments,
    boundaries,
  }
}
