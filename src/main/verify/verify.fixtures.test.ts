import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainFile } from '../chain/reader'
import { dbPath, expected, fingerprintFolder, fixtureNames, secretInputs } from '../testing/fixtures'
import { parseSecrets } from './secrets'
import { verifyChain } from './verify'

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
