// One pass over leaf pages that keeps, per row, what the index and the integrity monitor need:
// seq, timestamp, provider and model (from the body, by the exact byte scanner), whether a replay
// hash is sealed, and a fingerprint of canonical_hash for finding duplicates without a map of every
// hash. About 45 bytes a row, in typed arrays that move between threads without copying.
import { bodyFacts, pageBodyFacts, rowBodyFacts, rowFacter, signatureProvider } from '../body-scan'
import { LEAF_TIMES, leafTimer, leafTimesAvailable, nativeWindow } from '../../native/leaf-pages'
import { F, FACTS_BY_TYPESCRIPT } from '../../native/row-facts'
import { AuditError } from '../../errors'
import { EarlyWorker, endWorkers, Interner, NO_MODEL, runOnWorker, type IndexPart } from '../index'
import { builtScript, defaultWorkerCount, PARALLEL_MIN_ROWS } from '../../verify/parallel'
import { hashKey } from '../../integrity/rows'
import { epochSecond } from '../../integrity/timestamps'
import { toBigIntOrNull } from '../table'
import type { CellReader, LeafList } from './btree'
import { leafSlice, type RowScanner } from './scan'
import type { DirectChain } from './open'
import type { PagerSpec } from './pager'
import { ascending } from './sort'

export interface ColumnsPart extends IndexPart {
  /** Exact seqs (IndexPart.seq holds them as numbers). */
  seqBig: BigInt64Array
  /** 52-bit fingerprint of the row's hash key (see integrity/rows.ts hashKey); NaN when falsy. */
  hashFp: Float64Array
  /** The first row whose timestamp_ns is not an integer, for the integrity monitor's error. */
  badTs: { seq: string; value: string } | null
  /**
   * Rows whose timestamp_ns is not stored as an integer but reads as one to the integrity monitor
   * (a REAL like 2.0, digits as TEXT): row index and value. The index keeps them as tsValid = 0.
   */
  looseTs: [number, bigint][]
  /**
   * With `integrity` only: the epoch second of each row's timestamp (floor; NaN for a bad one), and
   * seconds and hashFp sorted ascending (NaN last), so the monitor's burst and duplicate counts merge
   * the workers' presorted runs instead of sorting a million values on one thread.
   */
  seconds: Float64Array | null
  secondsSorted: Float64Array | null
  hashFpSorted: Float64Array | null
}

/** What the integrity monitor reads of a part. */
export type IntegrityColumns = Pick<
  ColumnsPart,
  | 'rows'
  | 'seq'
  | 'seqBig'
  | 'ts'
  | 'provider'
  | 'providerNames'
  | 'looseTs'
  | 'badTs'
  | 'seconds'
  | 'secondsSorted'
  | 'hashFp'
  | 'hashFpSorted'
>

/** What a pass keeps: seq and timestamps only (a quick first index), the facts, or also the sorts. */
export interface ColumnsWanted {
  /** false: seq and timestamps only (a quick first index; providers are then `PENDING_PROVIDER`). */
  facts: boolean
  /** Also the epoch seconds and the sorted arrays of the integrity monitor. */
  integrity: boolean
}

export const INDEX_COLUMNS: ColumnsWanted = { facts: true, integrity: false }
/** A staged open's first pass: seq and timestamps only. */
export const QUICK_COLUMNS: ColumnsWanted = { facts: false, integrity: false }

const EMPTY = Buffer.alloc(0)

/** Cells one native call reports at most (F.STRIDE slots each). */
const PAGE_CELLS = 128

/** Leaves one native call of a quick pass reads at most (≈4 MB: progress and a cancel stay prompt). */
const NATIVE_LEAVES = 2048

/** The provider of every row in a quick index, until the full index replaces it. */
export const PENDING_PROVIDER = '(indexing…)'

