// What the archive segments given (`--segment`) prove about the live chain itself (issue 39): a
// segment row that a candidate key reproduces (reference §3.2: only a key holder sealed it) and whose
// sealed prev_hash is a live row's hmac_hash was sealed after that live row. When the live chain holds
// another row at the next seq, or none while its head lies past it, two different rows were sealed
// after the same row and committed (a segment is read through SQLite: its rows are committed in it):
// a live row was rewritten (or a row deleted) after the segment was made. The segment's rows that
// follow it by their links continue the other branch. Rows past the live head prove nothing (a copy
// of the live chain taken later holds them honestly); GENESIS places nothing (every chain starts
// there); a segment row equal to the live row is a copy. Each claim names the segment and the key.
import type { Finding, VerifyVerdict } from '../../shared/verify-types'
import { hmacHex, GENESIS_HASH } from '../chain/seal'
import type { KeyMaterial } from '../chain/keys'
import type { RowSource } from '../chain/source/row-source'
import { seqOf, streamRows } from '../chain/source/stream'
import type { ArchiveSegments, SegmentRow } from '../recovery/findings'
import { seqRuns } from '../recovery/findings'
import { KIND_ORDER } from '../verify/ranges'

interface Branch {
  /** The seq the links give this segment row: one past the live row (or branch row) it follows. */
  seq: bigint
  row: SegmentRow
  key: number
}

interface Claim {
  kind: 'rewritten' | 'deleted'
  seq: bigint
  path: string
  key: number
}

/** The candidate key (index) that reproduces the row's seal, or null. */
function keyOf(row: SegmentRow, keys: KeyMaterial[]): number | null {
  for (const k of keys) if (hmacHex(k.bytes, row.prev, row.canonical) === row.hmac) return k.index
  return null
}

/**
 * The claims the segments prove against the live rows of `source`, in one ascending pass over its
 * rows (seq, prev_hash, hmac_hash): a branch waits for the live row at its seq.
 */
export async function segmentClaims(
  source: RowSource,
  keys: KeyMaterial[],
  segments: ArchiveSegments,
  signal?: { aborted: boolean },
): Promise<Claim[]> {
  const rows = segments.rows
  if (!rows || rows.size === 0 || keys.length === 0) return []
  const claims: Claim[] = []
  // Branches waiting for the live row at their seq. Each segment row opens at most once (live rows
  // sharing one hmac_hash, crafted, cannot make the pass rows × segment rows).
  let pending: Branch[] = []
  const opened = new Set<string>()
  const open = (after: string, seq: bigint): void => {
    if (after === GENESIS_HASH) return
    // One entry per sealed row: the same segment given twice, or two sharing rows, add none.
    for (const row of rows.after(after)) {
      if (opened.has(row.hmac)) continue
      opened.add(row.hmac)
      const key = keyOf(row, keys)
      if (key !== null) pending.push({ seq, row, key })
    }
  }
  // A branch at its seq, where the live chain has the row sealed as `live` (null: no row there).
  const settle = (b: Branch, live: string | null): void => {
    if (live === b.row.hmac) return // the live row itself: nothing diverged here
    claims.push({ kind: live === null ? 'deleted' : 'rewritten', seq: b.seq, path: b.row.path, key: b.key })
    open(b.row.hmac, b.seq + 1n)
  }
  const cols = ['prev_hash', 'hmac_hash'] as const
  const mac = source.col('hmac_hash')
  await streamRows(source, { columns: cols, ...(signal ? { signal } : {}) }, (r) => {
    const seq = seqOf(r)
    const hmac = r.text(mac)
    const keep: Branch[] = []
    // `settle` appends the branch's next row to `pending`: it is met in this same loop.
    for (let i = 0; i < pending.length; i++) {
      const b = pending[i]!
      if (b.seq < seq)
        settle(b, null) // a seq the live chain lacks before this row: deleted
      else if (b.seq === seq) settle(b, hmac)
      else keep.push(b)
    }
    pending = keep
    if (hmac !== null) open(hmac, seq + 1n)
  })
  // Branches left wait past the live head: a later copy of the chain holds such rows honestly.
  return claims
}

/** Consecutive seqs of one kind as findings. */
function findingsOf(claims: Claim[]): Finding[] {
  const out: Finding[] = []
  for (const kind of ['rewritten', 'deleted'] as const) {
    const seqs = [...new Set(claims.filter((c) => c.kind === kind).map((c) => Number(c.seq)))].sort(
      (a, b) => a - b,
    )
    for (let i = 0; i < seqs.length;) {
      let j = i
      while (j + 1 < seqs.length && seqs[j + 1] === seqs[j]! + 1) j++
      const [from, to] = [seqs[i]!, seqs[j]!]
      const paths = claims
        .filter((c) => c.kind === kind && Number(c.seq) >= from && Number(c.seq) <= to)
        .map((c) => c.path)
      out.push({ kind, from_seq: from, to_seq: to, count: j - i + 1, segments: [...new Set(paths)] })
      i = j + 1
    }
  }
  return out
}

/** `verdict` with the segments' claims (findings, and a notice naming each segment and key) added. */
export function withSegmentClaims(verdict: VerifyVerdict, claims: Claim[]): VerifyVerdict {
  if (claims.length === 0 || verdict.cancelled) return verdict
  const findings = [...verdict.findings]
  for (const f of findingsOf(claims))
    if (!findings.some((g) => g.kind === f.kind && g.from_seq <= f.from_seq && g.to_seq >= f.to_seq))
      findings.push(f)
  findings.sort((a, b) => a.from_seq - b.from_seq || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind))
  const notices = [...(verdict.notices ?? [])]
  const groups = new Map<string, Claim[]>()
  for (const c of claims) {
    const k = `${c.path}\u0000${c.key}`
    groups.set(k, [...(groups.get(k) ?? []), c])
  }
  for (const list of groups.values()) {
    const { path, key } = list[0]!
    const seqs = list.map((c) => Number(c.seq))
    notices.push(
      `the archive segment ${path} holds rows sealed under key #${key + 1} after rows of the live chain ` +
        `(their sealed prev_hash), at seqs ${seqRuns(seqs)}, where the live chain holds other rows or none: ` +
        'two different rows were sealed after the same row and both committed, so one was rewritten or deleted ' +
        '(or the segment is not an archive of this chain but a copy of it continued under the same key)',
    )
  }
  let firstBad: number | null = null
  for (const f of findings) if (firstBad === null || f.from_seq < firstBad) firstBad = f.from_seq
  return { ...verdict, valid: false, first_bad_seq: firstBad, findings, notices }
}

/** The two steps: the claims the segments prove against `source`'s live rows, added to `verdict`. */
export async function applySegments(
  verdict: VerifyVerdict,
  source: RowSource,
  keys: KeyMaterial[],
  segments: ArchiveSegments | undefined,
  signal?: { aborted: boolean },
): Promise<VerifyVerdict> {
  if (!segments || verdict.cancelled) return verdict
  const claims = await segmentClaims(source, keys, segments, signal)
  // A ranged verdict answers for its range only (as recovery's rows, ../recovery/findings.ts).
  const r = verdict.range
  const inRange = (q: bigint): boolean =>
    !r || (r.from_seq !== null && r.to_seq !== null && q >= BigInt(r.from_seq) && q <= BigInt(r.to_seq))
  return withSegmentClaims(
    verdict,
    claims.filter((c) => inRange(c.seq)),
  )
}
