// Sealed hashes whose record is lost (issue 39, round 10). A row whose body does not fit its leaf
// page keeps its local part there and the rest — the chain's three hashes among it, since they follow
// the body in the reference's record (§1.1: canonical_hash, prev_hash, hmac_hash side by side) — on
// overflow pages (file-format §1.6). When the tail is cut and the writer's file then checkpoints
// (a journal-mode switch WAL→DELETE, wal_checkpoint(TRUNCATE)), the b-tree's rebalancing can
// overwrite a deleted row's leaf cell while its freed overflow page still holds the three hashes
// (a freelist trunk page overwrites only its first 8 + 4·n bytes, §1.5). The record cannot be matched
// (its header is gone), and the rows cut after it, still whole, then link to nothing: an unplaced run,
// and the file read VALID while the hashes that join them to the head lay in it.
//
// So the regions carving reads are also searched for 192 lowercase hex characters: three hashes side
// by side. They are kept apart from the records (never a row by themselves): only those whose
// prev_hash is a sealed row's already placed — the live head's, or a recovered row's — and whose HMAC
// a candidate key reproduces are proven (./prove.ts, like any record: the links decide the seq), so
// a proven row past the head whose leaf cell was lost is a row all the same, its body not recovered.
import type { RecoverySource } from '../../shared/recovery-types'
import type { KeyMaterial } from '../chain/keys'
import { makeSealer } from '../chain/seal'
import type { RawHit } from './record'
import type { LiveChain } from './live'
import type { Proven } from './prove'

/** Distinct hash triples kept per search: past it, the rest are not kept (bounded memory). */
export const MAX_ORPHANS = 1 << 16
const HASH = 64
const TRIPLE = 3 * HASH

export interface Orphan {
  canonical: string
  prev: string
  hmac: string
  source: RecoverySource
}

const isHex = (b: number | undefined): boolean =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66))

/** The hash triples found, one per distinct triple (the first place it was found). */
export class OrphanHashes {
  private readonly byTriple = new Map<string, Orphan>()
  /** Distinct triples not kept past MAX_ORPHANS. */
  dropped = 0

  /**
   * Runs of at least 192 lowercase hex characters in `page` [from, to). A run holding three hashes
   * has a hex byte at three consecutive multiples of 64 from `from`, so only those are looked at
   * first. A run may begin earlier than the hashes (the byte before the record's canonical_hash is
   * the body's last, '}' of a JCS object, so rarely) or go on after them (semantic_body_hash): the
   * triples at its start and those ending 0 or 64 bytes before its end are kept.
   */
  scan(page: Buffer, from: number, to: number, at: (offset: number) => RecoverySource): void {
    for (let p = from; p + 2 * HASH < to; p += HASH) {
      if (!isHex(page[p]) || !isHex(page[p + HASH]) || !isHex(page[p + 2 * HASH])) continue
      let s = p
      while (s > from && isHex(page[s - 1])) s--
      let e = p + 2 * HASH
      while (e < to && isHex(page[e])) e++
      if (e - s >= TRIPLE)
        for (const t of new Set([s, e - TRIPLE, e - TRIPLE - HASH])) if (t >= s) this.keep(page, t, at)
      while (p + HASH < e) p += HASH
    }
  }

  private keep(page: Buffer, t: number, at: (offset: number) => RecoverySource): void {
    const key = page.toString('latin1', t, t + TRIPLE)
    if (this.byTriple.has(key)) return
    if (this.byTriple.size >= MAX_ORPHANS) {
      this.dropped++
      return
    }
    this.byTriple.set(key, {
      canonical: key.slice(0, HASH),
      prev: key.slice(HASH, 2 * HASH),
      hmac: key.slice(2 * HASH),
      source: at(t),
    })
  }

  get size(): number {
    return this.byTriple.size
  }

  values(): IterableIterator<Orphan> {
    return this.byTriple.values()
  }
}

const sealKey = (c: { hmac: string; prev: string; canonical: string }): string =>
  `${c.hmac}${c.prev}${c.canonical}`

