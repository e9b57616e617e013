// The rows of a chain read by SQLite on its verified private copy. Every read is a scan of the
// table in seq order — `FROM chain NOT INDEXED` (no index b-tree stands in for the table) and
// `+seq` in every condition (the unary plus keeps SQLite from turning it into a rowid seek,
// optoverview §2) — and a run is found by its position in that scan (`LIMIT … OFFSET …`, which
// steps the cursor and skips rows before any column is computed), never by seeking on a divider
// key. A pass ends by comparing the rows it saw with SQLite's own count of the table.
import type Database from 'better-sqlite3'
import type { VerifyRangeOptions } from '../../../shared/verify-types'
import { AuditError, asChainReadError } from '../../base/errors'
import { ColumnsBuilder } from '../columns/builder'
import type { ColumnsPart, ColumnsWanted, IntegrityColumns } from '../columns/types'
import {
  INT64_MAX,
  INT64_MIN,
  isWhole,
  type ChainRow,
  type ColumnsHooks,
  type FileFacts,
  type Place,
  type Predecessor,
  type ResolvedRange,
  type RecordMode,
  type RowCursor,
  type EvidenceFilesOf,
  type RowSource,
  type SourceHandle,
} from './row-source'
import { BodyNotText, selectList, type SqlRow } from './sql-row'
import { resolveOnCopy } from './copy-range'
import { splitRuns } from './copy-runs'
import { statementCursor } from './copy-cursor'
import { rowTail, ValueBudget } from './value-budget'
import { copyFacts } from './copy-file'
import { scanCopyTable } from './copy-side-table'
import type { CopyFile } from './copy-file'
import type { Snapshot } from '../snapshot'

export type { CopyFile } from './copy-file'

const ALL = '__all__'

/** The row, once its body read as text is known to be its bytes (else the scan stops: BodyNotText). */
function textChecked(row: SqlRow, records: RecordMode): SqlRow {
  if (records === 'text' && !row.bodyIsText()) throw new BodyNotText()
  return row
}

export class CopySource implements RowSource {
  readonly kind = 'sqlite-copy' as const
  /** A run at position k first steps past k rows (and its predecessor query past k − 1). */
  readonly runsPerThread = 1
  readonly displayPath: string
  private readonly names: string[]
  private readonly statements = new Map<string, Database.Statement>()
  private rowCount: number | null = null
  private ascending: boolean | null = null
  /** SQLite's count of the last range counted (a ranged verify counts it once, not twice). */
  private rangeCount: { r: ResolvedRange; rows: number } | null = null
  private closed = false
  private dbBytes: number | null = null

  /**
   * The evidence's own files, as the open step holds them (null in a worker): what reads the
   * evidence itself (recovery) reads these, not the copy, whose WAL SQLite has recovered into it.
   */
  get heldEvidence(): Pick<Snapshot, 'files' | 'dbPath'> | null {
    return this.file.held ?? null
  }

  evidenceFiles(): EvidenceFilesOf {
    const held = this.heldEvidence
    return held === null ? null : { held }
  }

  /** `onClose`: what closing the source also closes (the connection, or nothing when borrowed). */
  constructor(
    private readonly file: CopyFile,
    private readonly onClose: () => void = () => undefined,
  ) {
    this.displayPath = file.displayPath
    this.names = [...file.columns]
  }

