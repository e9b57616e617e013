// The native half of extracting a row's facts for the index and the integrity monitor
// (../chain/columns/builder.ts): one call per row reads the timestamp (and its epoch second), the
// hash fingerprint and the body's attribute spans from the record where it lies, so no BigInt, no
// body Buffer and no JS byte loop is made for a plain row. Whatever it leaves undecided (a
// timestamp that is not an integer, non-ASCII hash text, a body that is not TEXT or BLOB)
// TypeScript decides, exactly as without the addon.
import { endianness } from 'node:os'
import { setScanKeys } from './json-scanner'
import { nativeAddon, type NativeAddon } from './row-prover'

/** rowFacts() returns this when the body is not TEXT or BLOB (castBlob and bodyFacts decide). */
export const FACTS_BY_TYPESCRIPT = 4

/** Slots of `RowFacter.out` after a call. */
export const F = {
  /** [0, 8): starts of the wanted attributes' values, relative to the record (-1 absent); [8, 16) ends. */
  ENDS: 8,
  /** 1 when timestamp_ns is an integer: then SECOND, HI and LO hold it. */
  TS: 16,
  SECOND: 17,
  /** High and low 32 bits of the timestamp (as a signed and an unsigned number). */
  HI: 18,
  LO: 19,
  /** 1 when the hash fingerprint was computed: then FP_VALUE. */
  FP: 20,
  FP_VALUE: 21,
  /** pageFacts only: the cell's rowid (within ±2^53) and the body's scan verdict. */
  ROWID: 22,
  VERDICT: 23,
  /** pageFacts' slots per cell. */
  STRIDE: 24,
} as const

export interface NativeFactsAddon extends NativeAddon {
  factsColumns(columns: Int32Array): void
  rowFacts(record: Uint8Array, types: Int32Array, offsets: Int32Array, out: Float64Array): number
  pageFacts(page: Uint8Array, header: number, from: number, out: Float64Array, withBody: number): number
}

/** The record layout pageFacts decodes cells with. */
export interface PageLayout {
  ncols: number
  /** Page size less the reserved bytes at the end of each page. */
  usable: number
  /** Records with fewer fields are left to TypeScript (see ColumnLayout.minFields); 0 when absent. */
  minFields?: number
}

export class RowFacter {
  readonly out = new Float64Array(24)
  readonly starts = this.out.subarray(0, F.ENDS)
  readonly ends = this.out.subarray(F.ENDS, 16)

  /**
   * The addon keeps one key table and one set of column numbers per thread: both are set here, for
   * a pass that runs to its end before another starts on the thread (scans are synchronous).
   */
  constructor(
    private readonly addon: NativeFactsAddon,
    keys: readonly Buffer[],
    ts: number,
    body: number,
    hash: number,
    layout: PageLayout,
  ) {
    setScanKeys(addon, keys)
    addon.factsColumns(Int32Array.of(ts, body, hash, layout.ncols, layout.usable, layout.minFields ?? 0))
  }

  /** The body's scan verdict (SCAN_* of ./json-scanner.ts) or FACTS_BY_TYPESCRIPT. */
  facts(record: Uint8Array, types: Int32Array, offsets: Int32Array): number {
    return this.addon.rowFacts(record, types, offsets, this.out)
  }

  /**
   * The facts of a table leaf's cells from cell `from` on, F.STRIDE slots a cell in `out`, decoded
   * in the addon (one call a page instead of a cell decode and a call a row): it stops before the
   * first cell it leaves to TypeScript (an overflowing payload, a record CellReader would refuse, a
   * timestamp that is not an integer, a fingerprint or body facts for TypeScript; see native/src/addon.c
   * pageFacts) and returns the cells done. Without `withBody` only rowid and timestamp.
   */
  page(page: Uint8Array, header: number, from: number, out: Float64Array, withBody: boolean): number {
    return this.addon.pageFacts(page, header, from, out, withBody ? 1 : 0)
  }
}

/**
 * The addon for row facts, or null without it, with BIJOTEL_NATIVE=0, or on a big-endian machine
 * (timestamps are written as two 32-bit halves into a BigInt64Array).
 */
export function factsAddon(): NativeFactsAddon | null {
  if (process.env['BIJOTEL_NATIVE'] === '0' || endianness() !== 'LE') return null
  const addon = nativeAddon() as NativeFactsAddon | null
  return addon !== null && typeof addon.rowFacts === 'function' && typeof addon.pageFacts === 'function'
    ? addon
    : null
}
