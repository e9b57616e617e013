// A report of ANOTHER chain given as the prior (issue 39, "Priors"; issue 38, "a report knows what
// it is about"). When the live chain ends inside the report's first rows-digest block, no block can
// be compared, and the head check alone read the other chain's head as this chain's: an honest
// 7-row chain verified against a signed report of a 10,240-row chain (blocks of 16 rows) read "truncated seq 8-10240
// (per a prior signed by …)". The report's evidence statement names its first row's time: a live
// row at that seq sealed at another time is not the row the prior saw, so the prior is refused in
// one line (exit 2). Generated: other chains (other seeds, other or the same key, 1 to 15 rows);
// the honest side: the report's own chain cut to as few rows (a truncation), and cut with its first
// row's unsealed time edited (a column edit proves nothing about the prior: still "truncated").
import { createHash, generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { priorFrom, readReportFile } from '../../../src/main/custody/report-file'
import { verifyChain } from '../../../src/main/library/verify-chain'
import { writeDemoChain } from '../../../src/main/writer/demo'
import type { PriorHead } from '../../../src/shared/verify-types'
import { openScratch, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('prior-other-chain')
const KEY = Buffer.from('prior-other-chain-key-0123456789', 'utf8')
const OTHER_KEY = Buffer.from('prior-other-chain-key-9876543210', 'utf8')
const ROWS = 10_240 // rows-digest blocks of 16 rows (at most 1024 blocks, a power of two each)
let source = ''
let prior: PriorHead
let reportPath = ''

beforeAll(() => {
  ensureBuilt()
  source = join(scratch.dir, 'reported.db')
  writeDemoChain({ dbPath: source, count: ROWS, secret: KEY, seed: 'reported' })
  const pem = join(scratch.dir, 'signer.pem')
  writeFileSync(pem, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }))
  const report = join(scratch.dir, 'report.json')
  reportPath = report
  const r = bijotel([
    'report',
    '--db',
    source,
    '--secret-hex',
    KEY.toString('hex'),
    '--sign-key',
    pem,
    '-o',
    report,
  ])
  expect(r.code, r.stderr).toBe(0)
  prior = priorFrom(readReportFile(report), 'prior')
  expect(prior.rows?.block_size).toBe(16)
}, 120_000)
afterAll(() => scratch.cleanup())

async function verdictOrRefusal(db: string, key: Buffer): Promise<string> {
  try {
    const v = await verifyChain(db, { secrets: [key], prior, recover: false })
    return v.findings.map((f) => f.kind).join(',') || 'none'
  } catch (e) {
    if (e instanceof AuditError) return `refused: ${e.message}`
    throw e
  }
}

describe('a report of another chain, which the live chain ends inside the first block of', () => {
  const rnd = mulberry32(0x0c4a1)
  for (let n = 0; n < 12; n++) {
    const rows = 1 + ((n * 5) % 15)
    const key = n % 3 === 2 ? OTHER_KEY : KEY
    it(`#${n}: ${rows} rows of seed other-${n}${key === OTHER_KEY ? ' under another key' : ''} — refused, never "truncated"`, async () => {
      const db = join(scratch.dir, `other-${n}.db`)
      writeDemoChain({ dbPath: db, count: rows, secret: key, seed: `other-${n}-${Math.floor(rnd() * 1e9)}` })
      const said = await verdictOrRefusal(db, key)
      expect(said).toMatch(
        /^refused: the prior is of another chain: its first row, seq 1, has timestamp_ns \d+; this chain's seq 1 is sealed at \d+/,
      )
    })
  }
})