  private sql<T>(what: string, run: () => T): T {
    try {
      return run()
    } catch (e) {
      throw asChainReadError(e, what)
    }
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql)
    if (s === undefined) {
      s = this.file.db.prepare(sql).raw(true).safeIntegers(true)
      this.statements.set(sql, s)
    }
    return s
  }

  private one(sql: string, ...params: unknown[]): unknown[] | undefined {
    return this.stmt(sql).get(...params) as unknown[] | undefined
  }

  facts(): FileFacts {
    return copyFacts(this.file, this.names)
  }

  col(name: string): number {
    return this.names.indexOf(name)
  }

  /**
   * The select list for these columns, and the row its values are read through (./sql-row.ts). A
   * body is read as text only where SQLite's text of it is its bytes when they are UTF-8: in a
   * UTF-8 database (in a UTF-16 one, CAST … AS TEXT would decode the bytes as UTF-16).
   */
  private selectList(
    columns: readonly string[] | typeof ALL,
    records: RecordMode = false,
  ): { list: string; row: SqlRow } {
    const mode = records === 'text' && !this.utf8() ? 'bytes' : records
    const cols = columns === ALL ? this.names : columns
    const s = selectList(this.names, cols, mode)
    // Last, the bytes SQLite walks past to reach the columns read (the ValueBudget), the whole record parsed.
    return { ...s, list: `${s.list}, ${rowTail(this.names, ['seq', ...cols])}` }
  }

  private isUtf8: boolean | null = null

  private utf8(): boolean {
    this.isUtf8 ??= this.sql(
      'reading the encoding',
      () => this.file.db.pragma('encoding', { simple: true }) === 'UTF-8',
    )
    return this.isUtf8
  }

  count(): number {
    this.rowCount ??= this.sql('counting rows', () =>
      Number(this.one('SELECT count(*) FROM chain NOT INDEXED')![0] as bigint),
    )
    return this.rowCount
  }

  countAfterRun(r: ResolvedRange): number {
    return r.fromSeq > r.toSeq ? 0 : this.countIn(r)
  }

  countedElsewhere(r: ResolvedRange, rows: number): void {
    if (isWhole(r)) this.rowCount = rows
    else this.rangeCount = { r: { fromSeq: r.fromSeq, toSeq: r.toSeq }, rows }
  }

  private countIn(r: ResolvedRange): number {
    if (isWhole(r)) return this.count()
    const known = this.rangeCount
    if (known !== null && known.r.fromSeq === r.fromSeq && known.r.toSeq === r.toSeq) return known.rows
    const rows = this.sql('counting rows', () =>
      Number(
        this.one(
          'SELECT count(*) FROM chain NOT INDEXED WHERE +seq BETWEEN ? AND ?',
          r.fromSeq,
          r.toSeq,
        )![0] as bigint,
      ),
    )
    this.rangeCount = { r: { fromSeq: r.fromSeq, toSeq: r.toSeq }, rows }
    return rows
  }

  /**
   * The rows of `r` as its seq span says, without counting them: the first and the last row of the
   * table in seq order, each one step of a scan from its end. Only for cutting runs — a run cut by
   * it still covers every row (the last run reads to the end of the scan), and the pass is confirmed
   * by SQLite's count afterwards — so a span a gap or a repeated seq makes wrong costs balance
   * between threads, never a row.
   */
  spanEstimate(r: ResolvedRange): number {
    if (r.fromSeq > r.toSeq) return 0
    const ends = this.ends()
    if (ends === null) return 0
    const from = ends[0] > r.fromSeq ? ends[0] : r.fromSeq
    const to = ends[1] < r.toSeq ? ends[1] : r.toSeq
    if (from > to) return 0
    const span = to - from + 1n
    return span > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(span)
  }

  ends(): [bigint, bigint] | null {
    return this.sql('reading the first and last rows', () => {
      const first = this.one('SELECT seq FROM chain NOT INDEXED ORDER BY seq LIMIT 1')
      const last = this.one('SELECT seq FROM chain NOT INDEXED ORDER BY seq DESC LIMIT 1')
      return first === undefined || last === undefined ? null : [first[0] as bigint, last[0] as bigint]
    })
  }

  resolve(range: VerifyRangeOptions | undefined): ResolvedRange {
    return this.sql('resolving the verify range', () =>
      resolveOnCopy(range, (sql, ...p) => this.one(sql, ...p)),
    )
  }

  /** Positions are rows of the range, in scan order. */
  place(r: ResolvedRange): { place: Place; estimate: number } {
    const rows = r.fromSeq > r.toSeq ? 0 : this.countIn(r)
    return { place: { from: 0, to: rows }, estimate: rows }
  }

  /** Runs cut so that each costs about the same (./copy-runs.ts). */
  split(place: Place, n: number): Place[] {
    return splitRuns(place, n)
  }

  private where(r: ResolvedRange): { clause: string; params: bigint[] } {
    return isWhole(r)
      ? { clause: '', params: [] }
      : { clause: 'WHERE +seq BETWEEN ? AND ?', params: [r.fromSeq, r.toSeq] }
  }

  /** Its hmac_hash read sized, as every value of the copy (./value-budget.ts `sized`). */
  predecessor(place: Place, r: ResolvedRange): Predecessor | null {
    const { clause, params } = this.where(r)
    const { list, row: cur } = this.selectList(['hmac_hash'])
    const row = this.sql('looking up the predecessor row', () =>
      place.from > 0
        ? this.one(
            `SELECT ${list} FROM chain NOT INDEXED ${clause} ORDER BY seq LIMIT 1 OFFSET ?`,
            ...params,
            place.from - 1,
          )
        : isWhole(r)
          ? undefined
          : this.one(
              `SELECT ${list} FROM chain NOT INDEXED WHERE +seq < ? ORDER BY seq DESC LIMIT 1`,
              r.fromSeq,
            ),
    )
    if (row === undefined) return null
    cur.set(row)
    return { seq: cur.rowidBig ?? BigInt(cur.rowid), hmac: cur.text(this.col('hmac_hash')) }
  }

  /**
   * A run's rows and, first, its predecessor, in one walk: a run at position k > 0 starts its scan
   * at k − 1 and holds that row back as the predecessor, where a separate lookup would step past
   * the same k − 1 rows a second time. The predecessor is given exactly once, before any row.
   */
  scanWithPredecessor(
    place: Place,
    r: ResolvedRange,
    pred: (p: Predecessor | null) => void,
    row: (r: ChainRow) => boolean | void,
    columns: readonly string[],
    records: RecordMode = false,
  ): void {
    if (place.from === 0) {
      pred(this.predecessor(place, r))
      this.scanRows(place, r, row, columns, records)
      return
    }
    const mac = this.col('hmac_hash')
    const { clause, params } = this.where(r)
    const { list, row: cur } = this.selectList(
      columns.includes('hmac_hash') ? columns : [...columns, 'hmac_hash'],
      records,
    )
    const limit = place.to === Infinity ? -1 : place.to - place.from + 1
    let given = false
    this.iterate(
      `SELECT ${list} FROM chain NOT INDEXED ${clause} ORDER BY seq LIMIT ? OFFSET ?`,
      [...params, limit, place.from - 1],
      (values) => {
        cur.set(values)
        if (given) return row(textChecked(cur, records))
        given = true
        pred({ seq: cur.rowidBig ?? BigInt(cur.rowid), hmac: mac >= 0 ? cur.text(mac) : null })
      },
      `reading rows from position ${place.from}`,
    )
    if (!given) pred(null)
  }

  scan(
    place: Place,
    r: ResolvedRange,
    row: (r: ChainRow) => boolean | void,
    columns?: readonly string[],
  ): void {
    this.scanRows(place, r, row, columns ?? ALL, false)
  }

  private scanRows(
    place: Place,
    r: ResolvedRange,
    row: (r: ChainRow) => boolean | void,
    columns: readonly string[] | typeof ALL,
    records: RecordMode,
  ): void {
    const { clause, params } = this.where(r)
    const { list, row: cur } = this.selectList(columns, records)
    const limit = place.to === Infinity ? -1 : place.to - place.from
    this.iterate(
      `SELECT ${list} FROM chain NOT INDEXED ${clause} ORDER BY seq LIMIT ? OFFSET ?`,
      [...params, limit, place.from],
      (values) => {
        cur.set(values)
        return row(textChecked(cur, records))
      },
      `reading rows from position ${place.from}`,
    )
  }

  /**
   * One statement over the range, a scan, on a connection of its own to the copy: one left open on the
   * shared connection would fail its every other query (better-sqlite3 refuses a busy connection),
   * and runs cut by position would step past every earlier row again at each run (OFFSET).
   */
  cursor(r: ResolvedRange, columns: readonly string[], descending: boolean): RowCursor {
    const { clause, params } = this.where(r)
    const { list, row } = this.selectList(columns)
    const db = this.sql('opening the copy', () => this.file.connect())
    const sql = `SELECT ${list} FROM chain NOT INDEXED ${clause} ORDER BY seq ${descending ? 'DESC' : 'ASC'}`
    const guard = <T>(what: string, run: () => T): T => this.sql(what, run)
    return statementCursor(db, sql, params, row, r.fromSeq > r.toSeq, guard, true)
  }

  /** A side table as SQLite reads it (./copy-side-table.ts). */
  scanTable(name: string, columns: readonly string[], row: (values: unknown[]) => void): boolean {
    return this.sql(`reading table ${name}`, () =>
      scanCopyTable(this.file.db, this.displayPath, name, columns, row),
    )
  }

  /** True when `each` stopped it. */
  private iterate(
    sql: string,
    params: unknown[],
    each: (values: unknown[]) => boolean | void,
    what: string,
  ): boolean {
    // Sized before the statement runs: a connection answers no pragma while a query is open.
    const budget = new ValueBudget((this.dbBytes ??= ValueBudget.of(this.file.db)))
    const it = this.sql(what, () => this.stmt(sql).iterate(...params) as IterableIterator<unknown[]>)
    try {
      for (;;) {
        const next = this.sql(what, () => it.next())
        if (next.done) return false
        budget.take(next.value, Number(next.value.at(-1)))
        if (each(next.value) === false) return true
      }
    } finally {
      it.return?.()
    }
  }

  confirmSeen(r: ResolvedRange, seen: number): void {
    if (r.fromSeq > r.toSeq) return
    const counted = this.countIn(r)
    if (seen !== counted)
      throw new AuditError(
        'corrupt',
        `database file is corrupt: a scan of ${this.displayPath} read ${seen} rows of the chain table where SQLite counts ${counted}`,
      )
  }

  /**
   * The row a scan reads first with this seq. A leaf may hold a rowid twice or out of order (file
   * format §1.6), and a seek lands on whichever its binary search meets: it is taken only where the
   * scan reads every seq once, ascending; a miss is confirmed by a scan (divider keys are evidence).
   */
  find(seq: bigint, row: (r: ChainRow) => void, columns?: readonly string[]): boolean {
    const { list, row: cur } = this.selectList(columns ?? ALL)
    const values = this.sql(`reading seq ${seq}`, () => {
      const one = (w: string) => this.one(`SELECT ${list} FROM chain NOT INDEXED WHERE ${w} = ? LIMIT 1`, seq)
      return (this.seqsAscend() ? one('seq') : undefined) ?? one('+seq')
    })
    if (values === undefined) return false
    cur.set(values)
    row(cur)
    return true
  }

  /**
   * The row the scan reads last with this seq: the one `find` reads where the scan reads every seq
   * once, else the last of a scan's rows with it (ordered as the pass orders them, `ORDER BY seq`).
   */
  findLast(seq: bigint, row: (r: ChainRow) => void, columns?: readonly string[]): boolean {
    if (this.seqsAscend()) return this.find(seq, row, columns)
    const { list, row: cur } = this.selectList(columns ?? ALL)
    let last: unknown[] | null = null
    const sql = `SELECT ${list} FROM chain NOT INDEXED WHERE +seq = ? ORDER BY seq`
    this.iterate(sql, [seq], (v) => void (last = v), `reading seq ${seq}`)
    if (last === null) return false
    cur.set(last)
    row(cur)
    return true
  }

  /** Whether the scan reads every seq once, ascending: one pass over the seqs, kept. */
  private seqsAscend(): boolean {
    let last: bigint | null = null
    const stop = ([s]: unknown[]): false | void => {
      if (typeof s !== 'bigint' || (last !== null && s <= last)) return false
      last = s
    }
    const sql = `SELECT ${this.selectList(['seq']).list} FROM chain NOT INDEXED`
    return (this.ascending ??= !this.iterate(sql, [], stop, 'checking the order of seqs'))
  }

  /**
   * The row before `seq`: the last row below it (a scan from the end), or, where seqs do not ascend
   * in the scan, the row the scan reads just before its first row with `seq` (verify's link).
   */
  before(seq: bigint): Predecessor | null {
    const { list, row: cur } = this.selectList(['hmac_hash'])
    let prev: unknown[] | null | undefined = undefined
    if (!this.seqsAscend()) {
      let last: unknown[] | null = null
      const each = (v: unknown[]): false | void => {
        if (v[0] !== seq) return void (last = v)
        prev = last
        return false
      }
      this.iterate(`SELECT ${list} FROM chain NOT INDEXED`, [], each, `looking up the row before seq ${seq}`)
    }
    if (prev === undefined) {
      const sql = `SELECT ${list} FROM chain NOT INDEXED WHERE +seq < ? ORDER BY seq DESC LIMIT 1`
      prev = this.sql(`looking up the row before seq ${seq}`, () => this.one(sql, seq) ?? null)
    }
    const mac = this.col('hmac_hash')
    if (prev === null) return null
    cur.set(prev)
    return { seq: cur.rowidBig ?? BigInt(cur.rowid), hmac: mac < 0 ? null : cur.text(mac) }
  }

  private builder(capacity: number, wanted: ColumnsWanted, hooks: ColumnsHooks): ColumnsBuilder {
    const cols = {
      ts: this.col('timestamp_ns'),
      body: this.col('canonical_body'),
      hash: this.col('canonical_hash'),
    }
    return new ColumnsBuilder(capacity, wanted, cols, hooks)
  }

  private columnNames(wanted: ColumnsWanted): string[] {
    return wanted.facts ? ['timestamp_ns', 'canonical_body', 'canonical_hash'] : ['timestamp_ns']
  }

  columns(place: Place, capacity: number, wanted: ColumnsWanted, hooks: ColumnsHooks = {}): ColumnsPart {
    const b = this.builder(capacity, wanted, hooks)
    this.scan(place, { fromSeq: INT64_MIN, toSeq: INT64_MAX }, (r) => b.row(r), this.columnNames(wanted))
    hooks.onRows?.(b.position)
    return b.finish()
  }

  lastColumns(rows: number, wanted: ColumnsWanted): IntegrityColumns {
    const { list, row: cur } = this.selectList(this.columnNames(wanted))
    const newest: unknown[][] = []
    this.iterate(
      `SELECT ${list} FROM chain NOT INDEXED ORDER BY seq DESC LIMIT ?`,
      [rows],
      (values) => void newest.push(values),
      'loading the integrity window',
    )
    const b = this.builder(newest.length, wanted, {})
    for (let i = newest.length - 1; i >= 0; i--) {
      cur.set(newest[i]!)
      b.row(cur)
    }
    return b.finish()
  }

  handle(place?: Place): { handle: SourceHandle; place?: Place } {
    const handle: SourceHandle = {
      kind: 'sqlite-copy',
      copyPath: this.file.copyPath,
      displayPath: this.file.displayPath,
    }
    return place === undefined ? { handle } : { handle, place }
  }

  /** The copy is private: what was checked when it was made still holds. */
  assertUnchanged(): void {}

  close(): void {
    if (this.closed) return
    this.closed = true
    this.statements.clear()
    this.onClose()
  }
}