const P_A = 0x01000193
const P_B = 0x5bd1e995
const SEED_A = 0x811c9dc5
const SEED_B = 0x01000193
/** The lanes after the first two code units of every text key, "s:" (see integrity/rows.ts hashKey). */
const TEXT_A = Math.imul(Math.imul(SEED_A ^ 0x73, P_A) ^ 0x3a, P_A)
const TEXT_B = Math.imul(Math.imul(SEED_B ^ 0x73, P_B) ^ 0x3a, P_B)

const fold = (a: number, b: number): number => (a >>> 0) * 1048576 + ((b >>> 12) & 0xfffff)

/**
 * FNV-1a-style in two lanes, folded to 52 bits (exact in a double); collisions are re-checked
 * exactly. The first two code units one at a time, then four per step (a hash key is 66 units long
 * and this runs for every row of `integrity --all`), then the rest one at a time.
 */
export function fingerprint(key: string): number {
  let a = SEED_A
  let b = SEED_B
  const n = key.length
  let i = 0
  for (; i < n && i < 2; i++) {
    const c = key.charCodeAt(i)
    a = Math.imul(a ^ c, P_A)
    b = Math.imul(b ^ c, P_B)
  }
  for (; i + 4 <= n; i += 4) {
    const w =
      key.charCodeAt(i) |
      (key.charCodeAt(i + 1) << 8) |
      (key.charCodeAt(i + 2) << 16) |
      (key.charCodeAt(i + 3) << 24)
    a = Math.imul(a ^ w, P_A)
    b = Math.imul(b ^ w, P_B)
  }
  for (; i < n; i++) {
    const c = key.charCodeAt(i)
    a = Math.imul(a ^ c, P_A)
    b = Math.imul(b ^ c, P_B)
  }
  return fold(a, b)
}

/** `fingerprint(hashKey(value))` of a cell's column, straight from the bytes for ASCII text. */
export function hashFingerprint(c: CellReader, col: number): number {
  const t = c.types[col]!
  if (t >= 15 && (t & 1) === 1) {
    // Non-empty TEXT: the key is "s:" + text; for ASCII bytes, bytes and UTF-16 code units agree.
    const o = c.offs[col]!
    const e = o + ((t - 13) >> 1)
    const buf = c.buf
    let a = TEXT_A
    let b = TEXT_B
    let high = 0
    let i = o
    for (; i + 4 <= e; i += 4) {
      const b0 = buf[i]!
      const b1 = buf[i + 1]!
      const b2 = buf[i + 2]!
      const b3 = buf[i + 3]!
      high |= b0 | b1 | b2 | b3
      const w = b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)
      a = Math.imul(a ^ w, P_A)
      b = Math.imul(b ^ w, P_B)
    }
    for (; i < e; i++) {
      const ch = buf[i]!
      high |= ch
      a = Math.imul(a ^ ch, P_A)
      b = Math.imul(b ^ ch, P_B)
    }
    return high > 0x7f ? fingerprintOf(c.valueBig(col)) : fold(a, b)
  }
  return fingerprintOf(c.valueBig(col))
}

function fingerprintOf(v: unknown): number {
  const key = hashKey(v)
  return key === null ? NaN : fingerprint(key)
}

/** Reads cells [first, count) of a table leaf into the columns. */
type LeafReader = (page: Buffer, header: number, count: number, first: number) => void

/**
 * Which leaves a pass reads, and where their rows go: `drive` feeds leaves to `leaf` after moving
 * the write position with `moveTo` (or has leaves [from, to) of the list read by `leaves`, natively
 * where it can), and returns the rows filled, [start, end).
 */
type Driver = (
  leaf: LeafReader,
  moveTo: (row: number) => void,
  position: () => number,
  leaves: (from: number, to: number) => void,
) => [number, number]

type ExtractHooks = { onRows?: (n: number) => void; signal?: { aborted: boolean } }

