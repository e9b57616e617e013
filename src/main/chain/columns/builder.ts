// Filling the compact columns (./types.ts) row by row, whichever source the rows come from: one
// place decides, per row, its seq, timestamp (integer, loose or bad), epoch second, provider, model,
// replay flag and hash fingerprint. The direct reader's native calls write many rows at once into
// the same arrays (`pageCells`, `timeColumns`); what they leave comes through `row`.
import { AuditError } from '../../base/errors'
import { F, FACTS_BY_TYPESCRIPT, type RowFacter } from '../addon/row-facts'
import { bodyFacts, pageBodyFacts, rowBodyFacts, type BodyFacts } from '../body-scan'
import type { ChainRow, ColumnsHooks } from '../source/row-source'
import { toBigIntOrNull } from '../table'
import { epochSecond } from '../ts-words'
import { hashFingerprint } from './fingerprint'
import { Interner } from './interner'
import { providerLabel } from '../provider-key'
import { ascending } from './sort'
import { NO_MODEL, PENDING_PROVIDER, type ColumnsPart, type ColumnsWanted } from './types'

const EMPTY = Buffer.alloc(0)

/** The columns a pass reads by number (-1 where the table has none). */
export interface ColumnNumbers {
  ts: number
  body: number
  hash: number
}

/** The seq and timestamp columns a native quick pass writes rows into, from `position` on. */
export interface TimeColumns {
  seq: Float64Array
  seqBig: BigInt64Array
  ts: BigInt64Array
  tsValid: Uint8Array
}

const words = (a: BigInt64Array): Int32Array => new Int32Array(a.buffer, a.byteOffset, a.length * 2)

export class ColumnsBuilder {
  private cap: number
  private i = 0
  private seqBig: BigInt64Array
  private seq: Float64Array
  private ts: BigInt64Array
  private tsValid: Uint8Array
  private provider: Uint32Array
  private model: Uint32Array
  private hasReplay: Uint8Array
  private hashFp: Float64Array
  private seconds: Float64Array
  /** Timestamps and seqs written as two 32-bit halves (no BigInt): little-endian, low half first. */
  private tsWords: Int32Array
  private seqWords: Int32Array
  private readonly providers = new Interner(providerLabel)
  private readonly models = new Interner()
  private badTs: ColumnsPart['badTs'] = null
  /** The row of badTs: the first in seq order is reported, whichever way the rows are walked. */
  private badAt = Infinity
  private readonly looseTs: [number, bigint][] = []
  private readonly facts: boolean
  private readonly wantSeconds: boolean
  private readonly out: Float64Array

  /**
   * `facter`: the addon's per-row facts, for rows whose record bytes the source has (it must have
   * been made for these column numbers); null decides every row in TypeScript.
   */
  constructor(
    capacity: number,
    wanted: ColumnsWanted,
    private readonly cols: ColumnNumbers,
    private readonly hooks: ColumnsHooks = {},
    private readonly facter: RowFacter | null = null,
  ) {
    this.models.id(NO_MODEL)
    this.facts = wanted.facts
    this.wantSeconds = wanted.integrity
    this.out = facter?.out ?? new Float64Array(0)
    const cap = (this.cap = Math.max(16, capacity))
    this.seqBig = new BigInt64Array(cap)
    this.seq = new Float64Array(cap)
    this.ts = new BigInt64Array(cap)
    this.tsValid = new Uint8Array(cap)
    this.provider = new Uint32Array(cap)
    this.model = new Uint32Array(cap)
    this.hasReplay = new Uint8Array(cap)
    this.hashFp = new Float64Array(cap)
    this.seconds = new Float64Array(this.wantSeconds ? cap : 0)
    this.tsWords = words(this.ts)
    this.seqWords = words(this.seqBig)
  }

  /** The row the next write goes to. */
  get position(): number {
    return this.i
  }

  /** Write the next rows from `row` on (a backward walk writes each leaf below the newer ones). */
  moveTo(row: number): void {
    this.i = row
  }

