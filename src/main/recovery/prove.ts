// From carved records to recovered rows, and what can be proven about each (reference §3.2):
// - every record is placed by its sealed links only (./place.ts): a rowid proves nothing; copies of
//   live rows (same prev_hash, canonical_hash, hmac_hash and body) are dropped;
// - a record no link places is `unplaced` (never a finding); a run of them linked to each other is
//   one run (a foreign chain sealed under the same key, a test chain cleared from the file);
// - the many copies of one version are merged into one row per (seq, hmac_hash) with all sources;
// - sha256(body) = canonical_hash? which candidate key reproduces HMAC-SHA256(key, prev ‖ canonical)?
//   what does prev_hash link to?
import type { RecoveredLink, RecoveredRow, RecoverySource } from '../../shared/recovery-types'
import { GENESIS_HASH, makeSealer, sha256Hex } from '../chain/seal'
import type { KeyMaterial } from '../chain/keys'
import type { RawHit } from './record'
import type { LiveChain } from './live'
import { multimap, place, unplacedRuns, type Candidate, type Found } from './place'

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
  /** Rows seen only in WAL frames after the last commit of the current generation, or in pages a hot journal rolls back. */
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
        seq: null,
        rowid: rec.rowid,
        origin: null,
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
    // A rowid that disagrees with the seq the links give is kept, to be reported.
    if (c.rowid !== null && c.rowid !== c.seq && (m.rowid === null || m.rowid === m.seq)) m.rowid = c.rowid
  }
  return [...out.values()]
}

const SOURCE_ORDER = ['db', 'wal', 'journal']

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

/**
 * Copies of a live row whose live body does not hash to its canonical_hash (`liveBodyBad`: seqs where
 * verify found a body_hash_mismatch) while a body found for the copy does: the copy is the original
 * body, an earlier version — not a copy.
 */
function bodyOriginals(copies: Set<Candidate>, liveBodyBad: ReadonlySet<bigint>): void {
  if (liveBodyBad.size === 0) return
  for (const c of [...copies])
    if (c.seq !== null && liveBodyBad.has(c.seq) && c.sources.some((f) => check(f, c.canonical).ok === true))
      copies.delete(c)
}

/** The sealed fields (and the body) in which `c` differs from the live row `r` at its seq. */
function changedFrom(
  c: Candidate,
  r: { canonical: string | null; prev: string | null; hmac: string | null },
  liveBodyBad: boolean,
): NonNullable<RecoveredRow['changed']> {
  const out: NonNullable<RecoveredRow['changed']> = []
  if (r.canonical !== c.canonical) out.push('canonical_hash')
  if (r.prev !== c.prev) out.push('prev_hash')
  if (r.hmac !== c.hmac) out.push('hmac_hash')
  if (r.canonical !== c.canonical || liveBodyBad) out.push('body')
  return out
}

/**
 * Seen only on free pages of the database file (or in places known uncommitted): where a
 * rolled-back transaction's rows can lie. In a rollback-journal database a transaction that reuses a
 * freelist leaf does not journal it (pager.c: a page got with PAGER_GET_NOCONTENT is marked as in the
 * journal already), so when its pages spill to the file and it then rolls back — a writer's failed
 * batch, a crash mid-commit — the rollback frees the page again and leaves its rows there, never
 * committed; the writer then seals its next rows after the same head (a fork).
 */
const onFreePages = (sources: RecoverySource[]): boolean =>
  sources.every(
    (s) => s.committed === false || (s.file === 'db' && s.kind === 'freelist' && s.committed === undefined),
  )

/**
 * A WAL frame no commit is known for (./wal-frames.ts): of an earlier generation whose frames do not
 * chain to a commit frame. A transaction in WAL mode that spilled its frames and rolled back leaves
 * them so once a checkpoint restarts the WAL: rows past the head at seqs sqlite_sequence never
 * reached, and, when the writer seals its next rows after the same head, a fork of them.
 */
export const commitUnproven = (s: RecoverySource): boolean =>
  s.file === 'wal' && s.kind === 'wal_frame' && s.committed !== true

/**
 * Whether a placed, sealed row may be a rolled-back transaction's (never a finding; set apart with
 * the uncommitted, and said in a notice, ./findings.ts):
 * - past the live head, on free pages (or in WAL frames no commit is known for) only, at a seq no commit ever reached by the chain's
 *   sqlite_sequence (on a journaled page, a rollback takes it back to the last committed seq; a tail
 *   cut by DELETE leaves it where the commits took it — only a hand-made UPDATE lowers it);
 * - a second row sealed after the same row as a live one that verifies too (a fork), on free pages
 *   or in WAL frames no commit is known for, only: the writer's retry after its failed batch looks so, as does a reseal whose earlier version
 *   survives only there; nothing proves the recovered one was ever committed. (An earlier version
 *   that verifies where the live row does not, `original`, is not a fork: the live row fails.)
 */
function mayBeRolledBack(
  status: RecoveredRow['status'],
  seq: bigint,
  original: boolean,
  sources: RecoverySource[],
  live: LiveChain,
): boolean {
  if (!sources.every((s) => onFreePages([s]) || commitUnproven(s))) return false
  if (status === 'superseded') return !original
  if (status !== 'deleted' || live.last === null || seq <= live.last) return false
  const witness = live.sequence()
  return witness === null || seq > witness
}

