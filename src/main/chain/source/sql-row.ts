// A row SQLite returned (better-sqlite3, raw, safeIntegers), behind the ChainRow accessors the
// direct reader's CellReader offers, so an engine reads either source the same way. SQLite's
// storage classes come back as: INTEGER a BigInt, REAL a number, TEXT a string, BLOB a Buffer,
// NULL null.
import type { ChainRow, RecordBytes, RecordMode } from './row-source'
import { RecordWriter } from './sql-record'
import { sized } from './value-budget'

/**
 * A row of a scan reading the body as text (`RecordMode` 'text') whose text is not exactly the
 * body's bytes: the scan stops, and its caller reads the run again with the body as bytes.
 */
export class BodyNotText extends Error {
  constructor() {
    super('a body is not UTF-8 text: read as bytes')
  }
}

const REPLACEMENT = '\uFFFD'

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
   * `lengthSlot` (≥ 0 for a body read as text): where `octet_length(CAST(body AS BLOB))` is.
   */
  constructor(
    private readonly slots: Int32Array,
    private readonly blobColumn: number,
    private readonly writer: RecordWriter | null = null,
    private readonly lengthSlot = -1,
  ) {}

  /**
   * For a body read as text: whether its text, written back as UTF-8 into the record, is exactly
   * the body's bytes. better-sqlite3 makes the string with V8's UTF-8 decoder, which turns every
   * byte sequence that is not UTF-8 into U+FFFD and leaves valid UTF-8 as its characters, whose
   * UTF-8 is those bytes again: so a string without U+FFFD whose UTF-8 is as long as the bytes
   * SQLite counts (octet_length of the body as a BLOB) is them. Anything else (U+FFFD — even a real
   * one —, another length, a row whose record cannot be written) is not.
   */
  bodyIsText(): boolean {
    const s = this.slots[this.blobColumn]!
    const v = s < 0 ? null : this.v[s]
    if (v === null) return true // NULL: no bytes either way
    if (typeof v !== 'string' || v.includes(REPLACEMENT) || this.record === null) return false
    const bytes = (this.writer!.types[this.blobColumn]! - 13) / 2
    return this.v[this.lengthSlot] === BigInt(bytes)
  }

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
    // A body read as text is its bytes in the record (the scan handed the row on only if they are).
    if (typeof v === 'string' && this.lengthSlot >= 0 && this.written) {
      const at = this.written.offs[c]!
      return this.written.buf.subarray(at, at + (this.written.types[c]! - 13) / 2)
    }
    return Buffer.isBuffer(v) ? v : null
  }
}

/**
 * The select list for `columns` of a table with columns `names`: seq first, the body as its bytes
 * (`CAST … AS BLOB`), each value read only when it fits the database (`sized`); and the row its
 * values are read through. `records`: the rows also offer their
 * values written as a record (./sql-record.ts); 'text': with the body read as text and its length
 * in bytes (a string costs better-sqlite3 about half what a Buffer does), for `bodyIsText`.
 */
export function selectList(
  names: readonly string[],
  columns: readonly string[],
  records: RecordMode,
): { list: string; row: SqlRow } {
  const slots = new Int32Array(names.length).fill(-1)
  const parts = ['seq']
  const text = records === 'text' && columns.includes('canonical_body')
  for (const name of columns) {
    const c = names.indexOf(name)
    if (c < 0 || slots[c]! >= 0) continue
    slots[c] = parts.length
    const body = text ? 'CAST(canonical_body AS TEXT)' : 'CAST(canonical_body AS BLOB)'
    parts.push(name === 'canonical_body' ? sized(name, body) : sized(name))
  }
  const lengthSlot = text
    ? parts.push(sized('canonical_body', 'octet_length(CAST(canonical_body AS BLOB))')) - 1
    : -1
  const writer = records !== false ? new RecordWriter(slots) : null
  const row = new SqlRow(slots, names.indexOf('canonical_body'), writer, lengthSlot)
  return { list: parts.join(', '), row }
}
