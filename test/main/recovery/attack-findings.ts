// Test kit: what a verdict must say of a generated attack (./claims-generator.ts) — recovery searched,
// its findings only on the attacked seqs, every attacked seq named by the attack's own kind — and
// what `bijotel recover` must list of it. Shared by the suites that attack a chain and then change
// its schema (schema text, seq not the rowid, added, dropped or moved columns).
import Database from 'better-sqlite3'
import { copyFileSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { expect } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { recoverPath } from '../../../src/main/recovery/verdict'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { generateClaims, type Attack, type History } from './claims-generator'

/** The finding kind each attack must be named by. */
export const NAMED: Record<Attack, string> = {
  none: '',
  'delete-middle': 'deleted',
  'truncate-tail': 'truncated',
  'reseal-tail': 'rewritten',
  'body-edit': 'rewritten',
}

/** A generated chain's keys as verify takes them. */
export const keysOf = (keys: Buffer[]): KeyMaterial[] =>
  keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))

export interface AttackCover {
  /** The seqs a finding of `kind` must cover (default: every attacked seq, and the verdict invalid). */
  mustCover?: Iterable<bigint>
  /** Other finding kinds that cover a seq as `kind` does (a cut reaching the head reads truncated). */
  coveredBy?: readonly string[]
  /** An uncovered seq this accepts all the same (a resealed original listed as uncommitted). */
  excused?: (seq: bigint) => boolean
}

/**
 * The verdict holds the attack: searched, findings of recovery only on `attacked`, each seq of
 * `mustCover` (default `attacked`) covered.
 */
export function expectAttack(
  v: VerifyVerdict,
  attacked: Set<bigint>,
  kind: string,
  name: string,
  cover: AttackCover = {},
): void {
  expect(v.recovery?.searched, `${name}: ${v.recovery?.note}`).toBe(true)
  const said = v.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`)
  if (attacked.size === 0) {
    expect(said, name).toEqual([])
    expect(v.valid, name).toBe(true)
    return
  }
  const covered = new Set<number>()
  for (const f of v.findings)
    if (f.kind === 'truncated' || f.kind === 'deleted' || f.kind === 'rewritten')
      for (let s = f.from_seq; s <= f.to_seq; s++) {
        expect(attacked.has(BigInt(s)), `${name}: ${f.kind} covers ${s} (${said.join('; ')})`).toBe(true)
        if (f.kind === kind || cover.coveredBy?.includes(f.kind)) covered.add(s)
      }
  for (const s of cover.mustCover ?? attacked)
    expect(
      covered.has(Number(s)) || (cover.excused?.(s) ?? false),
      `${name}: seq ${s} (${said.join('; ')})`,
    ).toBe(true)
  // With only some seqs provable (`mustCover`), an attack that left nothing to find may read VALID.
  if (cover.mustCover === undefined) expect(v.valid, name).toBe(false)
}

/** `bijotel recover`'s rows: searched, and a keyed row deleted or superseded only where attacked. */
export function expectRecoverOnAttacked(
  r: {
    summary: { searched: boolean; note?: string | null }
    rows: readonly { key_index: number | null; status: string; seq: number | null }[]
  },
  attacked: Set<bigint>,
  name: string,
): void {
  expect(r.summary.searched, `${name} (recover): ${r.summary.note}`).toBe(true)
  for (const row of r.rows)
    if (row.key_index !== null && (row.status === 'deleted' || row.status === 'superseded'))
      expect(attacked.has(BigInt(row.seq!)), `${name} (recover): seq ${row.seq}`).toBe(true)
}

/**
 * `op` run by SQLite on the generated chain `db` with the checkpoint held (the WAL keeps what it
 * holds), then the folder copied as that connection leaves it to `file` beside it: the evidence.
 */
export function evidenceAfter(db: string, file: string, op: (db: Database.Database) => void): string {
  const evidence = join(dirname(db), file)
  const conn = new Database(db)
  try {
    conn.pragma('wal_autocheckpoint = 0')
    op(conn)
    copyFileSync(db, evidence)
    if (existsSync(`${db}-wal`)) copyFileSync(`${db}-wal`, `${evidence}-wal`)
  } finally {
    conn.close()
  }
  return evidence
}

/**
 * A generated WAL chain attacked, then `op` run on it by SQLite with the checkpoint held (a
 * migration, a checkpoint, a rename…), copied as the evidence: verify and `recover` must both search
 * it and name the attack, and nothing else; `more` checks the verdict further.
 */
export async function expectAttackAfter(
  c: { name: string; pageSize: number; attack: Attack; history?: History; rows?: number },
  seed: number,
  op: (db: Database.Database) => void,
  more?: (v: VerifyVerdict) => void,
): Promise<void> {
  const { name, pageSize, attack } = c
  const history = c.history ?? 'appends-checkpoints'
  const g = generateClaims(
    { name, pageSize, journal: 'wal', history, attack, foreign: 'none', rows: c.rows ?? 30 },
    seed,
  )
  try {
    const evidence = evidenceAfter(g.db, 'after.db', op)
    const keys = keysOf(g.keys)
    const { verdict: v } = await verifyFile(evidence, keys, { recover: true, workers: 1 })
    // bijotel recover and the library's recover search the same files.
    expectRecoverOnAttacked(await recoverPath(evidence, keys), g.attacked, name)
    expectAttack(v, attack === 'none' ? new Set() : g.attacked, NAMED[attack], name)
    more?.(v)
  } finally {
    g.cleanup()
  }
}

/** A generated WAL chain attacked, then migrated by `migration` (one SQL text): expectAttackAfter. */
export function expectMigratedAttack(
  name: string,
  pageSize: number,
  attack: Attack,
  seed: number,
  migration: string,
): Promise<void> {
  return expectAttackAfter({ name, pageSize, attack }, seed, (db) => db.exec(migration))
}
