// streamRows over both row sources: the same rows, in the same order, as SQLite's own scan of a
// copy (the oracle), whole, in a range and newest first; the side tables alike; progress reported
// between slices, a stop that is not an error, and a cancel that is one — with the copy's shared
// connection free for other queries while a stream is paused.
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChainRow, ReaderKind, RowSource } from '../../../../src/main/chain/source/row-source'
import { streamRows, type StreamOptions } from '../../../../src/main/chain/source/stream'
import { CHAIN_COLUMNS } from '../../../../src/main/chain/table'
import { Unsupported } from '../../../../src/main/chain/sqlite/decline'
import { readChain } from '../../../../src/main/chain/source/open-source'
import { chainStats } from '../../../../src/main/browse/stats'
import { dbPath, fixtureNames, withSqliteCopy } from '../../testing/fixtures'
import { READERS, withSource } from '../../testing/sources'
import { scratchDir } from '../../reliability/chainkit'
import { smallPageChain } from './divider-kit'

/** A value as text that tells SQLite's storage classes apart. */
function show(v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'bigint') return `i:${v}`
  if (typeof v === 'number') return `r:${v}`
  if (typeof v === 'string') return `s:${v}`
  if (Buffer.isBuffer(v)) return `b:${v.toString('hex')}`
  return `?:${String(v)}`
}

/** The reference columns but seq that this table has. */
function columnsOf(source: RowSource): string[] {
  return CHAIN_COLUMNS.filter((c) => c !== 'seq' && source.col(c) >= 0)
}

/** Each row as one line: seq, then each column (the body as its bytes). */
async function streamed(source: RowSource, opts: Omit<StreamOptions, 'columns'>): Promise<string[]> {
  const columns = columnsOf(source)
  const at = columns.map((c) => source.col(c))
  const out: string[] = []
  await streamRows(source, { ...opts, columns }, (r: ChainRow) => {
    const values = columns.map((c, i) => (c === 'canonical_body' ? r.castBlob(at[i]!) : r.valueBig(at[i]!)))
    out.push([String(r.rowidBig ?? r.rowid), ...values.map(show)].join(' '))
  })
  return out
}

/** SQLite's rows on a copy, in the same shape. */
function oracle(path: string, columns: string[], where = '', desc = false): string[] {
  const list = columns.map((c) => (c === 'canonical_body' ? 'CAST(canonical_body AS BLOB)' : c)).join(', ')
  return withSqliteCopy(path, (db) =>
    (
      db
        .prepare(`SELECT seq, ${list} FROM chain NOT INDEXED ${where} ORDER BY seq ${desc ? 'DESC' : ''}`)
        .raw(true)
        .safeIntegers(true)
        .all() as unknown[][]
    ).map(([seq, ...values]) => [String(seq), ...values.map(show)].join(' ')),
  )
}

const SIDE_TABLES: [string, string[]][] = [
  ['cas', ['body_hash', 'first_seen_ns', 'ref_count']],
  ['policy_daily_state', ['date', 'total_tokens', 'no_such_column']],
  ['no_such_table', ['x']],
]

/** Each side table through `reader`, against SQLite's rows of it on a copy. */
async function sideTables(path: string, reader: ReaderKind): Promise<void> {
  await withSource(path, reader, (source) => {
    for (const [table, columns] of SIDE_TABLES) {
      const rows: string[] = []
      const has = source.scanTable(table, columns, (v) => rows.push(v.map(show).join(' ')))
      const want = withSqliteCopy(path, (db) => {
        if (
          db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) === undefined
        )
          return null
        const known = new Set(
          (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map(
            (c) => c.name,
          ),
        )
        const list = columns.map((c) => (known.has(c) ? c : 'NULL')).join(', ')
        return (
          db.prepare(`SELECT ${list} FROM ${table}`).raw(true).safeIntegers(true).all() as unknown[][]
        ).map((v) => v.map(show).join(' '))
      })
      expect(has, table).toBe(want !== null)
      expect(rows, table).toEqual(want ?? [])
    }
  })
}

describe.each(fixtureNames())('%s', (name) => {
  const path = dbPath(name)

  it.each(READERS)(
    'streams the rows SQLite scans, whole, in a range and newest first (%s)',
    async (reader) => {
      await withSource(path, reader, async (source) => {
        const columns = columnsOf(source)
        expect(await streamed(source, {})).toEqual(oracle(path, columns))
        expect(await streamed(source, { range: { from: 10n, to: 20n } })).toEqual(
          oracle(path, columns, 'WHERE +seq BETWEEN 10 AND 20'),
        )
        expect(await streamed(source, { descending: true, sliceMs: 0 })).toEqual(
          oracle(path, columns, '', true),
        )
        expect(await streamed(source, { range: { to: 30n }, descending: true })).toEqual(
          oracle(path, columns, 'WHERE +seq <= 30', true),
        )
      })
    },
  )

  it.each(READERS)('reads the side tables as SQLite does (%s)', (reader) => sideTables(path, reader))
})

