// The rows of a chain read in place by the file-format reader (../direct): leaves in the order the
// table b-tree's child pointers give them (SQLite file format §1.6), each leaf's cells in cell-pointer
// order. Positions are leaves. A range request is placed by one pass over every leaf's rowids, never
// by the divider keys; a tree whose rowids do not ascend in scan order is left to SQLite (the
// caller falls back to the copy) rather than read by a rule of our own.
import type { Evidence, EvidenceFile } from '../../../shared/chain-types'
import type { VerifyRangeOptions } from '../../../shared/verify-types'
import { AuditError } from '../../base/errors'
import type { ColumnsPart, ColumnsWanted, IntegrityColumns } from '../columns/types'
import { DISORDER, firstInScan, RowidTable } from '../direct/rowid-table'
import type { CellReader } from '../sqlite/cell'
import { Unsupported } from '../sqlite/decline'
import { readVarint, varint } from '../sqlite/varint'
import { assertUnchangedSinceOpen, type DirectChain } from '../direct/open'
import { lastLeafColumns, leafColumns } from '../direct/page-columns'
import {
  leafSlice,
  RowScanner,
  type DirectChainLayout,
  type LeafFirst,
  type LeavesFirst,
} from '../direct/scan'
import { sharedLeafList, type LeafList } from '../direct/leaf-list'
import { scanSideTable } from '../direct/side-tables'
import { leafCursor } from './leaf-cursor'
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
  type RowCursor,
  type EvidenceFilesOf,
  type RowSource,
  type SourceHandle,
} from './row-source'

/** The layout a scanner needs, read through to the chain so leaves are listed only when used. */
export function layoutOf(chain: DirectChain): DirectChainLayout {
  return {
    spec: chain.spec,
    reserved: chain.reserved,
    ncols: chain.ncols,
    seqColumn: chain.seqColumn,
    columns: chain.columns,
    get leaves() {
      return chain.leaves
    },
  }
}

/** Where a range's rows lie, found by one pass over every leaf's rowids. */
interface RangePlace {
  fromSeq: bigint
  toSeq: bigint
  place: Place
  rows: number
}

export class DirectSource implements RowSource {
  readonly kind = 'direct' as const
  /** A run starts at its first leaf, read directly: eight a thread, taken as threads free up. */
  readonly runsPerThread = 8
  readonly displayPath: string
  private readonly scanner: RowScanner
  /** Whether closing this source gives up its chain's descriptors (see `owning`). */
  private owns = false
  private rowCount: number | null = null
  /** Every row's rowid in scan order and where each leaf's rows start (see rowids). */
  private rowidTable: RowidTable | null = null
  private scannedFinds = 0 // find's lookups by a scan from the first leaf: the first only
  private placed: RangePlace | null = null
  private closed = false

  /**
   * `chain`: the opened file (absent in a worker, which gets only the layout). `evidence`: the
   * identity of the evidence when the file read is its verified copy.
   */
  constructor(
    private readonly layout: DirectChainLayout,
    private readonly chain: DirectChain | null,
    displayPath: string,
    private readonly evidence: Evidence | null = null,
  ) {
    this.displayPath = displayPath
    this.scanner = new RowScanner(layout)
  }

  static of(chain: DirectChain, evidence: Evidence | null = null, displayPath = chain.path): DirectSource {
    return new DirectSource(layoutOf(chain), chain, displayPath, evidence)
  }

  /** `of`, the source taking over the caller's hold on the chain's descriptors: `close` gives it up. */
  static owning(
    chain: DirectChain,
    evidence: Evidence | null = null,
    displayPath = chain.path,
  ): DirectSource {
    const source = DirectSource.of(chain, evidence, displayPath)
    source.owns = true
    return source
  }

  /** The opened file (its descriptors, for a search of the same files); null in a worker. */
  get file(): DirectChain | null {
    return this.chain
  }

  evidenceFiles(): EvidenceFilesOf {
    return this.chain === null ? null : { inPlace: this.chain }
  }

