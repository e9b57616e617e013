// Tamper corpus: every change an insider with write access to chain.db could make, applied at
// seeded-random positions to private copies of a clean chain, each with the verdict it must get —
// which rows are flagged, with which kinds, and the first bad seq (the localisation). The corpus is
// generated from a seed, so a failing case is reproduced by its seed and id.
//
// What counts as "detected":
//   - a verdict with valid=false, or the expected AuditError for schema changes;
//   - for prefix deletion, which no MAC can prove (reference §11.2: it looks exactly like an
//     archival trim), the verifier reports a `trusted` boundary at the first surviving seq; an
//     auditor who knows the chain was never archived (expectGenesis) turns that into a detection.
//   - for tail truncation and for a rewrite by someone holding the key, only a prior head
//     (an earlier verdict's last_seq/head_hmac) can tell; those cases carry it.
import type Database from 'better-sqlite3'
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type {
  BoundaryKind,
  Finding,
  FindingKind,
  PriorHead,
  VerifyVerdict,
} from '../../../src/shared/verify-types'
import { ChainFile } from '../../../src/main/chain/reader'
import { CHAIN_COLUMNS } from '../../../src/main/chain/table'
import { AuditError, type AuditErrorCode } from '../../../src/main/base/errors'
import { parseSecrets, type KeyMaterial } from '../../../src/main/chain/keys'
import { verifyRows } from '../../../src/main/verify/verify'
import { sqliteSource } from '../testing/sources'
import {
  GENESIS,
  Rng,
  insertRow,
  openScratch,
  readRows,
  seal,
  sha256,
  shiftSeqs,
  updateRow,
  type ChainRow,
} from './chainkit'

export const TAMPER_KINDS = [
  'body_edit',
  'body_bitflip',
  'hash_edit',
  'hmac_edit',
  'prev_edit',
  'delete_row',
  'delete_rows',
  'delete_first',
  'delete_first_regenesis',
  'delete_first_renumber',
  'truncate_tail',
  'insert_forged',
  'insert_duplicate',
  'swap_rows',
  'swap_sealed',
  'renumber_hide_deletion',
  'reseal_tail_attacker',
  'rewrite_with_true_key',
  'edit_timestamp',
  'edit_span_name',
  'edit_span_kind',
  'append_wrong_key',
  'append_random_hmac',
  'append_unlinked',
  'append_replayed',
  'append_after_gap',
  'view_masks_rows',
  'drop_column',
  'rename_column',
  'rename_table',
] as const

export type TamperKind = (typeof TAMPER_KINDS)[number]

export interface TamperExpectation {
  /** An AuditError code instead of a verdict (schema changes). */
  error?: AuditErrorCode
  /** The seq the verdict must name first (null only with `error`). */
  firstBadSeq: number | null
  /** The exact findings the verdict must carry. */
  findings: Finding[]
  /** Findings that may additionally appear (e.g. a random bit flip that happens to hit the span name). */
  optional?: Finding[]
  /** The boundary the verdict must report: null = none (chain starts at GENESIS). */
  boundary: { kind: BoundaryKind; seq: number; prev_hash: string } | null
  /** Head of an earlier verdict, passed to the verifier (truncation, key-holder rewrite). */
  prior?: PriorHead
  /** The auditor expects the chain to start at GENESIS: a trusted boundary is a detection. */
  expectGenesis?: boolean
}

export interface TamperCase {
  id: number
  kind: TamperKind
  description: string
  expect: TamperExpectation
  /** Apply the tampering to a scratch copy (never evidence). */
  apply(db: Database.Database): void
}

/** The clean chain the corpus is built on: rows seq 1..n, every row sealed by `key`. */
export interface BaseChain {
  rows: ChainRow[]
  n: number
  key: Buffer
  attacker: Buffer
  head: PriorHead
}

// ---------------------------------------------------------------------------------------------
// Expectation helpers.

function F(kind: FindingKind, from: number, to = from, missing?: number): Finding {
  const f: Finding = { kind, from_seq: from, to_seq: to, count: to - from + 1 }
  if (missing !== undefined) f.missing = missing
  return f
}

