// Test kit: the shared fixtures' recovery cases (`rec-*.db` + `NAME.recovery.json`, README "Recovery
// cases") and the one check every path (library, CLI) is held to.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { RecoveredRow } from '../../../src/shared/recovery-types'
import type { Finding, VerifyVerdict } from '../../../src/shared/verify-types'
import { FIXTURES } from '../testing/fixtures'

export interface RecoveryCase {
  secrets: string[]
  valid: boolean
  findings: {
    kind: 'truncated' | 'rewritten' | 'deleted'
    within: [number, number]
    covers: [number, number]
  }[]
  recovered_required: {
    seq: number
    canonical_hash: string
    hmac_hash: string
    status: 'deleted' | 'superseded'
  }[]
  recovered_allowed: { seq: number; hmac_hash: string }[]
  notes: string[]
  /** Claims cases: the archive segments to give with --segment (beside the case's file). */
  segments?: string[]
  /** Claims cases: the verdict with the segments given. */
  with_segments?: { valid: boolean; findings: RecoveryCase['findings']; recovered_status: string }
}

/**
 * Cases whose `.recovery.json` asks for a claim the evidence does not prove (issue 39), with what is
 * held instead. rec-deleted-tail: rows 253–254 are lost whole. In the file's bytes (checked byte by byte
 * for issue 39, and held by fixtures.test.ts): the head 252's hmac_hash is only in 252's own cell (page
 * 118); 253's hmac_hash is nowhere, not even half of it; 254's hmac_hash is only as the prev_hash of
 * 255 (page 120, offset 3904); no body of 253 or 254 survives, and every hash tail on the freed pages
 * 119–122 and in page 118's free space is one of 255–260 (or 257/259 again). The index pages' free
 * space keeps entries for rowids 253 and 254 (trace_id, semantic_body_hash): unsealed, so they link
 * nothing. No sealed link joins the surviving rows 255–260 to the live head 252; their rowids are
 * unsealed. They are listed as one unplaced run with a notice, and sqlite_sequence's witness notice
 * says rows past the head existed — no `truncated` finding (the same shape planted from another
 * chain under the same key must not make one either).
 */
export const UNPROVEN_CLAIMS: Record<string, string> = {
  'rec-deleted-tail': 'rows 255-260 link to no live row (253-254 lost): unplaced run + notices, no finding',
}

export const RECOVERY_KINDS = ['truncated', 'rewritten', 'deleted'] as const

/** The recovery cases, and the claims cases under `claims/` (fixtures README, "Claims cases"). */
export function recoveryCaseNames(): string[] {
  const names = (dir: string, prefix: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.recovery.json'))
          .map((f) => prefix + f.slice(0, -'.recovery.json'.length))
      : []
  return [...names(FIXTURES, ''), ...names(join(FIXTURES, 'claims'), 'claims/')].sort()
}

export function recoveryCase(name: string): RecoveryCase {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.recovery.json`), 'utf8')) as RecoveryCase
}

/** Every recovered deleted/superseded row is one the chain really had at that seq. */
export function expectAllowed(rows: RecoveredRow[], allowed: RecoveryCase['recovered_allowed']): void {
  const ok = new Set(allowed.map((a) => `${a.seq}|${a.hmac_hash}`))
  for (const r of rows)
    expect(ok.has(`${r.seq}|${r.hmac_hash}`), `unexpected recovered row ${r.seq} ${r.hmac_hash}`).toBe(true)
}

/** Each required row recovered with its seq, hashes and status. */
export function expectRequired(rows: RecoveredRow[], required: RecoveryCase['recovered_required']): void {
  for (const want of required) {
    const got = rows.find((r) => r.seq === want.seq && r.hmac_hash === want.hmac_hash)
    expect(got, `seq ${want.seq} not recovered`).toBeDefined()
    expect(got!.canonical_hash).toBe(want.canonical_hash)
    expect(got!.status).toBe(want.status)
  }
}

/** Findings of the recovery kinds lie within and together cover what the case says. */
export function expectFindings(findings: Finding[], c: RecoveryCase): void {
  for (const kind of RECOVERY_KINDS) {
    const got = findings.filter((f) => f.kind === kind)
    const want = c.findings.find((f) => f.kind === kind)
    if (!want) {
      expect(got, `no ${kind} finding expected`).toEqual([])
      continue
    }
    expect(got.length).toBeGreaterThan(0)
    const covered = new Set<number>()
    for (const f of got) {
      expect(f.from_seq).toBeGreaterThanOrEqual(want.within[0])
      expect(f.to_seq).toBeLessThanOrEqual(want.within[1])
      expect(f.evidence?.length ?? 0, `${kind} finding without evidence`).toBeGreaterThan(0)
      for (let s = f.from_seq; s <= f.to_seq; s++) covered.add(s)
    }
    for (let s = want.covers[0]; s <= want.covers[1]; s++)
      expect(covered.has(s), `${kind} does not cover ${s}`).toBe(true)
  }
}

/** The whole check of a verdict with recovery against a case. */
export function expectVerdict(v: VerifyVerdict, c: RecoveryCase): void {
  expect(v.valid).toBe(c.valid)
  expect(v.recovery?.searched).toBe(true)
  const all = v.recovered ?? []
  // Only placed rows (deleted, superseded) are claims; unplaced, before-live and archived rows are not.
  const rows = all.filter((r) => r.status === 'deleted' || r.status === 'superseded')
  if (c.valid) {
    expect(rows).toEqual([])
    expect(v.findings.filter((f) => (RECOVERY_KINDS as readonly string[]).includes(f.kind))).toEqual([])
  }
  expectFindings(v.findings, c)
  expectRequired(rows, c.recovered_required)
  expectAllowed(rows, c.recovered_allowed)
}