/** A chain with side tables as `ddl` declares them: many cas rows (several pages), odd values. */
function withSideTables(path: string, ddl: string): string {
  const db = new Database(path)
  try {
    db.exec(ddl)
    const cas = db.prepare('INSERT INTO cas VALUES (?, ?, ?, ?)')
    for (let i = 0; i < 300; i++)
      cas.run(`${i}`.padStart(64, 'c'), Buffer.alloc(i % 50, i), 1764000000999999999n + BigInt(i), i)
    cas.run('real'.padStart(64, 'c'), Buffer.from('{}'), 1, 2.5)
    const day = db.prepare('INSERT INTO policy_daily_state VALUES (?, ?)')
    for (let d = 1; d <= 9; d++) day.run(`2025-11-0${d}`, d * 123456)
    day.run(null, 7)
  } finally {
    db.close()
  }
  return path
}

describe('side tables (reference §1.2) beside the chain', () => {
  const scratch = scratchDir('stream-side-tables')
  afterAll(() => scratch.cleanup())
  let plain = ''
  let reference = ''
  beforeAll(() => {
    plain = withSideTables(
      smallPageChain(scratch.dir, 'plain.db', 40, 4096),
      `CREATE TABLE cas (body_hash TEXT PRIMARY KEY, body BLOB NOT NULL, first_seen_ns INTEGER NOT NULL,
                         ref_count INTEGER NOT NULL);
       CREATE TABLE policy_daily_state (date TEXT PRIMARY KEY, total_tokens INTEGER NOT NULL);`,
    )
    // The reference's own DDL, whose DEFAULT clauses the direct reader leaves to SQLite.
    reference = withSideTables(
      smallPageChain(scratch.dir, 'reference.db', 40, 4096),
      `CREATE TABLE cas (body_hash TEXT PRIMARY KEY, body BLOB NOT NULL, first_seen_ns INTEGER NOT NULL,
                         ref_count INTEGER NOT NULL DEFAULT 1);
       CREATE TABLE policy_daily_state (date TEXT PRIMARY KEY, total_tokens INTEGER NOT NULL DEFAULT 0);`,
    )
  })

  it.each(READERS)('reads them as SQLite does (%s)', (reader) => sideTables(plain, reader))

  it('the direct reader declines what it does not read, and the pass is redone through SQLite', async () => {
    await expect(sideTables(reference, 'direct')).rejects.toBeInstanceOf(Unsupported)
    await sideTables(reference, 'sqlite-copy')
    const readers: ReaderKind[] = []
    const stats = await readChain(reference, (source) => chainStats(source), {
      onOpen: (r) => readers.push(r),
    })
    expect(readers).toEqual(['direct', 'sqlite-copy'])
    expect(stats.total).toBe(40)
    expect(stats.cas).toEqual({ unique_bodies: 301, total_refs: 44852.5, dedup_factor: 44852.5 / 301 })
    expect(stats.policy_days.map((d) => d.date)).toEqual([9, 8, 7, 6, 5, 4, 3].map((d) => `2025-11-0${d}`))
  })
})

describe('progress, stop and cancel', () => {
  const path = dbPath('clean')

  it.each(READERS)('reports progress between slices and ends on the rows read (%s)', async (reader) => {
    await withSource(path, reader, async (source) => {
      const total = source.count()
      const calls: [number, number][] = []
      const mac = source.col('hmac_hash')
      const seen = await streamRows(
        source,
        {
          columns: ['hmac_hash'],
          sliceMs: 0,
          onProgress: (d, t) => {
            calls.push([d, t])
            // Paused between slices, the source answers other reads (the copy's shared connection
            // is not held by the stream).
            let hmac: unknown = null
            expect(source.find(1n, (c) => (hmac = c.value(mac)), ['hmac_hash'])).toBe(true)
            expect(typeof hmac).toBe('string')
          },
        },
        () => undefined,
      )
      expect(seen).toBe(total)
      expect(calls.length).toBeGreaterThan(2)
      for (let i = 1; i < calls.length; i++) expect(calls[i]![0]).toBeGreaterThanOrEqual(calls[i - 1]![0])
      for (const [d, t] of calls) expect(t).toBeGreaterThanOrEqual(d)
      expect(calls[calls.length - 1]).toEqual([total, total])
    })
  })

  it.each(READERS)('stops when the row callback says so, without an error (%s)', async (reader) => {
    await withSource(path, reader, async (source) => {
      const seqs: number[] = []
      const n = await streamRows(source, { columns: [], descending: true }, (r) => {
        seqs.push(r.rowid)
        return seqs.length < 3
      })
      expect(n).toBe(3)
      const last = source.ends()![1]
      expect(seqs).toEqual([Number(last), Number(last) - 1, Number(last) - 2])
    })
  })

  it.each(READERS)(
    'cancels between slices with a one-line error, and streams again after (%s)',
    async (reader) => {
      await withSource(path, reader, async (source) => {
        const signal = { aborted: false }
        let rows = 0
        await expect(
          streamRows(source, { columns: ['canonical_body'], signal, sliceMs: 0 }, () => {
            if (++rows === 5) signal.aborted = true
          }),
        ).rejects.toMatchObject({ name: 'AuditError', code: 'cancelled' })
        expect(rows).toBeLessThan(source.count())
        expect(await streamRows(source, { columns: [] }, () => undefined)).toBe(source.count())
      })
    },
  )
})
