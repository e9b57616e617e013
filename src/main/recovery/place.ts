// Placing recovered records in the chain by their sealed links only (issue 39). A key proves who
// sealed a row; its prev_hash, covered by the HMAC, proves what it was sealed after; its rowid is
// unsealed and proves nothing. So a record belongs to this chain only when sealed links join it to
// rows already placed — the live rows first, then placed records, repeatedly:
// - its prev_hash is a placed row's hmac_hash (it follows that row: seq + 1), or
// - its hmac_hash is a placed row's prev_hash (that row follows it: seq − 1).
// GENESIS places nothing (every chain, a test chain cleared from the same file as much as another
// service's chain, starts there). A link is sealed only by a row a key proves: a record no candidate
// key reproduces may be placed next to a placed row, but places nothing itself — else one forged
// record (prev_hash = the head's hmac_hash, hmac_hash = a foreign run's prev_hash) would draw a whole
// run of another chain's genuine rows into this one as truncated, deleted or rewritten. The same
// holds of the live rows: one whose HMAC no key reproduces (its hmac_hash or prev_hash edited to a
// foreign run's link) anchors nothing, nor do its copies. A rowid is only a hint of where to look; when the record's rowid
// disagrees with the seq its links give, the rowid is reported beside it.
// A copy of a live row is a record with the same prev_hash, canonical_hash and hmac_hash (its body,
// when the live row's body does not hash right, is compared in ./prove.ts): old page versions hold
// every live row many times, and they are dropped.
import type { RecoverySource } from '../../shared/recovery-types'
import type { LiveChain, LiveRow } from './live'

export interface Candidate {
  seq: bigint | null
  /** The rowid of the record as found (null where its cell header did not survive). */
  rowid: bigint | null
  origin: 'rowid' | 'chain' | null
  canonical: string
  prev: string
  hmac: string
  ts: bigint | null
  sources: Found[]
  neighbours: Set<bigint>
}

/**
 * A place the version was found, and the body read there: read, and checked against the
 * canonical_hash, only for rows that are reported (most records found are copies of live rows).
 */
export interface Found {
  at: RecoverySource
  readBody: () => Buffer | null
  body?: Buffer | null
  ok?: boolean | null
}

/** Map values of `key(x)` to the xs that have it. */
export function multimap<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const x of xs) {
    const k = key(x)
    const list = m.get(k)
    if (list) list.push(x)
    else m.set(k, [x])
  }
  return m
}

/** Same sealed inputs and seal as the live row. */
export const sameSeal = (l: LiveRow, c: Candidate): boolean =>
  l.hmac === c.hmac && l.prev === c.prev && l.canonical === c.canonical

/**
 * Give every record its seq by links; returns the copies of live rows (each with the seq of the live
 * row it copies). Records nothing links keep `seq: null`. `sealed(x)`: whether a candidate key
 * reproduces the HMAC of a record or live row (asked only of those a link would place a record
 * from, so of few). Breadth first over the links among the
 * records (linear in them); the live chain is asked at the seqs the records' rowids and page
 * neighbours hint at, and only when records are still open, read whole once.
 */