/** Findings of one kind over a set of seqs, consecutive seqs merged (no gaps in the region). */
function runs(kind: FindingKind, seqs: Iterable<number>): Finding[] {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b)
  const out: Finding[] = []
  for (const s of sorted) {
    const last = out[out.length - 1]
    if (last && last.to_seq === s - 1) {
      last.to_seq = s
      last.count++
    } else out.push(F(kind, s))
  }
  return out
}

const HEAD = Buffer.from('{"attributes":')
const TAIL = Buffer.from(',"end_time_ns":')

/** Change one digit inside `attributes` (tokens, cost, latency…): the sealed span fields stay intact. */
export function editDigit(body: Buffer, rng: Rng): Buffer {
  const end = body.lastIndexOf(TAIL)
  const from = body.subarray(0, HEAD.length).equals(HEAD) ? HEAD.length : 0
  const positions: number[] = []
  for (let i = from; i < (end > 0 ? end : body.length); i++) {
    const c = body[i]!
    if (c >= 0x30 && c <= 0x39) positions.push(i)
  }
  const out = Buffer.from(body)
  if (positions.length === 0) {
    out[from] = out[from]! ^ 0x01
    return out
  }
  const at = rng.pick(positions)
  out[at] = 0x30 + ((out[at]! - 0x30 + rng.int(1, 9)) % 10)
  return out
}

function otherHex(rng: Rng, not: string): string {
  for (;;) {
    const h = rng.hex(64)
    if (h !== not) return h
  }
}

// ---------------------------------------------------------------------------------------------
// The planners: one per kind, each choosing its positions with the case's own randomness.

type Plan = Omit<TamperCase, 'id' | 'kind'>

const str = (v: unknown): string => String(v)
const num = (v: bigint): number => Number(v)

