// Test kit: what the engine says about the shared recovery cases (rec-*.db), computed by the library on
// the real files, for the renderer's component and store tests; and the live body of a seq as the
// entry panel shows it (read by SQLite on a copy, pretty-printed as getEntry does).
import { recoverFile } from '../../../../src/main/recovery/verdict'
import { verifyFile } from '../../../../src/main/audit/verify-file'
import { parseSecrets } from '../../../../src/main/chain/keys'
import type { RecoveryResult } from '../../../../src/shared/recovery-types'
import type { VerifyVerdict } from '../../../../src/shared/verify-types'
import { recoveryCase, type RecoveryCase } from '../../../main/recovery/recovery-expect'
import { dbPath, secretInputs, withSqliteCopy } from '../../../main/testing/fixtures'

export { recoveryCase, type RecoveryCase }

export function recovered(name: string, withKey = true): RecoveryResult {
  const c = recoveryCase(name)
  return recoverFile(dbPath(name), withKey ? parseSecrets(secretInputs(c.secrets)) : [])
}

export async function verdictOf(name: string): Promise<VerifyVerdict> {
  const c = recoveryCase(name)
  const { verdict } = await verifyFile(dbPath(name), parseSecrets(secretInputs(c.secrets)), {
    recover: true,
    workers: 1,
  })
  return verdict
}

export function liveBody(name: string, seq: number): string {
  return withSqliteCopy(dbPath(name), (db) => {
    const row = db.prepare('SELECT canonical_body FROM chain WHERE seq = ?').get(seq) as
      { canonical_body: Buffer | string } | undefined
    if (!row) throw new Error(`no live seq ${seq} in ${name}`)
    const text = Buffer.isBuffer(row.canonical_body)
      ? row.canonical_body.toString('utf8')
      : row.canonical_body
    return JSON.stringify(JSON.parse(text), null, 2)
  })
}
