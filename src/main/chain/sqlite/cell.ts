// One table b-tree leaf cell decoded strictly, as SQLite reads it (https://www.sqlite.org/fileformat2.html
// §1.6 "B-tree Pages" for the cell and its overflow chain, §2.1 "Record Format" for the record): the
// direct reader's row decoder. native/src/record.c decode_cell mirrors CellReader.read for the cells it
// accelerates (no overflow) and leaves every other cell to it.
import { AuditError } from '../../base/errors'
import { Unsupported } from './decline'
import { localPayload, nextOverflowPage, overflowChunk } from './page'
import { isIntType, isTextType, readIntBig, readIntNumber, serialSize } from './record'
import { readVarint, varint } from './varint'

/** Pages of the file, for following an overflow chain (the direct reader's Pager). */
export interface OverflowSource {
  readonly pageSize: number
  /** Pages of the b-tree layer: no overflow chain SQLite reads whole has more distinct pages. */
  readonly dbPages: number
  /** Page `n` in a buffer of its own; throws Unsupported for a page SQLite would not read. */
  pageCopy(n: number): Buffer
}

/**
 * The overflow pages one pass's cells have claimed (CellReader.startPass). Owned by the pass: a
 * stream that reads a leaf at a time between other work hands the same budget to each of its steps,
 * so its bound holds over the whole stream, and a scan run between two steps (with a budget of its
 * own) neither spends nor resets it.
 */
export class OverflowBudget {
  pages = 0
}

/** SQLITE_MAX_LENGTH: the largest value SQLite reads (a larger record is declined). */
export const MAX_PAYLOAD = 1_000_000_000

/**
 * One decoded leaf cell, reused from row to row: rowid, and per column its serial type and the
 * offset of its value in `buf` (the page itself, or the assembled payload of an overflowing cell).
 * Valid until the next `read` or page fetch.
 */
export class CellReader {
  rowid = 0
  rowidBig: bigint | null = null
  buf: Buffer = Buffer.alloc(0)
  readonly types: Int32Array
  readonly offs: Int32Array
  private readonly usable: number
  /** Overflow pages the chains of this pass's cells span (`startPass`). */
  private budget = new OverflowBudget()

  /**
   * `minFields`: a record with fewer fields is declined, since a column past its end would read as
   * that column's DEFAULT (see ColumnLayout.minFields).
   */
  constructor(
    private readonly pager: OverflowSource,
    readonly ncols: number,
    reserved: number,
    readonly minFields = 0,
  ) {
    this.types = new Int32Array(ncols)
    this.offs = new Int32Array(ncols)
    this.usable = pager.pageSize - reserved
  }

  /**
   * A pass over rows begins: each of its cells is read once. In a file SQLite wrote, every overflow
   * page belongs to one cell's chain (integrity_check's "2nd reference to page" is corruption), so
   * the chains of one pass's cells span at most the file's pages; more means cells share overflow
   * pages, and a few pages claimed by thousands of cells would have a reader assemble gigabytes
   * from a file of megabytes (SQLite reads it so, and so would the copy). Such a file is refused as
   * corrupt (`assemble`), its work so bounded by the file. `budget`: the pass's own count, for a
   * pass read in steps (a stream's cursor begins a step per leaf: a fresh count per step would bound
   * its work per leaf only, leaves × file).
   */
  startPass(budget: OverflowBudget = new OverflowBudget()): void {
    this.budget = budget
  }

  /**
   * Decodes the cell at `at` of a table leaf as SQLite reads it (btree.c btreeParseCellPtr and
   * accessPayload, vdbe.c OP_Column; file format §1.6 "B-tree Pages" and §2.1 "Record Format"),
   * declining every cell SQLite would call corrupt or read otherwise: a cell past the page, local
   * payload past the usable size, a record header that is not consumed exactly by its fields, field
   * sizes that do not add up to the payload, more fields than the table has, fewer than `minFields`.
   */
  read(page: Buffer, at: number): void {
    // findCell masks the pointer to the page: one beyond it is declined rather than wrapped.
    if (at >= page.length) throw new Unsupported('cell pointer beyond the page')
    let p = at
    const sizeBytes = readVarint(page, p)
    p += sizeBytes
    const size = varint.value
    // Payload sizes are 32-bit in btreeParseCellPtr, and no value may exceed SQLITE_MAX_LENGTH.
    if (varint.big !== null || size < 0 || size > MAX_PAYLOAD) throw new Unsupported('absurd payload size')
    // btreeParseCellPtr reads the payload size seven bits a byte through all nine bytes, where §1.3
    // (and sqlite3GetVarint) takes the ninth byte whole: a nine-byte size is another number to
    // SQLite. No writer needs nine bytes for a size below 2^56.
    if (sizeBytes === 9) throw new Unsupported('a nine-byte payload size')
    p += readVarint(page, p)
    this.rowid = varint.value
    this.rowidBig = varint.big
    const local = localPayload(size, this.usable)
    // accessPayload: the local part must end within the usable size, else SQLITE_CORRUPT.
    if (p + local > this.usable) throw new Unsupported('cell runs past the usable page')
    let buf: Buffer
    let base: number
    if (local === size) {
      buf = page
      base = p
    } else {
      buf = this.assemble(page, p, local, size)
      base = 0
    }
    this.buf = buf
    const end = base + size
    let hp = base
    hp += readVarint(buf, hp)
    const headerSize = varint.value
    // A header of 0 bytes (read by SQLite as all NULL), or shorter than its own size varint, or
    // longer than the payload: declined.
    if (varint.big !== null || headerSize < hp - base || headerSize > size)
      throw new Unsupported('record header size')
    const headerEnd = base + headerSize
    let dp = headerEnd
    let fields = 0
    let real = false
    for (let c = 0; c < this.ncols; c++) {
      if (hp < headerEnd) {
        hp += readVarint(buf, hp)
        const t = varint.value
        if (varint.big !== null || t > 0x7fffffff) throw new Unsupported('absurd serial type')
        if (t === 7) real = true
        this.types[c] = t
        this.offs[c] = dp
        dp += serialSize(t)
        fields++
      } else {
        // A column added by ALTER TABLE after the row was written: NULL, as it has no DEFAULT
        // (minFields says where one has).
        this.types[c] = 0
        this.offs[c] = dp
      }
    }
    // OP_Column: the header used up but not all data, or data past the record, is corruption;
    // more fields than columns are left to SQLite.
    if (hp !== headerEnd) throw new Unsupported('record header with more fields than the table, or overrun')
    if (dp !== end) throw new Unsupported('record fields do not fill its payload')
    if (fields < this.minFields) throw new Unsupported('short record where a DEFAULT would be read')
    // serialGet (vdbeaux.c): a REAL that is a NaN reads as NULL.
    if (real)
      for (let c = 0; c < this.ncols; c++)
        if (this.types[c] === 7 && Number.isNaN(buf.readDoubleBE(this.offs[c]!))) this.types[c] = 0
  }

