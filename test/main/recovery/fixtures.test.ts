// Every shared recovery case (`rec-*.db`) through the library: verifyFile with recovery and
// recoverFile, exactly as its `.recovery.json` says; and the fixtures are never changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recoverFile } from '../../../src/main/recovery/verdict'
import { verifyFile } from '../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../src/main/chain/keys'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'
import {
  expectAllowed,
  expectRequired,
  expectFindings,
  expectVerdict,
  recoveryCase,
  recoveryCaseNames,
  UNPROVEN_CLAIMS,
  type RecoveryCase,
} from './recovery-expect'
import { readSegments } from '../../../src/main/audit/segments'
import { dirname, join } from 'node:path'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import type { RecoveredRow } from '../../../src/shared/recovery-types'
import { tmpdir } from 'node:os'
import Database from 'better-sqlite3'

/** How many times the ASCII text `hex` occurs in `b`. */
function occurrences(b: Buffer, hex: string): number {
  let n = 0
  for (let i = b.indexOf(hex, 0, 'latin1'); i >= 0; i = b.indexOf(hex, i + 1, 'latin1')) n++
  return n
}

/** A 64-hex hash, whole and as halves (a fragment cut by a 4-byte freeblock header keeps one). */
const halves = (h: string): string[] => [h, h.slice(0, 32), h.slice(32)]