/** The columns of leaves [leafFrom, leafTo) of the scanner's leaf list, in order. */
export function extractColumns(
  scanner: RowScanner,
  leafFrom: number,
  leafTo: number,
  capacity: number,
  hooks: ExtractHooks = {},
  wanted: ColumnsWanted = INDEX_COLUMNS,
): ColumnsPart {
  return columnsOf(scanner, capacity, hooks, wanted, (_leaf, _moveTo, position, leaves) => {
    leaves(leafFrom, leafTo)
    hooks.onRows?.(position())
    return [0, position()]
  })
}

/**
 * The columns of the last `rows` rows (all of them in a shorter chain), read in one walk back from
 * the tree's right edge: each leaf's rows are written below the newer ones, so every page is read
 * once and no leaf list of the whole chain is made. Also the leaves read, for finding rows again.
 */
export function extractLastColumns(
  scanner: RowScanner,
  root: number,
  rows: number,
  wanted: ColumnsWanted,
): { part: IntegrityColumns; leaves: LeafList } {
  const native = wanted.facts && wanted.integrity ? nativeLastColumns(scanner, root, rows) : null
  if (native !== null) return native
  let leaves: LeafList | null = null
  const part = columnsOf(scanner, rows, {}, wanted, (leaf, moveTo) => {
    let start = rows
    leaves = scanner.scanLastLeaves(rows, root, (page, h, count, first) => {
      start -= count - first
      moveTo(start)
      leaf(page, h, count, first)
    })
    return [start, rows]
  })
  return { part, leaves: leaves! }
}

/**
 * extractLastColumns read by the addon in one call (nativeWindow), or null where it leaves the
 * window to TypeScript.
 */
function nativeLastColumns(
  scanner: RowScanner,
  root: number,
  rows: number,
): { part: IntegrityColumns; leaves: LeafList } | null {
  const facter = rowFacter(
    scanner.col('timestamp_ns'),
    scanner.col('canonical_body'),
    scanner.col('canonical_hash'),
    scanner.pageLayout,
  )
  const w = facter === null ? null : nativeWindow(scanner.pager, root, rows)
  if (w === null) return null
  // Signatures are numbered in the order the walk met them, so names keep the order of first
  // appearance the TypeScript walk gives them.
  const providers = new Interner()
  const ids = Uint16Array.from(w.signatures, (sig) => providers.id(signatureProvider(sig)))
  const provider = w.provider.map((s) => ids[s]!)
  return {
    part: {
      rows: w.rows,
      seq: w.seq,
      seqBig: w.seqBig,
      ts: w.ts,
      provider,
      providerNames: providers.names,
      badTs: null,
      looseTs: [],
      seconds: w.seconds,
      secondsSorted: ascending(w.seconds),
      hashFp: w.hashFp,
      hashFpSorted: ascending(w.hashFp),
    },
    leaves: w.leaves,
  }
}

