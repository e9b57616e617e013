// Verification straight from the evidence file (../chain/direct): no copy, no SQLite connection.
// Partitions are runs of leaf pages, verified on worker threads; the verdict is assembled exactly
// as on the SQLite path, and a differential test holds the two paths to the same answers.
import type { VerifyVerdict } from '../../shared/verify-types'
import { leafFor } from '../chain/direct/btree'
import { Unsupported } from '../chain/direct/format'
import { assertUnchangedSinceOpen, type DirectChain } from '../chain/direct/open'
import { RowScanner, type DirectChainLayout } from '../chain/direct/scan'
import { verifyDirectPartition, type DirectPartitionSpec } from './direct-partition'
import { defaultWorkerCount, PARALLEL_MIN_ROWS, runPartitionsOnWorkers, verifyWorkerScript } from './parallel'
import type { PartitionResult } from './partition'
import type { KeyMaterial } from './secrets'
import { digestRowsDirect, priorBounds } from '../custody/rows-digest'
import { assembleVerdict, hasRange, requireKeys, shiftOrdinals, type VerifyOptions } from './verify'
import { INT64_MAX, INT64_MIN } from './partition'

export function layoutOf(chain: DirectChain): DirectChainLayout {
  return {
    spec: chain.spec,
    reserved: chain.reserved,
    ncols: chain.ncols,
    seqColumn: chain.seqColumn,
    columns: chain.columns,
    // Read through to the chain, so the leaves are listed only if this layout's user needs them.
    get leaves() {
      return chain.leaves
    },
  }
}

/** Rows per leaf from a few leaves spread over the table, times the leaves: for progress only. */
export function estimateRows(scanner: RowScanner, from: number, to: number): number {
  const n = to - from
  if (n <= 0) return 0
  const samples = Math.min(n, 32)
  let cells = 0
  for (let i = 0; i < samples; i++) {
    const l = from + Math.floor((i * n) / samples)
    cells += scanner.countRows(l, l + 1)
  }
  return Math.round((cells / samples) * n)
}

/** Seq bounds of a range request; `last_n` counted back from the end, leaf by leaf. */
function seqBounds(scanner: RowScanner, opts: VerifyOptions): { from: bigint; to: bigint } {
  const r = opts.range
  if (r?.since_ns !== undefined || r?.until_ns !== undefined) throw new Unsupported('time-bounded range')
  let from = r?.seq_start !== undefined ? BigInt(r.seq_start) : INT64_MIN
  const to = r?.seq_end !== undefined ? BigInt(r.seq_end) : INT64_MAX
  if (r?.last_n !== undefined) {
    let left = Math.max(1, Math.floor(r.last_n))
    const leaves = scanner.chain.leaves
    const end = Math.min(leaves.pages.length, leafFor(leaves, to) + 1)
    let at: bigint | null = null
    scanner.scanBackward(0, end, (c) => {
      const id = c.rowidBig ?? BigInt(c.rowid)
      if (id > to) return true
      if (id < from) return false
      at = id
      return --left > 0
    })
    if (at !== null && at > from) from = at
  }
  return { from, to }
}

/** Partitions per worker thread in direct mode. */
const JOBS_PER_THREAD = 8

export async function verifyDirect(
  chain: DirectChain,
  keys: KeyMaterial[],
  opts: VerifyOptions = {},
): Promise<VerifyVerdict> {
  requireKeys(keys, opts)
  const layout = layoutOf(chain)
  const scanner = new RowScanner(layout)
  try {
    const { from, to } = seqBounds(scanner, opts)
    const leaves = chain.leaves
    const leafFrom = Math.min(leafFor(leaves, from), leaves.pages.length)
    const leafTo = Math.min(leaves.pages.length, leafFor(leaves, to) + 1)
    const estimate = estimateRows(scanner, leafFrom, leafTo)
    const progress = (done: number): void => opts.onProgress?.(done, Math.max(done, estimate))
    const workers = opts.workers ?? defaultWorkerCount()
    const script = verifyWorkerScript()
    let parts: PartitionResult[]
    const base = { fromSeq: from, toSeq: to, firstOrd: 0, first: true }
    if (script && workers > 1 && estimate >= PARALLEL_MIN_ROWS) {
      // Several jobs per thread, taken as threads free up: the machine rarely gives both the same speed.
      const n = leafTo - leafFrom
      const count = Math.min(n, workers * JOBS_PER_THREAD)
      const jobs = Array.from({ length: count }, (_, i) => ({
        spec: base,
        leaves: {
          leafFrom: leafFrom + Math.floor((i * n) / count),
          leafTo: leafFrom + Math.floor(((i + 1) * n) / count),
        },
      })).filter((j) => j.leaves.leafTo > j.leaves.leafFrom)
      parts = shiftOrdinals(
        await runPartitionsOnWorkers(
          script,
          { copyPath: '', displayPath: chain.path, layout },
          jobs,
          keys,
          progress,
          opts.signal,
          workers,
        ),
      )
    } else {
      const spec: DirectPartitionSpec = { ...base, leafFrom, leafTo }
      parts = [
        verifyDirectPartition(scanner, keys, spec, {
          onRows: progress,
          ...(opts.signal ? { signal: opts.signal } : {}),
        }),
      ]
    }
    const rows = parts.reduce((s, p) => s + p.rows, 0)
    const total = hasRange(opts.range) ? scanner.countRows(0, leaves.pages.length) : rows
    const macCol = scanner.col('hmac_hash')
    const lookup = (seq: number): unknown => {
      let v: unknown = undefined
      scanner.find(BigInt(seq), (c) => (v = c.value(macCol)))
      return v
    }
    // A report as the prior: its rows are read again (seq and hmac_hash only) to find any gone or changed.
    const p = opts.prior?.rows
    const rowsNow = p ? digestRowsDirect(scanner, p.block_size, priorBounds(p)) : undefined
    const verdict = assembleVerdict(
      parts,
      lookup,
      opts,
      { fromSeq: from, toSeq: to, rows, empty: rows === 0 },
      total,
      rowsNow,
    )
    assertUnchangedSinceOpen(chain)
    return verdict
  } finally {
    scanner.close()
  }
}