  private opened(): DirectChain {
    if (this.chain === null) throw new Error('DirectSource: a worker has no file of its own')
    return this.chain
  }

  facts(): FileFacts {
    const chain = this.opened()
    const stat = chain.stat
    // Where a linked file leads (the open step resolved it as SQLite does).
    const file = (path: string, st: { size: number; mtimeMs: number }, real: string): EvidenceFile => ({
      path,
      size: st.size,
      sha256: '',
      mtime: new Date(st.mtimeMs).toISOString(),
      ...(real !== path ? { link_target: real } : {}),
    })
    const walPath = chain.spec.walPath
    return {
      reader: 'direct',
      evidence: this.evidence ?? {
        db: file(chain.path, stat.db, chain.files.db.real),
        wal: stat.wal && stat.wal.size > 0 ? file(walPath, stat.wal, chain.files.wal?.real ?? walPath) : null,
        side_files: [],
        method: 'read in place, read-only, by the direct file reader (no copy, no hashes)',
        unchanged_after_copy: false,
      },
      journalMode: chain.walMode ? 'wal' : 'delete',
      walFrames: chain.wal.frames,
      pageSize: chain.spec.pageSize,
      pageCount: chain.spec.dbPages,
      bytes: stat.db.size + (stat.wal?.size ?? 0),
      columns: [...chain.columns.keys()],
    }
  }

  col(name: string): number {
    return this.scanner.col(name)
  }

  private get leafCount(): number {
    return this.layout.leaves.pages.length
  }

  count(): number {
    this.rowCount ??= this.scanner.countRows(0, this.leafCount)
    return this.rowCount
  }

  ends(): [bigint, bigint] | null {
    let first: bigint | null = null
    let last: bigint | null = null
    this.edgeCell('first', (c) => (first = c.rowidBig ?? BigInt(c.rowid)))
    this.edgeCell('last', (c) => (last = c.rowidBig ?? BigInt(c.rowid)))
    return first === null || last === null ? null : [first, last]
  }

  /** The scan's first or last cell (empty leaves passed over), given to `take` while valid. */
  private edgeCell(which: 'first' | 'last', take: (c: CellReader) => void): void {
    const once = (c: CellReader): boolean => {
      take(c)
      return false
    }
    if (which === 'first') this.scanner.scan(0, this.leafCount, once)
    else this.scanner.scanBackward(0, this.leafCount, once)
  }

  resolve(range: VerifyRangeOptions | undefined): ResolvedRange {
    let from = range?.seq_start !== undefined ? BigInt(range.seq_start) : INT64_MIN
    let to = range?.seq_end !== undefined ? BigInt(range.seq_end) : INT64_MAX
    if (range?.since_ns !== undefined || range?.until_ns !== undefined) {
      const b = this.timeBounds(from, to, range.since_ns, range.until_ns)
      if (b === null) return { fromSeq: 0n, toSeq: -1n }
      ;[from, to] = b
    }
    if (range?.last_n !== undefined) {
      // `ORDER BY seq DESC LIMIT 1 OFFSET n-1` as a backward scan: the n-th row of the range from the end.
      let left = Math.max(1, Math.floor(range.last_n))
      let at: bigint | null = null
      this.scanner.scanBackward(0, this.leafCount, (c) => {
        const id = c.rowidBig ?? BigInt(c.rowid)
        if (id < from || id > to) return true
        if (--left > 0) return true
        at = id
        return false
      })
      if (at !== null) from = at
    }
    return { fromSeq: from, toSeq: to }
  }

