// The direct reader's column passes (the index, the integrity monitor): leaves read in place and
// their rows written into a ColumnsBuilder, sped up from inside by the native addon — a page's
// cells decoded and their facts read in one call (pageFacts), a quick pass's leaves read by pread
// and decoded in C (leafTimes), the integrity window read in one walk back from the right edge
// (windowFacts). Whatever the addon leaves goes through `ColumnsBuilder.row`, as any row does.
import { LEAF_TIMES, leafTimer, nativeWindow } from '../addon/leaf-pages'
import { F } from '../addon/row-facts'
import { rowFacter, signatureProvider } from '../body-scan'
import { ColumnsBuilder } from '../columns/builder'
import { Interner } from '../columns/interner'
import { providerLabel } from '../provider-key'
import { ascending } from '../columns/sort'
import type { ColumnsPart, ColumnsWanted, IntegrityColumns } from '../columns/types'
import type { ColumnsHooks } from '../source/row-source'
import type { RowScanner } from './scan'

/** Cells one native call reports at most (F.STRIDE slots each). */
const PAGE_CELLS = 128

/** Leaves one native call of a quick pass reads at most (≈4 MB: progress and a cancel stay prompt). */
const NATIVE_LEAVES = 2048

/** Reads cells [first, count) of a table leaf (file format §1.6) into the builder. */
type LeafReader = (page: Buffer, header: number, count: number, first: number) => void

function columnNumbers(scanner: RowScanner): { ts: number; body: number; hash: number } {
  return {
    ts: scanner.col('timestamp_ns'),
    body: scanner.col('canonical_body'),
    hash: scanner.col('canonical_hash'),
  }
}

/** A builder over the scanner's rows, with the addon's per-row and per-page facts where it has them. */
function leafReader(
  scanner: RowScanner,
  capacity: number,
  wanted: ColumnsWanted,
  hooks: ColumnsHooks,
): { builder: ColumnsBuilder; leaf: LeafReader } {
  const cols = columnNumbers(scanner)
  const facter = rowFacter(cols.ts, cols.body, cols.hash, scanner.pageLayout)
  const builder = new ColumnsBuilder(capacity, wanted, cols, hooks, facter)
  const cell = scanner.cell
  cell.startPass()
  if (facter === null) {
    return {
      builder,
      leaf: (page, h, count, first) => {
        for (let k = first; k < count; k++) {
          cell.read(page, page.readUInt16BE(h + 8 + 2 * k))
          builder.row(cell)
        }
      },
    }
  }
  const cells = new Float64Array(F.STRIDE * PAGE_CELLS)
  return {
    builder,
    leaf: (page, h, count, first) => {
      let k = first
      while (k < count) {
        const done = facter.page(page, h, k, cells, wanted.facts)
        builder.pageCells(page, cells, done)
        k += done
        if (done === PAGE_CELLS || k === count) continue
        // The addon stopped before a cell it leaves to TypeScript: that cell, then the page call again.
        cell.read(page, page.readUInt16BE(h + 8 + 2 * k))
        builder.row(cell)
        k++
      }
    },
  }
}

/** The columns of leaves [leafFrom, leafTo) of the scanner's leaf list, in order. */
export function leafColumns(
  scanner: RowScanner,
  leafFrom: number,
  leafTo: number,
  capacity: number,
  wanted: ColumnsWanted,
  hooks: ColumnsHooks = {},
): ColumnsPart {
  const { builder, leaf } = leafReader(scanner, capacity, wanted, hooks)
  // A quick pass reads its leaves in the addon where it can (pread and cell decoding there); the
  // leaves it is not sure of go through `leaf`.
  const timer =
    !wanted.facts && !wanted.integrity
      ? leafTimer(scanner.pager, scanner.pageLayout, scanner.col('timestamp_ns'))
      : null
  if (timer === null) scanner.scanLeaves(leafFrom, leafTo, leaf)
  else {
    const list = scanner.chain.leaves.pages
    for (let l = leafFrom; l < leafTo;) {
      const stop = timer.run(
        list,
        l,
        Math.min(leafTo, l + NATIVE_LEAVES),
        builder.position,
        builder.timeColumns(),
      )
      builder.timedTo(stop.row)
      l = stop.leaf
      if (stop.result === LEAF_TIMES.FOR_TYPESCRIPT) {
        scanner.scanLeaves(l, l + 1, leaf)
        l++
      } else if (stop.result === LEAF_TIMES.FULL) builder.grow()
      builder.progress()
    }
  }
  hooks.onRows?.(builder.position)
  return builder.finish()
}

/**
 * The columns of the last `rows` rows (all of them in a shorter chain), read in one walk back from
 * the tree's right edge (child pointers, never keys): each leaf's rows are written below the newer
 * ones, so every page is read once and no leaf list of the whole chain is made.
 */
export function lastLeafColumns(
  scanner: RowScanner,
  root: number,
  rows: number,
  wanted: ColumnsWanted,
): IntegrityColumns {
  const native = wanted.facts && wanted.integrity ? nativeLastColumns(scanner, root, rows) : null
  if (native !== null) return native
  const { builder, leaf } = leafReader(scanner, rows, wanted, {})
  let start = rows
  scanner.scanLastLeaves(rows, root, (page, h, count, first) => {
    start -= count - first
    builder.moveTo(start)
    leaf(page, h, count, first)
  })
  return builder.finish(start, rows)
}

/** lastLeafColumns read by the addon in one call (nativeWindow), or null where it leaves the window. */
function nativeLastColumns(scanner: RowScanner, root: number, rows: number): IntegrityColumns | null {
  const cols = columnNumbers(scanner)
  // Sets the thread's scan keys and facts columns, which the window call reads.
  const facter = rowFacter(cols.ts, cols.body, cols.hash, scanner.pageLayout)
  const w = facter === null ? null : nativeWindow(scanner.pager, root, rows)
  if (w === null) return null
  // Signatures are numbered in the order the walk met them, so names keep the order of first
  // appearance the TypeScript walk gives them.
  const providers = new Interner(providerLabel)
  const ids = Uint32Array.from(w.signatures, (sig) => providers.id(signatureProvider(sig)))
  return {
    rows: w.rows,
    seq: w.seq,
    seqBig: w.seqBig,
    ts: w.ts,
    provider: Uint32Array.from(w.provider, (s) => ids[s]!),
    providerNames: providers.names,
    providerKeys: providers.keys,
    badTs: null,
    looseTs: [],
    seconds: w.seconds,
    secondsSorted: ascending(w.seconds),
    hashFp: w.hashFp,
    hashFpSorted: ascending(w.hashFp),
  }
}
