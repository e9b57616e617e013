// The values SQLite returned for a row of the copy, written back as a SQLite record (file format
// §2.1: a serial type and the bytes of each column), so the row accelerators that prove a clean
// row on a record — the native row prover, `columnsAgreeOnBytes` — take rows of the copy too.
//
// The record is the values' own encoding, not the file's bytes: an INTEGER as its 8 bytes
// (serial type 6), TEXT as the UTF-8 of the JavaScript string better-sqlite3 made (13 + 2n), a BLOB
// as its bytes (12 + 2n), NULL as type 0. So whatever is proven on it is proven about exactly the
// values the ordinary checks (`RowChecker.push`) would be given. A value it cannot write that way
// (a REAL) leaves the row without a record, and the ordinary checks decide it.
import type { RecordBytes } from './row-source'

/** Serial types of an 8-byte integer, NULL, and the bases of BLOB and TEXT (file format §2.1). */
const INT64 = 6
const NULL_TYPE = 0
const BLOB_BASE = 12
const TEXT_BASE = 13
/** The most UTF-8 bytes one UTF-16 code unit can take (a surrogate pair: 4 bytes for 2 units). */
const UTF8_PER_UNIT = 3
/** Longer values are left to the ordinary checks (SQLite's own limit is 10^9 bytes, SQLITE_MAX_LENGTH). */
const MAX_VALUE = 1_000_000_000

export class RecordWriter implements RecordBytes {
  buf: Buffer
  readonly types: Int32Array
  readonly offs: Int32Array

  /**
   * `slots[c]`: where table column c is in the selected values (-1: not selected; written as NULL
   * at offset 0, which no accelerator reads: they take only the columns a verification selects).
   */
  constructor(private readonly slots: Int32Array) {
    this.types = new Int32Array(slots.length)
    this.offs = new Int32Array(slots.length)
    this.buf = Buffer.allocUnsafeSlow(16 * 1024)
  }

  private room(need: number): void {
    if (need <= this.buf.length) return
    let size = this.buf.length
    while (size < need) size *= 2
    const grown = Buffer.allocUnsafeSlow(size)
    this.buf.copy(grown)
    this.buf = grown
  }

  /** The selected values as a record in `buf`; false when one cannot be written (this leaves no record). */
  write(values: readonly unknown[]): boolean {
    const { slots, types, offs } = this
    let pos = 0
    for (let c = 0; c < slots.length; c++) {
      const s = slots[c]!
      offs[c] = pos
      if (s < 0) {
        types[c] = NULL_TYPE
        continue
      }
      const v = values[s]
      if (v === null) types[c] = NULL_TYPE
      else if (typeof v === 'bigint') {
        // SQLite's integers are 64-bit; anything wider is not one of its values.
        if (v < -(2n ** 63n) || v >= 2n ** 63n) return false
        this.room(pos + 8)
        this.buf.writeBigInt64BE(v, pos)
        types[c] = INT64
        pos += 8
      } else if (typeof v === 'string') {
        if (v.length > MAX_VALUE / UTF8_PER_UNIT) return false
        this.room(pos + v.length * UTF8_PER_UNIT)
        const n = this.buf.write(v, pos, 'utf8')
        types[c] = TEXT_BASE + 2 * n
        pos += n
      } else if (Buffer.isBuffer(v)) {
        if (v.length > MAX_VALUE) return false
        this.room(pos + v.length)
        v.copy(this.buf, pos)
        types[c] = BLOB_BASE + 2 * v.length
        pos += v.length
      } else return false
    }
    return true
  }
}