describe("the report's own chain cut inside the first block", () => {
  for (const keep of [1, 7, 15]) {
    for (const editTime of [false, true]) {
      it(`cut to ${keep} rows${editTime ? ", row 1's timestamp_ns column edited" : ''}: truncated`, async () => {
        const db = join(scratch.dir, `cut-${keep}-${editTime}.db`)
        writeDemoChain({ dbPath: db, count: ROWS, secret: KEY, seed: 'reported' })
        const h = openScratch(db)
        try {
          h.prepare('DELETE FROM chain WHERE seq > ?').run(keep)
          if (editTime) h.prepare('UPDATE chain SET timestamp_ns = timestamp_ns + 1 WHERE seq = 1').run()
        } finally {
          h.close()
        }
        const said = await verdictOrRefusal(db, KEY)
        expect(said.split(',')).toContain('truncated')
        if (editTime) expect(said.split(',')).toContain('column_mismatch')
      })
    }
  }
})

// `report verify` settles which chain a report is about first (../../audit/report-subject.ts): the
// report's own chain cut inside its first block said "NOT THIS CHAIN … none of the rows it covered
// is in it as recorded; … this one with every covered row changed" — rows it covered are there,
// unchanged, only not comparable. Now: not this chain when its first row's sealed time differs,
// else unknown (the fields are then compared, and the cut shows as differences; exit 1 either way).
describe("the report's own chain cut, its first row forged without the key at another time", () => {
  for (const keep of [1, 9]) {
    it(`cut to ${keep} rows: truncated and hmac_mismatch, the prior not refused`, async () => {
      const db = join(scratch.dir, `forged-${keep}.db`)
      writeDemoChain({ dbPath: db, count: ROWS, secret: KEY, seed: 'reported' })
      const h = openScratch(db)
      try {
        h.prepare('DELETE FROM chain WHERE seq > ?').run(keep)
        // A new end time in the body, its hash and the column to match: only the HMAC tells.
        const row = h.prepare('SELECT canonical_body FROM chain WHERE seq = 1').get() as {
          canonical_body: Buffer
        }
        const text = row.canonical_body.toString('utf8')
        const m = /"end_time_ns":"(\d+)"/.exec(text)!
        const moved = String(BigInt(m[1]!) + 5n)
        const body = Buffer.from(text.replace(m[0], `"end_time_ns":"${moved}"`), 'utf8')
        h.prepare(
          'UPDATE chain SET canonical_body = ?, canonical_hash = ?, timestamp_ns = ? WHERE seq = 1',
        ).run(body, createHash('sha256').update(body).digest('hex'), BigInt(moved))
      } finally {
        h.close()
      }
      const said = (await verdictOrRefusal(db, KEY)).split(',')
      expect(said).toContain('truncated')
      expect(said).toContain('hmac_mismatch')
    })
  }
})

describe('report verify of that report against such chains', () => {
  const about = (db: string): { code: number | null; about: string } => {
    const r = bijotel(['report', 'verify', reportPath, '--db', db, '--secret-hex', KEY.toString('hex')])
    return { code: r.code, about: r.stdout.split('\n').find((l) => l.startsWith('About: ')) ?? r.stdout }
  }
  // Blocks are aligned to multiples of the block size: the first holds seqs 1-15.
  for (const rows of [1, 8, 14]) {
    it(`another chain of ${rows} rows: not this chain, by its first row's time`, () => {
      const db = join(scratch.dir, `rv-other-${rows}.db`)
      writeDemoChain({ dbPath: db, count: rows, secret: KEY, seed: `rv-other-${rows}` })
      const r = about(db)
      expect(r.code).toBe(1)
      expect(r.about).toMatch(
        /^About: NOT THIS CHAIN .* its first row, seq 1, has timestamp_ns \d+ where this chain's is sealed at \d+/,
      )
    })
    it(`its own chain cut to ${rows} rows: not called another chain`, () => {
      const db = join(scratch.dir, `rv-cut-${rows}.db`)
      writeDemoChain({ dbPath: db, count: ROWS, secret: KEY, seed: 'reported' })
      const h = openScratch(db)
      try {
        h.prepare('DELETE FROM chain WHERE seq > ?').run(rows)
      } finally {
        h.close()
      }
      const r = about(db)
      expect(r.code).toBe(1)
      expect(r.about).toMatch(
        /^About: UNKNOWN .* can be compared: this chain ends at seq \d+, inside the first block/,
      )
    })
  }
})