export function place(
  cands: Candidate[],
  live: LiveChain,
  sealed: (c: { prev: string; canonical: string; hmac: string }) => boolean = () => true,
): Set<Candidate> {
  /** The live row at h when a key reproduces its HMAC (asked only where it would place a record). */
  const anchor = (h: bigint): LiveRow | undefined => {
    const r = live.row(h)
    return r &&
      r.prev !== null &&
      r.canonical !== null &&
      r.hmac !== null &&
      sealed({ prev: r.prev, canonical: r.canonical, hmac: r.hmac })
      ? r
      : undefined
  }
  const copies = new Set<Candidate>()
  const open = (c: Candidate): boolean => c.seq === null && !copies.has(c)
  const byPrev = multimap(cands, (c) => c.prev)
  const byHmac = multimap(cands, (c) => c.hmac)
  const queue: Candidate[] = []
  const setSeq = (c: Candidate, seq: bigint): void => {
    c.seq = seq
    c.origin = c.rowid === seq ? 'rowid' : 'chain'
    queue.push(c)
  }
  const copyOf = (c: Candidate, seq: bigint): void => {
    c.seq = seq
    c.origin = c.rowid === seq ? 'rowid' : 'chain'
    copies.add(c)
    queue.push(c)
  }
  let head = 0
  const propagate = (): void => {
    for (; head < queue.length; head++) {
      const k = queue[head]!
      // A record (a copy of a live row too) places others only when a key proves it; asked only when
      // it would place one, so copies of live rows, most records, are not proven again.
      const next = byPrev.get(k.hmac)
      const before = byHmac.get(k.prev)
      if (!(next?.some(open) || before?.some(open)) || !sealed(k)) continue
      for (const u of next ?? []) if (open(u)) setSeq(u, k.seq! + 1n)
      for (const u of before ?? []) if (open(u)) setSeq(u, k.seq! - 1n)
    }
  }
  /** c against the live row at h: a copy of it, its successor or its predecessor. */
  const probe = (c: Candidate, h: bigint): boolean => {
    const r = live.row(h)
    if (!r) return false
    if (sameSeal(r, c)) copyOf(c, h)
    else if (r.hmac !== null && r.hmac === c.prev && anchor(h)) setSeq(c, h + 1n)
    else if (r.prev !== null && r.prev === c.hmac && anchor(h)) setSeq(c, h - 1n)
    return !open(c)
  }
  /** c as the row at seq h: a copy of the live row there, or linked to its live neighbours. */
  const probeAt = (c: Candidate, h: bigint): boolean => {
    const r = live.row(h)
    if (r && sameSeal(r, c)) {
      copyOf(c, h)
      return true
    }
    const p = live.row(h - 1n)
    if (p?.hmac != null && p.hmac === c.prev && anchor(h - 1n)) {
      setSeq(c, h)
      return true
    }
    const s = live.row(h + 1n)
    if (s?.prev != null && s.prev === c.hmac && anchor(h + 1n)) {
      setSeq(c, h)
      return true
    }
    return false
  }
  // The seq the rowid hints at; then the cells of the page it was found on.
  for (const c of cands) {
    if (!open(c)) continue
    if (c.rowid !== null && probeAt(c, c.rowid)) continue
    for (const h of c.neighbours) if (probe(c, h)) break
  }
  propagate()
  // Live rows next to the rows placed so far.
  for (let round = 0; round < 4 && cands.some(open); round++) {
    const near = new Set<bigint>()
    for (const c of cands) if (c.seq !== null) near.add(c.seq - 1n).add(c.seq + 1n)
    const liveNear = new Map<string, bigint>()
    for (const h of near) {
      const r = live.row(h)
      if (r?.hmac) liveNear.set(`h${r.hmac}`, h)
      if (r?.prev) liveNear.set(`p${r.prev}`, h)
    }
    let placed = false
    for (const c of cands) {
      if (!open(c)) continue
      const same = liveNear.get(`h${c.hmac}`)
      const pred = liveNear.get(`h${c.prev}`)
      const succ = liveNear.get(`p${c.hmac}`)
      if (same !== undefined && sameSeal(live.row(same)!, c)) copyOf(c, same)
      else if (pred !== undefined && anchor(pred)) setSeq(c, pred + 1n)
      else if (succ !== undefined && anchor(succ)) setSeq(c, succ - 1n)
      placed ||= !open(c)
    }
    propagate()
    if (!placed) break
  }
  // Still open: every live row is read once.
  if (cands.some(open)) {
    const index = live.index()
    for (const c of cands) {
      if (!open(c)) continue
      const same = index.byHmac.get(c.hmac)
      const pred = index.byHmac.get(c.prev)
      const succ = index.byPrev.get(c.hmac)
      if (same !== undefined && sameSeal(live.row(same)!, c)) copyOf(c, same)
      else if (pred !== undefined && anchor(pred)) setSeq(c, pred + 1n)
      else if (succ !== undefined && anchor(succ)) setSeq(c, succ - 1n)
    }
    propagate()
  }
  // A placed record whose seal is the live row's at its seq; or the same sealed row living at another
  // seq (renumbered, or a cell of a transaction's intermediate state): not a deleted or earlier version.
  for (const c of cands) {
    if (c.seq === null || copies.has(c)) continue
    const r = live.row(c.seq)
    if (r && sameSeal(r, c)) copies.add(c)
  }
  if (cands.some((c) => c.seq !== null && !copies.has(c))) {
    const { byHmac: liveHmacs } = live.index()
    for (const c of cands) {
      if (c.seq === null || copies.has(c)) continue
      const s = liveHmacs.get(c.hmac)
      if (s !== undefined && s !== c.seq && sameSeal(live.row(s)!, c)) copies.add(c)
    }
  }
  return copies
}

/**
 * Runs of unplaced records joined to each other by links (union–find over prev → hmac): each run is
 * numbered 1, 2, … in order of first appearance in `rows`.
 */
export function unplacedRuns<T extends { prev_hash: string; hmac_hash: string }>(rows: T[]): number[] {
  const parent = rows.map((_, i) => i)
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!
    return i
  }
  const byHmac = multimap(
    rows.map((r, i) => ({ r, i })),
    (x) => x.r.hmac_hash,
  )
  rows.forEach((r, i) => {
    for (const x of byHmac.get(r.prev_hash) ?? []) parent[find(i)] = find(x.i)
  })
  const ids = new Map<number, number>()
  return rows.map((_, i) => {
    const root = find(i)
    if (!ids.has(root)) ids.set(root, ids.size + 1)
    return ids.get(root)!
  })
}