  /** Room for `more` rows from the current position. */
  reserve(more = 1): void {
    if (this.i + more <= this.cap) return
    const cap = (this.cap = Math.max(this.cap * 2, this.i + more))
    const grow = <T extends BigInt64Array | Float64Array | Uint8Array | Uint32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(cap)
      b.set(a as never)
      return b
    }
    this.seqBig = grow(this.seqBig)
    this.ts = grow(this.ts)
    this.seq = grow(this.seq)
    this.hashFp = grow(this.hashFp)
    this.tsWords = words(this.ts)
    this.seqWords = words(this.seqBig)
    if (this.wantSeconds) this.seconds = grow(this.seconds)
    this.tsValid = grow(this.tsValid)
    this.hasReplay = grow(this.hasReplay)
    this.provider = grow(this.provider)
    this.model = grow(this.model)
  }

  private setFacts(f: BodyFacts): void {
    const i = this.i
    this.provider[i] = this.providers.id(f.provider)
    this.model[i] = f.model === null ? 0 : this.models.id(f.model)
    this.hasReplay[i] = f.replay ? 1 : 0
  }

  /** A quick pass's row: provider pending, no fingerprint. */
  private noFacts(): void {
    this.provider[this.i] = this.providers.id(PENDING_PROVIDER)
    this.hashFp[this.i] = NaN
  }

  private rowDone(): void {
    if ((++this.i & 4095) === 0) this.progress()
  }

  /** Progress, and the cancel check (a cancelled pass throws `cancelled`). */
  progress(): void {
    this.hooks.onRows?.(this.i)
    if (this.hooks.signal?.aborted) throw new AuditError('cancelled', 'reading the chain cancelled')
  }

  /** One row, from any source. */
  row(c: ChainRow): void {
    this.reserve()
    const i = this.i
    const { ts, body, hash } = this.cols
    const id = c.rowidBig ?? BigInt(c.rowid)
    this.seqBig[i] = id
    this.seq[i] = c.rowid
    const rec = c.record
    const facter = this.facts && rec !== null ? this.facter : null
    const out = this.out
    const verdict = facter !== null ? facter.facts(rec!.buf, rec!.types, rec!.offs) : FACTS_BY_TYPESCRIPT
    if (facter !== null && out[F.TS] === 1) {
      this.tsWords[2 * i] = out[F.LO]!
      this.tsWords[2 * i + 1] = out[F.HI]!
      this.tsValid[i] = 1
      if (this.wantSeconds) this.seconds[i] = out[F.SECOND]!
    } else if (c.isInt(ts)) {
      const t = c.intBig(ts)!
      this.ts[i] = t
      this.tsValid[i] = 1
      if (this.wantSeconds) this.seconds[i] = Number(epochSecond(t))
    } else {
      const loose = toBigIntOrNull(c.valueBig(ts))
      if (loose !== null) {
        this.looseTs.push([i, loose])
        if (this.wantSeconds) this.seconds[i] = Number(epochSecond(loose))
      } else {
        if (i < this.badAt) {
          this.badTs = { seq: id.toString(), value: String(c.valueBig(ts)) }
          this.badAt = i
        }
        if (this.wantSeconds) this.seconds[i] = NaN
      }
    }
    if (this.facts) {
      this.setFacts(
        verdict !== FACTS_BY_TYPESCRIPT
          ? rowBodyFacts(facter!, verdict, rec!.buf, () => c.castBlob(body) ?? EMPTY)
          : bodyFacts(c.castBlob(body) ?? EMPTY),
      )
      this.hashFp[i] = facter !== null && out[F.FP] === 1 ? out[F.FP_VALUE]! : hashFingerprint(c, hash)
    } else this.noFacts()
    this.rowDone()
  }

  /** `done` cells of `page` whose facts the addon's pageFacts wrote into `cells` (F.STRIDE slots each). */
  pageCells(page: Buffer, cells: Float64Array, done: number): void {
    const facts = this.facts
    for (let j = 0; j < done; j++) {
      this.reserve()
      const i = this.i
      const o = j * F.STRIDE
      const id = cells[o + F.ROWID]!
      this.seq[i] = id
      this.seqWords[2 * i] = id >>> 0
      this.seqWords[2 * i + 1] = Math.floor(id / 2 ** 32)
      this.tsWords[2 * i] = cells[o + F.LO]!
      this.tsWords[2 * i + 1] = cells[o + F.HI]!
      this.tsValid[i] = 1
      if (this.wantSeconds) this.seconds[i] = cells[o + F.SECOND]!
      if (facts) {
        this.setFacts(pageBodyFacts(page, cells, j))
        this.hashFp[i] = cells[o + F.FP_VALUE]!
      } else this.noFacts()
      this.rowDone()
    }
  }

  /** The arrays a native quick pass writes seq and timestamps into, from `position` on. */
  timeColumns(): TimeColumns {
    return { seq: this.seq, seqBig: this.seqBig, ts: this.ts, tsValid: this.tsValid }
  }

  /** A native quick pass wrote rows up to `row`: they get the quick pass's provider and no fingerprint. */
  timedTo(row: number): void {
    // Interned once a row has it, as noFacts does: a pass over no rows names no provider.
    if (row > this.i) this.provider.fill(this.providers.id(PENDING_PROVIDER), this.i, row)
    this.hashFp.fill(NaN, this.i, row)
    this.i = row
  }

  /** Room for every row the arrays can hold, and more: after a native call found them full. */
  grow(): void {
    this.reserve(this.cap - this.i + 1)
  }

  /** The columns of rows [start, end), as views (a copy of each would double the peak). */
  finish(start = 0, end = this.i): ColumnsPart {
    const rowsOf = <T extends { subarray(a: number, b: number): T }>(a: T): T => a.subarray(start, end)
    // Sorted columns are copies, unless the column was in order already.
    const sorted = (a: Float64Array): Float64Array | null => (this.wantSeconds ? ascending(rowsOf(a)) : null)
    return {
      rows: end - start,
      seq: rowsOf(this.seq),
      seqBig: rowsOf(this.seqBig),
      ts: rowsOf(this.ts),
      tsValid: rowsOf(this.tsValid),
      provider: rowsOf(this.provider),
      model: rowsOf(this.model),
      hasReplay: rowsOf(this.hasReplay),
      hashFp: rowsOf(this.hashFp),
      providerNames: this.providers.names,
      providerKeys: this.providers.keys,
      modelNames: this.models.names,
      badTs: this.badTs,
      looseTs: this.looseTs.map(([at, v]): [number, bigint] => [at - start, v]).sort((x, y) => x[0] - y[0]),
      seconds: this.wantSeconds ? rowsOf(this.seconds) : null,
      secondsSorted: sorted(this.seconds),
      hashFpSorted: sorted(this.hashFp),
    }
  }
}