function planFor(kind: TamperKind, rng: Rng, b: BaseChain): Plan {
  const N = b.n
  const row = (s: number): ChainRow => b.rows[s - 1]!
  const mac = (s: number): string => (s === 0 ? GENESIS : str(row(s).hmac_hash))
  const body = (s: number): Buffer => row(s).canonical_body as Buffer
  const none = null
  switch (kind) {
    case 'body_edit': {
      const s = rng.int(1, N)
      const nb = editDigit(body(s), rng)
      return {
        description: `seq ${s}: a digit of the body edited, canonical_hash left`,
        expect: { firstBadSeq: s, findings: [F('body_hash_mismatch', s)], boundary: none },
        apply: (db) => updateRow(db, BigInt(s), { canonical_body: nb }),
      }
    }
    case 'body_bitflip': {
      const s = rng.int(1, N)
      const nb = Buffer.from(body(s))
      const at = rng.int(0, nb.length - 1)
      nb[at] = nb[at]! ^ rng.int(1, 255)
      return {
        description: `seq ${s}: one byte of the body (offset ${at}) flipped, canonical_hash left`,
        expect: {
          firstBadSeq: s,
          findings: [F('body_hash_mismatch', s)],
          // The flip may land in the sealed name/kind/end time: then the columns disagree too.
          optional: [F('column_mismatch', s)],
          boundary: none,
        },
        apply: (db) => updateRow(db, BigInt(s), { canonical_body: nb }),
      }
    }
    case 'hash_edit': {
      const s = rng.int(1, N)
      const nb = editDigit(body(s), rng)
      return {
        description: `seq ${s}: body edited and canonical_hash recomputed, HMAC left`,
        expect: { firstBadSeq: s, findings: [F('hmac_mismatch', s)], boundary: none },
        apply: (db) => updateRow(db, BigInt(s), { canonical_body: nb, canonical_hash: sha256(nb) }),
      }
    }
    case 'hmac_edit': {
      const s = rng.int(1, N)
      const old = mac(s)
      const mode = rng.pick(['random', 'one_char', 'uppercase'] as const)
      let nm: string
      if (mode === 'uppercase' && /[a-f]/.test(old)) nm = old.toUpperCase()
      else if (mode === 'one_char') {
        const i = rng.int(0, 63)
        nm = old.slice(0, i) + (old[i] === '0' ? '1' : '0') + old.slice(i + 1)
      } else nm = otherHex(rng, old)
      return {
        description: `seq ${s}: hmac_hash replaced (${mode})`,
        expect: {
          firstBadSeq: s,
          findings: [F('hmac_mismatch', s), ...(s < N ? [F('link_mismatch', s + 1)] : [])],
          boundary: none,
        },
        apply: (db) => updateRow(db, BigInt(s), { hmac_hash: nm }),
      }
    }
    case 'prev_edit': {
      const s = rng.int(1, N)
      const other = rng.int(1, N)
      const np = s > 1 && other !== s - 1 && rng.chance(0.4) ? mac(other) : otherHex(rng, mac(s - 1))
      return {
        description: `seq ${s}: prev_hash relinked to another value`,
        expect: { firstBadSeq: s, findings: [F('link_mismatch', s), F('hmac_mismatch', s)], boundary: none },
        apply: (db) => updateRow(db, BigInt(s), { prev_hash: np }),
      }
    }
    case 'delete_row': {
      const s = rng.int(2, N - 1)
      return {
        description: `seq ${s} deleted`,
        expect: {
          firstBadSeq: s + 1,
          findings: [F('seq_gap', s + 1, s + 1, 1), F('link_mismatch', s + 1)],
          boundary: none,
        },
        apply: (db) => db.prepare('DELETE FROM chain WHERE seq = ?').run(BigInt(s)),
      }
    }
    case 'delete_rows': {
      const k = rng.int(2, 25)
      const s = rng.int(2, N - k)
      return {
        description: `seq ${s}..${s + k - 1} deleted (${k} rows)`,
        expect: {
          firstBadSeq: s + k,
          findings: [F('seq_gap', s + k, s + k, k), F('link_mismatch', s + k)],
          boundary: none,
        },
        apply: (db) =>
          db.prepare('DELETE FROM chain WHERE seq >= ? AND seq < ?').run(BigInt(s), BigInt(s + k)),
      }
    }
    case 'delete_first': {
      const k = rng.int(1, 30)
      return {
        description: `first ${k} row(s) deleted: indistinguishable from an archival trim; reported as a trusted boundary at seq ${k + 1}`,
        expect: {
          firstBadSeq: k + 1,
          findings: [],
          boundary: { kind: 'trusted', seq: k + 1, prev_hash: mac(k) },
          expectGenesis: true,
        },
        apply: (db) => db.prepare('DELETE FROM chain WHERE seq <= ?').run(BigInt(k)),
      }
    }
    case 'delete_first_regenesis': {
      const k = rng.int(1, 30)
      return {
        description: `first ${k} row(s) deleted and seq ${k + 1} relinked to GENESIS`,
        expect: {
          firstBadSeq: k + 1,
          findings: [F('hmac_mismatch', k + 1)],
          boundary: { kind: 'trusted', seq: k + 1, prev_hash: GENESIS },
        },
        apply: (db) => {
          db.prepare('DELETE FROM chain WHERE seq <= ?').run(BigInt(k))
          updateRow(db, BigInt(k + 1), { prev_hash: GENESIS })
        },
      }
    }
    case 'delete_first_renumber': {
      const k = rng.int(1, 30)
      return {
        description: `first ${k} row(s) deleted and the rest renumbered from 1`,
        expect: { firstBadSeq: 1, findings: [F('link_mismatch', 1)], boundary: none },
        apply: (db) => {
          db.prepare('DELETE FROM chain WHERE seq <= ?').run(BigInt(k))
          shiftSeqs(db, BigInt(k + 1), BigInt(-k))
        },
      }
    }
    case 'truncate_tail': {
      const k = rng.chance(0.05) ? N : rng.int(1, 40)
      return {
        description: `last ${k} row(s) deleted; only the prior head (seq ${N}) shows it`,
        expect: {
          firstBadSeq: N - k + 1,
          findings: [F('truncated', N - k + 1, N, k)],
          boundary: none,
          prior: b.head,
        },
        apply: (db) => db.prepare('DELETE FROM chain WHERE seq > ?').run(BigInt(N - k)),
      }
    }
    case 'insert_forged': {
      const s = rng.int(1, N)
      const src = row(s)
      const nb = editDigit(body(s), rng)
      const ch = sha256(nb)
      const prev = mac(s - 1)
      const mode = rng.pick(['attacker_key', 'random_hmac'] as const)
      const nm = mode === 'attacker_key' ? seal(b.attacker, prev, ch) : rng.hex(64)
      return {
        description: `forged row inserted at seq ${s} (linked to seq ${s - 1}, ${mode}), later rows shifted up`,
        expect: {
          firstBadSeq: s,
          findings: [F('hmac_mismatch', s), F('link_mismatch', s + 1)],
          boundary: none,
        },
        apply: (db) => {
          shiftSeqs(db, BigInt(s), 1n)
          insertRow(db, {
            ...src,
            seq: BigInt(s),
            canonical_body: nb,
            canonical_hash: ch,
            prev_hash: prev,
            hmac_hash: nm,
          })
        },
      }
    }
    case 'insert_duplicate': {
      const s = rng.int(1, N)
      return {
        description: `genuine row seq ${s} replayed (copied) at seq ${s + 1}, later rows shifted up`,
        expect: { firstBadSeq: s + 1, findings: [F('link_mismatch', s + 1)], boundary: none },
        apply: (db) => {
          shiftSeqs(db, BigInt(s + 1), 1n)
          insertRow(db, { ...row(s), seq: BigInt(s + 1) })
        },
      }
    }
    case 'swap_rows':
    case 'swap_sealed': {
      const s = rng.int(1, N - 1)
      const t = rng.chance(0.5) ? s + 1 : rng.int(s + 1, N)
      const sealedOnly = kind === 'swap_sealed'
      const cols = sealedOnly
        ? (['canonical_body', 'canonical_hash', 'prev_hash', 'hmac_hash', 'semantic_body_hash'] as const)
        : CHAIN_COLUMNS.filter((c) => c !== 'seq')
      const links = [s, s + 1, t, t + 1].filter((x) => x <= N)
      const findings = runs('link_mismatch', links)
      // Only the sealed part moved: each row's old timestamp now sits beside another row's body.
      if (sealedOnly) findings.push(...runs('column_mismatch', [s, t]))
      return {
        description: `contents (${sealedOnly ? 'sealed columns only' : 'whole rows'}) of seq ${s} and ${t} exchanged`,
        expect: { firstBadSeq: s, findings, boundary: none },
        apply: (db) => {
          const pick = (r: ChainRow) => Object.fromEntries(cols.map((c) => [c, r[c]])) as Partial<ChainRow>
          updateRow(db, BigInt(s), pick(row(t)))
          updateRow(db, BigInt(t), pick(row(s)))
        },
      }
    }
    case 'renumber_hide_deletion': {
      const k = rng.chance(0.7) ? 1 : rng.int(2, 10)
      const s = rng.int(2, N - k)
      return {
        description: `seq ${s}..${s + k - 1} deleted and later rows renumbered down to hide the gap`,
        expect: { firstBadSeq: s, findings: [F('link_mismatch', s)], boundary: none },
        apply: (db) => {
          db.prepare('DELETE FROM chain WHERE seq >= ? AND seq < ?').run(BigInt(s), BigInt(s + k))
          shiftSeqs(db, BigInt(s + k), BigInt(-k))
          db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'chain'").run(BigInt(N - k))
        },
      }
    }
    case 'reseal_tail_attacker':
    case 'rewrite_with_true_key': {
      const s = rng.int(1, N)
      const trueKey = kind === 'rewrite_with_true_key'
      const key = trueKey ? b.key : b.attacker
      const updates: { seq: number; fields: Partial<ChainRow> }[] = []
      let prev = mac(s - 1)
      for (let q = s; q <= N; q++) {
        const nb = q === s || rng.chance(0.5) ? editDigit(body(q), rng) : body(q)
        const ch = sha256(nb)
        const m = seal(key, prev, ch)
        updates.push({
          seq: q,
          fields: { canonical_body: nb, canonical_hash: ch, prev_hash: prev, hmac_hash: m },
        })
        prev = m
      }
      const apply = (db: Database.Database): void => {
        for (const u of updates) updateRow(db, BigInt(u.seq), u.fields)
      }
      if (!trueKey) {
        return {
          description: `seq ${s}..${N} edited and resealed with the attacker's key`,
          expect: { firstBadSeq: s, findings: [F('hmac_mismatch', s, N)], boundary: none },
          apply,
        }
      }
      return {
        // Issue 39: a verdict prior records only its head, which the reseal changed: it shares no row
        // with the chain now, so nothing proves it is of this chain and it is refused (one line). A
        // report prior shares the rows before the edit and locates it (test/main/audit/prior.cli).
        description: `a key holder edits seq ${s} and reseals ${s}..${N} with the true key: the prior head (seq ${N}) alone shares no row with the chain now, and is refused`,
        expect: { error: 'bad_argument', firstBadSeq: null, findings: [], boundary: none, prior: b.head },
        apply,
      }
    }
    case 'edit_timestamp': {
      const s = rng.int(1, N)
      const ts = row(s).timestamp_ns as bigint
      const mode = rng.pick(['shift', 'negative', 'zero', 'int64_max', 'text'] as const)
      let v: bigint | string
      if (mode === 'shift') {
        const d = BigInt(rng.int(1, 7_200_000)) * 1_000_000n * (rng.chance(0.5) ? 1n : -1n)
        v = ts + d
      } else if (mode === 'negative') v = -ts
      else if (mode === 'zero') v = 0n
      else if (mode === 'int64_max') v = 2n ** 63n - 1n
      else v = '2025-11-24T12:00:00Z'
      return {
        description: `seq ${s}: timestamp_ns column rewritten (${mode}); the sealed end time is unchanged`,
        expect: { firstBadSeq: s, findings: [F('column_mismatch', s)], boundary: none },
        apply: (db) => updateRow(db, BigInt(s), { timestamp_ns: v }),
      }
    }
    case 'edit_span_name': {
      const s = rng.int(1, N)
      const old = str(row(s).span_name)
      const choices = [
        'chat gpt-4o-mini',
        '<script>alert(1)</script>',
        '',
        `${old} `,
        old.toUpperCase(),
        'x'.repeat(300),
      ]
      const v = rng.pick(choices.filter((c) => c !== old))
      return {
        description: `seq ${s}: span_name column rewritten`,
        expect: { firstBadSeq: s, findings: [F('column_mismatch', s)], boundary: none },
        apply: (db) => updateRow(db, BigInt(s), { span_name: v }),
      }
    }
    case 'edit_span_kind': {
      const s = rng.int(1, N)
      const old = row(s).span_kind
      const v = rng.pick(
        ['SERVER', 'INTERNAL', 'PRODUCER', null, 'client', 'CLIENT'].filter((c) => c !== old),
      )
      return {
        description: `seq ${s}: span_kind column rewritten to ${String(v)}`,
        expect: { firstBadSeq: s, findings: [F('column_mismatch', s)], boundary: none },
        apply: (db) => updateRow(db, BigInt(s), { span_kind: v }),
      }
    }
    case 'append_wrong_key':
    case 'append_random_hmac':
    case 'append_unlinked': {
      const k = rng.int(1, 8)
      const rowsOut: ChainRow[] = []
      let prev = mac(N)
      for (let i = 1; i <= k; i++) {
        const src = row(rng.int(1, N))
        const nb = editDigit(src.canonical_body as Buffer, rng)
        const ch = sha256(nb)
        const p = kind === 'append_unlinked' ? otherHex(rng, prev) : prev
        const m = kind === 'append_random_hmac' ? rng.hex(64) : seal(b.attacker, p, ch)
        rowsOut.push({
          ...src,
          seq: BigInt(N + i),
          canonical_body: nb,
          canonical_hash: ch,
          prev_hash: p,
          hmac_hash: m,
        })
        prev = m
      }
      const findings = [F('hmac_mismatch', N + 1, N + k)]
      if (kind === 'append_unlinked') findings.unshift(F('link_mismatch', N + 1, N + k))
      return {
        description: `${k} forged row(s) appended at seq ${N + 1}.. (${kind.slice('append_'.length).replace('_', ' ')})`,
        expect: { firstBadSeq: N + 1, findings, boundary: none },
        apply: (db) => {
          for (const r of rowsOut) insertRow(db, r)
        },
      }
    }
    case 'append_replayed': {
      const r = rng.int(1, N - 1)
      const k = rng.int(1, Math.min(8, N - r + 1))
      return {
        description: `genuine rows seq ${r}..${r + k - 1} replayed at the end (seq ${N + 1}..${N + k})`,
        expect: { firstBadSeq: N + 1, findings: [F('link_mismatch', N + 1)], boundary: none },
        apply: (db) => {
          for (let i = 0; i < k; i++) insertRow(db, { ...row(r + i), seq: BigInt(N + 1 + i) })
        },
      }
    }
    case 'append_after_gap': {
      const g = rng.int(1, 1000)
      const src = row(rng.int(1, N))
      const nb = editDigit(src.canonical_body as Buffer, rng)
      const ch = sha256(nb)
      const at = N + 1 + g
      return {
        description: `forged row appended at seq ${at}, after a gap of ${g}`,
        expect: {
          firstBadSeq: at,
          findings: [F('seq_gap', at, at, g), F('hmac_mismatch', at)],
          boundary: none,
        },
        apply: (db) =>
          insertRow(db, {
            ...src,
            seq: BigInt(at),
            canonical_body: nb,
            canonical_hash: ch,
            prev_hash: mac(N),
            hmac_hash: seal(b.attacker, mac(N), ch),
          }),
      }
    }
    case 'view_masks_rows': {
      const k = rng.int(1, 10)
      const s = rng.int(2, N - k)
      return {
        // A view's rows are computed, not stored evidence (and can be made never to finish): refused.
        description: `table renamed and a view named chain hides seq ${s}..${s + k - 1}`,
        expect: { error: 'no_chain_table', firstBadSeq: null, findings: [], boundary: none },
        apply: (db) => {
          db.exec('ALTER TABLE chain RENAME TO chain_data')
          db.exec(`CREATE VIEW chain AS SELECT * FROM chain_data WHERE seq < ${s} OR seq >= ${s + k}`)
        },
      }
    }
    case 'drop_column':
    case 'rename_column': {
      const c = rng.pick([
        'canonical_body',
        'canonical_hash',
        'prev_hash',
        'hmac_hash',
        'timestamp_ns',
      ] as const)
      const sql =
        kind === 'drop_column'
          ? `ALTER TABLE chain DROP COLUMN ${c}`
          : `ALTER TABLE chain RENAME COLUMN ${c} TO ${c}_v2`
      return {
        description: `schema changed: ${sql}`,
        expect: { error: 'missing_columns', firstBadSeq: null, findings: [], boundary: none },
        apply: (db) => db.exec(sql),
      }
    }
    case 'rename_table':
      return {
        description: 'schema changed: the chain table renamed',
        expect: { error: 'no_chain_table', firstBadSeq: null, findings: [], boundary: none },
        apply: (db) => db.exec('ALTER TABLE chain RENAME TO chain_old'),
      }
  }
}

