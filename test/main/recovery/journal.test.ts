// Declined files are still searched (issue 39): a hot rollback journal makes the direct reader
// decline the file (SQLite rolls it back on the private copy), and the search goes on over the
// evidence's own bytes and the journal's page images (./journal-generator.ts). Honest crashes and
// benign journals make no finding (a benign one changes nothing at all); attacks make findings
// exactly on their seqs; foreign rows sealed under the same key in journal images are unplaced.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import {
  generateJournal,
  type JournalAttack,
  type JournalCase,
  type JournalHistory,
} from './journal-generator'

const HONEST: JournalHistory[] = [
  'crash-append',
  'crash-touch',
  'benign-hot',
  'persist-appends',
  'persist-rollback',
]
const ATTACKS: JournalAttack[] = [
  'truncate-tail-db',
  'truncate-tail-journal',
  'delete-middle-journal',
  'body-edit-journal',
]
const SIZES = [512, 1024, 4096]

function cases(): JournalCase[] {
  const out: JournalCase[] = []
  let i = 0
  const add = (history: JournalHistory, attack: JournalAttack, hot: boolean, foreign: boolean): void => {
    const pageSize = SIZES[i++ % SIZES.length]!
    out.push({
      name: `${history} + ${attack}${hot ? ' behind a benign hot journal' : ''}${foreign ? ' + foreign images' : ''} (p${pageSize})`,
      pageSize,
      history,
      attack,
      hot,
      foreign,
      rows: 30,
    })
  }
  for (const h of HONEST)
    for (const foreign of [false, true]) add(h, 'none', false, h.startsWith('crash') ? false : foreign)
  for (const a of ATTACKS)
    for (const hot of [true, false])
      for (const foreign of [false, true])
        add(a === 'truncate-tail-db' ? 'benign-hot' : 'persist-appends', a, hot, foreign)
  return out
}

/** The seqs the recovery findings cover. */
function claimed(v: VerifyVerdict): Set<bigint> {
  const out = new Set<bigint>()
  for (const f of v.findings)
    if (f.kind === 'truncated' || f.kind === 'deleted' || f.kind === 'rewritten')
      for (let s = f.from_seq; s <= f.to_seq; s++) out.add(BigInt(s))
  return out
}

const summary = (v: VerifyVerdict): unknown => ({
  valid: v.valid,
  findings: v.findings.map((f) => `${f.kind} ${f.from_seq}-${f.to_seq}`),
  recovered: (v.recovered ?? []).map((r) => `${r.status} ${r.seq} ${r.hmac_hash}`).sort(),
})

describe('declined files are still searched: rollback journals', () => {
  /** Tail cuts in chain.db: how many were proven (the rest lost the row next to the head). */
  const tails = { cases: 0, proven: 0 }
  for (const [n, c] of cases().entries()) {
    it(c.name, async () => {
      const g = generateJournal(c, 0x10a7 + 97 * n)
      try {
        const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: g.key }]
        const { verdict, reader } = await verifyFile(g.db, keys, { recover: true, workers: 1 })
        expect(verdict.recovery?.searched, `${c.name}: ${verdict.recovery?.note}`).toBe(true)
        if (g.hotJournal) {
          expect(reader).toBe('sqlite-copy')
          expect(verdict.recovery?.declined).toMatch(/hot journal/)
        } else expect(verdict.recovery?.declined).toBeUndefined()
        const rows = verdict.recovered ?? []
        for (const r of rows) {
          if (g.foreign.has(r.hmac_hash)) {
            expect(r.status, `${c.name}: foreign row`).toBe('unplaced')
            expect(r.seq).toBeNull()
          }
          // Rows a crashed transaction sealed were never committed: not in the verdict's rows.
          expect([...g.inFlight].some((s) => r.seq === Number(s) && r.status !== 'unplaced')).toBe(false)
        }
        // A foreign row larger than a 512-byte page keeps its body on overflow pages that are not planted.
        if (c.foreign && c.pageSize >= 1024)
          expect(
            rows.some((r) => g.foreign.has(r.hmac_hash)),
            `${c.name}: foreign found`,
          ).toBe(true)
        // The crashed transaction's rows are in the file's spilled pages: found, and set apart.
        if (c.history === 'crash-append') expect(verdict.recovery?.uncommitted_only).toBeGreaterThan(0)
        if (c.attack === 'truncate-tail-db') tails.cases++
        if (c.attack === 'none') {
          expect(verdict.findings, c.name).toEqual([])
          expect(verdict.valid).toBe(true)
        } else if (c.attack === 'truncate-tail-db' && !rows.some((r) => r.status === 'deleted')) {
          // The row next to the head did not survive (its page freed, its first bytes a freelist
          // trunk's): nothing sealed joins the rest to the head, so no finding; the witness says so.
          expect(verdict.findings, c.name).toEqual([])
          expect(verdict.notices?.some((x) => x.includes('sqlite_sequence'))).toBe(true)
        } else if (c.attack === 'body-edit-journal') {
          // The live row fails its seal; the journal's old image is the original, named so.
          expect(verdict.valid, c.name).toBe(false)
          for (const f of verdict.findings)
            for (let s = f.from_seq; s <= f.to_seq; s++)
              expect(g.attacked.has(BigInt(s)), `${c.name}: ${f.kind} ${s}`).toBe(true)
          const q = Number([...g.attacked][0]!)
          const orig = rows.find((r) => r.seq === q && r.status === 'superseded')
          expect(orig?.original, c.name).toBe(true)
          expect(orig?.changed).toContain('canonical_hash')
          expect(orig?.sources.some((x) => x.kind === 'journal_page')).toBe(true)
        } else {
          if (c.attack === 'truncate-tail-db') tails.proven++
          expect(verdict.valid, c.name).toBe(false)
          const got = [...claimed(verdict)].sort((a, b) => (a < b ? -1 : 1))
          const want = [...g.attacked].sort((a, b) => (a < b ? -1 : 1))
          expect(got, c.name).toEqual(want)
          for (const f of verdict.findings)
            expect(['truncated', 'deleted', 'seq_gap', 'link_mismatch'], `${c.name}: ${f.kind}`).toContain(
              f.kind,
            )
        }
        if (g.benignOnly) {
          // The same evidence without its journal reads the same, finding for finding, row for row.
          const dir = mkdtempSync(join(tmpdir(), 'bijotel-nojournal-'))
          try {
            copyFileSync(g.db, join(dir, 'chain.db'))
            const bare = await verifyFile(join(dir, 'chain.db'), keys, { recover: true, workers: 1 })
            expect(summary(verdict), c.name).toEqual(summary(bare.verdict))
          } finally {
            rmSync(dir, { recursive: true, force: true })
          }
        }
      } finally {
        g.cleanup()
      }
    })
  }
  it('most tail cuts in chain.db behind a journal are proven', () => {
    expect(tails.proven * 2).toBeGreaterThanOrEqual(tails.cases)
  })
})
