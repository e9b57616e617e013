// The entries table sorted and filtered on any column, read through the handlers as the app reads
// it, against SQLite's ORDER BY on the same file (./table-oracle.ts): on the shared fixtures and on
// generated chains of awkward values (./table-chains.ts). Also the columns' values (tokens, cost,
// latency, status, delta: missing is null, never 0) and locateEntry agreeing with every order.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { EntryFilter, EntrySort, EntrySummary } from '../../../src/shared/chain-types'
import { ENTRY_SORTS } from '../../../src/shared/entry-sorts'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers } from '../../../src/main/handlers/table'
import { dbPath, fingerprintFolder, withSqliteCopy } from '../testing/fixtures'
import { oracleListing, type OracleRow } from './table-oracle'
import { writeTableChain } from './table-chains'

const ctx = { transport: 'ipc', trusted: true } as const
let session: AuditSession | null = null
afterEach(() => session?.dispose())
const scratch = mkdtempSync(join(tmpdir(), 'bijotel-table-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

async function listing(
  h: ReturnType<typeof createHandlers>,
  sort: EntrySort,
  filter?: EntryFilter,
): Promise<EntrySummary[]> {
  const out: EntrySummary[] = []
  for (let offset = 0; ; offset += 1000) {
    const p = await h.listEntries({ offset, limit: 1000, sort, ...(filter ? { filter } : {}) }, ctx)
    out.push(...p.rows)
    if (out.length >= p.total) return out
  }
}

const big = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))
const numOf = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/** Every column value the table shows agrees with SQLite's reading of the row. */
function expectValues(rows: EntrySummary[], oracle: OracleRow[]): void {
  const bySeq = new Map(oracle.map((o) => [o.seq, o.values]))
  for (const r of rows) {
    const v = bySeq.get(r.seq)!
    expect([r.seq, r.input_tokens]).toEqual([r.seq, numOf(v['input_tokens'])])
    expect([r.seq, r.output_tokens]).toEqual([r.seq, numOf(v['output_tokens'])])
    expect([r.seq, r.cost_usd]).toEqual([r.seq, numOf(v['cost'])])
    expect([r.seq, r.latency_ns]).toEqual([r.seq, big(v['latency'])])
    expect([r.seq, r.status]).toEqual([r.seq, v['status'] ?? null])
    expect([r.seq, r.delta_ns]).toEqual([r.seq, big(v['delta'])])
  }
}

type Oracle = (sort: EntrySort, filter?: EntryFilter) => OracleRow[]

/** Every listing SQLite gives for these filters, read at once (the connection is closed after). */
function oracleOf(db: Database.Database, filters: EntryFilter[]): Oracle {
  const all = new Map<string, OracleRow[]>()
  for (const filter of [undefined, ...filters])
    for (const sort of ENTRY_SORTS) all.set(JSON.stringify([sort, filter]), oracleListing(db, sort, filter))
  return (sort, filter) => all.get(JSON.stringify([sort, filter]))!
}

async function checkAgainstSqlite(path: string, oracleFor: Oracle, filters: EntryFilter[]): Promise<void> {
  session = new AuditSession()
  const h = createHandlers(session)
  await session.open(path)
  for (const filter of [undefined, ...filters]) {
    for (const sort of ENTRY_SORTS) {
      const rows = await listing(h, sort, filter)
      const oracle = oracleFor(sort, filter)
      expect({ sort, filter, seqs: rows.map((r) => r.seq) }).toEqual({
        sort,
        filter,
        seqs: oracle.map((o) => o.seq),
      })
      if (sort === 'seq_asc') expectValues(rows, oracle)
      // locateEntry places a row where the listing has it, in every order.
      for (const i of [0, Math.floor(rows.length / 3), rows.length - 1].filter(
        (i) => i < rows.length && i >= 0,
      )) {
        const { index } = await h.locateEntry({ seq: rows[i]!.seq, sort, ...(filter ? { filter } : {}) }, ctx)
        expect(index).toBe(i)
      }
    }
  }
}

describe('entries table orders, SQLite as the oracle', () => {
  const fixtures = ['clean', 'clock-backward', 'odd-non-json-body', 'rows-swapped', 'row-deleted', 'wal-tail']
  it.each(fixtures)('%s: every column, both ways, filtered and not', async (name) => {
    const before = fingerprintFolder()
    const { oracle, filters } = withSqliteCopy(dbPath(name), (db) => {
      const first = oracleListing(db, 'seq_asc')[0]?.values
      const filters: EntryFilter[] = first
        ? [{ provider: String(first['provider']) }, { span_name: String(first['span']) }, { status: 'OK' }]
        : []
      return { oracle: oracleOf(db, filters), filters }
    })
    await checkAgainstSqlite(dbPath(name), oracle, filters)
    expect(fingerprintFolder()).toEqual(before)
  })

  // A generator of chains: more seeds are held back and run the same way.
  it.each([1, 2, 3, 4, 5])('generated chain, seed %i', async (seed) => {
    const path = join(scratch, `gen-${seed}.db`)
    writeTableChain(path, 300 + seed * 37, seed)
    const filters: EntryFilter[] = [
      { provider: 'anthropic' },
      { span_name: '\u{1F600}a' },
      { status: 'ERROR' },
      { status: 'no such status' },
      { span_name: 'chat', status: 'OK' },
    ]
    const db = new Database(path, { readonly: true, fileMustExist: true })
    let oracle: Oracle
    try {
      oracle = oracleOf(db, filters)
    } finally {
      db.close()
    }
    await checkAgainstSqlite(path, oracle, filters)
  })
})

describe('entries table columns', () => {
  it('a missing token count, cost or latency is null, never 0; a recorded 0 stays 0', async () => {
    const path = join(scratch, 'missing.db')
    writeTableChain(path, 400, 99)
    session = new AuditSession()
    const h = createHandlers(session)
    await session.open(path)
    const rows = await listing(h, 'seq_asc')
    const db = new Database(path, { readonly: true, fileMustExist: true })
    try {
      const oracle = oracleListing(db, 'seq_asc')
      expectValues(rows, oracle)
      // The generator writes both: rows without a value and rows with a recorded 0.
      expect(rows.some((r) => r.input_tokens === null)).toBe(true)
      expect(rows.some((r) => r.input_tokens === 0)).toBe(true)
      expect(rows.some((r) => r.cost_usd === null)).toBe(true)
      expect(rows.some((r) => r.latency_ns === null)).toBe(true)
    } finally {
      db.close()
    }
  })

  it('a filter on span name or status takes only exact values, and bad values are refused', async () => {
    session = new AuditSession()
    const h = createHandlers(session)
    await session.open(dbPath('clean'))
    const none = await h.listEntries({ offset: 0, limit: 10, filter: { status: 'ok' } }, ctx)
    expect(none.total).toBe(0)
    await expect(h.listEntries({ offset: 0, limit: 10, sort: 'cost' as EntrySort }, ctx)).rejects.toThrow(
      /sort/,
    )
    await expect(
      h.listEntries({ offset: 0, limit: 10, filter: { span_name: 5 } as unknown as EntryFilter }, ctx),
    ).rejects.toThrow(/span_name/)
  })
})
