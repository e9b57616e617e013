// The rows a report covered (issue 25 item 1): a digest of its (seq, hmac_hash) list, whole and in
// blocks of consecutive seq numbers, so that a later audit given the report as its prior can tell
// whether any covered row is gone or now differs, and locate the first changed block by reading
// the chain again. Each row is the line `seq:JSON(hmac_hash)\n` (exact decimal seq; the hmac_hash as
// a JSON string, or null, a number, {"blob": hex} for other column types), hashed with SHA-256 in
// seq order.
import { createHash, type Hash } from 'node:crypto'
import type { RowsDigest, RowsDigestBlock } from '../../shared/custody-types'
import type { Finding } from '../../shared/verify-types'
import { INT64_MAX, INT64_MIN, type ResolvedRange, type RowSource } from './source/row-source'

export const ROWS_DIGEST_ALGORITHM = 'sha256-seq-hmac-lines-v1'
/** At most this many blocks: a report of a million rows carries ~1000 block digests (~60 KB). */
export const MAX_BLOCKS = 1024

/** The smallest power of two that cuts seqs first..last into at most MAX_BLOCKS blocks. */
export function blockSizeFor(first: number | null, last: number | null): number {
  if (first === null || last === null) return 1
  const span = Math.max(1, last - first + 1)
  let b = 1
  while (Math.ceil(span / b) > MAX_BLOCKS && b < 2 ** 52) b *= 2
  return b
}

/** A value as JSON: text as a JSON string, a blob as {"blob": hex}, so no value passes for another. */
function macJson(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v)
  if (v === null || v === undefined) return 'null'
  if (Buffer.isBuffer(v)) return `{"blob":"${v.toString('hex')}"}`
  if (typeof v === 'bigint') return v.toString()
  return JSON.stringify(v) ?? 'null'
}

export class RowsDigester {
  private readonly total: Hash = createHash('sha256')
  private readonly blocks: RowsDigestBlock[] = []
  private block = Number.NaN
  private blockHash: Hash | null = null
  private blockRows = 0
  private pending = ''
  private first: number | null = null
  private last: number | null = null
  private head: string | null = null
  private count = 0

  constructor(readonly blockSize: number) {}

  push(seq: number, seqText: string, hmac: unknown): void {
    const k = Math.floor(seq / this.blockSize)
    if (k !== this.block) {
      this.closeBlock()
      this.block = k
      this.blockHash = createHash('sha256')
    }
    const mac = macJson(hmac)
    // Lines are gathered into one string and hashed a few KB at a time: one update per row costs
    // more than the hashing itself.
    this.pending += `${seqText}:${mac}\n`
    if (this.pending.length > 16384) this.flush()
    this.blockRows++
    this.count++
    if (this.first === null) this.first = seq
    this.last = seq
    this.head = typeof hmac === 'string' ? hmac : mac
  }

  private flush(): void {
    if (this.pending === '') return
    this.total.update(this.pending)
    this.blockHash?.update(this.pending)
    this.pending = ''
  }

  private closeBlock(): void {
    this.flush()
    if (this.blockHash === null) return
    const from = this.block * this.blockSize
    this.blocks.push({
      from_seq: from,
      to_seq: from + this.blockSize - 1,
      rows: this.blockRows,
      digest: this.blockHash.digest('hex').slice(0, 16),
    })
    this.blockHash = null
    this.blockRows = 0
  }

  finish(): RowsDigest {
    this.closeBlock()
    return {
      algorithm: ROWS_DIGEST_ALGORITHM,
      first_seq: this.first,
      last_seq: this.last,
      count: this.count,
      head_hmac: this.head,
      digest: this.total.digest('hex'),
      block_size: this.blockSize,
      blocks: this.blocks,
    }
  }
}

export interface SeqBounds {
  from?: number
  to?: number
}

/** The seq range a digest covered. */
export function priorBounds(d: RowsDigest): SeqBounds {
  return {
    ...(d.first_seq !== null ? { from: d.first_seq } : {}),
    ...(d.last_seq !== null ? { to: d.last_seq } : {}),
  }
}

/**
 * The digest of the rows with seq in [from, to] (all when open), read through the caller's source
 * (verify's own, after its pass): the rows in scan order, as every engine reads them.
 */
export function digestRows(source: RowSource, blockSize: number, bounds: SeqBounds = {}): RowsDigest {
  const mac = source.col('hmac_hash')
  const r: ResolvedRange = {
    fromSeq: bounds.from === undefined ? INT64_MIN : BigInt(bounds.from),
    toSeq: bounds.to === undefined ? INT64_MAX : BigInt(bounds.to),
  }
  const d = new RowsDigester(blockSize)
  const { place } = source.place(r)
  source.scan(
    place,
    r,
    (c) => {
      const seq = c.rowidBig === null ? c.rowid : Number(c.rowidBig)
      d.push(seq, c.rowidBig === null ? String(c.rowid) : c.rowidBig.toString(), c.value(mac))
    },
    ['hmac_hash'],
  )
  return d.finish()
}

interface BlockDiff {
  kind: 'rewritten' | 'deleted'
  from: number
  to: number
  count: number
}

/**
 * Findings against a prior report's rows: `deleted` where a block now holds fewer of the rows it
 * covered, `rewritten` where it holds as many or more but they differ. Blocks past the end of the
 * chain as it is now are the truncation the head check reports (`truncated`), not compared here.
 * `now` must be the digest of the same seq range with the same block size.
 */
export function priorRowFindings(prior: RowsDigest, now: RowsDigest): Finding[] {
  if (prior.digest === now.digest && prior.count === now.count) return []
  if (prior.first_seq === null || prior.last_seq === null) return []
  const cutAfter =
    now.last_seq !== null && now.last_seq < prior.last_seq
      ? now.last_seq
      : now.last_seq === null
        ? prior.first_seq - 1
        : null
  const before = new Map(prior.blocks.map((b) => [b.from_seq, b]))
  const after = new Map(now.blocks.map((b) => [b.from_seq, b]))
  const starts = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a - b)
  const diffs: BlockDiff[] = []
  for (const s of starts) {
    const p = before.get(s)
    const n = after.get(s)
    if (p && n && p.digest === n.digest && p.rows === n.rows) continue
    const from = Math.max(s, prior.first_seq)
    const to = Math.min(s + prior.block_size - 1, prior.last_seq)
    // Beyond (or across) the chain's end now: the truncation, which the head check reports.
    if (cutAfter !== null && to > cutAfter) continue
    const pr = p?.rows ?? 0
    const nr = n?.rows ?? 0
    if (nr < pr) diffs.push({ kind: 'deleted', from, to, count: pr - nr })
    else diffs.push({ kind: 'rewritten', from, to, count: Math.max(1, nr) })
  }
  const out: Finding[] = []
  for (const d of diffs) {
    const last = out[out.length - 1]
    if (last && last.kind === d.kind && last.to_seq + 1 === d.from) {
      last.to_seq = d.to
      last.count += d.count
    } else out.push({ kind: d.kind, from_seq: d.from, to_seq: d.to, count: d.count })
  }
  // The digest differs, yet no block says where and the chain was not cut: the whole range differs.
  if (out.length === 0 && cutAfter === null)
    out.push({
      kind: 'rewritten',
      from_seq: prior.first_seq,
      to_seq: prior.last_seq,
      count: Math.max(1, now.count),
    })
  return out
}
