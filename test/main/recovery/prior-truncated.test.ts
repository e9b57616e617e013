// A truncation both the files and a prior name (issue 39, "Priors"): the recovered rows prove the seqs
// they are, nothing past them. Generated cut tails (every page size, WAL and rollback journal), each
// verified with an unsigned prior whose head lies past the last recovered row (a made-up longer chain:
// what anyone can write) and with one whose head is the real old head. The finding the recovered rows
// make never reaches past the last of them; seqs only the prior names are the prior's finding, "per an
// unsigned prior"; where both say the same seqs there is one finding.
import { describe, expect, it } from 'vitest'
import { verifyFile } from '../../../src/main/audit/verify-file'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { describeFinding } from '../../../src/main/verify/describe'
import type { PriorHead } from '../../../src/shared/verify-types'
import { Rng } from '../reliability/chainkit'
import { generateClaims } from './claims-generator'

const SHAPES = [
  { pageSize: 1024, journal: 'wal' },
  { pageSize: 4096, journal: 'wal' },
  { pageSize: 512, journal: 'delete' },
  { pageSize: 8192, journal: 'delete' },
  { pageSize: 4096, journal: 'delete' },
  { pageSize: 2048, journal: 'wal' },
] as const

describe('a truncation named by the recovered rows and by a prior', () => {
  for (const [n, shape] of SHAPES.entries()) {
    it(`p${shape.pageSize} ${shape.journal}`, async () => {
      const g = generateClaims(
        {
          name: 'cut',
          ...shape,
          history: 'appends-checkpoints',
          attack: 'truncate-tail',
          foreign: 'none',
          rows: 30,
        },
        0x7a11 + n,
      )
      try {
        const keys: KeyMaterial[] = g.keys.map((bytes, index) => ({ index, encoding: 'hex', bytes }))
        const cut = [...g.attacked].sort((a, b) => (a < b ? -1 : 1))
        const lastLive = Number(cut[0]!) - 1
        const realHead = Number(cut.at(-1)!)
        const rng = new Rng(n)
        const madeUp: PriorHead = {
          last_seq: realHead + 5 + Math.floor(rng.next() * 50),
          head_hmac: rng.hex(64),
          source: { kind: 'verdict' },
        }
        const { verdict } = await verifyFile(g.db, keys, { recover: true, workers: 1, prior: madeUp })
        const after = (verdict.recovered ?? []).filter(
          (r) => r.status === 'deleted' && r.key_index !== null && r.seq !== null && r.seq > lastLive,
        )
        const maxRecovered = after.reduce((m, r) => Math.max(m, r.seq!), lastLive)
        const truncated = verdict.findings.filter((f) => f.kind === 'truncated')
        for (const f of truncated) {
          if (f.evidence) {
            expect(f.to_seq, describeFinding(f)).toBeLessThanOrEqual(maxRecovered)
            expect(f.unsigned_prior).toBeUndefined()
          } else expect(f.unsigned_prior, describeFinding(f)).toBe(true)
        }
        // Every seq the prior names past the live head is in exactly one finding.
        for (let s = lastLive + 1; s <= madeUp.last_seq; s++)
          expect(truncated.filter((f) => f.from_seq <= s && s <= f.to_seq).length, `seq ${s}`).toBe(1)
        if (after.length > 0) {
          // The real head as the prior: the recovered rows and the prior say the same seqs, or the
          // prior names more (rows lost from the files): never a recovered finding past the rows.
          const real: PriorHead = {
            last_seq: realHead,
            head_hmac: g.live.get(BigInt(lastLive))!.hmac,
            source: { kind: 'verdict' },
          }
          const v2 = (await verifyFile(g.db, keys, { recover: true, workers: 1, prior: real })).verdict
          const t2 = v2.findings.filter((f) => f.kind === 'truncated')
          for (const f of t2) if (f.evidence) expect(f.to_seq).toBeLessThanOrEqual(maxRecovered)
          if (maxRecovered === realHead) expect(t2.length).toBe(1)
        }
      } finally {
        g.cleanup()
      }
    })
  }
})
