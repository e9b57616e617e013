// Values SQLite steps over to reach the columns a pass reads. Each value under the database's size
// (so `sized` lets it be) but overflowing onto a chain that comes back on itself: SQLite walks the
// chain page by page in every row, before the column asked for, and loads nothing a budget of read
// values could count. Only the body was charged as walked: 12,000 rows of a 16 MB file whose
// trace_id each claimed 0.9 of the file took verify 11 s and stats 8 s (quadratic in the file:
// rows × pages), and a side table (`cas`, read by stats and inspect) was read with no budget at all.
// A generator loops every overflowing cell of the chain (a random column before the ones read) or
// of `cas` (its body, before ref_count): each command must refuse the file in one line as sharing
// overflow pages; honest chains with long overflowing bodies and a `cas` table still read.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { Rng } from '../../reliability/chainkit'
import { BIN, ensureBuilt } from '../../testing/cli'
import { loopEveryCell } from '../../testing/looped-cells'
import { KEY_HEX, SMALL, writeChainFolder } from '../../testing/exact-chains'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bijotel-value-walk-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const VERIFY = ['verify', '--secret-hex', KEY_HEX, '--no-recover']
const BOUND_MS = 8000

function run(args: string[], path: string, env: Record<string, string> = {}) {
  const t = Date.now()
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', path], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  })
  return { ...r, ms: Date.now() - t }
}

function addCas(path: string, rows: number): void {
  const db = new Database(path)
  try {
    db.exec(`CREATE TABLE cas (body_hash TEXT PRIMARY KEY, body BLOB NOT NULL, first_seen_ns INTEGER NOT NULL,
             ref_count INTEGER NOT NULL DEFAULT 1)`)
    const put = db.prepare('INSERT INTO cas VALUES (?, ?, ?, ?)')
    db.transaction(() => {
      for (let i = 0; i < rows; i++) put.run(`h${i}`, Buffer.alloc(900, i & 0xff), i, 1 + (i % 3))
    })()
  } finally {
    db.close()
  }
}

function expectRefused(args: string[], path: string): void {
  const r = run(args, path)
  const said = `${args[0]}: exit ${r.status} after ${r.ms} ms: ${r.stdout.slice(0, 200)} ${r.stderr}`
  expect(r.stderr, said).toMatch(/share overflow pages/)
  expect(r.stderr.trim().split('\n'), said).toHaveLength(1)
  expect([1, 2], said).toContain(r.status)
  expect(r.ms, said).toBeLessThan(BOUND_MS)
}

describe('values walked past over looping overflow chains', () => {
  const base = join(root, 'base')
  const honest = join(root, 'honest')
  it('honest chains with long bodies, and a cas table, read through SQLite on the copy', () => {
    ensureBuilt()
    writeChainFolder(base, { ...SMALL, rows: 2500, pageSize: 512, bodyBytes: 700 })
    writeChainFolder(honest, { ...SMALL, rows: 300, pageSize: 512, bodyBytes: 6000 })
    addCas(join(honest, 'chain.db'), 400)
    for (const dir of [base, honest]) {
      const r = run(VERIFY, join(dir, 'chain.db'), { BIJOTEL_READER: 'sqlite' })
      expect(r.status, r.stderr).toBe(0)
    }
    const s = run(['stats'], join(honest, 'chain.db'), { BIJOTEL_READER: 'sqlite' })
    expect(s.status, s.stderr).toBe(0)
    expect(s.stdout).toMatch(/CAS/)
  }, 120_000)

  const rng = new Rng(5106)
  // trace_id and span_id lie before every column verify and the streams read; the body before the
  // hashes a rows digest (report) reads.
  for (const column of [2, 3, 6]) {
    const share = 0.5 + rng.next() * 0.45
    it(`every overflowing cell's column ${column} claims ${share.toFixed(2)} of the file: refused`, () => {
      const dir = join(root, `chain-${column}`)
      cpSync(base, dir, { recursive: true })
      const path = join(dir, 'chain.db')
      expect(loopEveryCell(path, 'chain', column, share)).toBeGreaterThan(200)
      for (const args of [VERIFY, ['stats'], ['report', '-o', join(dir, 'r.json')]]) expectRefused(args, path)
    }, 240_000)
  }

  it('every cas body claims most of the file: stats refuses it', () => {
    const dir = join(root, 'cas')
    writeChainFolder(dir, { ...SMALL, rows: 20, pageSize: 512 })
    const path = join(dir, 'chain.db')
    addCas(path, 6000)
    expect(loopEveryCell(path, 'cas', 1, 0.9)).toBeGreaterThan(3000)
    expectRefused(['stats'], path)
  }, 240_000)
})
