// A `verify --json` VERDICT of another, longer chain given as the prior (round 7's left item: "verdict
// priors (head only) of a longer chain of the same key read here as a truncation"). A verdict's head
// lies past the live chain's end, so nothing of it can be compared, and an honest chain of another
// origin under the same key read "Chain BROKEN … truncated seq N+1-M (per an unsigned prior)": a
// false finding. The verdict's evidence statement names its first row (first_seq,
// first_timestamp_ns), as a report's coverage.statement does: a live row at that seq sealed at
// another time is not the row the verdict saw, so the prior is refused in one line (exit 2).
// Generated: longer chains and shorter chains of other seeds under the same key. The honest side:
// the verdict's own chain cut (still "truncated"), and a verdict without an evidence statement
// (older verdicts, the shared fixture's), where nothing tells: still taken, named "per an unsigned
// prior" (docs/custody.md).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { priorFrom, readReportFile } from '../../../src/main/custody/report-file'
import { verifyChain } from '../../../src/main/library/verify-chain'
import { writeDemoChain } from '../../../src/main/writer/demo'
import { openScratch, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('prior-verdict-other')
const KEY = Buffer.from('prior-verdict-other-key-01234567', 'utf8')
const HEX = KEY.toString('hex')
const CASES = 8

interface Case {
  long: string
  longRows: number
  verdict: string
  short: string
  shortRows: number
}
const cases: Case[] = []

beforeAll(() => {
  ensureBuilt()
  const rnd = mulberry32(0x7e4d1c7)
  for (let n = 0; n < CASES; n++) {
    const longRows = 20 + Math.floor(rnd() * 40)
    const shortRows = 1 + Math.floor(rnd() * (longRows - 1))
    const long = join(scratch.dir, `long-${n}.db`)
    const short = join(scratch.dir, `short-${n}.db`)
    writeDemoChain({
      dbPath: long,
      count: longRows,
      secret: KEY,
      seed: `long-${n}-${Math.floor(rnd() * 1e9)}`,
    })
    writeDemoChain({
      dbPath: short,
      count: shortRows,
      secret: KEY,
      seed: `short-${n}-${Math.floor(rnd() * 1e9)}`,
    })
    const r = bijotel(['verify', '--db', long, '--secret-hex', HEX, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const verdict = join(scratch.dir, `verdict-${n}.json`)
    writeFileSync(verdict, r.stdout)
    cases.push({ long, longRows, verdict, short, shortRows })
  }
}, 120_000)
afterAll(() => scratch.cleanup())

async function said(db: string, verdictPath: string): Promise<string> {
  const prior = priorFrom(readReportFile(verdictPath), 'prior')
  try {
    const v = await verifyChain(db, { secrets: [KEY], prior, recover: false })
    return v.findings.map((f) => f.kind).join(',') || 'none'
  } catch (e) {
    if (e instanceof AuditError) return `refused: ${e.message}`
    throw e
  }
}

describe('a verdict of a longer chain of another origin, same key', () => {
  for (let n = 0; n < CASES; n++) {
    it(`#${n}: refused by its first row's time, never "truncated"`, async () => {
      const c = cases[n]!
      expect(await said(c.short, c.verdict)).toMatch(
        /^refused: the prior is of another chain: its first row, seq 1, has timestamp_ns \d+; this chain's seq 1 is sealed at \d+/,
      )
    })
  }
  it('the CLI: one line, exit 2, no finding printed', () => {
    const c = cases[0]!
    const r = bijotel(['verify', '--db', c.short, '--secret-hex', HEX, '--prior', c.verdict])
    expect(r.code).toBe(2)
    expect(r.stdout).not.toMatch(/truncated|BROKEN/)
    expect(r.stderr.split('\n')[0]).toMatch(/^bijotel verify: error: --prior .*the prior is of another chain/)
  })
})

describe("the verdict's own chain cut: still truncated", () => {
  for (let n = 0; n < CASES; n += 2) {
    it(`#${n}: cut to the other chain's length`, async () => {
      const c = cases[n]!
      const db = join(scratch.dir, `cut-${n}.db`)
      const src = openScratch(c.long)
      try {
        src.prepare('VACUUM INTO ?').run(db)
      } finally {
        src.close()
      }
      const h = openScratch(db)
      try {
        h.prepare('DELETE FROM chain WHERE seq > ?').run(c.shortRows)
      } finally {
        h.close()
      }
      expect((await said(db, c.verdict)).split(',')).toContain('truncated')
    })
  }
})

describe('a verdict without an evidence statement: nothing tells, still taken (per an unsigned prior)', () => {
  it('the other chain reads truncated, as documented', async () => {
    const c = cases[1]!
    const { evidence, ...bare } = readReportFile(c.verdict).doc
    expect(evidence).toBeTypeOf('object')
    const path = join(scratch.dir, 'bare.json')
    writeFileSync(path, JSON.stringify(bare))
    expect((await said(c.short, path)).split(',')).toContain('truncated')
  })
})
