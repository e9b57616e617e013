// The in-memory index of an opened chain — per row: seq, timestamp, provider, model — so the
// timeline, the charts and filtered/sorted tables answer without shipping rows to the renderer or
// re-reading bodies. About 30 bytes a row, in typed arrays: the columns (./columns) of every row
// of a source, on worker threads for a large chain.
import { Interner } from './columns/interner'
import { providerLabel } from './provider-key'
import { endWorkers, extractAllColumns, startColumnWorkers, type EarlyWorker } from './columns/parallel'
import { INDEX_COLUMNS, NO_MODEL, type ColumnsWanted, type IndexColumns } from './columns/types'
import { WHOLE, type RowSource } from './source/row-source'

export type ChainIndex = IndexColumns
/** One run's part of the index, with its own name tables (merged by `mergeParts`). */
export type IndexPart = IndexColumns

export interface IndexHooks {
  onProgress?: (done: number, total: number) => void
  signal?: { aborted: boolean }
}

/**
 * The index of every row of `source` (`wanted`: QUICK_COLUMNS for a staged open's first pass, seq
 * and timestamps only). `started`: workers the caller started before listing the leaves (ended
 * here in any case).
 */
export async function buildChainIndex(
  source: RowSource,
  hooks: IndexHooks = {},
  wanted: ColumnsWanted = INDEX_COLUMNS,
  started?: EarlyWorker[],
): Promise<ChainIndex> {
  const early = started ?? startColumnWorkers(source, wanted)
  try {
    const { place, estimate } = source.place(WHOLE)
    const parts = await extractAllColumns(source, place, estimate, hooks, wanted, early)
    source.confirmSeen(
      WHOLE,
      parts.reduce((n, p) => n + p.rows, 0),
    )
    return mergeParts(parts)
  } finally {
    endWorkers(early) // those not given work, when an error came first
  }
}

/** Concatenate parts (in seq order), re-numbering their provider and model ids into one table. */
export function mergeParts(parts: IndexPart[]): ChainIndex {
  const providers = new Interner(providerLabel)
  const models = new Interner()
  models.id(NO_MODEL)
  const maps = parts.map((p) => ({
    provider: p.providerKeys.map((k) => providers.id(k)),
    model: p.modelNames.map((n) => models.id(n)),
  }))
  const same = (map: number[]): boolean => map.every((id, k) => id === k)
  const kept = maps.map((m) => same(m.provider) && same(m.model))
  const names = { providerNames: providers.names, providerKeys: providers.keys, modelNames: models.names }
  // One part whose ids are already the merged ones (a pass on one thread): its columns, not a copy
  // (≈22 MB of fresh memory at 1M rows, and fresh memory is slow to touch on this project's VMs).
  if (parts.length === 1 && kept[0]) {
    const p = parts[0]!
    const rows = p.rows
    return {
      rows,
      seq: p.seq.subarray(0, rows),
      ts: p.ts.subarray(0, rows),
      tsValid: p.tsValid.subarray(0, rows),
      provider: p.provider.subarray(0, rows),
      model: p.model.subarray(0, rows),
      hasReplay: p.hasReplay.subarray(0, rows),
      ...names,
    }
  }
  const rows = parts.reduce((n, p) => n + p.rows, 0)
  const idx: ChainIndex = {
    rows,
    seq: new Float64Array(rows),
    ts: new BigInt64Array(rows),
    tsValid: new Uint8Array(rows),
    provider: new Uint32Array(rows),
    model: new Uint32Array(rows),
    hasReplay: new Uint8Array(rows),
    ...names,
  }
  let at = 0
  parts.forEach((p, k) => {
    idx.seq.set(p.seq, at)
    idx.ts.set(p.ts, at)
    idx.tsValid.set(p.tsValid, at)
    idx.hasReplay.set(p.hasReplay, at)
    if (kept[k]) {
      idx.provider.set(p.provider.subarray(0, p.rows), at)
      idx.model.set(p.model.subarray(0, p.rows), at)
    } else {
      const { provider: pmap, model: mmap } = maps[k]!
      for (let i = 0; i < p.rows; i++) {
        idx.provider[at + i] = pmap[p.provider[i]!]!
        idx.model[at + i] = mmap[p.model[i]!]!
      }
    }
    at += p.rows
  })
  return idx
}

/** Row position of a seq (binary search; seqs are ascending). */
export function positionOfSeq(idx: ChainIndex, seq: number): number | null {
  let lo = 0
  let hi = idx.rows - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = idx.seq[mid]!
    if (v === seq) return mid
    if (v < seq) lo = mid + 1
    else hi = mid - 1
  }
  return null
}

/** The lowest and highest valid timestamp_ns of the index (null when no row has one). */
export function timestampExtremes(idx: ChainIndex): { lo: bigint | null; hi: bigint | null } {
  let lo: bigint | null = null
  let hi: bigint | null = null
  for (let i = 0; i < idx.rows; i++) {
    if (!idx.tsValid[i]) continue
    const t = idx.ts[i]!
    if (lo === null || t < lo) lo = t
    if (hi === null || t > hi) hi = t
  }
  return { lo, hi }
}
