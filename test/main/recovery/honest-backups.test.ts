// Honest backups given as segments never make a finding (issue 39, round 9): an operator's `VACUUM
// INTO` backups (the whole chain as it stood: rows still live, rows archived since, sqlite_sequence)
// taken between appends, batches, failed batches, archives, a key rotation and checkpoints, handed
// over with the archive segments and given to `verify --segment` in any order and twice. A backup's
// rows that are live are copies, those archived since are `archived`, and those past the live head
// do not occur (the chain only grows): no finding, VALID, no proven row deleted or superseded.
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { GENESIS, Rng } from '../reliability/chainkit'
import { copyWithSideFiles } from '../testing/fixtures'
import {
  archiveOldest,
  caseFolder,
  CHAIN_DDL,
  insert,
  openWriter,
  version,
  type RowVersion,
} from '../testing/sealed-writer'
import { expectNoFinding, segmentRuns } from './no-finding'

type Step = 'append' | 'batch' | 'failed-batch' | 'archive' | 'backup' | 'rotate' | 'checkpoint' | 'vacuum'
const STEPS: Step[] = [
  'append',
  'batch',
  'failed-batch',
  'archive',
  'backup',
  'rotate',
  'checkpoint',
  'vacuum',
]

function history(seed: number, journal: 'wal' | 'delete') {
  const rng = new Rng(seed)
  const keys = [rng.bytes(32)]
  const pageSize = [1024, 4096, 512, 2048][seed % 4]!
  const f = caseFolder('bijotel-honest-backups-')
  const log = [`${journal} p${pageSize}`]
  const segments: string[] = []
  const backups: string[] = []
  const live = new Map<bigint, RowVersion>()
  const db = openWriter(f.work, { pageSize, journal })
  try {
    db.exec(CHAIN_DDL)
    let prev = GENESIS
    let seq = 1n
    const one = (): void => {
      const v = version(rng, keys.at(-1)!, seq, prev, 40 + Math.floor(rng.next() * 400), 'row')
      insert(db, v)
      live.set(seq++, v)
      prev = v.hmac
    }
    const steps: Step[] = ['batch', 'backup']
    for (let i = 0; i < 7; i++) steps.push(STEPS[Math.floor(rng.next() * STEPS.length)]!)
    steps.push('append', 'backup', 'append')
    for (const step of steps) {
      switch (step) {
        case 'append':
          for (let i = 0; i < 1 + Math.floor(rng.next() * 5); i++) db.transaction(one)()
          break
        case 'batch':
          db.transaction(() => {
            for (let i = 0; i < 10 + Math.floor(rng.next() * 30); i++) one()
          })()
          break
        case 'failed-batch': {
          db.pragma('cache_size = 5')
          let p = prev
          try {
            db.transaction(() => {
              for (let i = 0; i < 10 + Math.floor(rng.next() * 30); i++) {
                const v = version(rng, keys.at(-1)!, seq + BigInt(i), p, 300, 'batch')
                insert(db, v)
                p = v.hmac
              }
              throw new Error('writer failed')
            })()
          } catch {
            // rolled back: the writer goes on from its last committed row
          }
          db.pragma('cache_size = -2000')
          break
        }
        case 'archive':
          archiveOldest(db, live, f.dir, segments)
          break
        case 'backup': {
          const path = join(f.dir, `backup-${backups.length + 1}.db`)
          db.prepare('VACUUM INTO ?').run(path)
          backups.push(path)
          break
        }
        case 'rotate':
          keys.push(rng.bytes(32))
          break
        case 'checkpoint':
          if (journal === 'wal') db.pragma('wal_checkpoint(TRUNCATE)')
          break
        case 'vacuum':
          db.exec('VACUUM')
          break
      }
      log.push(step)
    }
    copyWithSideFiles(f.work, f.evidence)
  } finally {
    db.close()
  }
  // Backups and archives in an order the seed picks: the auditor is handed them in no set order.
  const given = [...segments, ...backups].sort(() => rng.next() - 0.5)
  return { db: f.evidence, keys, segments: given, log, cleanup: f.cleanup }
}

describe('VACUUM INTO backups given as segments make no finding', () => {
  for (let n = 0; n < Number(process.env.BIJOTEL_BACKUP_CASES ?? 16); n++) {
    const journal = n % 2 === 0 ? 'wal' : 'delete'
    it(`#${n} ${journal}`, async () => {
      const g = history(0xbac + n, journal)
      try {
        await expectNoFinding(g, await segmentRuns(g.segments, true))
      } finally {
        g.cleanup()
      }
    })
  }
})
