// The native halves of three walks over a chain's pages (SQLite file format §1.6, table b-tree
// pages), each done in one call where JavaScript made a call, a Buffer view and a loop per page:
// - listing a table b-tree's leaves (../chain/direct/btree.ts collectLeaves), from the child
//   pointers of its interior pages;
// - a quick index pass, seq and timestamps only (../chain/direct/page-columns.ts): runs of leaf pages
//   read with pread and their cells decoded in C, bound by the kernel copying pages;
// - the integrity monitor's window (lastLeafColumns): the newest rows' facts read in one walk
//   back from the tree's right edge.
// They accelerate the direct reader from inside (docs/performance.md has what each one saves).
// Whatever the addon is not sure of (a corrupt page, a cell it would not decode) it leaves to the
// TypeScript, which decides it exactly as without the addon. All read through the caller's
// read-only descriptors and write nothing to any file.
import type { LeafList } from '../direct/leaf-list'
import type { Pager } from '../direct/pager'
import { readBuffer } from '../read-buffer'
import { nativeAddon, type NativeAddon } from './row-prover'

/** The page source both calls take: descriptors, geometry and the WAL's pages sorted by number. */
interface PageSource {
  fds: Int32Array
  geometry: Int32Array
  walPages: Int32Array
  walOffsets: Float64Array
}

function pageSource(pager: Pager, layout = { ncols: 0, usable: 0 }, tsColumn = -1): PageSource {
  const spec = pager.spec
  // The addon looks pages up by binary search.
  const order = Array.from(spec.walPagesNo.keys()).sort((a, b) => spec.walPagesNo[a]! - spec.walPagesNo[b]!)
  return {
    fds: Int32Array.of(pager.fd, pager.walFd),
    geometry: Int32Array.of(
      spec.pageSize,
      spec.dbPages,
      layout.usable,
      layout.ncols,
      tsColumn,
      spec.minFields,
    ),
    walPages: Int32Array.from(order, (k) => spec.walPagesNo[k]!),
    walOffsets: Float64Array.from(order, (k) => spec.walPagesOff[k]!),
  }
}

/** leafTimes' answers. */
export const LEAF_TIMES = { DONE: 0, FOR_TYPESCRIPT: 1, FULL: 2 } as const

export interface LeafPagesAddon extends NativeAddon {
  collectLeaves(
    fds: Int32Array,
    geometry: Int32Array,
    walPages: Int32Array,
    walOffsets: Float64Array,
    root: number,
    pages: Int32Array,
    keys: BigInt64Array,
  ): number
  leafTimes(
    fds: Int32Array,
    geometry: Int32Array,
    walPages: Int32Array,
    walOffsets: Float64Array,
    leaves: Int32Array,
    state: Float64Array,
    buffer: Uint8Array,
    seq: Float64Array,
    seqBig: BigInt64Array,
    ts: BigInt64Array,
    tsValid: Uint8Array,
  ): number
}

/** windowFacts' row columns: the provider column holds signature numbers (see WindowFacts). */
interface WindowColumnsIn {
  seq: Float64Array
  seqBig: BigInt64Array
  ts: BigInt64Array
  seconds: Float64Array
  hashFp: Float64Array
  provider: Uint16Array
}

export interface WindowAddon extends LeafPagesAddon {
  windowFacts(
    fds: Int32Array,
    geometry: Int32Array,
    walPages: Int32Array,
    walOffsets: Float64Array,
    root: number,
    limit: number,
    seq: Float64Array,
    seqBig: BigInt64Array,
    ts: BigInt64Array,
    seconds: Float64Array,
    hashFp: Float64Array,
    provider: Uint16Array,
    leafPages: Int32Array,
    leafKeys: BigInt64Array,
    state: Float64Array,
    buffer: Uint8Array,
  ): Buffer[] | null
}

/**
 * The newest rows of a table, as the addon read them: the columns hold `rows` rows, oldest first;
 * `provider` holds numbers into `signatures`, each the bytes that decide a row's provider (the
 * body's scan verdict, then per provider attribute a 32-bit little-endian length, 0xffffffff when
 * absent, and the value's raw bytes) for ../chain/body-scan.ts signatureProvider to name.
 */
export interface WindowFacts extends WindowColumnsIn {
  rows: number
  signatures: Buffer[]
  leaves: LeafList
}

/** Bytes one pread reads at most (a run of consecutive leaves). */
const RUN_BYTES = 512 * 1024

/** A buffer for the addon's runs of pages: whole pages, RUN_BYTES at most (one page at least). */
function runBuffer(pageSize: number): Buffer {
  return readBuffer(Math.max(pageSize, RUN_BYTES - (RUN_BYTES % pageSize)))
}

/** Where a call stopped: the next leaf to read and the next row to write. */
export interface LeafTimesStop {
  result: (typeof LEAF_TIMES)[keyof typeof LEAF_TIMES]
  leaf: number
  row: number
}

export interface TimeColumns {
  seq: Float64Array
  seqBig: BigInt64Array
  ts: BigInt64Array
  tsValid: Uint8Array
}

