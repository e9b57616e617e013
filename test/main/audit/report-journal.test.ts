// A report on a chain whose rows are recovered from a rollback journal (issue 39, declined files
// searched) is one its own schema takes: the recovery block names the journal (`file: "journal"`,
// `kind: "journal_page"`, `scanned.journal_pages`, `declined`) as verify --json does. Before, the
// schema named none of them, so `report verify` refused the tool's own report ("a member its schema
// does not name: recovery.summary.scanned.journal_pages", exit 2) and Ajv rejected its sources.
// Generated over every journal history and attack, hot or left over, and page sizes.
import { describe, expect, it } from 'vitest'
import { buildAuditReport } from '../../../src/main/audit/build-report'
import { OpenedChain } from '../../../src/main/chain/source/opened-chain'
import type { KeyMaterial } from '../../../src/main/chain/keys'
import { requireKnownMembers } from '../../../src/main/custody/report-members'
import { requireSchemaValues } from '../../../src/main/custody/report-values'
import { generateJournal, type JournalAttack, type JournalHistory } from '../recovery/journal-generator'
import { reportValidator } from '../testing/report-schema'

const HISTORIES: JournalHistory[] = [
  'crash-append',
  'crash-touch',
  'benign-hot',
  'persist-appends',
  'persist-rollback',
]
const ATTACKS: JournalAttack[] = [
  'none',
  'truncate-tail-db',
  'truncate-tail-journal',
  'delete-middle-journal',
  'body-edit-journal',
]
const validate = reportValidator()

describe('a report whose rows come from a rollback journal holds to its schema', () => {
  let n = 0
  for (const history of HISTORIES)
    for (const attack of ATTACKS) {
      const seed = 0x7e90 + n
      const pageSize = [512, 1024, 4096][n++ % 3]!
      it(`${history}, ${attack}, p${pageSize}`, async () => {
        const g = generateJournal(
          { name: '', rows: 30, foreign: n % 2 === 0, hot: true, pageSize, history, attack },
          seed,
        )
        try {
          const keys: KeyMaterial[] = [{ index: 0, encoding: 'hex', bytes: g.key }]
          const chain = await OpenedChain.open(g.db)
          let report
          try {
            report = await buildAuditReport({ chain, keys })
          } finally {
            chain.close()
          }
          const doc = JSON.parse(JSON.stringify(report)) as Record<string, unknown>
          expect(() => requireKnownMembers(doc, 'report')).not.toThrow()
          expect(() => requireSchemaValues(doc, 'report')).not.toThrow()
          expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)
        } finally {
          g.cleanup()
        }
      })
    }
})
