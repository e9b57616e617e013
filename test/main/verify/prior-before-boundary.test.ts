// A prior whose head lies before the live chain's first row (round 9). The writer's archive moves
// the oldest rows to segment files, so an honest live chain starts at seq a+1 with its first row
// linking to a row the file does not hold (verify's `trusted` boundary: "archived or deleted"). A
// verdict or head-only prior taken before the archive, with its head among the archived rows, made
// that honest chain read BROKEN, "chain truncated: the prior head … is no longer in the chain"
// (exit 3), and so did a prior of ANOTHER chain under the same key (nothing of it can be compared).
// A cut is rows removed after the head; nothing in the file shows one, and the boundary already says
// what the file cannot: VALID, the Prior head words naming the segment that would compare it.
// Generated: chains of random length archived at random points; priors of the chain itself and of
// another chain, as verdicts and as heads alone, at random heads before the boundary. The controls
// keep their verdicts: a head past the live end is a cut, a head inside the chain that differs is
// refused as another chain's, and a range verify's head before the range is compared as before.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { OTHER_CHAIN } from '../../../src/main/verify/prior-chain'
import { DEMO_SECRET_HEX, writeDemoChain } from '../../../src/main/writer/demo'
import type { PriorHead, VerifyRangeOptions } from '../../../src/shared/verify-types'
import { bijotel, ensureBuilt } from '../testing/cli'
import { mulberry32 } from '../testing/prng'

const dir = mkdtempSync(join(tmpdir(), 'prior-before-boundary-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const KEYS: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: Buffer.from(DEMO_SECRET_HEX, 'hex') }]

function heads(path: string): Map<number, string> {
  const db = new Database(path, { readonly: true })
  try {
    const rows = db.prepare('SELECT seq, hmac_hash FROM chain').all() as { seq: number; hmac_hash: string }[]
    return new Map(rows.map((r) => [r.seq, r.hmac_hash]))
  } finally {
    db.close()
  }
}

function chain(name: string, count: number, seed: string, archived = 0): string {
  const path = join(dir, `${name}.db`)
  writeDemoChain({ dbPath: path, count, seed, force: true })
  if (archived > 0) {
    const db = new Database(path)
    db.prepare('DELETE FROM chain WHERE seq <= ?').run(archived)
    db.close()
  }
  return path
}

async function said(path: string, prior: PriorHead, range?: VerifyRangeOptions): Promise<string> {
  try {
    const { verdict } = await verifyFile(path, KEYS, {
      prior,
      workers: 1,
      ...(range ? { range } : {}),
    })
    return `${verdict.valid ? 'VALID' : 'BROKEN'}:${verdict.findings.map((f) => f.kind).join(',')}|${verdict.prior_check?.detail ?? ''}`
  } catch (e) {
    return `refused:${(e as Error).message}`
  }
}

describe('a prior whose head lies before an archived chain’s first row', () => {
  for (let n = 0; n < 6; n++) {
    it(`#${n}: the chain itself and another, as verdicts and heads alone — VALID, no truncation`, async () => {
      const rnd = mulberry32(0x39b0 + n)
      const count = 40 + Math.floor(rnd() * 60)
      const archived = 5 + Math.floor(rnd() * (count - 15))
      const full = chain(`full-${n}`, count, `seed-${n}`)
      const other = chain(`other-${n}`, count + 20, `other-${n}`)
      const live = chain(`live-${n}`, count, `seed-${n}`, archived)
      const own = heads(full)
      const foreign = heads(other)
      for (let k = 0; k < 4; k++) {
        const head = 1 + Math.floor(rnd() * archived)
        for (const [whose, mac] of [
          ['own', own.get(head)!],
          ['other', foreign.get(head)!],
        ] as const)
          for (const first of [undefined, { seq: 1, timestamp_ns: '1700000000000000000' }]) {
            const prior: PriorHead = {
              last_seq: head,
              head_hmac: mac,
              source: { kind: 'verdict' },
              ...(first ? { first } : {}),
            }
            const answer = await said(live, prior)
            const what = `${whose} head ${head} (archived 1-${archived} of ${count})${first ? ' with first' : ''}`
            expect(answer, what).toMatch(/^VALID:\|/)
            expect(answer, what).toContain(`lies before this chain's first row (seq ${archived + 1})`)
          }
      }
      // Controls: a head past the live end is a cut; one inside the chain that differs is another chain's.
      const past: PriorHead = {
        last_seq: count + 5,
        head_hmac: foreign.get(count + 5)!,
        source: { kind: 'verdict' },
      }
      expect(await said(live, past)).toMatch(/^BROKEN:truncated\|/)
      const inside = archived + 1 + Math.floor(rnd() * (count - archived))
      const differs: PriorHead = {
        last_seq: inside,
        head_hmac: foreign.get(inside)!,
        source: { kind: 'verdict' },
      }
      expect(await said(live, differs)).toBe(`refused:${OTHER_CHAIN}`)
      const same: PriorHead = { last_seq: inside, head_hmac: own.get(inside)!, source: { kind: 'verdict' } }
      expect(await said(live, same)).toMatch(/^VALID:\|the prior head seq=\d+ is still in the chain/)
    }, 120_000)
  }

  it('a range verify: a head before the range that the file holds with another hmac_hash is not excused', async () => {
    const full = chain('range-full', 60, 'range')
    const other = heads(chain('range-other', 60, 'range-other'))
    const prior: PriorHead = { last_seq: 10, head_hmac: other.get(10)!, source: { kind: 'verdict' } }
    expect(await said(full, prior, { seq_start: 30, seq_end: 60 })).toBe(`refused:${OTHER_CHAIN}`)
    // The same head as the file holds it: found, the range's own verdict.
    const own: PriorHead = { last_seq: 10, head_hmac: heads(full).get(10)!, source: { kind: 'verdict' } }
    expect(await said(full, own, { seq_start: 30, seq_end: 60 })).toMatch(
      /^VALID:\|the prior head seq=10 is still in the chain/,
    )
  })

  it('a report of the rows before the boundary, as the prior: VALID, its rows said to lie before the chain', () => {
    ensureBuilt()
    const full = chain('report-full', 50, 'report')
    const head = chain('report-head', 50, 'report')
    const db = new Database(head)
    db.prepare('DELETE FROM chain WHERE seq > 12').run()
    db.close()
    const live = chain('report-live', 50, 'report', 20)
    const out = join(dir, 'report-head.json')
    const key = ['--secret-hex', DEMO_SECRET_HEX]
    expect(bijotel(['report', '--db', head, ...key, '-o', out]).code).toBe(0)
    const r = bijotel(['verify', '--db', live, ...key, '--prior', out])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain("the prior head seq=12 lies before this chain's first row (seq 21)")
    expect(r.stdout).toContain("they lie before this chain's first row (seq 21)")
    expect(r.stdout).not.toMatch(/ends at seq none/)
    expect(heads(full).size).toBe(50)
  }, 60_000)
})
