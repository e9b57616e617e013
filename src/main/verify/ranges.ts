// Merging per-row results into ranges of consecutive rows. Rows are identified by their ordinal in
// the verified range, so partitions verified apart (worker threads) merge exactly as one pass would.
import type { Finding, FindingKind, KeySegment } from '../../shared/verify-types'

export interface OrdRange<T> {
  value: T
  from_seq: number
  to_seq: number
  count: number
  missing: number
  firstOrd: number
  lastOrd: number
}

export class RangeBuilder<T> {
  private open = new Map<T, OrdRange<T>>()
  readonly closed: OrdRange<T>[] = []

  add(value: T, seq: number, ord: number, missing = 0): void {
    const cur = this.open.get(value)
    if (cur && cur.lastOrd === ord - 1) {
      cur.to_seq = seq
      cur.count++
      cur.missing += missing
      cur.lastOrd = ord
      return
    }
    if (cur) this.closed.push(cur)
    this.open.set(value, {
      value,
      from_seq: seq,
      to_seq: seq,
      count: 1,
      missing,
      firstOrd: ord,
      lastOrd: ord,
    })
  }

  finish(): OrdRange<T>[] {
    for (const r of this.open.values()) this.closed.push(r)
    this.open.clear()
    return this.closed.sort((a, b) => a.firstOrd - b.firstOrd)
  }
}

/** Join ranges from several partitions where one ends on the row before the next begins. */
export function mergeAdjacent<T>(ranges: OrdRange<T>[]): OrdRange<T>[] {
  const sorted = [...ranges].sort((a, b) => a.firstOrd - b.firstOrd)
  const lastByValue = new Map<T, OrdRange<T>>()
  const out: OrdRange<T>[] = []
  for (const r of sorted) {
    const prev = lastByValue.get(r.value)
    if (prev && prev.lastOrd === r.firstOrd - 1) {
      prev.to_seq = r.to_seq
      prev.count += r.count
      prev.missing += r.missing
      prev.lastOrd = r.lastOrd
      continue
    }
    const copy = { ...r }
    out.push(copy)
    lastByValue.set(r.value, copy)
  }
  return out
}

/** Order of kinds on the same row: the order the checks are made in. */
export const KIND_ORDER: readonly FindingKind[] = [
  'seq_out_of_range',
  'seq_gap',
  'body_hash_mismatch',
  'link_mismatch',
  'hmac_mismatch',
  'column_mismatch',
  'truncated',
  'rewritten',
  'deleted',
]

export function toFindings(ranges: OrdRange<FindingKind>[]): Finding[] {
  return [...ranges]
    .sort((a, b) => a.from_seq - b.from_seq || KIND_ORDER.indexOf(a.value) - KIND_ORDER.indexOf(b.value))
    .map((r) => {
      const f: Finding = { kind: r.value, from_seq: r.from_seq, to_seq: r.to_seq, count: r.count }
      if (r.value === 'seq_gap' || r.value === 'truncated') f.missing = r.missing
      return f
    })
}

export function toKeySegments(ranges: OrdRange<number>[]): KeySegment[] {
  return [...ranges]
    .sort((a, b) => a.firstOrd - b.firstOrd)
    .map((r) => ({ key_index: r.value, from_seq: r.from_seq, to_seq: r.to_seq, count: r.count }))
}
