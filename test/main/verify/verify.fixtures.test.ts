import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainFile } from '../../../src/main/chain/reader'
import { dbPath, expected, fingerprintFolder, fixtureNames, secretInputs } from '../testing/fixtures'
import { parseSecrets } from '../../../src/main/verify/secrets'
import { openDirect } from '../../../src/main/chain/direct/open'
import { verifyDirect } from '../../../src/main/verify/direct'
import { verifyChain, type VerifyOptions } from '../../../src/main/verify/verify'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  // Reading must not have changed a byte, an mtime, or added a side file to the evidence folder.
  expect(fingerprintFolder()).toEqual(before)
})

describe('verify matches every fixture verdict (library)', () => {
  for (const name of fixtureNames()) {
    const exp = expected(name)
    it(`${name}: full key set ${exp.secrets.join('+')}`, async () => {
      const chain = await ChainFile.open(dbPath(name))
      try {
        const verdict = await verifyChain(chain, parseSecrets(secretInputs(exp.secrets)))
        expect(verdict).toEqual(exp.verify)
      } finally {
        chain.close()
      }
    })
    it(`${name}: first secret only`, async () => {
      const chain = await ChainFile.open(dbPath(name))
      try {
        const verdict = await verifyChain(chain, parseSecrets(secretInputs(exp.secrets.slice(0, 1))))
        expect(verdict).toEqual(exp.verify_primary_only)
      } finally {
        chain.close()
      }
    })
  }
})

describe('direct file reading gives the same verdicts as SQLite on a copy', () => {
  for (const name of fixtureNames()) {
    const exp = expected(name)
    it(`${name}: fixture verdicts, read directly`, async () => {
      const direct = openDirect(dbPath(name))
      expect(await verifyDirect(direct, parseSecrets(secretInputs(exp.secrets)))).toEqual(exp.verify)
      expect(await verifyDirect(direct, parseSecrets(secretInputs(exp.secrets.slice(0, 1))))).toEqual(
        exp.verify_primary_only,
      )
    })
    it(`${name}: ranges and --prior agree with the SQLite path`, async () => {
      const keys = parseSecrets(secretInputs(exp.secrets))
      const direct = openDirect(dbPath(name))
      const chain = await ChainFile.open(dbPath(name))
      try {
        const cases: VerifyOptions[] = [
          { range: { seq_start: 10 } },
          { range: { seq_start: 5, seq_end: 40 } },
          { range: { seq_end: 0 } },
          { range: { seq_start: 1000 } },
          { range: { last_n: 7 } },
          { range: { last_n: 7, seq_end: 50 } },
          { range: { last_n: 100000 } },
          { prior: { last_seq: 20, head_hmac: 'x' } },
          { prior: { last_seq: 500, head_hmac: 'x' } },
        ]
        for (const opts of cases) {
          expect(await verifyDirect(direct, keys, opts), JSON.stringify(opts)).toEqual(
            await verifyChain(chain, keys, opts),
          )
        }
      } finally {
        chain.close()
      }
    })
  }
})
