// Generated recovery cases (./generator.ts): both journal modes, page sizes 512 to 65536, bodies that
// overflow, rowids of 1 to 9 varint bytes, every source (WAL frames of the current and earlier
// generations, superseded pages, freelist pages, freeblocks, unallocated space, overwritten cell
// starts). Each recovered row must be a version the chain really had; every version whose whole
// record is still in the files must be recovered (and, in a live WAL capture, every one); findings
// only of the scenario's kind, on its seqs; clean chains yield nothing; the evidence is untouched.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { RecoveredRow } from '../../../src/shared/recovery-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { generate, survives, type GenCase, type Generated, type Scenario } from './generator'

function fingerprint(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((f) => {
      const p = join(dir, f)
      const st = statSync(p)
      return `${f}:${st.size}:${st.mtimeMs}:${createHash('sha256').update(readFileSync(p)).digest('hex')}`
    })
}

const KIND_OF: Record<Scenario['kind'], 'truncated' | 'deleted' | 'rewritten' | null> = {
  clean: null,
  'clean-generations': null,
  'tail-delete': 'truncated',
  'middle-delete': 'deleted',
  // What archiving leaves behind as much as a deletion: a notice, never a finding (issue 39).
  'prefix-delete': null,
  rewrite: 'rewritten',
  'old-generation-delete': 'deleted',
}

const ROWID_STARTS: bigint[] = [
  1n,
  200n,
  20_000n,
  ...[21, 28, 35, 42, 49, 56].map((b) => (1n << BigInt(b)) + 3n),
]

function cases(): GenCase[] {
  const out: GenCase[] = []
  const base = { rows: 48, firstSeq: 1n }
  for (const pageSize of [512, 1024, 4096, 16384, 65536]) {
    // Bodies of ≈1.6 KB overflow 512- and 1024-byte pages; many rows share a 64 KB page.
    const pad = pageSize <= 1024 ? 1300 : 300
    const wal = { ...base, pageSize, pad, journal: 'wal' as const }
    const rollback = { ...base, pageSize, pad, journal: 'delete' as const, live: false }
    out.push(
      { ...wal, name: `wal live clean p${pageSize}`, scenario: { kind: 'clean' }, live: true },
      {
        ...wal,
        name: `wal live tail-delete p${pageSize}`,
        scenario: { kind: 'tail-delete', count: 5 },
        live: true,
      },
      { ...wal, name: `wal live rewrite p${pageSize}`, scenario: { kind: 'rewrite', count: 3 }, live: true },
      {
        ...wal,
        name: `wal closed tail-delete p${pageSize}`,
        scenario: { kind: 'tail-delete', count: 6 },
        live: false,
      },
      {
        ...wal,
        name: `wal closed rewrite p${pageSize}`,
        scenario: { kind: 'rewrite', count: 3 },
        live: false,
      },
      { ...rollback, name: `rollback clean p${pageSize}`, scenario: { kind: 'clean' } },
      {
        ...rollback,
        name: `rollback middle-delete p${pageSize}`,
        scenario: { kind: 'middle-delete', at: 20, count: 7 },
      },
      { ...rollback, name: `rollback tail-delete p${pageSize}`, scenario: { kind: 'tail-delete', count: 6 } },
      {
        ...rollback,
        name: `rollback prefix-delete p${pageSize}`,
        scenario: { kind: 'prefix-delete', count: 5 },
      },
    )
  }
  for (const pageSize of [1024, 4096]) {
    const wal = { ...base, rows: 60, pageSize, pad: 300, journal: 'wal' as const, live: true }
    out.push(
      { ...wal, name: `wal live clean-generations p${pageSize}`, scenario: { kind: 'clean-generations' } },
      {
        ...wal,
        name: `wal live old-generation-delete p${pageSize}`,
        scenario: { kind: 'old-generation-delete', at: 30, count: 4 },
      },
      {
        ...wal,
        name: `wal live checkpointed rewrite p${pageSize}`,
        scenario: { kind: 'rewrite', count: 3, checkpointed: true },
      },
      {
        ...wal,
        name: `wal live rewrite, then a WAL restart p${pageSize}`,
        scenario: { kind: 'rewrite', count: 3, restarted: true },
      },
    )
  }
  // Files larger than one 1 MB read run: rows recovered from pages of an early run keep their bodies
  // (a page read in one run is a view of a buffer the next run overwrites).
  out.push(
    {
      ...base,
      rows: 400,
      pageSize: 4096,
      pad: 3000,
      journal: 'delete',
      live: false,
      name: 'rollback middle-delete, 400 one-page rows',
      scenario: { kind: 'middle-delete', at: 100, count: 5 },
    },
    {
      ...base,
      rows: 400,
      pageSize: 4096,
      pad: 3000,
      journal: 'wal',
      live: false,
      name: 'wal closed middle-delete, 400 one-page rows',
      scenario: { kind: 'middle-delete', at: 60, count: 5 },
    },
  )
  // Auto-vacuum files (file-format §1.3 offsets 52, 64): a pointer map every usable/5 pages, freed
  // pages moved into at commit (FULL) or by incremental_vacuum; the direct reader declines them, the
  // search must not (its live rows come from a plain view of the private copy).
  for (const autoVacuum of ['FULL', 'INCREMENTAL'] as const)
    for (const pageSize of [512, 4096, 65536]) {
      const av = { ...base, autoVacuum, pageSize, pad: pageSize <= 1024 ? 1300 : 300 }
      const at = `${autoVacuum.toLowerCase()} auto-vacuum p${pageSize}`
      const wal = { ...av, journal: 'wal' as const }
      const rollback = { ...av, journal: 'delete' as const, live: false }
      out.push(
        { ...wal, name: `${at}: wal live clean`, scenario: { kind: 'clean' }, live: true },
        {
          ...wal,
          name: `${at}: wal live tail-delete`,
          scenario: { kind: 'tail-delete', count: 5 },
          live: true,
        },
        { ...wal, name: `${at}: wal live rewrite`, scenario: { kind: 'rewrite', count: 3 }, live: true },
        { ...wal, name: `${at}: wal closed rewrite`, scenario: { kind: 'rewrite', count: 3 }, live: false },
        {
          ...wal,
          name: `${at}: wal live middle-delete`,
          scenario: { kind: 'middle-delete', at: 20, count: 4 },
          live: true,
        },
        { ...rollback, name: `${at}: rollback clean`, scenario: { kind: 'clean' } },
        {
          ...rollback,
          name: `${at}: rollback middle-delete`,
          scenario: { kind: 'middle-delete', at: 20, count: 7 },
        },
        { ...rollback, name: `${at}: rollback tail-delete`, scenario: { kind: 'tail-delete', count: 6 } },
        { ...rollback, name: `${at}: rollback prefix-delete`, scenario: { kind: 'prefix-delete', count: 5 } },
      )
    }
  // Rows deleted, then VACUUM, the files taken live: the database shrank, and the rows' leaf and
  // overflow pages (past its new size) are only in the WAL's frames, which must be followed there.
  for (const autoVacuum of [undefined, 'FULL', 'INCREMENTAL'] as const)
    for (const pageSize of [512, 1024, 4096]) {
      const wal = { ...base, pageSize, pad: 1300, journal: 'wal' as const, live: true }
      const at = `${autoVacuum ? `${autoVacuum.toLowerCase()} auto-vacuum ` : ''}p${pageSize}`
      out.push(
        {
          ...wal,
          ...(autoVacuum ? { autoVacuum } : {}),
          name: `${at}: wal live tail-delete, VACUUM`,
          scenario: { kind: 'tail-delete', count: 6, vacuum: true },
        },
        {
          ...wal,
          ...(autoVacuum ? { autoVacuum } : {}),
          name: `${at}: wal live middle-delete, VACUUM`,
          scenario: { kind: 'middle-delete', at: 20, count: 5, vacuum: true },
        },
      )
    }
  for (const firstSeq of ROWID_STARTS) {
    const common = { rows: 40, firstSeq, pageSize: 4096, pad: 200 }
    out.push(
      {
        ...common,
        name: `rowid from ${firstSeq}: wal live tail-delete`,
        journal: 'wal',
        live: true,
        scenario: { kind: 'tail-delete', count: 4 },
      },
      {
        ...common,
        name: `rowid from ${firstSeq}: rollback middle-delete`,
        journal: 'delete',
        live: false,
        scenario: { kind: 'middle-delete', at: 15, count: 3 },
      },
    )
  }
  return out
}

