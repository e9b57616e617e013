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
// prior", its line saying it is its author's word alone (docs/custody.md).
import { existsSync, writeFileSync } from 'node:fs'
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

/** A copy of `c.long` cut to the other chain's length: the verdict's own chain, truncated. */
function cutCopy(c: Case, n: number): string {
  const db = join(scratch.dir, `cut-${n}.db`)
  if (existsSync(db)) return db
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
  return db
}

/** The verdict at `verdictPath` without its evidence statement (as verify --json wrote it before). */
function bareVerdict(verdictPath: string, n: number): string {
  const { evidence, ...bare } = readReportFile(verdictPath).doc
  expect(evidence).toBeTypeOf('object')
  const path = join(scratch.dir, `bare-${n}.json`)
  writeFileSync(path, JSON.stringify(bare))
  return path
}

async function priorDetail(db: string, verdictPath: string): Promise<string> {
  const prior = priorFrom(readReportFile(verdictPath), 'prior')
  const v = await verifyChain(db, { secrets: [KEY], prior, recover: false })
  expect(v.findings.map((f) => f.kind)).toContain('truncated')
  return v.prior_check!.detail
}

// Round 8's decision: such a verdict holds no row of this chain, so the finding is its author's word
// (the shared fixture truncated-tail's head-only verdict must show the cut), and the prior's line
// says that and no more: a prior of another, longer chain under the same key reads the same.
const HEAD_ONLY =
  /this prior records its head alone \(no first row, no rows digest\): nothing in it ties it to this chain, so this is its author's word that they saw this chain reach that seq — a prior of another chain under the same key, longer than seq=(\d+), reads the same/

describe("the verdict's own chain cut: still truncated", () => {
  for (let n = 0; n < CASES; n += 2) {
    it(`#${n}: cut to the other chain's length`, async () => {
      const c = cases[n]!
      expect((await said(cutCopy(c, n), c.verdict)).split(',')).toContain('truncated')
    })
  }
})

describe('a verdict without an evidence statement: its own word, said as such (per an unsigned prior)', () => {
  for (let n = 0; n < CASES; n++) {
    it(`#${n}: the other chain and the verdict's own chain cut read the same, and say why`, async () => {
      const c = cases[n]!
      const bare = bareVerdict(c.verdict, n)
      for (const db of [c.short, cutCopy(c, n)]) {
        const detail = await priorDetail(db, bare)
        expect(detail).toMatch(HEAD_ONLY)
        expect(HEAD_ONLY.exec(detail)![1]).toBe(String(c.shortRows))
      }
      // With its first row the verdict is tied to its own chain: no such words.
      expect(await priorDetail(cutCopy(c, n), c.verdict)).not.toMatch(/records its head alone/)
    })
  }
  it('the CLI prints it on the Prior head line', () => {
    const c = cases[1]!
    const r = bijotel(['verify', '--db', c.short, '--secret-hex', HEX, '--prior', bareVerdict(c.verdict, 99)])
    expect(r.code).toBe(3)
    expect(r.stdout).toMatch(
      /^Prior head: chain truncated: .*records its head alone.*reads the same \(per an unsigned prior/m,
    )
  })
})
