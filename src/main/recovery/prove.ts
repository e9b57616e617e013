// From carved records to recovered rows, and what can be proven about each (reference §3.2):
// - copies of a live row (same seq and hmac_hash, or the same sealed inputs; or its hmac_hash at
//   another seq, a renumbered row) are dropped: old page versions hold every live row many times;
// - a row without its rowid is placed by the chain itself: its prev_hash is its predecessor's
//   hmac_hash, its hmac_hash its successor's prev_hash (among recovered rows, then live rows near
//   where it was found, then — only if still unplaced — every live row);
// - the many copies of one version are merged into one row per (seq, hmac_hash) with all sources;
// - sha256(body) = canonical_hash? which candidate key reproduces HMAC-SHA256(key, prev ‖ canonical)?
//   what does prev_hash link to?
import type { RecoveredLink, RecoveredRow, RecoverySource } from '../../shared/recovery-types'
import { GENESIS_HASH, makeSealer, sha256Hex } from '../chain/seal'
import type { KeyMaterial } from '../chain/keys'
import type { RawHit } from './carve'
import type { LiveChain } from './live'

interface Candidate {
  seq: bigint | null
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
interface Found {
  at: RecoverySource
  readBody: () => Buffer | null
  body?: Buffer | null
  ok?: boolean | null
}

/** The body of `f` and whether it hashes to `canonical` (read once). */
function check(f: Found, canonical: string): { body: Buffer | null; ok: boolean | null } {
  if (f.ok === undefined) {
    f.body = f.readBody()
    f.ok = f.body === null ? null : sha256Hex(f.body) === canonical
  }
  return { body: f.body ?? null, ok: f.ok }
}

/** The body to report: the first found that hashes right, else the first that survived. */
function bestBody(c: Candidate): { body: Buffer | null; ok: boolean | null } {
  let first: { body: Buffer | null; ok: boolean | null } = { body: null, ok: null }
  for (const f of c.sources) {
    const r = check(f, c.canonical)
    if (r.ok) return r
    if (first.body === null && r.body !== null) first = r
  }
  return first
}

export interface Proven {
  rows: RecoveredRow[]
  /** Rows seen only in WAL frames after the last commit of the current generation. */
  uncommitted: RecoveredRow[]
  copiesOfLive: number
}

const sealKey = (c: { hmac: string; prev: string; canonical: string }): string =>
  `${c.hmac}${c.prev}${c.canonical}`

/** One candidate per (rowid, sealed values). */
function group(hits: RawHit[]): Candidate[] {
  const byKey = new Map<string, Candidate>()
  for (const { rec, source, neighbours } of hits) {
    const key = `${rec.rowid ?? '-'}|${sealKey(rec)}`
    let c = byKey.get(key)
    if (!c) {
      c = {
        seq: rec.rowid,
        origin: rec.rowid === null ? null : 'rowid',
        canonical: rec.canonical,
        prev: rec.prev,
        hmac: rec.hmac,
        ts: rec.ts,
        sources: [],
        neighbours: new Set(),
      }
      byKey.set(key, c)
    }
    c.sources.push({ at: source, readBody: () => rec.readBody() })
    for (const n of neighbours) c.neighbours.add(n)
  }
  return [...byKey.values()]
}

function isCopyOf(
  live: { hmac: string | null; prev: string | null; canonical: string | null },
  c: Candidate,
): boolean {
  return live.hmac === c.hmac || (live.prev === c.prev && live.canonical === c.canonical)
}

/** Map values of `key(x)` to the xs that have it. */
function multimap<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const x of xs) {
    const k = key(x)
    const list = m.get(k)
    if (list) list.push(x)
    else m.set(k, [x])
  }
  return m
}

/**
 * Give every candidate the chain can place a seq; returns those that turn out to be live rows. Each
 * placed row places the rows linked to it (breadth first: linear in the rows and their links).
 */