const seen = {
  kinds: new Set<string>(),
  origins: new Set<string>(),
  generations: new Set<number>(),
  overflowProven: 0,
  nineByte: 0,
}

/** The status a recovered version must have: unplaced, an earlier version, before the live chain, or deleted. */
function expectedStatus(g: Generated, placed: bigint | null, seq: bigint): string {
  if (placed === null) return 'unplaced'
  if (g.live.has(seq)) return 'superseded'
  const keys = [...g.live.keys()]
  const firstLive = keys.length === 0 ? null : keys.reduce((a, b) => (b < a ? b : a))
  return firstLive !== null && seq < firstLive ? 'before_live' : 'deleted'
}

const seqOf = (r: RecoveredRow): bigint | null => (r.seq === null ? null : BigInt(r.seq_exact ?? r.seq))

/**
 * Findings only from rows a key proves and sealed links place (issue 39): every placed deleted or
 * superseded row is at a seq the scenario touched, each finding lies on those seqs, and where such
 * rows exist the scenario's finding is made. Unplaced and before-live rows make none.
 */
function checkFindings(v: VerifyVerdict, c: GenCase, g: Generated): void {
  const want = KIND_OF[c.scenario.kind]
  const lastLive = [...g.live.keys()].reduce((a, b) => (b > a ? b : a), 0n)
  const lo = [...g.affected].reduce((a, b) => (b < a ? b : a), lastLive)
  const hi = [...g.affected].reduce((a, b) => (b > a ? b : a), 0n)
  for (const f of v.findings) {
    if (f.kind !== 'truncated' && f.kind !== 'deleted' && f.kind !== 'rewritten') continue
    expect(f.evidence?.length, c.name).toBeGreaterThan(0)
    expect(f.kind, c.name).toBe(want)
    expect(BigInt(f.from_seq) >= (f.kind === 'truncated' ? lastLive + 1n : lo), c.name).toBe(true)
    expect(BigInt(f.to_seq) <= hi, c.name).toBe(true)
  }
  const proven = (v.recovered ?? []).filter((r) => r.key_index !== null)
  const placed = proven.filter((r) => r.status === 'deleted' || r.status === 'superseded')
  for (const r of placed) expect(g.affected.has(seqOf(r)!), `${c.name}: placed ${r.seq}`).toBe(true)
  if (placed.length > 0)
    expect(
      v.findings.some((f) => f.kind === want),
      c.name,
    ).toBe(true)
  if (want === null)
    expect(v.findings.filter((f) => ['truncated', 'deleted', 'rewritten'].includes(f.kind))).toEqual([])
  expect(v.valid).toBe(v.findings.length === 0)
}

