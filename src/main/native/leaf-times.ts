// The native half of a quick index pass (seq and timestamps only, ../chain/direct/columns.ts): the
// addon reads runs of leaf pages with pread and decodes their cells in one call per thousands of
// leaves. In JavaScript the same pass spent ≈60% of its time in the kernel copying 128 KB windows
// and most of the rest making a Buffer view and a call per page; a leaf the addon is not sure of
// it leaves to the TypeScript reader, which decides it exactly as without the addon.
import type { Pager } from '../chain/direct/pager'
import { readBuffer } from '../chain/read-buffer'
import { nativeAddon, type NativeAddon } from './row-prover'

/** leafTimes' answers. */
export const LEAF_TIMES = { DONE: 0, FOR_TYPESCRIPT: 1, FULL: 2 } as const

export interface LeafTimesAddon extends NativeAddon {
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

/** Bytes one pread reads at most (a run of consecutive leaves). */
const RUN_BYTES = 512 * 1024

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
  private readonly fds: Int32Array
  private readonly geometry: Int32Array
  private readonly walPages: Int32Array
  private readonly walOffsets: Float64Array
  private readonly state = new Float64Array(3)
  private readonly buffer: Buffer

  constructor(
    private readonly addon: LeafTimesAddon,
    pager: Pager,
    layout: { ncols: number; usable: number },
    tsColumn: number,
  ) {
    const spec = pager.spec
    this.fds = Int32Array.of(pager.fd, pager.walFd)
    this.geometry = Int32Array.of(spec.pageSize, spec.dbPages, layout.usable, layout.ncols, tsColumn)
    // The addon looks pages up by binary search.
    const order = Array.from(spec.walPagesNo.keys()).sort((a, b) => spec.walPagesNo[a]! - spec.walPagesNo[b]!)
    this.walPages = Int32Array.from(order, (k) => spec.walPagesNo[k]!)
    this.walOffsets = Float64Array.from(order, (k) => spec.walPagesOff[k]!)
    this.buffer = readBuffer(Math.max(spec.pageSize, RUN_BYTES - (RUN_BYTES % spec.pageSize)))
  }

  /** Rows of leaves [from, to) of `leaves` into `cols` from row `row` on, until done or stopped. */
  run(leaves: Int32Array, from: number, to: number, row: number, cols: TimeColumns): LeafTimesStop {
    const st = this.state
    st[0] = from
    st[1] = to
    st[2] = row
    const result = this.addon.leafTimes(
      this.fds,
      this.geometry,
      this.walPages,
      this.walOffsets,
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

/** The addon when it has leafTimes (not with BIJOTEL_NATIVE=0, an older build, or on Windows: no pread). */
function leafTimesAddon(): LeafTimesAddon | null {
  if (process.env['BIJOTEL_NATIVE'] === '0') return null
  const addon = nativeAddon() as LeafTimesAddon | null
  return addon !== null && typeof addon.leafTimes === 'function' ? addon : null
}

/** A native reader of leaf times over `pager`'s file, or null where there is none. */
export function leafTimer(
  pager: Pager,
  layout: { ncols: number; usable: number },
  tsColumn: number,
): LeafTimer | null {
  const addon = tsColumn < 0 ? null : leafTimesAddon()
  return addon === null ? null : new LeafTimer(addon, pager, layout, tsColumn)
}

/** Whether a quick pass reads natively here (then one thread is faster than starting workers). */
export function leafTimesAvailable(): boolean {
  return leafTimesAddon() !== null
}