  /** First and last seq in [from, to] whose timestamp_ns is an integer within the bounds, by a scan. */
  private timeBounds(from: bigint, to: bigint, since?: string, until?: string): [bigint, bigint] | null {
    const lo = since === undefined ? INT64_MIN : BigInt(since)
    const hi = until === undefined ? INT64_MAX : BigInt(until)
    const ts = this.col('timestamp_ns')
    let min: bigint | null = null
    let max: bigint | null = null
    this.scanner.scan(0, this.leafCount, (c) => {
      const id = c.rowidBig ?? BigInt(c.rowid)
      if (id < from || id > to) return
      // A timestamp that is not an integer compares by SQLite's affinity and type-order rules
      // (datatype3 §4); rather than repeat them, leave such a file to SQLite. NULL matches nothing.
      if (c.isNull(ts)) return
      const t = c.intBig(ts)
      if (t === null) throw new Unsupported('a timestamp that is not an integer in a time-bounded range')
      if (t < lo || t > hi) return
      if (min === null || id < min) min = id
      if (max === null || id > max) max = id
    })
    return min === null || max === null ? null : [min, max]
  }

  place(r: ResolvedRange): { place: Place; estimate: number } {
    if (isWhole(r)) return { place: { from: 0, to: this.leafCount }, estimate: this.estimateRows() }
    const p = this.rangePlace(r)
    return { place: p.place, estimate: p.rows }
  }

  /** Rows per leaf from a few leaves spread over the table, times the leaves: for progress only. */
  estimateRows(): number {
    const n = this.leafCount
    if (n === 0) return 0
    const samples = Math.min(n, 32)
    let cells = 0
    for (let i = 0; i < samples; i++) {
      const l = Math.floor((i * n) / samples)
      cells += this.scanner.countRows(l, l + 1)
    }
    return Math.round((cells / samples) * n)
  }

  /**
   * The leaves holding rows of [fromSeq, toSeq], by reading every cell's rowid (the varints after
   * its payload size, file format §1.6) — never the divider keys. Also counts the table.
   */
  private rangePlace(r: ResolvedRange): RangePlace {
    const p = this.placed
    if (p !== null && p.fromSeq === r.fromSeq && p.toSeq === r.toSeq) return p
    // Safe integers compare with the bounds exactly through Number(bound): no BigInt per row.
    const lo = Number(r.fromSeq)
    const hi = Number(r.toSeq)
    let prevNum = -Infinity
    let prevBig: bigint | null = null
    let first = -1
    let last = -1
    let rows = 0
    let all = 0
    let leaf = 0
    this.scanner.scanLeaves(0, this.leafCount, (page, h, count) => {
      for (let i = 0; i < count; i++) {
        const at = page.readUInt16BE(h + 8 + 2 * i)
        readVarint(page, at + readVarint(page, at))
        let inRange: boolean
        if (varint.big === null) {
          const v = varint.value
          if (prevBig !== null ? BigInt(v) <= prevBig : v <= prevNum) throw new Unsupported(DISORDER)
          prevNum = v
          prevBig = null
          inRange = v >= lo && v <= hi
        } else {
          const b = varint.big
          if (b <= (prevBig ?? BigInt(prevNum === -Infinity ? INT64_MIN - 1n : prevNum)))
            throw new Unsupported(DISORDER)
          prevBig = b
          inRange = b >= r.fromSeq && b <= r.toSeq
        }
        if (inRange) {
          if (first < 0) first = leaf
          last = leaf
          rows++
        }
      }
      all += count
      leaf++
    })
    this.rowCount = all
    const place = rows === 0 ? { from: 0, to: 0 } : { from: first, to: last + 1 }
    this.placed = { fromSeq: r.fromSeq, toSeq: r.toSeq, place, rows }
    return this.placed
  }

  split(place: Place, n: number): Place[] {
    const len = place.to - place.from
    const count = Math.max(1, Math.min(len, n))
    const out: Place[] = []
    for (let i = 0; i < count; i++) {
      const from = place.from + Math.floor((i * len) / count)
      const to = place.from + Math.floor(((i + 1) * len) / count)
      if (to > from) out.push({ from, to })
    }
    return out
  }

  predecessor(place: Place, r: ResolvedRange): Predecessor | null {
    const mac = this.col('hmac_hash')
    let pred: Predecessor | null = null
    this.scanner.scanBackward(0, Math.min(place.from, this.leafCount), (c) => {
      pred = { seq: c.rowidBig ?? BigInt(c.rowid), hmac: c.text(mac) }
      return false
    })
    // Rows of the first leaf before the run's first row of the range.
    this.scanner.scan(place.from, Math.min(place.from + 1, place.to), (c) => {
      const id = c.rowidBig ?? BigInt(c.rowid)
      if (id >= r.fromSeq) return false
      pred = { seq: id, hmac: c.text(mac) }
    })
    return pred
  }