  private assemble(page: Buffer, p: number, local: number, size: number): Buffer {
    if (p + local + 4 > this.usable) throw new Unsupported('overflow pointer past the usable page')
    // A payload needing more overflow pages than the file has can only be read by following a
    // chain that comes back on itself (SQLite would read the same pages again, §1.6 sets no
    // bound): declined before anything is allocated, as is a chain reaching a page twice. The
    // work is so bounded by the file, not by a payload size the file's author chose (up to 1 GB).
    const chunk = overflowChunk(this.usable)
    const pages = Math.ceil((size - local) / chunk)
    if (pages > this.pager.dbPages) throw new Unsupported('an overflow chain longer than the file')
    const claimed = (this.budget.pages += pages)
    if (claimed > this.pager.dbPages)
      throw new AuditError(
        'corrupt',
        `the chain's rows share overflow pages: one pass would read ${claimed} or more overflow pages from a file of ${this.pager.dbPages} pages (SQLite's integrity_check: "2nd reference to page"); not a file SQLite wrote`,
      )
    const out = Buffer.allocUnsafe(size)
    page.copy(out, 0, p, p + local)
    let got = local
    let next = page.readUInt32BE(p + local)
    const seen = new Set<number>()
    while (got < size) {
      if (next === 0 || seen.has(next)) throw new Unsupported('broken overflow chain')
      seen.add(next)
      const ov = this.pager.pageCopy(next)
      const take = Math.min(size - got, chunk)
      ov.copy(out, got, 4, 4 + take)
      got += take
      next = nextOverflowPage(ov)
    }
    return out
  }

  /** The record's own bytes (this reader), for accelerators that prove facts on them. */
  get record(): this {
    return this
  }

  isNull(c: number): boolean {
    return this.types[c] === 0
  }

  isText(c: number): boolean {
    return isTextType(this.types[c]!)
  }

  isInt(c: number): boolean {
    return isIntType(this.types[c]!)
  }

  /** A TEXT column as a string; null for any other type. */
  text(c: number): string | null {
    const t = this.types[c]!
    if (t < 13 || (t & 1) === 0) return null
    const o = this.offs[c]!
    return this.buf.toString('utf8', o, o + ((t - 13) >> 1))
  }

  /** Raw bytes of a TEXT or BLOB value (a view into the page). */
  bytes(c: number): Buffer | null {
    const t = this.types[c]!
    if (t < 12) return null
    const o = this.offs[c]!
    return this.buf.subarray(o, o + ((t - 12) >> 1))
  }

  intBig(c: number): bigint | null {
    return this.isInt(c) ? readIntBig(this.buf, this.offs[c]!, this.types[c]!) : null
  }

  /** The value as better-sqlite3 returns it without safeIntegers. */
  value(c: number): unknown {
    const t = this.types[c]!
    const o = this.offs[c]!
    if (t === 0) return null
    if (t === 7) return this.buf.readDoubleBE(o)
    if (t < 12) return readIntNumber(this.buf, o, t)
    if (t & 1) return this.buf.toString('utf8', o, o + ((t - 13) >> 1))
    return Buffer.from(this.buf.subarray(o, o + ((t - 12) >> 1)))
  }

  /** The value as better-sqlite3 returns it with safeIntegers (integers as BigInt). */
  valueBig(c: number): unknown {
    return this.isInt(c) ? this.intBig(c) : this.value(c)
  }

  /**
   * `CAST(col AS BLOB)`: TEXT and BLOB as their bytes, NULL as null, an integer as its decimal text.
   * A REAL would need SQLite's own float formatting: that file is left to SQLite.
   */
  castBlob(c: number): Buffer | null {
    const t = this.types[c]!
    if (t === 0) return null
    if (t >= 12) return this.bytes(c)
    if (t === 7) throw new Unsupported('a REAL value where bytes are expected')
    return Buffer.from(readIntBig(this.buf, this.offs[c]!, t).toString(), 'latin1')
  }
}