/**
 * The triples to prove with the records: those following a sealed row already placed (the live head,
 * or a recovered row given a seq) and those a recovered row given a seq follows, then those next to
 * them, in turn, in the same direction; only triples whose HMAC a candidate key reproduces. A triple
 * that is a carved record's own hashes adds nothing and is left out. Linear in the triples (a map by
 * prev_hash and one by hmac_hash).
 *
 * Then (round 11) the sealed triples still unreached are looked up among every live row's links: a
 * block deleted from the middle of the chain, or a resealed tail, whose records were lost (their
 * leaf cells overwritten, their overflow pages moved by incremental_vacuum or never in the current
 * view) and whose hashes survive only as triples — in WAL frames, free or superseded pages — follows
 * a live row that is not the head, or is followed by one. Their prev_hash is then a live row's
 * hmac_hash (or their hmac_hash a live row's prev_hash), sealed both, and the links place them as any
 * record (./place.ts). A triple whose hmac_hash is a live row's is that row's own (the HMAC covers
 * prev_hash and canonical_hash): left out. The live rows' links are read in one pass (LiveChain.index,
 * built once and shared with placing, which reads it for any record no rowid places) only when such a
 * triple is there: most files have none (the 200k-row bench chain: none); an honest file whose free
 * or older pages hold a live row's triple without its record pays the pass (docs/recovery.md).
 */
export function orphansToProve(
  orphans: OrphanHashes,
  hits: RawHit[],
  live: LiveChain,
  first: Proven,
  keys: KeyMaterial[],
): RawHit[] {
  // Without a key three hashes prove nothing (nor does a triple read one hash off: its HMAC fails).
  if (orphans.size === 0 || keys.length === 0) return []
  const sealers = keys.map((k) => makeSealer(k.bytes))
  const proof = new Map<string, boolean>()
  const sealed = (o: Orphan): boolean => {
    const k = sealKey(o)
    let ok = proof.get(k)
    if (ok === undefined) proof.set(k, (ok = sealers.some((s) => s.seal(o.prev, o.canonical) === o.hmac)))
    return ok
  }
  const carved = new Set(hits.map((h) => sealKey(h.rec)))
  const byPrev = new Map<string, Orphan[]>()
  const byHmac = new Map<string, Orphan[]>()
  const add = (m: Map<string, Orphan[]>, k: string, o: Orphan): void => {
    const list = m.get(k)
    if (list) list.push(o)
    else m.set(k, [o])
  }
  const left: Orphan[] = []
  for (const o of orphans.values())
    if (!carved.has(sealKey(o))) {
      add(byPrev, o.prev, o)
      add(byHmac, o.hmac, o)
      left.push(o)
    }
  if (left.length === 0) return []
  // [hash, forward]: forward, the triples whose prev_hash it is; backward, those whose hmac_hash it is.
  const todo: [string, boolean][] = []
  const head = live.last === null ? undefined : live.row(live.last)
  if (head?.hmac) todo.push([head.hmac, true])
  for (const r of [...first.rows, ...first.uncommitted])
    if (r.seq !== null) todo.push([r.hmac_hash, true], [r.prev_hash, false])
  const out: RawHit[] = []
  const seen = new Set<string>()
  // A triple taken: the walk goes on from it in `forward`'s direction, or both (null).
  const take = (o: Orphan, forward: boolean | null): void => {
    seen.add(sealKey(o))
    if (forward !== false) todo.push([o.hmac, true])
    if (forward !== true) todo.push([o.prev, false])
    out.push({ rec: hashesOnly(o), source: o.source, neighbours: [] })
  }
  const walk = (): void => {
    while (todo.length > 0) {
      const [hash, forward] = todo.pop()!
      for (const o of (forward ? byPrev : byHmac).get(hash) ?? [])
        if (!seen.has(sealKey(o)) && sealed(o)) take(o, forward)
    }
  }
  walk()
  // A triple seen only where no commit is known (WAL frames after the last commit, pages a hot
  // journal rolls back: committed false) proves a row never committed, never a finding: not worth
  // a pass over the live rows (a writer's batch in flight leaves such triples in honest files).
  const rest = left.filter((o) => !seen.has(sealKey(o)) && o.source.committed !== false && sealed(o))
  if (rest.length === 0) return out
  const index = live.index()
  for (const o of rest) {
    if (seen.has(sealKey(o)) || index.byHmac.has(o.hmac)) continue
    if (index.byHmac.has(o.prev) || index.byPrev.has(o.hmac)) {
      take(o, null)
      walk()
    }
  }
  return out
}

/** A record of which only the three hashes survived: no rowid, timestamp or body. */
function hashesOnly(o: Orphan): RawHit['rec'] {
  return {
    start: 0,
    rowid: null,
    headless: true,
    payload: TRIPLE,
    overflow: false,
    ts: null,
    canonical: o.canonical,
    prev: o.prev,
    hmac: o.hmac,
    readBody: () => null,
  }
}
