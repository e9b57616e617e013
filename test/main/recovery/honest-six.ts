// Test kit (issue 39, round 6): honest histories the other generators lack — a second table in the
// same file holding a copy of the chain or a second chain sealed under the same key (then emptied or
// dropped), the chain written through ATTACH from another connection, `PRAGMA incremental_vacuum(N)`
// partial runs, checkpoints (PASSIVE, RESTART, TRUNCATE) while a reader holds a snapshot,
// cell_size_check, mmap_size > 0, an UPDATE of unsealed columns (span_name, trace_id,
// semantic_body_hash) that moves a row's cell across the overflow threshold, and ALTER TABLE ADD
// COLUMN, synchronous OFF/FULL, another process appending in its own transaction (or killed with
// SIGKILL mid-transaction, its pages spilled), and a crash at the end (in this process, or a killed
// process whose files are taken before anyone opens them). None of this may ever make a finding.
import Database from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { CHAIN_TABLE_DDL } from '../../../src/main/chain/schema'
import { GENESIS, Rng } from '../reliability/chainkit'
import { copyWithSideFiles } from '../testing/fixtures'
import {
  archiveOldest,
  CHAIN_DDL,
  caseFolder,
  insert,
  openWriter,
  version,
  type RowVersion,
} from '../testing/sealed-writer'

export type SixStep =
  | 'append'
  | 'batch'
  | 'big'
  | 'archive'
  | 'copy-table'
  | 'copy-trim'
  | 'drop-copy'
  | 'second-chain'
  | 'second-trim'
  | 'drop-second'
  | 'attach-write'
  | 'incremental'
  | 'reader-checkpoint'
  | 'cell-size-check'
  | 'mmap'
  | 'update-unsealed'
  | 'add-column'
  | 'checkpoint'
  | 'reopen'
  | 'rotate'
  | 'sync-off'
  | 'sync-full'
  | 'process-writer'
  | 'process-killed'

export const SIX_STEPS: SixStep[] = [
  'append',
  'batch',
  'big',
  'archive',
  'copy-table',
  'copy-trim',
  'drop-copy',
  'second-chain',
  'second-trim',
  'drop-second',
  'attach-write',
  'incremental',
  'reader-checkpoint',
  'cell-size-check',
  'mmap',
  'update-unsealed',
  'add-column',
  'checkpoint',
  'reopen',
  'rotate',
  'sync-off',
  'sync-full',
  'process-writer',
  'process-killed',
]

export interface SixCase {
  journal: 'wal' | 'delete'
  pageSize: number
  /** auto_vacuum=INCREMENTAL from the start (set before the first table, as a service would). */
  incremental: boolean
  /**
   * Else auto_vacuum=FULL from the start (pages moved into freed ones and the file cut at every
   * commit, a pointer map every usable/5 pages: file-format §1.3 offsets 52 and 64).
   */
  full?: boolean
  steps: SixStep[]
  /**
   * The files taken mid-transaction (a crash), the batch's pages spilled: with synchronous=OFF the
   * journal's record count is 0xFFFFFFFF (pager.c writeJournalHdr: never synced, played to the file's
   * end) and its header may not have reached the disk; with FULL it was synced first.
   */
  crash?: boolean
}

export interface SixOut {
  db: string
  keys: Buffer[]
  segments: string[]
  log: string[]
  cleanup(): void
}

const PAGE_SIZES = [512, 1024, 2048, 4096, 8192, 16384, 65536]

export function sixCase(rng: Rng, journal: 'wal' | 'delete', length: number): SixCase {
  const steps: SixStep[] = ['batch', 'append']
  for (let i = 0; i < length; i++) steps.push(SIX_STEPS[Math.floor(rng.next() * SIX_STEPS.length)]!)
  steps.push('append')
  return {
    journal,
    pageSize: PAGE_SIZES[Math.floor(rng.next() * PAGE_SIZES.length)]!,
    incremental: rng.next() < 0.5,
    steps,
    crash: rng.next() < 0.4,
    full: rng.next() < 0.5,
  }
}

const COPY = 'chain_copy'
const COLUMNS = `seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body, canonical_hash,
  prev_hash, hmac_hash, semantic_body_hash`
const SECOND = 'chain_b'