export class LeafTimer {
  private readonly source: PageSource
  /** from, to, row, and how far ahead the addon has asked the kernel for the file (its own). */
  private readonly state = new Float64Array(4)
  private readonly buffer: Buffer

  constructor(
    private readonly addon: LeafPagesAddon,
    pager: Pager,
    layout: { ncols: number; usable: number },
    tsColumn: number,
  ) {
    this.source = pageSource(pager, layout, tsColumn)
    this.buffer = runBuffer(pager.pageSize)
  }

  /** Rows of leaves [from, to) of `leaves` into `cols` from row `row` on, until done or stopped. */
  run(leaves: Int32Array, from: number, to: number, row: number, cols: TimeColumns): LeafTimesStop {
    const st = this.state
    st[0] = from
    st[1] = to
    st[2] = row
    const { fds, geometry, walPages, walOffsets } = this.source
    const result = this.addon.leafTimes(
      fds,
      geometry,
      walPages,
      walOffsets,
      leaves,
      st,
      this.buffer,
      cols.seq,
      cols.seqBig,
      cols.ts,
      cols.tsValid,
    ) as LeafTimesStop['result']
    return { result, leaf: st[0]!, row: st[2]! }
  }
}

/** The addon when it has these calls (not with BIJOTEL_NATIVE=0, an older build, or on Windows: no pread). */
function leafPagesAddon(): LeafPagesAddon | null {
  if (process.env['BIJOTEL_NATIVE'] === '0') return null
  const addon = nativeAddon() as LeafPagesAddon | null
  return addon !== null && typeof addon.leafTimes === 'function' && typeof addon.collectLeaves === 'function'
    ? addon
    : null
}

/**
 * The leaves of the table b-tree rooted at `root`, listed by the addon; null without it, or where
 * it leaves the tree to collectLeaves' TypeScript (which then lists it, or says what is wrong).
 * The arrays are sized for every page of the file to be a leaf, as collectLeaves sizes them.
 */
export function nativeLeafList(pager: Pager, root: number): LeafList | null {
  const addon = leafPagesAddon()
  if (addon === null) return null
  const { fds, geometry, walPages, walOffsets } = pageSource(pager)
  const pages = new Int32Array(pager.dbPages)
  const keys = new BigInt64Array(pager.dbPages)
  const count = addon.collectLeaves(fds, geometry, walPages, walOffsets, root, pages, keys)
  return count < 0 ? null : { pages: pages.subarray(0, count), maxKey: keys.subarray(0, count) }
}

/**
 * The facts of the newest `limit` rows of the table rooted at `root`, read by the addon; null
 * without it, or wherever it leaves the window to TypeScript (which then reads it, or says what is
 * wrong). The body scanner's keys and the facts columns must be set (a RowFacter made) first.
 */
export function nativeWindow(pager: Pager, root: number, limit: number): WindowFacts | null {
  const addon = leafPagesAddon() as WindowAddon | null
  if (addon === null || typeof addon.windowFacts !== 'function' || limit < 1 || limit > 2 ** 31 - 1)
    return null
  const { fds, geometry, walPages, walOffsets } = pageSource(pager)
  const cols: WindowColumnsIn = {
    seq: new Float64Array(limit),
    seqBig: new BigInt64Array(limit),
    ts: new BigInt64Array(limit),
    seconds: new Float64Array(limit),
    hashFp: new Float64Array(limit),
    provider: new Uint16Array(limit),
  }
  // A leaf holds one row at least, but for empty leaves (which only a corrupt or odd tree has).
  const leafPages = new Int32Array(limit + 64)
  const leafKeys = new BigInt64Array(limit + 64)
  const state = new Float64Array(2)
  const buffer = runBuffer(pager.pageSize)
  const signatures = addon.windowFacts(
    fds,
    geometry,
    walPages,
    walOffsets,
    root,
    limit,
    cols.seq,
    cols.seqBig,
    cols.ts,
    cols.seconds,
    cols.hashFp,
    cols.provider,
    leafPages,
    leafKeys,
    state,
    buffer,
  )
  if (signatures === null) return null
  const start = state[0]!
  const leaves = state[1]!
  return {
    rows: limit - start,
    seq: cols.seq.subarray(start),
    seqBig: cols.seqBig.subarray(start),
    ts: cols.ts.subarray(start),
    seconds: cols.seconds.subarray(start),
    hashFp: cols.hashFp.subarray(start),
    provider: cols.provider.subarray(start),
    signatures,
    // Oldest first, as a leaf list holds them.
    leaves: {
      pages: leafPages.subarray(0, leaves).reverse(),
      maxKey: leafKeys.subarray(0, leaves).reverse(),
    },
  }
}

/** A native reader of leaf times over `pager`'s file, or null where there is none. */
export function leafTimer(
  pager: Pager,
  layout: { ncols: number; usable: number },
  tsColumn: number,
): LeafTimer | null {
  const addon = tsColumn < 0 ? null : leafPagesAddon()
  return addon === null ? null : new LeafTimer(addon, pager, layout, tsColumn)
}

/** Whether a quick pass reads natively here (then one thread is faster than starting workers). */
export function leafTimesAvailable(): boolean {
  return leafPagesAddon() !== null
}
