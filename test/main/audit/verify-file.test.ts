// verifyOpened (the app's and the server's verify, on a chain opened through its verified private
// copy) with recovery: the search reads the evidence, not the copy — SQLite recovered the copy's WAL
// into it, so a live capture's frames and superseded pages exist only in the evidence. Every shared
// recovery case must come out as its `.recovery.json` says, as through the library and the CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import { verifyOpened } from '../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../src/main/chain/keys'
import { expectVerdict, recoveryCase, recoveryCaseNames, UNPROVEN_CLAIMS } from '../recovery/recovery-expect'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  expect(fingerprintFolder()).toEqual(before)
})

describe('verifyOpened with recovery searches the evidence', () => {
  for (const name of recoveryCaseNames()) {
    it(`${name}: as its .recovery.json says`, async () => {
      const c = recoveryCase(name)
      const chain = await OpenedChain.open(dbPath(name))
      try {
        const verdict = await verifyOpened(chain, parseSecrets(secretInputs(c.secrets)), { recover: true })
        if (UNPROVEN_CLAIMS[name]) {
          // What its links prove: no finding (see UNPROVEN_CLAIMS).
          expect(verdict.valid).toBe(true)
          expect((verdict.recovered ?? []).every((r) => r.status === 'unplaced')).toBe(true)
        } else expectVerdict(verdict, c)
      } finally {
        chain.close()
      }
    })
  }
})
