// Two archive segments given to `verify-continuity` that hold some of the same seqs (an archive cut
// twice, or a later cut that starts before the earlier one ended). What the hashes prove there:
// - the later segment joins the earlier one where its first row's sealed prev_hash is the hmac_hash
//   of the earlier segment's row just before it (not necessarily its last row);
// - on the seqs both hold, the same (canonical_hash, hmac_hash) at every seq is the same rows twice
//   (each segment's bodies were hashed and its links checked by its own verification), and the union
//   is one chain;
// - a first seq where they differ, after the same row, is two different rows sealed after one row:
//   two versions of the chain, not one (which is the original the hashes cannot say).
// Read in bounded memory: one digest per CHUNK rows of the overlap, then one chunk of each side to
// name the first differing seq. Read through the sources the segments were verified through (each
// file opened once, ./continuity.ts), and each read re-checks the rows' seqs and links against the
// segment's verified ends: a file changed since it was verified is said so, never read as a join.
import { createHash } from 'node:crypto'
import type { ContinuitySegment } from '../../shared/verify-types'
import { AuditError } from '../base/errors'
import type { RowSource } from '../chain/source/row-source'
import { seqOf, streamRows } from '../chain/source/stream'

/** Rows per digest: the memory held is 32 bytes per CHUNK rows of the overlap, and one chunk's hashes. */
export const CHUNK = 4096

export interface OverlapFacts {
  from_seq: number
  to_seq: number
  /** The hmac_hash of the earlier segment's row before the later one's first (null: none there). */
  join_hmac: string | null
  /** The first seq of the overlap where the two hold different rows (null: the same rows). */
  first_differing_seq: number | null
}

/** A segment verified valid, and the source it was verified through (still open). */
export type Held = ContinuitySegment & { source: RowSource }

interface Row {
  seq: bigint
  prev: string | null
  canonical: string | null
  hmac: string | null
}

const changed = (s: ContinuitySegment, why: string): AuditError =>
  new AuditError('evidence_changed', `${s.db_path} changed since it was verified (${why})`)

/**
 * The rows of `s` with seqs from..to, in order, each checked against the verified segment: the seqs
 * follow on from `from`, each row's prev_hash is the previous row's hmac_hash, and the rows at the
 * segment's own ends carry the ends its verification read.
 */
async function eachRow(s: Held, from: bigint, to: bigint, row: (r: Row) => void): Promise<void> {
  const first = BigInt(s.first_seq!)
  const last = BigInt(s.last_seq!)
  let expect = from
  let before: string | null = null
  const { source } = s
  const cols = ['prev_hash', 'canonical_hash', 'hmac_hash'] as const
  const [p, c, h] = cols.map((n) => source.col(n))
  await streamRows(source, { columns: cols, range: { from, to } }, (r) => {
    const seq = seqOf(r)
    if (seq !== expect) throw changed(s, `seq ${seq} where ${expect} was`)
    const cur: Row = { seq, prev: r.text(p!), canonical: r.text(c!), hmac: r.text(h!) }
    if (seq > from && cur.prev !== before) throw changed(s, `seq ${seq} no longer links`)
    if (seq === first && cur.prev !== s.first_prev_hash) throw changed(s, `seq ${seq}`)
    if (seq === last && cur.hmac !== s.last_hmac_hash) throw changed(s, `seq ${seq}`)
    before = cur.hmac
    expect++
    row(cur)
  })
  source.assertUnchanged()
  if (expect !== to + 1n) throw changed(s, `rows ${expect}-${to} missing`)
}

/** The digest of one chunk of rows: their seqs, body hashes and seals. */
class Chunks {
  readonly digests: string[] = []
  private h = createHash('sha256')
  private n = 0
  constructor(private readonly size: number) {}
  add(r: Row): void {
    this.h.update(`${r.seq}\u0000${r.canonical ?? '\u0001'}\u0000${r.hmac ?? '\u0001'}\n`)
    if (++this.n === this.size) this.end()
  }
  end(): void {
    if (this.n === 0) return
    this.digests.push(this.h.digest('hex'))
    this.h = createHash('sha256')
    this.n = 0
  }
}

/**
 * What the rows prove where `b` (given after `a`, both verified valid) starts inside `a`'s seqs:
 * null when it does not (b starts after a's last seq, or before a's first).
 */
export async function overlapOf(a: Held, b: Held, chunk = CHUNK): Promise<OverlapFacts | null> {
  if (a.first_seq === null || a.last_seq === null || b.first_seq === null || b.last_seq === null) return null
  if (b.first_seq > a.last_seq || b.first_seq < a.first_seq) return null
  const lo = BigInt(b.first_seq)
  const hi = BigInt(Math.min(a.last_seq, b.last_seq))
  // The join: the earlier segment's row before b's first; b starting where a starts shares a's start.
  let join: string | null = b.first_seq === a.first_seq ? a.first_prev_hash : null
  const ca = new Chunks(chunk)
  await eachRow(a, lo === BigInt(a.first_seq) ? lo : lo - 1n, hi, (r) => {
    if (r.seq < lo) join = r.hmac
    else ca.add(r)
  })
  ca.end()
  const cb = new Chunks(chunk)
  await eachRow(b, lo, hi, (r) => cb.add(r))
  cb.end()
  const facts = { from_seq: b.first_seq, to_seq: Number(hi), join_hmac: join }
  const at = ca.digests.findIndex((d, i) => d !== cb.digests[i])
  if (at < 0) return { ...facts, first_differing_seq: null }
  // The first differing chunk, read again from both sides: its first seq where the rows differ.
  const from = lo + BigInt(at * chunk)
  const to = from + BigInt(chunk - 1) < hi ? from + BigInt(chunk - 1) : hi
  const held: string[] = []
  await eachRow(a, from, to, (r) => held.push(`${r.canonical}\u0000${r.hmac}`))
  let differs: bigint | null = null
  await eachRow(b, from, to, (r) => {
    if (differs === null && held[Number(r.seq - from)] !== `${r.canonical}\u0000${r.hmac}`) differs = r.seq
  })
  // The digests differed, so a row of the chunk did (unless a file changed between the reads).
  if (differs === null) throw changed(b, `seqs ${from}-${to} read differently`)
  return { ...facts, first_differing_seq: Number(differs) }
}
