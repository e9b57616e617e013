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

export { UNPROVEN_CLAIMS } from './unproven-claims'

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