  scan(place: Place, r: ResolvedRange, row: (r: ChainRow) => boolean | void): void {
    // A safe integer compares with a BigInt bound exactly through Number(bound), so the common case
    // (every real chain: seqs far below 2^53) needs no BigInt per row.
    const lo = Number(r.fromSeq)
    const hi = Number(r.toSeq)
    this.scanner.scan(place.from, place.to, (c) => {
      const big = c.rowidBig
      if (big === null ? c.rowid < lo || c.rowid > hi : big < r.fromSeq || big > r.toSeq) return true
      return row(c)
    })
  }

  /** `scan`, each leaf offered first to `leaf` (RowScanner.scanLeafFirst: verify's native prover). */
  scanLeafFirst(
    place: Place,
    r: ResolvedRange,
    leaf: LeafFirst,
    row: (r: ChainRow) => boolean | void,
    leaves?: LeavesFirst,
  ): void {
    const lo = Number(r.fromSeq)
    const hi = Number(r.toSeq)
    const each = (c: CellReader): boolean | void => {
      const big = c.rowidBig
      if (big === null ? c.rowid < lo || c.rowid > hi : big < r.fromSeq || big > r.toSeq) return true
      return row(c)
    }
    this.scanner.scanLeafFirst(place.from, place.to, leaf, each, leaves)
  }

  /** A leaf at a time, over the leaves `place` finds for `r` (every leaf for the whole table). */
  cursor(r: ResolvedRange, _columns: readonly string[], descending: boolean): RowCursor {
    const { place } = r.fromSeq > r.toSeq ? { place: { from: 0, to: 0 } } : this.place(r)
    return leafCursor(this.scanner, place, r, descending)
  }

  /**
   * Side tables are read by the same file-format reader (../direct/side-tables); one it does not
   * take throws `Unsupported`, and the caller's pass is redone through SQLite (./open-source.ts).
   */
  scanTable(name: string, columns: readonly string[], row: (values: unknown[]) => void): boolean {
    return scanSideTable(this.opened(), name, columns, row)
  }

  confirmSeen(r: ResolvedRange, seen: number): void {
    // The runs are the leaves the tree's child pointers list; a range was counted by its own pass.
    const p = this.placed
    if (!isWhole(r) && p !== null && p.fromSeq === r.fromSeq && p.toSeq === r.toSeq && p.rows !== seen)
      throw new AuditError('evidence_changed', `the chain changed while it was read (${this.displayPath})`)
  }

  /** The rowid table (./../direct/rowid-table.ts), read once and kept. */
  private rowids(): RowidTable {
    return (this.rowidTable ??= RowidTable.read(this.scanner, this.leafCount, this.count()))
  }

  /**
   * Leaf and cell of the row with this seq: the one a scan reads first with it, from the rowid table
   * of every leaf. Not the leaf the divider keys name, even when it holds the seq: a divider key is
   * evidence too, and an earlier leaf may hold the same rowid (file format §1.6 leaves the order of
   * rowids to the writer; the table declines a tree whose rowids do not ascend). A miss is likewise
   * confirmed over every row.
   */
  private locate(seq: bigint): { leaf: number; cell: number } | null {
    const table = this.rowids()
    const at = table.firstAtLeast(seq)
    return table.rowidAt(at) === seq ? table.position(at) : null
  }

  /** Calls `row` with cell `cell` of leaf `leaf`. */
  private at(leaf: number, cell: number, row: (r: CellReader) => void): void {
    let k = 0
    this.scanner.scan(leaf, leaf + 1, (c) => {
      if (k++ < cell) return true
      row(c)
      return false
    })
  }

