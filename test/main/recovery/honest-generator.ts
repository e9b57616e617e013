// Test kit (issue 39, honest histories): random sequences of what an honest writer and its operator do
// to a chain file — appends one by one and in batches, a batch that fails and rolls back after its
// pages spilled (to the file in rollback-journal mode, to the -wal in WAL mode), archiving (rows
// copied to a segment, then deleted), VACUUM, auto_vacuum=INCREMENTAL and incremental_vacuum,
// checkpoints of every mode, the writer closed and reopened (in WAL mode closing checkpoints the WAL
// away), a page size change (by VACUUM, through journal_mode=DELETE in WAL mode), a key rotation — and
// at the end, sometimes, a crash mid-commit (the files copied while a transaction's pages are
// spilled: a hot journal, or WAL frames never committed). None of this may ever make a finding.
import { copyWithSideFiles } from '../testing/fixtures'
import { GENESIS, Rng } from '../reliability/chainkit'
import {
  archiveOldest,
  CHAIN_DDL,
  caseFolder,
  insert,
  openWriter,
  version,
  type RowVersion,
} from '../testing/sealed-writer'

export type HonestStep =
  | 'append'
  | 'batch'
  | 'failed-batch'
  | 'retry'
  | 'archive'
  | 'vacuum'
  | 'incremental-vacuum'
  | 'checkpoint'
  | 'reopen'
  | 'page-size'
  | 'rotate'

export const HONEST_STEPS: HonestStep[] = [
  'append',
  'batch',
  'failed-batch',
  'retry',
  'archive',
  'vacuum',
  'incremental-vacuum',
  'checkpoint',
  'reopen',
  'page-size',
  'rotate',
]

export interface HonestCase {
  journal: 'wal' | 'delete'
  pageSize: number
  steps: HonestStep[]
  /** The files copied while a transaction of sealed rows is spilled and not committed. */
  crash: boolean
}

export interface HonestOut {
  db: string
  keys: Buffer[]
  /** The archive segments written (to give with --segment). */
  segments: string[]
  /** What was done, for the failure message. */
  log: string[]
  cleanup(): void
}

/** A random honest history of `length` steps (the first ones appends, so there is a chain to work on). */
export function honestCase(rng: Rng, journal: 'wal' | 'delete', length: number): HonestCase {
  const steps: HonestStep[] = ['batch', 'append']
  for (let i = 0; i < length; i++) steps.push(HONEST_STEPS[Math.floor(rng.next() * HONEST_STEPS.length)]!)
  steps.push('append')
  return {
    journal,
    pageSize: [512, 1024, 4096, 2048][Math.floor(rng.next() * 4)]!,
    steps,
    crash: rng.next() < 0.4,
  }
}

/** Write one honest history in a fresh temporary folder, copied as a live service's files are taken. */
export function generateHonest(c: HonestCase, seed: number): HonestOut {
  const rng = new Rng(seed)
  const keys = [rng.bytes(32)]
  const { dir, work, evidence, cleanup } = caseFolder('bijotel-honest-')
  const log: string[] = [`${c.journal} p${c.pageSize}`]
  const segments: string[] = []
  const live = new Map<bigint, RowVersion>()
  let pageSize = c.pageSize
  let db = openWriter(work, { pageSize, journal: c.journal })
  db.exec(CHAIN_DDL)
  let prev = GENESIS
  let seq = 1n
  const pad = (): number => 40 + Math.floor(rng.next() * (pageSize <= 1024 ? 600 : 300))
  const row = (tag: string, size = pad()): RowVersion => version(rng, keys.at(-1)!, seq, prev, size, tag)
  const append = (n: number, oneTransaction: boolean, size?: number): void => {
    const put = (): void => {
      for (let i = 0; i < n; i++) {
        const v = row('append', size)
        insert(db, v)
        live.set(seq++, v)
        prev = v.hmac
      }
    }
    if (oneTransaction) db.transaction(put)()
    else
      for (let i = 0; i < n; i++)
        db.transaction(() => {
          const v = row('append')
          insert(db, v)
          live.set(seq++, v)
          prev = v.hmac
        })()
  }
  /** A transaction of `n` sealed rows whose pages spill before it ends: `then` runs inside it. */
  const spilled = (n: number, then: () => void, size?: number): void => {
    db.pragma('cache_size = 5')
    let p = prev
    try {
      db.transaction(() => {
        for (let i = 0; i < n; i++) {
          const v = version(rng, keys.at(-1)!, seq + BigInt(i), p, size ?? pad(), 'batch')
          insert(db, v)
          p = v.hmac
        }
        then()
        throw new Error('writer failed')
      })()
    } catch {
      // rolled back: the writer goes on from its last committed row
    }
    db.pragma('cache_size = -2000')
  }
  try {
    for (const step of c.steps) {
      switch (step) {
        case 'append':
          append(1 + Math.floor(rng.next() * 6), false)
          break
        case 'batch':
          append(10 + Math.floor(rng.next() * 40), true)
          break
        case 'failed-batch':
          spilled(10 + Math.floor(rng.next() * 60), () => undefined)
          break
        case 'retry':
          // The failed batch's rows are large; the writer's next rows, sealed after the same head,
          // small: they fit where the batch's first page is not reused, and both versions remain.
          spilled(10 + Math.floor(rng.next() * 40), () => undefined, 900)
          append(1 + Math.floor(rng.next() * 4), false, 5)
          break
        case 'archive':
          archiveOldest(db, live, dir, segments)
          break
        case 'vacuum':
          db.exec('VACUUM')
          break
        case 'incremental-vacuum':
          db.pragma('auto_vacuum = INCREMENTAL')
          db.exec('VACUUM')
          db.pragma(`incremental_vacuum(${1 + Math.floor(rng.next() * 8)})`)
          break
        case 'checkpoint':
          if (c.journal === 'wal')
            db.pragma(
              `wal_checkpoint(${['PASSIVE', 'FULL', 'RESTART', 'TRUNCATE'][Math.floor(rng.next() * 4)]})`,
            )
          break
        case 'reopen':
          db.close()
          db = openWriter(work, { pageSize, journal: c.journal })
          break
        case 'page-size': {
          pageSize = [512, 1024, 2048, 4096, 8192].filter((p) => p !== pageSize)[Math.floor(rng.next() * 4)]!
          if (c.journal === 'wal') db.pragma('journal_mode = DELETE')
          db.pragma(`page_size = ${pageSize}`)
          db.exec('VACUUM')
          if (c.journal === 'wal') db.pragma('journal_mode = WAL')
          break
        }
        case 'rotate':
          keys.push(rng.bytes(32))
          break
      }
      log.push(step)
    }
    const take = (): void => copyWithSideFiles(work, evidence)
    if (c.crash) {
      log.push('crash')
      spilled(20 + Math.floor(rng.next() * 40), take)
    } else take()
  } finally {
    db.close()
  }
  return { db: evidence, keys, segments, log, cleanup }
}