function place(cands: Candidate[], live: LiveChain): Set<Candidate> {
  const copies = new Set<Candidate>()
  const open = (c: Candidate): boolean => c.seq === null && !copies.has(c)
  const byPrev = multimap(cands, (c) => c.prev)
  const byHmac = multimap(cands, (c) => c.hmac)
  const queue: Candidate[] = []
  const setSeq = (c: Candidate, seq: bigint): void => {
    c.seq = seq
    c.origin = 'chain'
    queue.push(c)
  }
  let head = 0
  const propagate = (): void => {
    for (; head < queue.length; head++) {
      const k = queue[head]!
      for (const u of byPrev.get(k.hmac) ?? []) if (open(u)) setSeq(u, k.seq! + 1n)
      for (const u of byHmac.get(k.prev) ?? []) if (open(u)) setSeq(u, k.seq! - 1n)
    }
  }
  // The same sealed values found elsewhere with their rowid, and rows linked to GENESIS.
  const bySeal = new Map<string, bigint>()
  for (const c of cands) if (c.seq !== null) bySeal.set(sealKey(c), c.seq)
  for (const c of cands) {
    if (c.seq !== null) queue.push(c)
    else if (bySeal.has(sealKey(c))) setSeq(c, bySeal.get(sealKey(c))!)
    else if (c.prev === GENESIS_HASH) setSeq(c, 1n)
  }
  propagate()
  // Live rows near where a row was found (the cells of its page) and next to the rows placed so far.
  const tryLive = (c: Candidate, h: bigint): boolean => {
    const r = live.row(h)
    if (!r) return false
    if (r.hmac === c.hmac) copies.add(c)
    else if (r.hmac === c.prev) setSeq(c, h + 1n)
    else if (r.prev === c.hmac) setSeq(c, h - 1n)
    return !open(c)
  }
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
      if (same !== undefined) copies.add(c)
      else if (pred !== undefined) setSeq(c, pred + 1n)
      else if (succ !== undefined) setSeq(c, succ - 1n)
      else for (const h of c.neighbours) if (tryLive(c, h)) break
      placed ||= !open(c)
    }
    propagate()
    if (!placed) break
  }
  // Still unplaced: every live row is read once.
  if (cands.some(open)) {
    const index = live.index()
    for (const c of cands) {
      if (!open(c)) continue
      const same = index.byHmac.get(c.hmac)
      const pred = index.byHmac.get(c.prev)
      const succ = index.byPrev.get(c.hmac)
      if (same !== undefined) copies.add(c)
      else if (pred !== undefined) setSeq(c, pred + 1n)
      else if (succ !== undefined) setSeq(c, succ - 1n)
    }
    propagate()
  }
  for (const c of cands) {
    if (c.seq === null || copies.has(c)) continue
    const r = live.row(c.seq)
    if (r && isCopyOf(r, c)) copies.add(c)
  }
  // The same sealed row living at another seq (renumbered, or a cell of a transaction's intermediate
  // state): not a deleted or earlier version. Only when something is left is every live row read.
  if (cands.some((c) => !copies.has(c))) {
    const { byHmac: liveHmacs } = live.index()
    for (const c of cands) if (!copies.has(c) && liveHmacs.has(c.hmac)) copies.add(c)
  }
  return copies
}

/** One candidate per (seq, hmac_hash): copies of one version found in several places, merged. */
function merge(cands: Candidate[]): Candidate[] {
  const out = new Map<string, Candidate>()
  for (const c of cands) {
    const key = `${c.seq ?? '-'}|${sealKey(c)}`
    const m = out.get(key)
    if (!m) {
      out.set(key, { ...c, sources: [...c.sources] })
      continue
    }
    m.sources.push(...c.sources)
    if (m.origin !== 'rowid' && c.origin === 'rowid') m.origin = 'rowid'
  }
  return [...out.values()]
}

const SOURCE_ORDER = ['db', 'wal']

/**
 * Where the version was found, in file order; where its body survived somewhere, the places where
 * it did not are left out (they are other records whose tail this one overwrote).
 */
function sortSources(found: Found[], canonical: string): RecoverySource[] {
  const seen = new Set<string>()
  const intact = found.some((f) => check(f, canonical).ok === true)
  return found
    .filter((f) => !intact || check(f, canonical).ok === true)
    .map((f) => f.at)
    .filter((x) => {
      const k = `${x.file}:${x.offset}`
      if (seen.has(k)) return false
      seen.add(k)
      return true
    })
    .sort((a, b) => SOURCE_ORDER.indexOf(a.file) - SOURCE_ORDER.indexOf(b.file) || a.offset - b.offset)
}

function seqFields(seq: bigint | null): Pick<RecoveredRow, 'seq' | 'seq_exact'> {
  if (seq === null) return { seq: null }
  const n = Number(seq)
  return Number.isSafeInteger(n) ? { seq: n } : { seq: n, seq_exact: seq.toString() }
}

