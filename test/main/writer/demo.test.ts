import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainFile } from '../../../src/main/chain/reader'
import { bijotel, ensureBuilt } from '../replay/testcli'
import { beforeEvidence } from '../testing/evidence'
import { parseSecrets } from '../../../src/main/chain/keys'
import { verifyRows } from '../../../src/main/verify/verify'
import { sqliteSource } from '../testing/sources'
import { semanticOfCanonical } from '../../../src/main/writer/canonical'
import {
  DEMO_ROTATED_SECRET_HEX,
  DEMO_SECRET_HEX,
  DemoGenerator,
  demoBodies,
  writeDemoChain,
} from '../../../src/main/writer/demo'
import { canonicalBytes } from '../../../src/main/chain/jcs'
import { STORED_SCHEMA } from '../../../src/main/chain/schema'

let tmp: string
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bijotel-demo-test-'))
})
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const keys = (...hex: string[]) => parseSecrets(hex.map((value) => ({ encoding: 'hex' as const, value })))

async function open<T>(p: string, fn: (c: ChainFile) => Promise<T> | T): Promise<T> {
  const c = await ChainFile.open(p)
  try {
    return await fn(c)
  } finally {
    c.close()
  }
}

describe('demo generator', () => {
  it('its one-pass bodies equal JCS of the dict and of the semantic dict', () => {
    const g = new DemoGenerator('check')
    for (let i = 0; i < 1500; i++) {
      const d = g.next()
      const { body, semantic } = demoBodies(d.dict)
      expect(body.equals(canonicalBytes(d.dict))).toBe(true)
      expect(semantic.equals(canonicalBytes(semanticOfCanonical(d.dict)))).toBe(true)
      expect(d.row.canonicalBody.equals(body)).toBe(true)
    }
  })
  it('is realistic: providers, sizes, replay metadata, ~20 calls per hour, monotonic time', () => {
    const g = new DemoGenerator()
    const n = 3000
    const providers = new Map<string, number>()
    let bytes = 0
    let replay = 0
    let seeded = 0
    let errors = 0
    let prev = 0n
    let first = 0n
    for (let i = 0; i < n; i++) {
      const d = g.next()
      providers.set(d.info.provider, (providers.get(d.info.provider) ?? 0) + 1)
      bytes += d.row.canonicalBody.length
      if (d.info.hasReplay) replay++
      if (d.info.deterministic) seeded++
      if (d.info.error) errors++
      expect(d.row.timestampNs > prev).toBe(true)
      if (i === 0) first = d.row.timestampNs
      prev = d.row.timestampNs
      expect(d.row.traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(d.row.spanId).toMatch(/^[0-9a-f]{16}$/)
    }
    expect([...providers.keys()].sort()).toEqual(['anthropic', 'google', 'mistral', 'openai', 'xai'])
    const avg = bytes / n
    expect(avg).toBeGreaterThan(1000)
    expect(avg).toBeLessThan(1500)
    expect(replay / n).toBeGreaterThan(0.35)
    expect(replay / n).toBeLessThan(0.55)
    expect(seeded / replay).toBeGreaterThan(0.4)
    expect(seeded / replay).toBeLessThan(0.6)
    expect(errors).toBeGreaterThan(0)
    const perHour = (n - 1) / (Number(prev - first) / 3.6e12)
    expect(perHour).toBeGreaterThan(17)
    expect(perHour).toBeLessThan(23)
  })
})

describe('writeDemoChain', () => {
  it('writes a chain that verifies, with the reference schema, deterministically', async () => {
    const a = join(tmp, 'a.db')
    const b = join(tmp, 'b.db')
    const r = writeDemoChain({ dbPath: a, count: 300 })
    expect(r).toMatchObject({ rows: 300, firstSeq: 1, lastSeq: 300 })
    writeDemoChain({ dbPath: b, count: 300 })
    const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex')
    expect(sha(a)).toBe(sha(b))
    const v = await open(a, (c) => verifyRows(sqliteSource(c), keys(DEMO_SECRET_HEX), { workers: 1 }))
    expect(v.valid).toBe(true)
    expect(v.entries).toBe(300)
    expect(v.findings).toEqual([])
    expect(v.head_hmac).toBe(r.head)
    const schema = await open(a, (c) =>
      Object.fromEntries(
        (c.db.prepare('SELECT name, sql FROM sqlite_master').all() as { name: string; sql: string }[]).map(
          (x) => [x.name, x.sql],
        ),
      ),
    )
    expect(schema).toEqual(STORED_SCHEMA)
    expect(await open(a, (c) => c.journalMode())).toBe('wal')
    const other = join(tmp, 'other-seed.db')
    writeDemoChain({ dbPath: other, count: 300, seed: 'another' })
    expect(sha(other)).not.toBe(sha(a))
  })
  it('rotation: two key segments, verifying with both keys', async () => {
    const p = join(tmp, 'rot.db')
    writeDemoChain({ dbPath: p, count: 250, rotateAt: 101, batchSize: 64 })
    const v = await open(p, (c) =>
      verifyRows(sqliteSource(c), keys(DEMO_SECRET_HEX, DEMO_ROTATED_SECRET_HEX), { workers: 1 }),
    )
    expect(v.valid).toBe(true)
    expect(v.key_segments.map((s) => [s.key_index, s.from_seq, s.to_seq])).toEqual([
      [0, 1, 100],
      [1, 101, 250],
    ])
    const only = await open(p, (c) => verifyRows(sqliteSource(c), keys(DEMO_SECRET_HEX), { workers: 1 }))
    expect(only.valid).toBe(false)
  })
  it('refuses to overwrite unless forced', () => {
    const p = join(tmp, 'exists.db')
    writeFileSync(p, 'precious')
    expect(() => writeDemoChain({ dbPath: p, count: 1 })).toThrow(/refusing to overwrite existing file/)
    expect(readFileSync(p, 'utf8')).toBe('precious')
    writeDemoChain({ dbPath: p, count: 3, force: true })
    expect(readFileSync(p).subarray(0, 15).toString()).toBe('SQLite format 3')
  })
})

describe('bin/bijotel demo', () => {
  beforeAll(() => ensureBuilt())
  it('writes the chain and replay samples that replay as described', () => {
    const p = join(tmp, 'cli.db')
    const dir = join(tmp, 'samples')
    const r = bijotel(['demo', '--db', p, '--count', '120', '--replay-samples', dir])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Wrote 120 rows')
    const samples = JSON.parse(readFileSync(join(dir, 'sample-replay.json'), 'utf8')) as {
      file: string
      seq: number
      expect_match: boolean
    }[]
    expect(samples.length).toBe(5)
    for (const s of samples) {
      const x = bijotel([
        'replay',
        '--db',
        p,
        '--seq',
        String(s.seq),
        '--output-file',
        join(dir, s.file),
        '--secret-hex',
        DEMO_SECRET_HEX,
      ])
      expect(x.code, s.file).toBe(s.expect_match ? 0 : 3)
      expect(x.stdout).toContain('row verifies')
    }
    const crlf = samples.find((s) => s.file.includes('crlf'))!
    expect(
      bijotel([
        'replay',
        '--db',
        p,
        '--seq',
        String(crlf.seq),
        '--output-file',
        join(dir, crlf.file),
        '--raw',
      ]).code,
    ).toBe(3)
    expect(bijotel(['demo', '--db', p, '--count', '5']).code).toBe(2)
    expect(bijotel(['demo', '--db', p, '--count', '5', '--force']).code).toBe(0)
    expect(bijotel(['demo', '--db', join(tmp, 'x.db'), '--count', 'ten']).code).toBe(2)
    expect(bijotel(['demo', '--db', join(tmp, 'x.db'), '--count', '5', '--secret-hex', 'abcd']).code).toBe(2)
    const v = bijotel(['verify', '--db', p, '--secret-hex', DEMO_SECRET_HEX])
    expect(beforeEvidence(v.stdout)).toBe('Chain VALID (5 entries).\n')
  })
})
