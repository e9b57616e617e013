// `stats` (reference §4.10): the chain's totals by policy status, the CAS table's dedup, the last 7
// days of the policy's daily token state. The reference parses every body in memory at once
// (§11.20); here the rows are streamed, and a body is parsed only when its bytes could make it
// anything but ALLOWED.
import type { RowSource } from '../chain/source/row-source'
import { bytesOf, streamRows } from '../chain/source/stream'
import { pyFixed, pyFloatRepr } from '../python/pyformat'
import { policyStatusOfBytes, type PolicyStatus } from '../python/py-body'

export interface ChainStats {
  total: number
  by_status: Record<PolicyStatus, number>
  /** null when the file has no `cas` table. */
  cas: { unique_bodies: number; total_refs: bigint | number; dedup_factor: number } | null
  /** The newest 7 `policy_daily_state` rows by date, newest first (empty without the table). */
  policy_days: { date: unknown; total_tokens: unknown }[]
}

/** SQLite's order of values of mixed types (NULL < numbers < text < blob; text and blobs by bytes). */
export function sqliteCompare(a: unknown, b: unknown): number {
  const rank = (v: unknown): number =>
    v === null || v === undefined
      ? 0
      : typeof v === 'bigint' || typeof v === 'number'
        ? 1
        : typeof v === 'string'
          ? 2
          : 3
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  if (ra === 1) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0
  if (ra === 2) return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string))
  if (ra === 3) return Buffer.compare(a as Buffer, b as Buffer)
  return 0
}

export async function chainStats(
  src: RowSource,
  opts: { onProgress?: (done: number, total: number) => void; signal?: { aborted: boolean } } = {},
): Promise<ChainStats> {
  // The side tables first: one the direct reader leaves to SQLite (the reference's DDL has DEFAULT
  // clauses) then sends the whole pass to the copy before the chain's rows are read, not after.
  let unique = 0
  let refs: bigint | number = 0n
  const hasCas = src.scanTable('cas', ['ref_count'], ([v]) => {
    unique++
    // SUM() of integers stays an integer; a REAL among them makes it a float, as in SQLite.
    if (typeof v === 'bigint') refs = typeof refs === 'bigint' ? refs + v : refs + Number(v)
    else if (typeof v === 'number') refs = Number(refs) + v
  })
  const days: { date: unknown; total_tokens: unknown }[] = []
  src.scanTable('policy_daily_state', ['date', 'total_tokens'], ([date, tokens]) => {
    days.push({ date, total_tokens: tokens })
  })
  const by: Record<PolicyStatus, number> = { ALLOWED: 0, WARN: 0, BLOCKED: 0 }
  let total = 0
  const body = src.col('canonical_body')
  await streamRows(src, { columns: ['canonical_body'], ...opts }, (r) => {
    total++
    by[policyStatusOfBytes(bytesOf(r, body))]++
  })
  days.sort((a, b) => sqliteCompare(b.date, a.date))
  return {
    total,
    by_status: by,
    cas: hasCas
      ? { unique_bodies: unique, total_refs: refs, dedup_factor: unique > 0 ? Number(refs) / unique : 0 }
      : null,
    policy_days: days.slice(0, 7),
  }
}

/** Digits grouped by three from the right with ',' (PEP 378). */
const grouped = (digits: string): string => digits.replace(/\B(?=(\d{3})+$)/g, ',')

/**
 * Python's `f"{n:,}"`: an int's digits grouped; a float (a REAL column, as sqlite3 returns it) is
 * formatted with no type, which is repr()'s shortest digits with the integer part grouped — and
 * repr's exponent form as it is (`1e+20`, `1e-07`), `inf`, `nan`, `-0.0` (PEP 378, Format
 * Specification Mini-Language: the None type for float). toLocaleString wrote 1e20 as 21 grouped
 * digits, -0.0 as `-0`, Infinity as `∞`.
 */
function commas(v: unknown): string {
  if (typeof v === 'bigint') return (v < 0n ? '-' : '') + grouped((v < 0n ? -v : v).toString())
  if (typeof v === 'number') {
    const r = pyFloatRepr(v)
    const m = /^(-?)(\d+)(\.\d+)$/.exec(r)
    return m ? `${m[1]}${grouped(m[2]!)}${m[3]}` : r
  }
  return String(v)
}

/** SUM(ref_count) as Python prints it: an int's digits, a float (a REAL among them) as repr(). */
function refsText(v: bigint | number): string {
  return typeof v === 'bigint' ? v.toString() : pyFloatRepr(v)
}

/** The reference's lines. */
export function statsText(s: ChainStats): string {
  const lines = [
    '=== Chain ===',
    `Total spans:    ${s.total}`,
    `  ALLOWED:      ${s.by_status.ALLOWED}`,
    `  WARN:         ${s.by_status.WARN}`,
    `  BLOCKED:      ${s.by_status.BLOCKED}`,
  ]
  if (s.cas) {
    lines.push(
      '',
      '=== CAS ===',
      `Unique bodies:  ${s.cas.unique_bodies}`,
      `Total refs:     ${refsText(s.cas.total_refs)}`,
      `Dedup factor:   ${pyFixed(s.cas.dedup_factor, 2)}x`,
    )
  } else lines.push('', '=== CAS: table not present ===')
  if (s.policy_days.length > 0) {
    lines.push('', '=== Policy Daily State (last 7 days) ===')
    for (const d of s.policy_days)
      lines.push(`  ${d.date === null ? 'None' : String(d.date)}:  ${commas(d.total_tokens)} tokens`)
  }
  return lines.join('\n') + '\n'
}
