import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dbPath, expected, fingerprintFolder, fixtureNames, secretInputs } from '../testing/fixtures'
import { parseSecrets } from '../../../src/main/chain/keys'
import { verifyRows, type VerifyOptions } from '../../../src/main/verify/verify'
import { READERS, bothReaders, withSource } from '../testing/sources'

let before: Map<string, string>
beforeAll(() => {
  before = fingerprintFolder()
})
afterAll(() => {
  // Reading must not have changed a byte, an mtime, or added a side file to the evidence folder.
  expect(fingerprintFolder()).toEqual(before)
})

describe.each(READERS)('verify matches every fixture verdict, read by %s', (reader) => {
  for (const name of fixtureNames()) {
    const exp = expected(name)
    it(`${name}: full key set ${exp.secrets.join('+')}, and the first secret only`, async () => {
      await withSource(dbPath(name), reader, async (source) => {
        expect(await verifyRows(source, parseSecrets(secretInputs(exp.secrets)))).toEqual(exp.verify)
        expect(await verifyRows(source, parseSecrets(secretInputs(exp.secrets.slice(0, 1))))).toEqual(
          exp.verify_primary_only,
        )
      })
    })
  }
})

describe('both readers give the same verdicts on ranges, --prior and runs', () => {
  for (const name of fixtureNames()) {
    const exp = expected(name)
    it(name, async () => {
      const keys = parseSecrets(secretInputs(exp.secrets))
      const cases: VerifyOptions[] = [
        { range: { seq_start: 10 } },
        { range: { seq_start: 5, seq_end: 40 } },
        { range: { seq_end: 0 } },
        { range: { seq_start: 1000 } },
        { range: { last_n: 7 } },
        { range: { last_n: 7, seq_end: 50 } },
        { range: { last_n: 100000 } },
        { range: { since_ns: '1763000000000000000' } },
        { range: { until_ns: '1700000000000000000' } },
        { prior: { last_seq: 20, head_hmac: 'x' } },
        { prior: { last_seq: 500, head_hmac: 'x' } },
        // Cut into runs verified one after another, each from its own predecessor.
        { runs: 5 },
        { runs: 3, range: { seq_start: 17, seq_end: 90 } },
      ]
      const got = await bothReaders(dbPath(name), async (source) => {
        const out: unknown[] = []
        // A prior refused (issue 39: of another chain) is an outcome both readers must give alike.
        for (const opts of cases)
          out.push(await verifyRows(source, keys, opts).catch((e: Error) => ({ refused: e.message })))
        return out
      })
      cases.forEach((opts, i) => expect(got.direct[i], JSON.stringify(opts)).toEqual(got['sqlite-copy'][i]))
      // Runs change nothing: the whole-chain verdict in five runs is the fixture's.
      expect(got.direct[11]).toEqual(exp.verify)
    })
  }
})
