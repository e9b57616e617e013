// Test kit (issue 39, more honest histories): what an honest operator does beyond the writer's own
// steps (./honest-generator.ts) — VACUUM INTO a new file swapped in for the old one, REINDEX,
// secure_delete switched ON/OFF/FAST, auto_vacuum FULL or INCREMENTAL switched on mid-life (by
// VACUUM), journal modes switched (DELETE, TRUNCATE, PERSIST, MEMORY, OFF; WAL and back),
// wal_autocheckpoint and journal_size_limit values, WAL restarts, bodies of 1–70 KB (cells around and past the overflow threshold), page
// sizes 512–65536, a second connection writing (a second process to the pager), key rotation and
// archiving — ending, sometimes, in a crash mid-commit. None of this may ever make a finding.
import Database from 'better-sqlite3'
import { renameSync, rmSync } from 'node:fs'
import { copyWithSideFiles } from '../testing/fixtures'
import { join } from 'node:path'
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

export type MoreStep =
  | 'append'
  | 'batch'
  | 'big'
  | 'failed-batch'
  | 'archive'
  | 'vacuum-into'
  | 'reindex'
  | 'secure-delete'
  | 'auto-vacuum'
  | 'journal-switch'
  | 'to-delete'
  | 'to-wal'
  | 'to-memory'
  | 'to-off'
  | 'autocheckpoint'
  | 'second-writer'
  | 'checkpoint'
  | 'restart'
  | 'size-limit'
  | 'reopen'
  | 'rotate'

export const MORE_STEPS: MoreStep[] = [
  'append',
  'batch',
  'big',
  'failed-batch',
  'archive',
  'vacuum-into',
  'reindex',
  'secure-delete',
  'auto-vacuum',
  'journal-switch',
  'autocheckpoint',
  'second-writer',
  'checkpoint',
  'reopen',
  'rotate',
  'size-limit',
  'restart',
]

export interface MoreCase {
  journal: 'wal' | 'delete'
  pageSize: number
  steps: MoreStep[]
  crash: boolean
}

export interface MoreOut {
  db: string
  keys: Buffer[]
  segments: string[]
  log: string[]
  cleanup(): void
}

const PAGE_SIZES = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]

export function moreCase(rng: Rng, journal: 'wal' | 'delete', length: number): MoreCase {
  const steps: MoreStep[] = ['batch', 'append']
  for (let i = 0; i < length; i++) steps.push(MORE_STEPS[Math.floor(rng.next() * MORE_STEPS.length)]!)
  steps.push('append')
  return {
    journal,
    pageSize: PAGE_SIZES[Math.floor(rng.next() * PAGE_SIZES.length)]!,
    steps,
    crash: rng.next() < 0.4,
  }
}