export function generateSix(c: SixCase, seed: number): SixOut {
  const rng = new Rng(seed)
  const keys = [rng.bytes(32)]
  const { dir, work, evidence, cleanup } = caseFolder('bijotel-honest-six-')
  const autoVacuum = c.incremental ? 'INCREMENTAL' : c.full ? 'FULL' : 'NONE'
  const log: string[] = [`${c.journal} p${c.pageSize} auto_vacuum=${autoVacuum}`]
  const segments: string[] = []
  const live = new Map<bigint, RowVersion>()
  let db = openWriter(work, { pageSize: c.pageSize, journal: c.journal, autoVacuum })
  db.exec(CHAIN_DDL)
  let prev = GENESIS
  let seq = 1n
  // The second chain: its own seqs and links from GENESIS, sealed under the same key.
  let prevB = GENESIS
  let seqB = 1n
  let hasCopy = false
  let hasSecond = false
  const pad = (): number => 40 + Math.floor(rng.next() * (c.pageSize <= 1024 ? 600 : 300))
  // Cells near the overflow threshold (file format §1.6: X = U-35 for table leaves) for this page size.
  const nearThreshold = (): number =>
    Math.max(1, Math.floor((c.pageSize - 35 - 520) / 2) + Math.floor(rng.next() * 40) - 20)
  const bigPad = (): number => 500 + Math.floor(rng.next() * 35_000)
  const append = (
    on: Database.Database,
    n: number,
    one: boolean,
    size: () => number,
    table = 'chain',
  ): void => {
    const put = (): void => {
      const v = version(rng, keys.at(-1)!, seq, prev, size(), 'append')
      if (table === 'chain') insert(on, v)
      else insertInto(on, table, v)
      live.set(seq++, v)
      prev = v.hmac
    }
    if (one) on.transaction(() => Array.from({ length: n }, put))()
    else for (let i = 0; i < n; i++) on.transaction(put)()
  }
  const reopen = (): void => {
    db = new Database(work)
    db.defaultSafeIntegers(true)
    db.pragma('wal_autocheckpoint = 0')
  }
  try {
    for (const step of c.steps) {
      let note: string = step
      switch (step) {
        case 'append':
          append(db, 1 + Math.floor(rng.next() * 6), false, rng.next() < 0.3 ? nearThreshold : pad)
          break
        case 'batch':
          append(db, 10 + Math.floor(rng.next() * 40), true, pad)
          break
        case 'big':
          append(db, 1 + Math.floor(rng.next() * 5), rng.next() < 0.5, bigPad)
          break
        case 'archive':
          archiveOldest(db, live, dir, segments)
          break
        case 'copy-table':
          db.exec(`DROP TABLE IF EXISTS ${COPY}`)
          db.exec(CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', COPY))
          db.exec(`INSERT INTO ${COPY} SELECT ${COLUMNS} FROM chain`)
          hasCopy = true
          break
        case 'copy-trim':
          if (hasCopy) db.exec(`DELETE FROM ${COPY} WHERE seq % 3 = ${Math.floor(rng.next() * 3)}`)
          break
        case 'drop-copy':
          db.exec(`DROP TABLE IF EXISTS ${COPY}`)
          hasCopy = false
          break
        case 'second-chain': {
          if (!hasSecond) db.exec(CHAIN_TABLE_DDL.replace('IF NOT EXISTS chain', SECOND))
          hasSecond = true
          const n = 3 + Math.floor(rng.next() * 20)
          db.transaction(() => {
            for (let i = 0; i < n; i++) {
              const v = version(rng, keys.at(-1)!, seqB++, prevB, pad(), 'second')
              insertInto(db, SECOND, v)
              prevB = v.hmac
            }
          })()
          break
        }
        case 'second-trim':
          if (hasSecond) db.exec(`DELETE FROM ${SECOND} WHERE seq < ${Number(seqB) - 2}`)
          break
        case 'drop-second':
          db.exec(`DROP TABLE IF EXISTS ${SECOND}`)
          hasSecond = false
          break
        case 'attach-write': {
          // Another connection with its own main database attaches the chain and writes its rows.
          const other = new Database(':memory:')
          other.defaultSafeIntegers(true)
          other.prepare('ATTACH DATABASE ? AS ev').run(work)
          other.pragma('ev.wal_autocheckpoint = 0')
          append(other, 1 + Math.floor(rng.next() * 8), rng.next() < 0.5, pad, 'ev.chain')
          other.close()
          break
        }
        case 'incremental': {
          const n = Math.floor(rng.next() * 4)
          db.pragma(`incremental_vacuum(${n})`)
          note = `incremental_vacuum(${n})`
          break
        }
        case 'reader-checkpoint': {
          // A reader's snapshot is a WAL thing: in rollback-journal mode its shared lock blocks the writer.
          if (!journalIsWal(db)) break
          const reader = new Database(work, { readonly: true })
          reader.defaultSafeIntegers(true)
          reader.exec('BEGIN')
          reader.prepare('SELECT count(*) FROM chain').get()
          append(db, 1 + Math.floor(rng.next() * 10), rng.next() < 0.5, pad)
          const mode = ['PASSIVE', 'FULL', 'RESTART', 'TRUNCATE'][Math.floor(rng.next() * 4)]!
          // RESTART and TRUNCATE wait for the reader (busy): a service's timeout would give up.
          db.pragma('busy_timeout = 0')
          db.pragma(`wal_checkpoint(${mode})`)
          append(db, 1 + Math.floor(rng.next() * 4), false, pad)
          reader.exec('COMMIT')
          reader.close()
          note = `reader-checkpoint(${mode})`
          break
        }
        case 'cell-size-check':
          db.pragma('cell_size_check = ON')
          break
        case 'mmap': {
          const v = [4096, 65536, 1 << 24][Math.floor(rng.next() * 3)]!
          db.pragma(`mmap_size = ${v}`)
          note = `mmap_size=${v}`
          break
        }
        case 'update-unsealed': {
          // The sealed columns (body, hashes, links) never change; a label does, and the cell grows or
          // shrinks across the overflow threshold.
          const seqs = [...live.keys()]
          if (seqs.length === 0) break
          const at = seqs[Math.floor(rng.next() * seqs.length)]!
          // span_name, span_kind and timestamp_ns are checked against the body (column_mismatch).
          const col = ['trace_id', 'semantic_body_hash'][Math.floor(rng.next() * 2)]!
          const len = Math.floor(rng.next() * (c.pageSize / 2 + 200))
          db.prepare(`UPDATE chain SET ${col} = ? WHERE seq = ?`).run(rng.hex(Math.max(1, len >> 1)), at)
          note = `update ${col} of ${at} to ${len}`
          break
        }
        case 'add-column':
          if (!(db.pragma('table_info(chain)') as { name: string }[]).some((r) => r.name === 'note'))
            db.exec("ALTER TABLE chain ADD COLUMN note TEXT DEFAULT 'x'")
          break
        case 'checkpoint':
          if (journalIsWal(db))
            db.pragma(
              `wal_checkpoint(${['PASSIVE', 'FULL', 'RESTART', 'TRUNCATE'][Math.floor(rng.next() * 4)]})`,
            )
          break
        case 'reopen':
          db.close()
          reopen()
          break
        case 'rotate':
          keys.push(rng.bytes(32))
          break
        case 'process-writer':
        case 'process-killed': {
          // Another process appends after the head it reads in its own IMMEDIATE transaction; killed
          // (SIGKILL) mid-transaction, its spilled pages and journal or WAL frames stay behind.
          const killed = step === 'process-killed'
          const n = killed ? 20 + Math.floor(rng.next() * 30) : 1 + Math.floor(rng.next() * 6)
          otherProcess(work, keys.at(-1)!, n, killed, rng.hex(8))
          const after = db
            .prepare(`SELECT ${COLUMNS} FROM chain WHERE seq >= ? ORDER BY seq`)
            .all(seq) as Record<string, unknown>[]
          for (const r of after) {
            const v = rowVersion(r)
            live.set(v.seq, v)
            seq = v.seq + 1n
            prev = v.hmac
          }
          note = `${step}(${n})`
          break
        }
        case 'sync-off':
          db.pragma('synchronous = OFF')
          break
        case 'sync-full':
          db.pragma('synchronous = FULL')
          break
      }
      log.push(note)
    }
    if (c.crash && rng.next() < 0.5) {
      // A real crash: the other process killed mid-transaction, the files taken before anyone opens them.
      log.push('crash (killed process)')
      otherProcess(work, keys.at(-1)!, 20 + Math.floor(rng.next() * 30), true, rng.hex(8))
      copyWithSideFiles(work, evidence)
    } else if (c.crash) {
      log.push('crash')
      // A batch whose pages spill (a small cache) taken mid-transaction, then rolled back here.
      db.pragma('cache_size = 5')
      try {
        db.transaction(() => {
          let p = prev
          for (let i = 0; i < 20 + Math.floor(rng.next() * 40); i++) {
            const v = version(rng, keys.at(-1)!, seq + BigInt(i), p, pad(), 'crash')
            insert(db, v)
            p = v.hmac
          }
          copyWithSideFiles(work, evidence)
          throw new Error('crash')
        })()
      } catch {
        // the writer's process is gone; its files were taken above
      }
    } else copyWithSideFiles(work, evidence)
  } finally {
    db.close()
  }
  return { db: evidence, keys, segments, log, cleanup }
}

function journalIsWal(db: Database.Database): boolean {
  return String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal'
}

function insertInto(db: Database.Database, table: string, v: RowVersion): void {
  db.prepare(
    `INSERT INTO ${table} (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body,
  canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(v.seq, v.ts, v.trace, v.span, v.name, v.kind, v.body, v.canonical, v.prev, v.hmac, v.sem)
}

/** A live row read back as the writer's ground truth. */
function rowVersion(r: Record<string, unknown>): RowVersion {
  return {
    seq: BigInt(r['seq'] as bigint),
    ts: BigInt(r['timestamp_ns'] as bigint),
    trace: r['trace_id'] as string,
    span: r['span_id'] as string,
    name: r['span_name'] as string,
    kind: r['span_kind'] as string,
    body: r['canonical_body'] as Buffer,
    canonical: r['canonical_hash'] as string,
    prev: r['prev_hash'] as string,
    hmac: r['hmac_hash'] as string,
    sem: r['semantic_body_hash'] as string,
  }
}

/**
 * A second process (node, better-sqlite3) that appends `n` rows sealed under `key` after the head
 * it reads, inside BEGIN IMMEDIATE with a small cache (its pages spill); `killed`: it then waits in
 * the transaction kills itself with SIGKILL (a real crash: no rollback runs).
 */
function otherProcess(path: string, key: Buffer, n: number, killed: boolean, tag: string): void {
  const script = `
    const Database = require('better-sqlite3'); const { createHash, createHmac } = require('node:crypto')
    const [path, keyHex, n, killed, tag] = process.argv.slice(1)
    const key = Buffer.from(keyHex, 'hex')
    const db = new Database(path); db.defaultSafeIntegers(true); db.pragma('cache_size = 5')
    db.pragma('wal_autocheckpoint = 0')
    db.exec('BEGIN IMMEDIATE')
    const head = db.prepare('SELECT seq, hmac_hash, timestamp_ns FROM chain ORDER BY seq DESC LIMIT 1').get()
    let seq = head ? head.seq + 1n : 1n, prev = head ? head.hmac_hash : '0'.repeat(64)
    let ts = head ? head.timestamp_ns : 1764000000000000000n
    const ins = db.prepare('INSERT INTO chain (seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body, canonical_hash, prev_hash, hmac_hash, semantic_body_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?)')
    for (let i = 0; i < Number(n); i++) {
      ts += 1000000n
      const body = Buffer.from(JSON.stringify({ attributes: { 'gen_ai.provider.name': 'openai', note: 'process ' + tag, pad: createHash('sha256').update(tag + i).digest('hex').repeat(8) }, end_time_ns: ts.toString(), kind: 'CLIENT', name: 'chat gpt-test', start_time_ns: (ts - 1000n).toString() }))
      const canonical = createHash('sha256').update(body).digest('hex')
      const hmac = createHmac('sha256', key).update(prev + canonical, 'utf8').digest('hex')
      ins.run(seq, ts, tag.repeat(4), tag.repeat(2), 'chat gpt-test', 'CLIENT', body, canonical, prev, hmac, canonical)
      seq++; prev = hmac
    }
    if (killed === '1') { process.stdout.write('ready'); process.kill(process.pid, 'SIGKILL') }
    db.exec('COMMIT'); db.close()
  `
  const r = spawnSync(
    process.execPath,
    ['-e', script, path, key.toString('hex'), String(n), killed ? '1' : '0', tag],
    {
      cwd: process.cwd(),
      timeout: 60_000,
      killSignal: 'SIGKILL',
      encoding: 'utf8',
    },
  )
  if (killed ? !r.stdout.includes('ready') : r.status !== 0)
    throw new Error(`the other process failed: ${r.stderr || r.error?.message || r.status}`)
}