  find(seq: bigint, row: (r: ChainRow) => void): boolean {
    // A first lookup (inspect N) reads the leaves up to its row; later ones seek in the rowid table,
    // built once (a scan at every lookup took seconds a page of the app's table at 150k rows).
    const scan = this.rowidTable === null && this.scannedFinds++ === 0
    const p = scan ? firstInScan(this.scanner, this.leafCount, seq) : this.locate(seq)
    if (p === null) return false
    this.at(p.leaf, p.cell, row)
    return true
  }

  /**
   * The scan's first or last row, when its seq is `seq` (else false): the rows a whole pass begins
   * and ends on, whose times the `Evidence:` line states. Read at the edge, without the rowid table
   * `find` needs (one leaf, not every leaf): the first row is the scan's first with its seq, and the
   * last its last with its seq, by definition.
   */
  edge(which: 'first' | 'last', seq: bigint, row: (r: ChainRow) => void): boolean {
    let hit = false
    this.edgeCell(which, (c) => {
      if ((c.rowidBig ?? BigInt(c.rowid)) !== seq) return
      row(c)
      hit = true
    })
    return hit
  }

  /**
   * The scan's last row with this seq: the scan's last row where it holds the seq, else the one row
   * the rowid table places there (it declines a tree that holds a rowid twice, so the first row with
   * a seq is also the last; then SQLite answers).
   */
  findLast(seq: bigint, row: (r: ChainRow) => void): boolean {
    if (this.edge('last', seq, row)) return true
    const p = this.locate(seq)
    if (p !== null) this.at(p.leaf, p.cell, row)
    return p !== null
  }

  /**
   * The row before `seq`: what SQLite answers on the copy (`WHERE +seq < ? ORDER BY seq DESC LIMIT 1`,
   * a scan from the end) is the last row in scan order whose rowid is below `seq`. Where rowids
   * ascend in scan order that is the row at the position before the first rowid ≥ `seq`, found in the
   * rowid table; that table is one pass over every leaf's cell rowids (kept for later lookups), and
   * it declines a tree whose rowids do not ascend (then SQLite answers). The cell before the row's
   * own in its leaf is not enough: with pointers swapped it can be another row, even a higher seq.
   */
  before(seq: bigint): Predecessor | null {
    const table = this.rowids()
    const at = table.firstAtLeast(seq)
    if (at === 0) return null
    const p = table.position(at - 1)
    const mac = this.col('hmac_hash')
    let pred: Predecessor | null = null
    this.at(p.leaf, p.cell, (c) => {
      pred = { seq: c.rowidBig ?? BigInt(c.rowid), hmac: c.text(mac) }
    })
    return pred
  }

  columns(place: Place, capacity: number, wanted: ColumnsWanted, hooks: ColumnsHooks = {}): ColumnsPart {
    return leafColumns(this.scanner, place.from, place.to, capacity, wanted, hooks)
  }

  lastColumns(rows: number, wanted: ColumnsWanted): IntegrityColumns {
    return lastLeafColumns(this.scanner, this.opened().root, rows, wanted)
  }

  handle(place?: Place): { handle: SourceHandle; place?: Place } {
    if (place === undefined) return { handle: { kind: 'direct', layout: this.plainLayout() } }
    // Only the run's leaves, numbered from 0: a million-row chain has half a million leaves.
    return {
      handle: { kind: 'direct', layout: leafSlice(this.layout, place.from, place.to) },
      place: { from: 0, to: place.to - place.from },
    }
  }

  private shared: { of: LeafList; list: LeafList } | null = null

  private plainLayout(): DirectChainLayout {
    const { spec, reserved, ncols, seqColumn, columns, leaves } = this.layout
    if (this.shared?.of !== leaves) this.shared = { of: leaves, list: sharedLeafList(leaves) }
    return { spec, reserved, ncols, seqColumn, columns, leaves: this.shared.list }
  }

  assertUnchanged(): void {
    if (this.chain !== null) assertUnchangedSinceOpen(this.chain)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.scanner.close()
    if (this.owns) this.chain?.close()
  }
}
