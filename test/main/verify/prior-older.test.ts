// An older prior handed over in place of a later one (round 7's left item). Rows sealed after a
// prior and since cut from the tail leave a chain that prior finds unchanged: one document cannot
// show that a later one exists. The verdict said only "the prior head … is still in the chain",
// which reads as if the prior vouched for the chain as it is. Now the prior-head words say what the
// prior does not cover: the rows after its head, and rows sealed after it and since cut. Generated:
// chains of one origin, signed report priors at k rows, the live chain cut at m ≥ k rows (what a
// later deletion hidden behind the older prior leaves): VALID, no finding (nothing proves one),
// and the words name seq k+1-m; at m = k the words add nothing.
import { generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { priorFrom, readReportFile } from '../../../src/main/custody/report-file'
import { verifyChain } from '../../../src/main/library/verify-chain'
import { writeDemoChain } from '../../../src/main/writer/demo'
import { openScratch, scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt } from '../testing/cli'
import { mulberry32 } from '../testing/prng'

const scratch = scratchDir('prior-older')
const KEY = Buffer.from('prior-older-key-0123456789abcdef', 'utf8')
const HEX = KEY.toString('hex')
const ROWS = 60
let full = ''
const priors = new Map<number, string>()

function cutCopy(rows: number, name: string): string {
  const db = join(scratch.dir, name)
  const src = openScratch(full)
  try {
    src.prepare('VACUUM INTO ?').run(db)
  } finally {
    src.close()
  }
  const h = openScratch(db)
  try {
    h.prepare('DELETE FROM chain WHERE seq > ?').run(rows)
  } finally {
    h.close()
  }
  return db
}

beforeAll(() => {
  ensureBuilt()
  full = join(scratch.dir, 'full.db')
  writeDemoChain({ dbPath: full, count: ROWS, secret: KEY, seed: 'prior-older' })
  const pem = join(scratch.dir, 'signer.pem')
  writeFileSync(pem, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }))
  for (const k of [5, 17, 33, 48]) {
    const out = join(scratch.dir, `prior-${k}.json`)
    const r = bijotel([
      'report',
      '--db',
      cutCopy(k, `at-${k}.db`),
      '--secret-hex',
      HEX,
      '--sign-key',
      pem,
      '-o',
      out,
    ])
    expect(r.code, r.stderr).toBe(0)
    priors.set(k, out)
  }
}, 120_000)
afterAll(() => scratch.cleanup())

describe('an older signed prior, the chain cut after it', () => {
  const rnd = mulberry32(0x01de4)
  let n = 0
  for (const k of [5, 17, 33, 48])
    for (let j = 0; j < 3; j++) {
      const m = j === 0 ? k : k + 1 + Math.floor(rnd() * (ROWS - k))
      const id = n++
      it(`prior at ${k} rows, chain cut to ${m}: VALID, and the words say what the prior does not cover`, async () => {
        const prior = priorFrom(readReportFile(priors.get(k)!), 'prior')
        const db = m === ROWS ? full : cutCopy(m, `live-${id}.db`)
        const v = await verifyChain(db, { secrets: [KEY], prior, recover: false })
        expect(v.valid).toBe(true)
        expect(v.findings).toEqual([])
        const detail = v.prior_check!.detail
        expect(detail).toMatch(new RegExp(`^the prior head seq=${k} is still in the chain`))
        if (m > k)
          expect(detail).toMatch(
            new RegExp(
              `this prior \\(written [^)]+\\) says nothing of the rows after it \\(seq ${k + 1}-${m}\\) nor of rows sealed after it and since cut from the tail: a later prior withheld in favour of this one cannot be told from it`,
            ),
          )
        else expect(detail).not.toMatch(/says nothing of the rows after it/)
      })
    }
})