export function generateMore(c: MoreCase, seed: number): MoreOut {
  const rng = new Rng(seed)
  const keys = [rng.bytes(32)]
  const { dir, work, evidence, cleanup } = caseFolder('bijotel-honest-more-')
  const log: string[] = [`${c.journal} p${c.pageSize}`]
  const segments: string[] = []
  const live = new Map<bigint, RowVersion>()
  let mode = c.journal === 'wal' ? 'WAL' : 'DELETE'
  let db = openWriter(work, { pageSize: c.pageSize, journal: c.journal })
  db.exec(CHAIN_DDL)
  let prev = GENESIS
  let seq = 1n
  const pad = (): number => 40 + Math.floor(rng.next() * (c.pageSize <= 1024 ? 600 : 300))
  const bigPad = (): number => 500 + Math.floor(rng.next() * 35_000)
  const append = (on: Database.Database, n: number, one: boolean, size: () => number): void => {
    const put = (): void => {
      const v = version(rng, keys.at(-1)!, seq, prev, size(), 'append')
      insert(on, v)
      live.set(seq++, v)
      prev = v.hmac
    }
    if (one) on.transaction(() => Array.from({ length: n }, put))()
    else for (let i = 0; i < n; i++) on.transaction(put)()
  }
  const spilled = (n: number, then: () => void, crash = false): void => {
    // journal_mode=OFF has no rollback (its ROLLBACK is undefined): the writer never fails a batch
    // there; a crash (the files taken mid-transaction) it can have.
    if (mode === 'OFF' && !crash) return then()
    db.pragma('cache_size = 5')
    let p = prev
    try {
      db.transaction(() => {
        for (let i = 0; i < n; i++) {
          const v = version(rng, keys.at(-1)!, seq + BigInt(i), p, pad(), 'batch')
          insert(db, v)
          p = v.hmac
        }
        then()
        throw new Error('writer failed')
      })()
    } catch {
      // rolled back
    }
    db.pragma('cache_size = -2000')
  }
  const reopen = (): void => {
    db = new Database(work)
    db.defaultSafeIntegers(true)
    db.pragma('wal_autocheckpoint = 0')
    if (mode !== 'WAL') db.pragma(`journal_mode = ${mode}`)
  }
  try {
    for (const step of c.steps) {
      let note: string = step
      switch (step) {
        case 'append':
          append(db, 1 + Math.floor(rng.next() * 6), false, pad)
          break
        case 'batch':
          append(db, 10 + Math.floor(rng.next() * 40), true, pad)
          break
        case 'big':
          append(db, 1 + Math.floor(rng.next() * 5), rng.next() < 0.5, bigPad)
          break
        case 'failed-batch':
          spilled(10 + Math.floor(rng.next() * 60), () => undefined)
          break
        case 'archive':
          archiveOldest(db, live, dir, segments)
          break
        case 'vacuum-into': {
          const fresh = join(dir, 'work', 'fresh.db')
          db.exec(`VACUUM INTO '${fresh}'`)
          db.close()
          for (const side of ['-wal', '-shm', '-journal']) rmSync(`${work}${side}`, { force: true })
          renameSync(fresh, work)
          // VACUUM INTO writes a rollback-journal file; the service sets its mode again on open.
          db = new Database(work)
          db.defaultSafeIntegers(true)
          db.pragma('wal_autocheckpoint = 0')
          db.pragma(`journal_mode = ${mode}`)
          break
        }
        case 'reindex':
          db.exec('REINDEX')
          break
        case 'secure-delete': {
          const v = ['ON', 'OFF', 'FAST'][Math.floor(rng.next() * 3)]!
          db.pragma(`secure_delete = ${v}`)
          note = `secure_delete=${v}`
          break
        }
        case 'auto-vacuum': {
          const v = rng.next() < 0.5 ? 'FULL' : 'INCREMENTAL'
          db.pragma(`auto_vacuum = ${v}`)
          db.exec('VACUUM')
          if (v === 'INCREMENTAL') db.pragma('incremental_vacuum')
          note = `auto_vacuum=${v}`
          break
        }
        case 'journal-switch': {
          const choices =
            c.journal === 'wal' ? ['WAL', 'DELETE'] : ['DELETE', 'TRUNCATE', 'PERSIST', 'MEMORY', 'OFF']
          mode = choices[Math.floor(rng.next() * choices.length)]!
          db.pragma(`journal_mode = ${mode}`)
          note = `journal_mode=${mode}`
          break
        }
        case 'to-delete':
        case 'to-wal':
        case 'to-memory':
        case 'to-off':
          mode = step.slice(3).toUpperCase()
          db.pragma(`journal_mode = ${mode}`)
          break
        case 'autocheckpoint': {
          const v = [1, 2, 10, 100, 1000][Math.floor(rng.next() * 5)]!
          db.pragma(`wal_autocheckpoint = ${v}`)
          note = `wal_autocheckpoint=${v}`
          break
        }
        case 'second-writer': {
          const other = new Database(work)
          other.defaultSafeIntegers(true)
          other.pragma('wal_autocheckpoint = 0')
          append(other, 1 + Math.floor(rng.next() * 8), rng.next() < 0.5, pad)
          other.close()
          break
        }
        case 'checkpoint':
          if (mode === 'WAL')
            db.pragma(
              `wal_checkpoint(${['PASSIVE', 'FULL', 'RESTART', 'TRUNCATE'][Math.floor(rng.next() * 4)]})`,
            )
          break
        case 'size-limit': {
          // journal_size_limit: the WAL (or a persisted journal) cut to this many bytes after a reset.
          const v = [0, 4096, 20_000, 100_000][Math.floor(rng.next() * 4)]!
          db.pragma(`journal_size_limit = ${v}`)
          note = `journal_size_limit=${v}`
          break
        }
        case 'restart':
          db.pragma('wal_checkpoint(RESTART)')
          break
        case 'reopen':
          db.close()
          reopen()
          break
        case 'rotate':
          keys.push(rng.bytes(32))
          break
      }
      log.push(note)
    }
    const take = (): void => copyWithSideFiles(work, evidence)
    if (c.crash) {
      log.push('crash')
      spilled(20 + Math.floor(rng.next() * 40), take, true)
    } else take()
  } finally {
    db.close()
  }
  return { db: evidence, keys, segments, log, cleanup }
}