describe('generated recovery cases', () => {
  for (const [i, c] of cases().entries()) {
    it(c.name, async () => {
      const g = generate(c, 0x5eed + i)
      try {
        const dir = dirname(g.db)
        const before = fingerprint(dir)
        const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: g.key }]
        const last = c.firstSeq + BigInt(c.rows)
        let rows: RecoveredRow[]
        if (last < 2n ** 53n) {
          const { verdict, reader } = await verifyFile(g.db, keys, { recover: true, workers: 1 })
          // An auto-vacuum file is read through SQLite on a private copy; its files are searched all the same.
          expect(reader).toBe(c.autoVacuum ? 'sqlite-copy' : 'direct')
          expect(verdict.recovery?.searched).toBe(true)
          rows = verdict.recovered ?? []
          checkFindings(verdict, c, g)
          if (KIND_OF[c.scenario.kind] === null) expect(verdict.valid, c.name).toBe(true)
        } else {
          rows = recoverFile(g.db, keys).rows
        }
        // Every recovered row is a version the chain had, no longer live, proven by the key.
        const removed = new Map(g.removed.map((v) => [`${v.seq}|${v.hmac}`, v]))
        const byHmac = new Map(g.removed.map((v) => [v.hmac, v]))
        for (const r of rows) {
          const s = seqOf(r)
          const v = s === null ? byHmac.get(r.hmac_hash) : removed.get(`${s}|${r.hmac_hash}`)
          expect(v, `${c.name}: recovered ${s} ${r.hmac_hash} is not a removed version`).toBeDefined()
          expect(r.canonical_hash).toBe(v!.canonical)
          expect(r.prev_hash).toBe(v!.prev)
          // Placed by links at its own seq, or not placed at all: never at another seq.
          if (s !== null) expect(s, c.name).toBe(v!.seq)
          expect(r.status).toBe(expectedStatus(g, s, v!.seq))
          expect(r.key_index).toBe(0)
          if (r.body_ok) expect(Buffer.from(r.body_b64!, 'base64').equals(v!.body)).toBe(true)
          for (const s of r.sources) {
            seen.kinds.add(s.kind)
            if (s.generation !== undefined) seen.generations.add(s.generation)
          }
          seen.origins.add(String(r.seq_origin))
          if (c.pageSize <= 1024 && r.body_ok) seen.overflowProven++
          if (r.seq_exact !== undefined && s !== null && s >= 1n << 56n) seen.nineByte++
        }
        // What must be found: everything in a live WAL capture, else every record still whole in the bytes.
        // (A row found without its seq counts: it is the same sealed version.)
        const got = new Set(rows.map((r) => `${seqOf(r) ?? '?'}|${r.hmac_hash}`))
        for (const v of g.removed) {
          const must = (c.live && c.journal === 'wal') || survives(g, v)
          if (must)
            expect(
              got.has(`${v.seq}|${v.hmac}`) || got.has(`?|${v.hmac}`),
              `${c.name}: seq ${v.seq} not recovered`,
            ).toBe(true)
        }
        if (KIND_OF[c.scenario.kind] === null && c.scenario.kind !== 'prefix-delete')
          expect(rows, c.name).toEqual([])
        if (c.pad >= 3000) {
          // One row per page: deleted rows keep their whole pages (freelist, old versions).
          expect(rows.length, c.name).toBeGreaterThan(0)
          for (const r of rows) expect(r.body_ok, `${c.name}: seq ${r.seq}`).toBe(true)
        }
        expect(fingerprint(dir)).toEqual(before)
      } finally {
        g.cleanup()
      }
    })
  }
})

afterAll(() => {
  // Every source and way of placing a row was exercised by some case.
  expect([...seen.kinds].sort()).toEqual([
    'freeblock',
    'freelist',
    'superseded_page',
    'unallocated',
    'wal_frame',
  ])
  expect(seen.origins.has('rowid')).toBe(true)
  expect(seen.origins.has('chain')).toBe(true)
  expect(seen.generations.has(0)).toBe(true)
  expect([...seen.generations].some((g) => g < 0)).toBe(true)
  expect(seen.overflowProven).toBeGreaterThan(0)
  expect(seen.nineByte).toBeGreaterThan(0)
})
