// The chain's rows in seq order, streamed: the CLI's export, list, stats and regression and the
// app's search read every row without holding more than one slice of them. Rows come from the
// direct file reader (./direct, in place and read-only, or on a verified private copy), else from
// SQLite on a verified private copy, in slices of seq windows so no statement stays open between
// slices (the session's other queries share that connection).
import type Database from 'better-sqlite3'
import { AuditError, asChainReadError, oneLine } from '../errors'
import type { CellReader } from './direct/btree'
import { leafFor } from './direct/btree'
import { assertUnchangedSinceOpen, directAllowed, openDirect, type DirectChain } from './direct/open'
import { RowScanner } from './direct/scan'
import { scanSideTable } from './direct/side-tables'
import { layoutOf } from './source/direct-source'
import { ChainFile } from './reader'
import type { SnapshotOptions } from './snapshot'
import { CHAIN_COLUMNS } from './table'

/** The reference schema's columns but seq (which every row has as `seq`). */
export type RowField = Exclude<(typeof CHAIN_COLUMNS)[number], 'seq'>

/**
 * One row. Values as better-sqlite3 gives them with safeIntegers: integers as BigInt, TEXT as
 * strings, BLOBs as Buffers, REAL as numbers, NULL (or an absent column) as null. Fields not asked
 * for are undefined. `canonical_body` is the body's bytes (`CAST(canonical_body AS BLOB)`); from the
 * direct reader it is a view into a page, valid only during the callback (copy it to keep it).
 */
export type ChainRow = { seq: bigint } & { [K in RowField]?: unknown }

export interface ScanOptions {
  /** Inclusive seq bounds (default: the whole chain). */
  from?: bigint
  to?: bigint
  descending?: boolean
  /** The fields to read (others stay undefined; fewer fields read faster). */
  fields: readonly RowField[]
  signal?: { aborted: boolean }
  /** Rows done so far and the rows the scan is expected to read (an estimate on the direct reader). */
  onProgress?: (done: number, total: number) => void
}

/** The rows of a chain; `row` returns false to stop the scan. */
export interface RowSource {
  readonly reader: 'direct' | 'sqlite-copy'
  /** Columns the chain table has. */
  readonly columns: ReadonlySet<string>
  scan(opts: ScanOptions, row: (r: ChainRow) => boolean | void): Promise<void>
  /**
   * Every row of another table of the file (reference §1.2: `cas`, `policy_daily_state`): the values
   * of `columns` (null for a column it lacks). Resolves false when the file has no such table.
   */
  scanTable(name: string, columns: readonly string[], row: (values: unknown[]) => void): Promise<boolean>
  /** Throws `evidence_changed` when the file read in place changed since it was opened. */
  assertUnchanged(): void
  close(): void
}

/** Rows in leaves [from, to), estimated from up to 32 leaves spread over them (for progress). */
function estimateRows(scanner: RowScanner, from: number, to: number): number {
  const n = to - from
  if (n <= 0) return 0
  const samples = Math.min(n, 32)
  let cells = 0
  for (let i = 0; i < samples; i++) {
    const l = from + Math.floor((i * n) / samples)
    cells += scanner.countRows(l, l + 1)
  }
  return Math.round((cells / samples) * n)
}

/** Milliseconds of reading between two yields to the event loop (progress and cancel stay prompt). */
const SLICE_MS = 50
/** Rows one SQL slice reads. */
const SQL_SLICE = 2000

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

const turn = (): Promise<void> => new Promise((r) => setImmediate(r))

function cancelled(signal: { aborted: boolean } | undefined): void {
  if (signal?.aborted) throw new AuditError('cancelled', 'cancelled')
}

/** Rows read in place by the direct reader (`chain` may be the evidence or a verified copy). */
export function directRowSource(chain: DirectChain, checkUnchanged = true): RowSource {
  const layout = layoutOf(chain)
  const scanner = new RowScanner(layout)
  let copy: ChainFile | null = null
  const cols = new Map<RowField, number>()
  for (const f of CHAIN_COLUMNS) if (f !== 'seq') cols.set(f, scanner.col(f))
  const read = (c: CellReader, f: RowField): unknown => {
    const i = cols.get(f)!
    if (i < 0) return null
    if (f === 'canonical_body') return c.castBlob(i)
    const v = c.valueBig(i)
    return v
  }
  return {
    reader: 'direct',
    columns: new Set(chain.columns.keys()),
    async scan(opts, row) {
      const leaves = chain.leaves
      const from = opts.from ?? INT64_MIN
      const to = opts.to ?? INT64_MAX
      if (from > to) return
      const first = Math.min(leafFor(leaves, from), leaves.pages.length)
      const last = Math.min(leaves.pages.length, leafFor(leaves, to) + 1)
      const total = opts.onProgress ? estimateRows(scanner, first, last) : 0
      let done = 0
      let stop = false
      let t0 = performance.now()
      const visit = (c: CellReader): boolean => {
        const seq = c.rowidBig ?? BigInt(c.rowid)
        if (opts.descending ? seq < from : seq > to) {
          stop = true
          return false
        }
        if (seq < from || seq > to) return true
        const r: ChainRow = { seq }
        for (const f of opts.fields) r[f] = read(c, f)
        done++
        if (row(r) === false) stop = true
        return !stop
      }
      for (let k = 0; k < last - first && !stop; k++) {
        const l = opts.descending ? last - 1 - k : first + k
        try {
          if (opts.descending) scanner.scanBackward(l, l + 1, visit)
          else scanner.scan(l, l + 1, visit)
        } catch (e) {
          // A page the reader cannot read after the open took the file (a malformed page deep in it).
          if (e instanceof AuditError) throw e
          throw new AuditError('corrupt', `cannot read the chain's pages: ${oneLine(e)}`)
        }
        if (performance.now() - t0 >= SLICE_MS) {
          opts.onProgress?.(done, Math.max(done, total))
          await turn()
          cancelled(opts.signal)
          t0 = performance.now()
        }
      }
      opts.onProgress?.(done, done)
      if (checkUnchanged) assertUnchangedSinceOpen(chain)
    },
    async scanTable(name, columns, row) {
      try {
        return scanSideTable(chain, name, columns, row)
      } catch (e) {
        if (e instanceof AuditError) throw e
        // A table the direct reader does not read: SQLite, on a verified private copy.
        copy ??= await ChainFile.open(chain.path)
        return sqlRowSource(copy).scanTable(name, columns, row)
      }
    },
    assertUnchanged() {
      if (checkUnchanged) assertUnchangedSinceOpen(chain)
    },
    close() {
      scanner.close()
      copy?.close()
    },
  }
}