function columnsOf(
  scanner: RowScanner,
  capacity: number,
  hooks: ExtractHooks,
  wanted: ColumnsWanted,
  drive: Driver,
): ColumnsPart {
  const facts = wanted.facts
  const ts = scanner.col('timestamp_ns')
  const body = scanner.col('canonical_body')
  const ch = scanner.col('canonical_hash')
  const providers = new Interner()
  const models = new Interner()
  models.id(NO_MODEL)
  let cap = Math.max(16, capacity)
  let seqBig = new BigInt64Array(cap)
  let seq = new Float64Array(cap)
  let tsA = new BigInt64Array(cap)
  let tsValid = new Uint8Array(cap)
  let provider = new Uint16Array(cap)
  let model = new Uint16Array(cap)
  let hasReplay = new Uint8Array(cap)
  let hashFp = new Float64Array(cap)
  const wantSeconds = wanted.integrity
  let seconds = new Float64Array(wantSeconds ? cap : 0)
  let badTs: ColumnsPart['badTs'] = null
  /** The row of badTs: the first in seq order is reported, whichever way the leaves are walked. */
  let badAt = Infinity
  const looseTs: [number, bigint][] = []
  // With the addon, a page's cells are decoded and their timestamps, fingerprints and body spans
  // read in one native call; timestamps and seqs go into tsA and seqBig as two 32-bit halves (no
  // BigInt), through the tsWords and seqWords aliases. Cells it leaves go through `row`.
  const facter = rowFacter(ts, body, ch, scanner.pageLayout)
  const out = facter?.out ?? new Float64Array(0)
  const words = (a: BigInt64Array): Int32Array => new Int32Array(a.buffer, a.byteOffset, a.length * 2)
  let tsWords = words(tsA)
  let seqWords = words(seqBig)
  let i = 0
  const grow = <T extends BigInt64Array | Float64Array | Uint8Array | Uint16Array>(a: T): T => {
    const b = new (a.constructor as new (n: number) => T)(cap)
    b.set(a as never)
    return b
  }
  /** Room for one more row (with `more`, for at least that many). */
  const reserve = (more = 1): void => {
    if (i + more <= cap) return
    cap = Math.max(cap * 2, i + more)
    ;[seqBig, tsA, seq, hashFp] = [grow(seqBig), grow(tsA), grow(seq), grow(hashFp)]
    tsWords = words(tsA)
    seqWords = words(seqBig)
    if (wantSeconds) seconds = grow(seconds)
    ;[tsValid, hasReplay] = [grow(tsValid), grow(hasReplay)]
    ;[provider, model] = [grow(provider), grow(model)]
  }
  const setFacts = (f: { provider: string; model: string | null; replay: boolean }): void => {
    provider[i] = providers.id(f.provider)
    model[i] = f.model === null ? 0 : models.id(f.model)
    hasReplay[i] = f.replay ? 1 : 0
  }
  /** A quick pass's row: provider pending, no fingerprint. */
  const noFacts = (): void => {
    provider[i] = providers.id(PENDING_PROVIDER)
    hashFp[i] = NaN
  }
  const rowDone = (): void => {
    i++
    if ((i & 4095) === 0) {
      hooks.onRows?.(i)
      if (hooks.signal?.aborted) throw new AuditError('cancelled', 'reading the chain cancelled')
    }
  }
  const row = (c: CellReader): void => {
    reserve()
    const id = c.rowidBig ?? BigInt(c.rowid)
    seqBig[i] = id
    seq[i] = c.rowid
    const verdict = facts && facter !== null ? facter.facts(c.buf, c.types, c.offs) : FACTS_BY_TYPESCRIPT
    if (facts && facter !== null && out[F.TS] === 1) {
      // Little-endian (rowFacter is null otherwise): the low half first.
      tsWords[2 * i] = out[F.LO]!
      tsWords[2 * i + 1] = out[F.HI]!
      tsValid[i] = 1
      if (wantSeconds) seconds[i] = out[F.SECOND]!
    } else if (c.isInt(ts)) {
      const t = c.intBig(ts)!
      tsA[i] = t
      tsValid[i] = 1
      if (wantSeconds) seconds[i] = Number(epochSecond(t))
    } else {
      const loose = toBigIntOrNull(c.valueBig(ts))
      if (loose !== null) {
        looseTs.push([i, loose])
        if (wantSeconds) seconds[i] = Number(epochSecond(loose))
      } else {
        if (i < badAt) {
          badTs = { seq: id.toString(), value: String(c.valueBig(ts)) }
          badAt = i
        }
        if (wantSeconds) seconds[i] = NaN
      }
    }
    if (facts) {
      setFacts(
        verdict !== FACTS_BY_TYPESCRIPT
          ? rowBodyFacts(facter!, verdict, c.buf, () => c.castBlob(body) ?? EMPTY)
          : bodyFacts(c.castBlob(body) ?? EMPTY),
      )
      hashFp[i] = facter !== null && out[F.FP] === 1 ? out[F.FP_VALUE]! : hashFingerprint(c, ch)
    } else noFacts()
    rowDone()
  }
  const cell = scanner.cell
  const cells = new Float64Array(facter === null ? 0 : F.STRIDE * PAGE_CELLS)
  const leaf: LeafReader =
    facter === null
      ? (page, h, count, first) => {
          for (let k = first; k < count; k++) {
            cell.read(page, page.readUInt16BE(h + 8 + 2 * k))
            row(cell)
          }
        }
      : (page, h, count, first) => {
          let k = first
          while (k < count) {
            const done = facter.page(page, h, k, cells, facts)
            for (let j = 0; j < done; j++) {
              reserve()
              const o = j * F.STRIDE
              const id = cells[o + F.ROWID]!
              seq[i] = id
              seqWords[2 * i] = id >>> 0
              seqWords[2 * i + 1] = Math.floor(id / 2 ** 32)
              tsWords[2 * i] = cells[o + F.LO]!
              tsWords[2 * i + 1] = cells[o + F.HI]!
              tsValid[i] = 1
              if (wantSeconds) seconds[i] = cells[o + F.SECOND]!
              if (facts) {
                setFacts(pageBodyFacts(page, cells, j))
                hashFp[i] = cells[o + F.FP_VALUE]!
              } else noFacts()
              rowDone()
            }
            k += done
            if (done === PAGE_CELLS || k === count) continue
            cell.read(page, page.readUInt16BE(h + 8 + 2 * k))
            row(cell)
            k++
          }
        }
  // A quick pass reads its leaves in the addon where it can (pread and cell decoding there); the
  // leaves it is not sure of go through `leaf`.
  const timer = !facts && !wantSeconds ? leafTimer(scanner.pager, scanner.pageLayout, ts) : null
  const leaves = (from: number, to: number): void => {
    if (timer === null) {
      scanner.scanLeaves(from, to, leaf)
      return
    }
    const list = scanner.chain.leaves.pages
    for (let l = from; l < to;) {
      const stop = timer.run(list, l, Math.min(to, l + NATIVE_LEAVES), i, { seq, seqBig, ts: tsA, tsValid })
      // Interned once a row has it, as noFacts does: a pass over no rows names no provider.
      if (stop.row > i) provider.fill(providers.id(PENDING_PROVIDER), i, stop.row)
      hashFp.fill(NaN, i, stop.row)
      i = stop.row
      l = stop.leaf
      if (stop.result === LEAF_TIMES.FOR_TYPESCRIPT) {
        scanner.scanLeaves(l, l + 1, leaf)
        l++
      } else if (stop.result === LEAF_TIMES.FULL) reserve(cap - i + 1)
      hooks.onRows?.(i)
      if (hooks.signal?.aborted) throw new AuditError('cancelled', 'reading the chain cancelled')
    }
  }
  const [start, end] = drive(
    leaf,
    (at) => {
      i = at
    },
    () => i,
    leaves,
  )
  // The columns are returned as views, not copies (they were sized from the estimate, and a copy of
  // each doubled the peak); the sorted ones are copies unless the column was in order already.
  const rowsOf = <T extends { subarray(a: number, b: number): T }>(a: T): T => a.subarray(start, end)
  const sorted = (a: Float64Array): Float64Array | null => (wantSeconds ? ascending(rowsOf(a)) : null)
  return {
    rows: end - start,
    seq: rowsOf(seq),
    seqBig: rowsOf(seqBig),
    ts: rowsOf(tsA),
    tsValid: rowsOf(tsValid),
    provider: rowsOf(provider),
    model: rowsOf(model),
    hasReplay: rowsOf(hasReplay),
    hashFp: rowsOf(hashFp),
    providerNames: providers.names,
    modelNames: models.names,
    badTs,
    looseTs: looseTs.map(([at, v]): [number, bigint] => [at - start, v]).sort((x, y) => x[0] - y[0]),
    seconds: wantSeconds ? rowsOf(seconds) : null,
    secondsSorted: sorted(seconds),
    hashFpSorted: sorted(hashFp),
  }
}

