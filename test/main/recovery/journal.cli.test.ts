// `bin/bijotel verify` and `bin/bijotel recover` on files beside a hot rollback journal (issue 39):
// the direct reader declines them, the search goes on over their own bytes; the evidence (the hot
// journal included) is never rolled back or written.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RecoveryResult } from '../../../src/shared/recovery-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { bijotel, ensureBuilt } from '../testing/cli'
import { generateJournal, type JournalCase } from './journal-generator'

const fingerprint = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir).map((f) => [
      f,
      createHash('sha256')
        .update(readFileSync(join(dir, f)))
        .digest('hex'),
    ]),
  )

const base = { name: '', rows: 30, foreign: false, hot: true }

describe('the CLI on files the direct reader declines', () => {
  it('a tail cut hidden behind a benign hot journal: truncated, exactly; the evidence untouched', () => {
    ensureBuilt()
    const c: JournalCase = {
      ...base,
      pageSize: 1024,
      history: 'persist-appends',
      attack: 'truncate-tail-journal',
    }
    const g = generateJournal(c, 0x51a7)
    try {
      const before = fingerprint(dirname(g.db))
      expect(Object.keys(before)).toContain('chain.db-journal')
      const key = ['--secret-hex', g.key.toString('hex')]
      const v = bijotel(['verify', '--db', g.db, ...key, '--json'])
      expect(v.code).toBe(3)
      const verdict = JSON.parse(v.stdout) as VerifyVerdict
      const cut = verdict.findings.find((f) => f.kind === 'truncated')!
      expect([BigInt(cut.from_seq), BigInt(cut.to_seq)]).toEqual([
        [...g.attacked].reduce((a, b) => (a < b ? a : b)),
        [...g.attacked].reduce((a, b) => (a > b ? a : b)),
      ])
      expect(verdict.recovery?.declined).toBe('hot journal')
      const text = bijotel(['verify', '--db', g.db, ...key])
      expect(text.code).toBe(3)
      expect(text.stdout).toMatch(/declined the file \(hot journal\)/)
      expect(text.stdout).toMatch(/journal image of page/)
      const r = bijotel(['recover', '--db', g.db, ...key, '--json'])
      expect(r.code).toBe(3)
      const found = JSON.parse(r.stdout) as RecoveryResult
      expect(found.rows.filter((x) => x.status === 'deleted').map((x) => BigInt(x.seq!))).toEqual(
        [...g.attacked].sort((a, b) => (a < b ? -1 : 1)),
      )
      expect(fingerprint(dirname(g.db))).toEqual(before)
    } finally {
      g.cleanup()
    }
  })

  it('a writer caught mid-append: VALID, its rows listed by recover as never committed', () => {
    ensureBuilt()
    const c: JournalCase = { ...base, pageSize: 4096, history: 'crash-append', attack: 'none', hot: false }
    const g = generateJournal(c, 0x51a8)
    try {
      const before = fingerprint(dirname(g.db))
      const key = ['--secret-hex', g.key.toString('hex')]
      const v = bijotel(['verify', '--db', g.db, ...key])
      expect(v.code).toBe(0)
      expect(v.stdout).toMatch(/Chain VALID/)
      const r = bijotel(['recover', '--db', g.db, ...key, '--json'])
      const found = JSON.parse(r.stdout) as RecoveryResult
      expect(found.rows.filter((x) => x.status !== 'unplaced')).toEqual([])
      const inFlight = new Set(found.uncommitted.map((x) => x.seq))
      for (const s of g.inFlight) expect(inFlight.has(Number(s))).toBe(true)
      expect(r.code).toBe(4)
      expect(fingerprint(dirname(g.db))).toEqual(before)
    } finally {
      g.cleanup()
    }
  })
})