/** The live head, read by SQLite from a copy (the evidence is never opened for writing). */
function liveHead(path: string): Head {
  const dir = mkdtempSync(join(tmpdir(), 'head-'))
  try {
    copyFileSync(path, join(dir, 'chain.db'))
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, join(dir, 'chain.db-wal'))
    const db = new Database(join(dir, 'chain.db'), { readonly: true })
    try {
      const row = db
        .prepare(
          'SELECT seq, canonical_hash AS canonical, prev_hash AS prev, hmac_hash AS hmac FROM chain ORDER BY seq DESC LIMIT 1',
        )
        .get() as Omit<Head, 'page'>
      // A page of the main file holding the head's hash tail: free space there is where a fragment is
      // planted below.
      const main = readFileSync(path)
      const page =
        Math.floor(main.indexOf(row.canonical + row.prev + row.hmac, 0, 'latin1') / main.readUInt16BE(16)) + 1
      return { ...row, page }
    } finally {
      db.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

interface Head {
  seq: number
  page: number
  canonical: string
  prev: string
  hmac: string
}

/** The rows the chain had past the head (the case's allowed rows) that were not recovered. */
function lostRows(head: Head, c: RecoveryCase, rows: RecoveredRow[]): RecoveryCase['recovered_allowed'] {
  const found = new Set(rows.map((r) => r.hmac_hash))
  return c.recovered_allowed.filter((a) => a.seq > head.seq && !found.has(a.hmac_hash))
}

/**
 * Where the bytes of `path` (and its -wal, -journal) hold more of the links past the head than the
 * recovered rows carry: the head's hmac_hash (or half of it) outside a copy of the head's own record
 * (so something was sealed after it), or a lost row's hmac_hash (or half) other than as the prev_hash
 * of a recovered row. Empty when nothing sealed could join the recovered rows to the head.
 */
function bridgeBytes(path: string, head: Head, c: RecoveryCase, rows: RecoveredRow[]): string[] {
  const bytes = [path, `${path}-wal`, `${path}-journal`].filter(existsSync).map((f) => readFileSync(f))
  const count = (hex: string): number => bytes.reduce((n, b) => n + occurrences(b, hex), 0)
  const out: string[] = []
  const headCopies = count(head.canonical + head.prev + head.hmac)
  for (const h of halves(head.hmac))
    if (count(h) !== headCopies) out.push(`head ${head.seq} hmac ${h}: ${count(h)} vs ${headCopies} copies`)
  const lost = lostRows(head, c, rows)
  if (lost.length === 0) out.push('no lost row between the head and the recovered rows')
  for (const l of lost) {
    const asPrev = rows
      .filter((r) => r.prev_hash === l.hmac_hash)
      .reduce((n, r) => n + count(r.canonical_hash + r.prev_hash + r.hmac_hash), 0)
    for (const h of halves(l.hmac_hash))
      if (count(h) !== asPrev) out.push(`seq ${l.seq} hmac ${h}: ${count(h)} vs ${asPrev} as a prev_hash`)
  }
  return out
}

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

describe('recovery cases through the library', () => {
  const names = recoveryCaseNames()
  it('has the six shared cases and the two claims cases', () => {
    expect(names.length).toBeGreaterThanOrEqual(8)
    expect(names.filter((n) => n.startsWith('claims/')).length).toBeGreaterThanOrEqual(2)
  })
  for (const name of names) {
    const c = recoveryCase(name)
    if (UNPROVEN_CLAIMS[name]) {
      it(`${name}: held to what its links prove (${UNPROVEN_CLAIMS[name]})`, async () => {
        const keys = parseSecrets(secretInputs(c.secrets))
        const { verdict } = await verifyFile(dbPath(name), keys, { recover: true, workers: 1 })
        expect(verdict.valid).toBe(true)
        const rows = verdict.recovered ?? []
        expect(rows.every((r) => r.status === 'unplaced' && r.key_index === 0)).toBe(true)
        expect(new Set(rows.map((r) => r.run)).size).toBe(1)
        // They are rows the chain had (the case's required rows), only not placed.
        for (const want of c.recovered_required)
          expect(rows.some((r) => r.hmac_hash === want.hmac_hash && r.rowid === want.seq)).toBe(true)
        expect(verdict.notices?.some((n) => n.includes('past the live head'))).toBe(true)
        expect(verdict.notices?.some((n) => n.includes('sqlite_sequence'))).toBe(true)
      })
      it(`${name}: its bytes hold no sealed bridge from the live head to the unplaced run`, async () => {
        // The exception stands only while no surviving byte carries the missing links: were a record
        // or a fragment (a cell's hash tail behind a freeblock header, an overflow page, a WAL frame)
        // to hold a lost row's hmac_hash, or the head's hmac_hash as a prev_hash, this fails.
        const keys = parseSecrets(secretInputs(c.secrets))
        const { verdict } = await verifyFile(dbPath(name), keys, { recover: true, workers: 1 })
        const rows = verdict.recovered ?? []
        const head = liveHead(dbPath(name))
        expect(bridgeBytes(dbPath(name), head, c, rows)).toEqual([])
        // The guard sees a fragment that would bridge (the head's hmac_hash as a prev_hash beside a
        // lost row's hmac_hash), planted in page free space of a copy; and a forged fragment (random
        // hashes) planted there places nothing: the verdict stays what the sealed links prove.
        const lost = lostRows(head, c, rows)
        const dir = mkdtempSync(join(tmpdir(), 'bridge-'))
        try {
          const copy = join(dir, 'chain.db')
          const plant = (text: string): void => {
            const b = readFileSync(dbPath(name))
            const at = (head.page - 1) * b.readUInt16BE(16) + 16
            expect(b.subarray(at, at + text.length).every((x) => x === 0)).toBe(true)
            b.write(text, at, 'latin1')
            writeFileSync(copy, b)
          }
          plant(randomBytes(32).toString('hex') + head.hmac + lost[0]!.hmac_hash)
          expect(bridgeBytes(copy, head, c, rows).length).toBeGreaterThan(0)
          plant(randomBytes(96).toString('hex'))
          const forged = await verifyFile(copy, keys, { recover: true, workers: 1 })
          expect(forged.verdict.valid).toBe(true)
          expect(forged.verdict.findings).toEqual(verdict.findings)
          expect((forged.verdict.recovered ?? []).map((r) => [r.seq, r.status, r.hmac_hash])).toEqual(
            rows.map((r) => [r.seq, r.status, r.hmac_hash]),
          )
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      })
      continue
    }
    if (c.segments && c.with_segments) {
      const w = c.with_segments
      it(`${name}: with --segment the archived rows are ${w.recovered_status}, never findings`, async () => {
        const keys = parseSecrets(secretInputs(c.secrets))
        const segments = await readSegments(c.segments!.map((s) => join(dirname(dbPath(name)), s)))
        const { verdict } = await verifyFile(dbPath(name), keys, { recover: true, workers: 1, segments })
        expect(verdict.valid).toBe(w.valid)
        expectFindings(verdict.findings, { ...c, findings: w.findings })
        const archived = new Set(c.recovered_allowed.map((a) => `${a.seq}|${a.hmac_hash}`))
        const rows = (verdict.recovered ?? []).filter((r) => archived.has(`${r.seq}|${r.hmac_hash}`))
        expect(rows.length).toBeGreaterThan(0)
        for (const r of rows) expect(r.status).toBe(w.recovered_status)
        expect(verdict.segments).toEqual(segments.paths)
      })
    }
    it(`${name}: verify with recovery`, async () => {
      const keys = parseSecrets(secretInputs(c.secrets))
      const { verdict, reader } = await verifyFile(dbPath(name), keys, { recover: true, workers: 1 })
      expect(reader).toBe('direct')
      expectVerdict(verdict, c)
    })
    it(`${name}: verify --no-recover sees only the live chain`, async () => {
      const keys = parseSecrets(secretInputs(c.secrets))
      const { verdict } = await verifyFile(dbPath(name), keys, { workers: 1 })
      expect(verdict.recovered).toBeUndefined()
      expect(verdict.findings.some((f) => f.kind === 'rewritten' || f.kind === 'deleted')).toBe(false)
    })
    it(`${name}: recoverFile with the key proves every required row, without it proves none`, () => {
      const keys = parseSecrets(secretInputs(c.secrets))
      const withKey = recoverFile(dbPath(name), keys)
      const claimed = withKey.rows.filter((r) => r.status === 'deleted' || r.status === 'superseded')
      expectRequired(withKey.rows, c.recovered_required)
      expectAllowed(claimed, c.recovered_allowed)
      for (const r of c.recovered_required) {
        const row = withKey.rows.find((x) => x.seq === r.seq && x.hmac_hash === r.hmac_hash)!
        expect(row.key_index).toBe(0)
      }
      const keyless = recoverFile(dbPath(name), [])
      expect(keyless.rows.map((r) => [r.seq, r.hmac_hash])).toEqual(
        withKey.rows.map((r) => [r.seq, r.hmac_hash]),
      )
      expect(keyless.rows.every((r) => r.key_index === null)).toBe(true)
      expect(keyless.summary.proven).toBe(0)
      if (keyless.rows.length > 0) expect(keyless.summary.note).toContain('unproven')
    })
  }
})