/** Files from this size on start their column workers before listing the leaves. */
export const EARLY_MIN_BYTES = 32 * 1024 * 1024

/**
 * Files up to this size get a quick pass the addon reads on the calling thread (≈0.3–0.45 s for
 * the 2.26 GB bench chain here, bound by the kernel copying pages: done before workers would have
 * loaded their code). Larger ones go to workers, which read natively too, so that the thread that
 * answers calls (Electron's main process, the server) is never held for seconds.
 */
export const QUICK_ONE_THREAD_BYTES = 3 * 1024 ** 3

/** Whether a pass of `wanted` over a database of `bytes` runs on the calling thread. */
export function quickOnThisThread(wanted: ColumnsWanted, bytes: number): boolean {
  return !wanted.facts && !wanted.integrity && bytes <= QUICK_ONE_THREAD_BYTES && leafTimesAvailable()
}

/** The database's size as its pages (the WAL's newer pages included) give it. */
const databaseBytes = (spec: PagerSpec): number => spec.dbPages * spec.pageSize

/**
 * The workers extractAllColumns will want for a pass of `wanted` over `chain` (its file and WAL),
 * started now so that they load their code while the caller lists the leaves ([] for a file it
 * will likely read on one thread). The caller ends them (endWorkers) if it fails before handing
 * them over.
 */