/** Rows read by SQLite from an opened chain's verified private copy. */
export function sqlRowSource(chain: ChainFile): RowSource {
  const db: Database.Database = chain.db
  return {
    reader: 'sqlite-copy',
    columns: chain.columns,
    async scan(opts, row) {
      const fields = opts.fields
      const select = fields
        .map((f) => (f === 'canonical_body' ? 'CAST(canonical_body AS BLOB)' : chain.col(f)))
        .join(', ')
      const dir = opts.descending ? 'DESC' : 'ASC'
      const next = opts.descending ? 'seq < ?' : 'seq > ?'
      let from = opts.from ?? INT64_MIN
      let to = opts.to ?? INT64_MAX
      if (from > to) return
      let total = 0
      try {
        if (opts.onProgress) {
          const b = db
            .prepare('SELECT COUNT(*) FROM chain WHERE seq >= ? AND seq <= ?')
            .pluck()
            .safeIntegers(true)
            .get(from, to) as bigint
          total = Number(b)
        }
        const first = db
          .prepare(
            `SELECT seq${select ? ', ' + select : ''} FROM chain WHERE seq >= ? AND seq <= ? ORDER BY seq ${dir} LIMIT ?`,
          )
          .raw(true)
          .safeIntegers(true)
        const more = db
          .prepare(
            `SELECT seq${select ? ', ' + select : ''} FROM chain WHERE seq >= ? AND seq <= ? AND ${next} ORDER BY seq ${dir} LIMIT ?`,
          )
          .raw(true)
          .safeIntegers(true)
        let done = 0
        let after: bigint | null = null
        for (;;) {
          const rows = (
            after === null ? first.all(from, to, SQL_SLICE) : more.all(from, to, after, SQL_SLICE)
          ) as unknown[][]
          for (const raw of rows) {
            const r: ChainRow = { seq: raw[0] as bigint }
            fields.forEach((f, i) => (r[f] = raw[i + 1]))
            done++
            if (row(r) === false) return
          }
          if (rows.length < SQL_SLICE) break
          after = rows[rows.length - 1]![0] as bigint
          if (opts.descending) to = after
          else from = after
          opts.onProgress?.(done, Math.max(done, total))
          await turn()
          cancelled(opts.signal)
        }
        opts.onProgress?.(done, done)
      } catch (e) {
        throw asChainReadError(e, 'reading rows')
      }
    },
    async scanTable(name, columns, row) {
      try {
        const t = db.prepare('SELECT type FROM sqlite_master WHERE lower(name) = lower(?)').pluck().get(name)
        if (t !== 'table') return false
        const cols = new Set(
          (db.prepare('SELECT name FROM pragma_table_info(?)').all(name) as { name: string }[]).map(
            (c) => c.name,
          ),
        )
        const q = (id: string): string => `"${id.replace(/"/g, '""')}"`
        const list = columns.map((c) => (cols.has(c) ? q(c) : 'NULL')).join(', ')
        for (const r of db
          .prepare(`SELECT ${list} FROM ${q(name)}`)
          .raw(true)
          .safeIntegers(true)
          .iterate())
          row(r as unknown[])
        return true
      } catch (e) {
        throw asChainReadError(e, `reading table ${name}`)
      }
    },
    assertUnchanged() {
      // The copy was hashed against the evidence when it was made; it does not change.
    },
    close() {
      // The caller owns the ChainFile.
    },
  }
}

/**
 * The rows of an opened chain (the session's): the direct reader on its verified private copy,
 * which holds the same bytes SQLite sees, else SQLite.
 */
export function rowSourceOf(
  chain: ChainFile,
  env: Record<string, string | undefined> = process.env,
): RowSource {
  if (directAllowed(env)) {
    try {
      return directRowSource(openDirect(chain.snapshot.dbPath), false)
    } catch (e) {
      if (e instanceof AuditError) throw e
    }
  }
  return sqlRowSource(chain)
}

/**
 * The rows of the chain at `path`: read in place by the direct reader, or (a file it declines)
 * through SQLite on a verified private copy, which `close` removes.
 */
export async function openRowSource(
  path: string,
  opts: {
    env?: Record<string, string | undefined>
    copy?: SnapshotOptions
    /** Columns the SQLite path requires (default: all a verification needs). */
    required?: readonly string[]
  } = {},
): Promise<RowSource> {
  if (directAllowed(opts.env)) {
    try {
      return directRowSource(openDirect(path))
    } catch (e) {
      // Unsupported (or any shape the reader trips on): SQLite on a verified copy gives the answer
      // or the one-line error.
      if (e instanceof AuditError) throw e
    }
  }
  const chain = await ChainFile.open(path, {
    ...(opts.copy ?? {}),
    ...(opts.required ? { required: opts.required } : {}),
  })
  const src = sqlRowSource(chain)
  return { ...src, close: () => chain.close() }
}