function linkOf(c: Candidate, live: LiveChain, byHmac: Map<string, Candidate[]>): RecoveredLink {
  if (c.prev === GENESIS_HASH) return { to: 'genesis', seq: null }
  if (c.seq !== null) {
    const r = live.row(c.seq - 1n)
    if (r && r.hmac === c.prev) return { to: 'live', seq: Number(c.seq - 1n) }
  }
  const rec = byHmac.get(c.prev)?.find((k) => k !== c)
  if (rec) return { to: 'recovered', seq: rec.seq === null ? null : Number(rec.seq) }
  if (live.indexed) {
    const s = live.index().byHmac.get(c.prev)
    if (s !== undefined) return { to: 'live', seq: Number(s) }
  }
  return { to: 'none', seq: null }
}

/**
 * Where the live version of each seq in `seqs` was found in older page versions: the copies whose seq
 * is that seq and whose hmac_hash is the live row's (bodies are not read: only places are reported).
 */
function liveSourcesAt(
  seqs: Set<bigint>,
  copies: Set<Candidate>,
  live: LiveChain,
): Map<bigint, RecoverySource[]> {
  const out = new Map<bigint, RecoverySource[]>()
  if (seqs.size === 0) return out
  for (const c of copies) {
    if (c.seq === null || !seqs.has(c.seq) || live.row(c.seq)?.hmac !== c.hmac) continue
    const list = out.get(c.seq)
    if (list) list.push(...c.sources.map((f) => f.at))
    else
      out.set(
        c.seq,
        c.sources.map((f) => f.at),
      )
  }
  for (const [seq, list] of out) {
    const seen = new Set<string>()
    out.set(
      seq,
      list
        .filter((x) => {
          const k = `${x.file}:${x.offset}`
          if (seen.has(k)) return false
          seen.add(k)
          return true
        })
        .sort((a, b) => SOURCE_ORDER.indexOf(a.file) - SOURCE_ORDER.indexOf(b.file) || a.offset - b.offset),
    )
  }
  return out
}

/** Recovered rows from the carver's hits, proven against the candidate keys. */
export function proveHits(hits: RawHit[], live: LiveChain, keys: KeyMaterial[]): Proven {
  const cands = group(hits)
  const copies = place(cands, live)
  const kept = merge(cands.filter((c) => !copies.has(c)))
  const keptByHmac = multimap(kept, (c) => c.hmac)
  const sealers = keys.map((k) => ({ index: k.index, sealer: makeSealer(k.bytes) }))
  const superseded = new Set<bigint>()
  for (const c of kept) if (c.seq !== null && live.row(c.seq)) superseded.add(c.seq)
  const liveSources = liveSourcesAt(superseded, copies, live)
  const rows: RecoveredRow[] = []
  const uncommitted: RecoveredRow[] = []
  for (const c of kept) {
    const sources = sortSources(c.sources, c.canonical)
    const { body, ok } = bestBody(c)
    const keyIndex = sealers.find((s) => s.sealer.seal(c.prev, c.canonical) === c.hmac)?.index ?? null
    const liveAt = c.seq !== null ? liveSources.get(c.seq) : undefined
    const row: RecoveredRow = {
      ...seqFields(c.seq),
      seq_origin: c.seq === null ? null : c.origin,
      canonical_hash: c.canonical,
      prev_hash: c.prev,
      hmac_hash: c.hmac,
      status: c.seq !== null && live.row(c.seq) ? 'superseded' : 'deleted',
      body_ok: ok,
      key_index: keyIndex,
      links_to: linkOf(c, live, keptByHmac),
      timestamp_ns: c.ts === null ? null : c.ts.toString(),
      sources,
      source: sources[0]!,
      ...(liveAt && superseded.has(c.seq!) ? { live_sources: liveAt } : {}),
      ...(body !== null ? { body_b64: body.toString('base64') } : {}),
    }
    const inFlight = sources.every((s) => s.file === 'wal' && s.generation === 0 && s.committed === false)
    ;(inFlight ? uncommitted : rows).push(row)
  }
  const order = (a: RecoveredRow, b: RecoveredRow): number =>
    (a.seq ?? Infinity) - (b.seq ?? Infinity) || a.hmac_hash.localeCompare(b.hmac_hash)
  rows.sort(order)
  uncommitted.sort(order)
  let copiesOfLive = 0
  for (const c of copies) copiesOfLive += c.sources.length
  return { rows, uncommitted, copiesOfLive }
}
