// The kit of the tests that re-sign an edited report with its own signer (check-report.test.ts,
// report-verdict-extras.test.ts): the clean and body-edit fixtures' reports, a fresh key pair made
// by `bijotel keygen`, and `report verify` of a document signed with it. The fixtures folder is
// checked unchanged after the file's tests.
import { createPrivateKey, createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import { checkReport } from '../../../src/main/audit/check-report'
import { parseSecrets } from '../../../src/main/chain/keys'
import { signReport } from '../../../src/main/custody/sign'
import { scratchDir } from '../reliability/chainkit'
import { bijotel, ensureBuilt, fixtureReport } from '../testing/cli'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'

export type Doc = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

export interface FixtureReports {
  /** Filled before the file's tests: each fixture's chain and its report (with the replays asked). */
  reports: { db: string; doc: Doc }[]
  /** The pair's private key file. */
  privateKeyPath: () => string
  /** `report verify` of `doc`, signed with the pair, against `db` under the primary key. */
  resignedCheck: (db: string, doc: Doc) => Promise<{ ok: boolean; summary: string }>
}

export function fixtureReports(name: string, replays: number[]): FixtureReports {
  const scratch = scratchDir(name)
  const keyDir = join(scratch.dir, 'keys')
  const reports: { db: string; doc: Doc }[] = []
  let before: Map<string, string>
  beforeAll(() => {
    ensureBuilt()
    before = fingerprintFolder()
    expect(bijotel(['keygen', '--output-dir', keyDir]).code).toBe(0)
    for (const fixture of ['clean', 'body-edit']) {
      const out = join(scratch.dir, `${fixture}.json`)
      reports.push({ db: dbPath(fixture), doc: fixtureReport(fixture, replays, out) as Doc })
    }
  })
  afterAll(() => {
    scratch.cleanup()
    expect(fingerprintFolder()).toEqual(before)
  })
  const privateKeyPath = (): string => join(keyDir, 'bijotel_private.pem')
  return {
    reports,
    privateKeyPath,
    resignedCheck: (db, doc) => {
      const priv = createPrivateKey(readFileSync(privateKeyPath()))
      return checkReport({
        read: {
          doc: signReport(doc as AuditReport, priv) as unknown as Record<string, unknown>,
          format: 'json',
        },
        reportPath: 'r',
        dbPath: db,
        keys: parseSecrets(secretInputs(['primary'])),
        publicKey: createPublicKey(priv),
      })
    },
  }
}
