// A row SQLite returned (better-sqlite3, raw, safeIntegers), behind the ChainRow accessors the
// direct reader's CellReader offers, so an engine reads either source the same way. SQLite's
// storage classes come back as: INTEGER a BigInt, REAL a number, TEXT a string, BLOB a Buffer,
// NULL null.
import type { ChainRow, RecordBytes } from './row-source'
import { RecordWriter } from './sql-record'

export class SqlRow implements ChainRow {
  rowid = 0
  rowidBig: bigint | null = null
  private v: unknown[] = []
  /** This row's record: not written yet (undefined), written, or none (null). */
  private written: RecordBytes | null | undefined = undefined

  /**
   * `slots[c]`: where column c is in the selected values (-1: not selected); value 0 is seq.
   * `blobColumn`: the column selected as `CAST(col AS BLOB)` (read only through `castBlob`).
   * `writer`: where the row's values are written as a record when asked (`record`), for the
   * accelerators that prove on records (verify); without it `record` is null.
   */
  constructor(
    private readonly slots: Int32Array,
    private readonly blobColumn: number,
    private readonly writer: RecordWriter | null = null,
  ) {}

  /** The row's values written as a record (./sql-record.ts), valid until the next row; else null. */
  get record(): RecordBytes | null {
    if (this.written === undefined)
      this.written = this.writer !== null && this.writer.write(this.v) ? this.writer : null
    return this.written
  }

  set(values: unknown[]): void {
    this.v = values
    this.written = undefined
    const seq = values[0]
    if (typeof seq !== 'bigint') throw new Error('SqlRow: seq is not an integer')
    const n = Number(seq)
    this.rowid = n
    this.rowidBig = Number.isSafeInteger(n) ? null : seq
  }

  private raw(c: number): unknown {
    const s = c >= 0 ? this.slots[c]! : -1
    if (s < 0) throw new Error(`SqlRow: column ${c} was not selected`)
    if (c === this.blobColumn) throw new Error('SqlRow: the body is read through castBlob')
    return this.v[s]
  }

  isNull(c: number): boolean {
    return this.raw(c) === null
  }

  isInt(c: number): boolean {
    return typeof this.raw(c) === 'bigint'
  }

  isText(c: number): boolean {
    return typeof this.raw(c) === 'string'
  }

  text(c: number): string | null {
    const v = this.raw(c)
    return typeof v === 'string' ? v : null
  }

  intBig(c: number): bigint | null {
    const v = this.raw(c)
    return typeof v === 'bigint' ? v : null
  }

  /** As better-sqlite3 returns it without safeIntegers: an integer as a (possibly rounded) number. */
  value(c: number): unknown {
    const v = this.raw(c)
    return typeof v === 'bigint' ? Number(v) : v
  }

  valueBig(c: number): unknown {
    return this.raw(c)
  }

  castBlob(c: number): Buffer | null {
    if (c !== this.blobColumn || this.slots[c]! < 0)
      throw new Error(`SqlRow: column ${c} was not selected as bytes`)
    const v = this.v[this.slots[c]!]
    return Buffer.isBuffer(v) ? v : null
  }
}

/**
 * The select list for `columns` of a table with columns `names`: seq first, the body as its bytes
 * (`CAST … AS BLOB`); and the row its values are read through. `records`: the rows also offer their
 * values written as a record (./sql-record.ts).
 */
export function selectList(
  names: readonly string[],
  columns: readonly string[],
  records: boolean,
): { list: string; row: SqlRow } {
  const slots = new Int32Array(names.length).fill(-1)
  const parts = ['seq']
  for (const name of columns) {
    const c = names.indexOf(name)
    if (c < 0 || slots[c]! >= 0) continue
    slots[c] = parts.length
    parts.push(name === 'canonical_body' ? 'CAST(canonical_body AS BLOB)' : name)
  }
  const writer = records ? new RecordWriter(slots) : null
  return { list: parts.join(', '), row: new SqlRow(slots, names.indexOf('canonical_body'), writer) }
}