/** `count` cases, kinds in turn (so every kind is exercised), positions from `seed`. */
export function planCorpus(count: number, seed: number, base: BaseChain): TamperCase[] {
  const rng = new Rng(seed)
  const out: TamperCase[] = []
  for (let id = 0; id < count; id++) {
    const kind = TAMPER_KINDS[id % TAMPER_KINDS.length]!
    // Each case draws from its own stream, so one planner's choices never shift another's.
    const caseRng = new Rng(Math.floor(rng.next() * 2 ** 32))
    out.push({ id, kind, ...planFor(kind, caseRng, base) })
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Running.

export interface CaseOutcome {
  id: number
  kind: TamperKind
  description: string
  /** Tampering visible: valid=false, the expected error, or (expectGenesis) a trusted boundary. */
  detected: boolean
  /** The first bad seq reported is the expected one. */
  located: boolean
  /** Findings and boundary exactly as expected. */
  exact: boolean
  expectedFirstBad: number | null
  observedFirstBad: number | null
  /** What went wrong, when something did. */
  detail?: string
}

const findingKey = (f: Finding): string => `${f.kind}:${f.from_seq}-${f.to_seq}:${f.count}:${f.missing ?? ''}`

export function judge(c: TamperCase, result: { verdict?: VerifyVerdict; error?: unknown }): CaseOutcome {
  const base = { id: c.id, kind: c.kind, description: c.description, expectedFirstBad: c.expect.firstBadSeq }
  const e = c.expect
  if (e.error) {
    const err = result.error
    const ok = err instanceof AuditError && err.code === e.error && !err.message.includes('\n')
    return {
      ...base,
      detected: ok,
      located: ok,
      exact: ok,
      observedFirstBad: null,
      ...(ok
        ? {}
        : { detail: `expected AuditError ${e.error}, got ${result.verdict ? 'a verdict' : String(err)}` }),
    }
  }
  if (!result.verdict) {
    return {
      ...base,
      detected: false,
      located: false,
      exact: false,
      observedFirstBad: null,
      detail: `unexpected error: ${String(result.error)}`,
    }
  }
  const v = result.verdict
  const trusted = v.boundary?.kind === 'trusted'
  const detected = !v.valid || (e.expectGenesis === true && trusted)
  const observedFirstBad = v.first_bad_seq ?? (e.expectGenesis && trusted ? v.boundary!.seq : null)
  const located = observedFirstBad === e.firstBadSeq
  const want = new Set(e.findings.map(findingKey))
  const may = new Set((e.optional ?? []).map(findingKey))
  const got = new Set(v.findings.map(findingKey))
  const missing = [...want].filter((k) => !got.has(k))
  const extra = [...got].filter((k) => !want.has(k) && !may.has(k))
  const b = v.boundary
  const boundaryOk =
    e.boundary === null
      ? b === undefined
      : b !== undefined &&
        b.kind === e.boundary.kind &&
        b.seq === e.boundary.seq &&
        b.prev_hash === e.boundary.prev_hash
  const exact = missing.length === 0 && extra.length === 0 && boundaryOk
  const problems: string[] = []
  if (!detected) problems.push('not detected')
  if (!located) problems.push(`first bad seq ${String(observedFirstBad)} (expected ${String(e.firstBadSeq)})`)
  if (missing.length) problems.push(`missing findings ${missing.join(' ')}`)
  if (extra.length) problems.push(`unexpected findings ${extra.join(' ')}`)
  if (!boundaryOk)
    problems.push(`boundary ${JSON.stringify(b ?? null)} (expected ${JSON.stringify(e.boundary)})`)
  return {
    ...base,
    detected,
    located,
    exact,
    observedFirstBad,
    ...(problems.length ? { detail: problems.join('; ') } : {}),
  }
}

/** Apply one case to a fresh copy of `baseFile` in `workDir`, verify it, and judge the result. */
export async function runCase(
  c: TamperCase,
  baseFile: string,
  workDir: string,
  keys: KeyMaterial[],
): Promise<CaseOutcome> {
  const file = join(workDir, `tamper-${c.id}.db`)
  copyFileSync(baseFile, file)
  try {
    const db = openScratch(file)
    try {
      db.transaction(() => c.apply(db))()
    } finally {
      db.close()
    }
    let verdict: VerifyVerdict | undefined
    let error: unknown
    try {
      const chain = await ChainFile.open(file)
      try {
        verdict = await verifyRows(sqliteSource(chain), keys, {
          workers: 1,
          ...(c.expect.prior ? { prior: c.expect.prior } : {}),
        })
      } finally {
        chain.close()
      }
    } catch (e) {
      error = e
    }
    return judge(c, verdict ? { verdict } : { error })
  } finally {
    rmSync(file, { force: true })
    rmSync(`${file}-journal`, { force: true })
  }
}

/** Read the clean chain (a scratch copy) and check it is what the corpus assumes. */
export function loadBase(baseFile: string, keyHex: string, attackerHex: string): BaseChain {
  const db = openScratch(baseFile)
  try {
    const rows = readRows(db)
    rows.forEach((r, i) => {
      if (r.seq !== BigInt(i + 1))
        throw new Error(`base chain must be seq 1..n; found seq ${r.seq} at position ${i + 1}`)
    })
    const last = rows[rows.length - 1]
    if (!last || rows.length < 50) throw new Error('base chain needs at least 50 rows')
    return {
      rows,
      n: rows.length,
      key: Buffer.from(keyHex, 'hex'),
      attacker: Buffer.from(attackerHex, 'hex'),
      head: { last_seq: num(last.seq), head_hmac: str(last.hmac_hash) },
    }
  } finally {
    db.close()
  }
}

export interface KindTally {
  tried: number
  detected: number
  mislocated: number
  inexact: number
}

export interface TamperSummary {
  seed: number
  tried: number
  detected: number
  missed: number
  mislocated: number
  inexact: number
  /** Findings on the untampered chain (must be 0). */
  untampered_findings: number
  by_kind: Record<string, KindTally>
  /** The first failing cases, for the report. */
  failures: CaseOutcome[]
  duration_ms: number
}

export interface CorpusOptions {
  /** Clean chain to copy (a scratch copy of clean.db); never modified. */
  baseFile: string
  keyHex: string
  attackerHex: string
  workDir: string
  cases: number
  seed: number
}

export async function runCorpus(
  o: CorpusOptions,
): Promise<{ summary: TamperSummary; outcomes: CaseOutcome[] }> {
  const t0 = Date.now()
  const keys = parseSecrets([{ encoding: 'hex', value: o.keyHex }])
  const base = loadBase(o.baseFile, o.keyHex, o.attackerHex)
  const clean = await ChainFile.open(o.baseFile)
  let untampered: VerifyVerdict
  try {
    untampered = await verifyRows(sqliteSource(clean), keys, { workers: 1 })
  } finally {
    clean.close()
  }
  if (untampered.last_seq !== base.head.last_seq || untampered.head_hmac !== base.head.head_hmac) {
    throw new Error('the verifier and the base chain disagree on the head')
  }
  const outcomes: CaseOutcome[] = []
  for (const c of planCorpus(o.cases, o.seed, base))
    outcomes.push(await runCase(c, o.baseFile, o.workDir, keys))
  const by_kind: Record<string, KindTally> = {}
  for (const x of outcomes) {
    const t = (by_kind[x.kind] ??= { tried: 0, detected: 0, mislocated: 0, inexact: 0 })
    t.tried++
    if (x.detected) t.detected++
    if (x.detected && !x.located) t.mislocated++
    if (!x.exact) t.inexact++
  }
  const detected = outcomes.filter((x) => x.detected).length
  const summary: TamperSummary = {
    seed: o.seed,
    tried: outcomes.length,
    detected,
    missed: outcomes.length - detected,
    mislocated: outcomes.filter((x) => x.detected && !x.located).length,
    inexact: outcomes.filter((x) => !x.exact).length,
    untampered_findings:
      untampered.findings.length + (untampered.valid ? 0 : 1) + (untampered.boundary ? 1 : 0),
    by_kind,
    failures: outcomes.filter((x) => !x.detected || !x.located || !x.exact).slice(0, 20),
    duration_ms: Date.now() - t0,
  }
  return { summary, outcomes }
}

/** The line a script greps for. */
export function summaryLine(s: TamperSummary): string {
  return (
    `TAMPER-SUMMARY tried=${s.tried} detected=${s.detected} missed=${s.missed} mislocated=${s.mislocated} ` +
    `inexact=${s.inexact} untampered_findings=${s.untampered_findings} kinds=${Object.keys(s.by_kind).length} ` +
    `seed=${s.seed} ms=${s.duration_ms}`
  )
}