type Sealers = { index: number; sealer: ReturnType<typeof makeSealer> }[]

const keyOf = (sealers: Sealers, prev: string, canonical: string, hmac: string): number | null =>
  sealers.find((s) => s.sealer.seal(prev, canonical) === hmac)?.index ?? null

/**
 * Recovered rows from the carver's hits, proven against the candidate keys and placed by their links.
 * `liveBodyBad`: seqs whose live body does not hash to its canonical_hash (from verify), where a
 * record with the same hashes but a body that does is the original, not a copy.
 */
export function proveHits(
  hits: RawHit[],
  live: LiveChain,
  keys: KeyMaterial[],
  liveBodyBad: ReadonlySet<bigint> = new Set(),
): Proven {
  const cands = group(hits)
  const sealers: Sealers = keys.map((k) => ({ index: k.index, sealer: makeSealer(k.bytes) }))
  // Without a key nothing is proven and no row is a finding: links are shown as found.
  const proof = new Map<string, boolean>()
  const sealed = (c: { prev: string; canonical: string; hmac: string }): boolean => {
    if (sealers.length === 0) return true
    const k = sealKey(c)
    let ok = proof.get(k)
    if (ok === undefined) proof.set(k, (ok = keyOf(sealers, c.prev, c.canonical, c.hmac) !== null))
    return ok
  }
  const copies = place(cands, live, sealed)
  bodyOriginals(copies, liveBodyBad)
  const kept = merge(cands.filter((c) => !copies.has(c)))
  const keptByHmac = multimap(kept, (c) => c.hmac)
  const superseded = new Set<bigint>()
  for (const c of kept) if (c.seq !== null && live.row(c.seq)) superseded.add(c.seq)
  const liveSources = liveSourcesAt(superseded, copies, live)
  const rows: RecoveredRow[] = []
  const uncommitted: RecoveredRow[] = []
  for (const c of kept) {
    const sources = sortSources(c.sources, c.canonical)
    const { body, ok } = bestBody(c)
    const keyIndex = keyOf(sealers, c.prev, c.canonical, c.hmac)
    const liveAt = c.seq !== null ? liveSources.get(c.seq) : undefined
    const liveRow = c.seq !== null ? live.row(c.seq) : undefined
    let status: RecoveredRow['status'] = 'deleted'
    if (c.seq === null) status = 'unplaced'
    else if (liveRow) status = 'superseded'
    else if (live.first !== null && c.seq < live.first) status = 'before_live'
    const extra: Partial<RecoveredRow> = {}
    if (c.rowid !== null && c.rowid !== c.seq) {
      const n = Number(c.rowid)
      if (Number.isSafeInteger(n)) extra.rowid = n
    }
    if (liveRow) {
      extra.changed = changedFrom(c, liveRow, liveBodyBad.has(c.seq!))
      const liveKey =
        liveRow.prev !== null && liveRow.canonical !== null && liveRow.hmac !== null
          ? keyOf(sealers, liveRow.prev, liveRow.canonical, liveRow.hmac)
          : null
      // This version verifies and the live one does not (nor its body hashes): this is the original.
      if (keyIndex !== null && (liveKey === null || liveBodyBad.has(c.seq!))) extra.original = true
    }
    const row: RecoveredRow = {
      ...seqFields(c.seq),
      seq_origin: c.seq === null ? null : c.origin,
      canonical_hash: c.canonical,
      prev_hash: c.prev,
      hmac_hash: c.hmac,
      status,
      ...extra,
      body_ok: ok,
      key_index: keyIndex,
      links_to: linkOf(c, live, keptByHmac),
      timestamp_ns: c.ts === null ? null : c.ts.toString(),
      sources,
      source: sources[0]!,
      ...(liveAt && superseded.has(c.seq!) ? { live_sources: liveAt } : {}),
      ...(body !== null ? { body_b64: body.toString('base64') } : {}),
    }
    // Seen only in a transaction that never committed: WAL frames after the last commit, or database
    // pages a hot journal's rollback replaces.
    // (A WAL frame is committed: false only after the current generation's last commit, or when it
    // still has the zero salts of a write that never committed: ./wal-frames.ts.)
    const inFlight =
      sources.every((s) => s.committed === false && (s.file === 'db' || s.file === 'wal')) ||
      (keyIndex !== null &&
        c.seq !== null &&
        mayBeRolledBack(status, c.seq, extra.original === true, sources, live))
    ;(inFlight ? uncommitted : rows).push(row)
  }
  const order = (a: RecoveredRow, b: RecoveredRow): number =>
    (a.seq ?? Infinity) - (b.seq ?? Infinity) || a.hmac_hash.localeCompare(b.hmac_hash)
  rows.sort(order)
  uncommitted.sort(order)
  // Unplaced rows joined to each other by links: one run each (a foreign chain is one run).
  const unplaced = rows.filter((r) => r.status === 'unplaced')
  unplacedRuns(unplaced).forEach((run, i) => (unplaced[i]!.run = run))
  let copiesOfLive = 0
  for (const c of copies) copiesOfLive += c.sources.length
  return { rows, uncommitted, copiesOfLive }
}