export function startColumnWorkers(chain: DirectChain, wanted: ColumnsWanted): EarlyWorker[] {
  const script = builtScript('index-worker.js')
  const workers = defaultWorkerCount()
  const bytes = chain.stat.db.size + (chain.stat.wal?.size ?? 0)
  if (
    !script ||
    workers < 2 ||
    bytes < EARLY_MIN_BYTES ||
    quickOnThisThread(wanted, databaseBytes(chain.spec))
  )
    return []
  return Array.from({ length: workers }, () => EarlyWorker.start(script))
}

/**
 * The columns of leaves [from, to), on worker threads when the chain is large and the built worker
 * is there (from sources, in unit tests, on this thread). Parts come back in leaf order.
 * `early`: workers started by startColumnWorkers (ended here when not needed).
 */
export async function extractAllColumns(
  scanner: RowScanner,
  from: number,
  to: number,
  estimate: number,
  hooks: { onProgress?: (done: number, total: number) => void; signal?: { aborted: boolean } } = {},
  wanted: ColumnsWanted = INDEX_COLUMNS,
  early: EarlyWorker[] = [],
): Promise<ColumnsPart[]> {
  const script = builtScript('index-worker.js')
  const workers = defaultWorkerCount()
  const total = (done: number): number => Math.max(done, estimate)
  const oneThread = quickOnThisThread(wanted, databaseBytes(scanner.chain.spec))
  if (!script || workers < 2 || estimate < PARALLEL_MIN_ROWS || oneThread) {
    endWorkers(early)
    return [
      extractColumns(
        scanner,
        from,
        to,
        estimate,
        {
          onRows: (n) => hooks.onProgress?.(n, total(n)),
          ...(hooks.signal ? { signal: hooks.signal } : {}),
        },
        wanted,
      ),
    ]
  }
  endWorkers(early.slice(workers))
  const done = new Array<number>(workers).fill(0)
  const n = to - from
  return Promise.all(
    Array.from({ length: workers }, (_, k) => {
      const leafFrom = from + Math.floor((k * n) / workers)
      const leafTo = from + Math.floor(((k + 1) * n) / workers)
      const capacity = Math.ceil(((estimate * (leafTo - leafFrom)) / Math.max(1, n)) * 1.05)
      return runOnWorker<ColumnsPart>(
        script,
        {
          direct: {
            layout: leafSlice(scanner.chain, leafFrom, leafTo),
            leafFrom: 0,
            leafTo: leafTo - leafFrom,
            capacity,
            wanted,
          },
        },
        (rows) => {
          done[k] = rows
          const d = done.reduce((a, b) => a + b, 0)
          hooks.onProgress?.(d, total(d))
        },
        hooks.signal,
        early[k],
      )
    }),
  )
}
