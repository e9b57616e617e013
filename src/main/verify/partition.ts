// The per-row checks of one contiguous run of rows. Every row is checked on its own (body hash, link
// to the row before it in the file, HMAC under each candidate key, seq contiguity, unsealed columns
// against the sealed body): nothing stops at the first failure. A run needs only its predecessor
// row, so runs can be verified in parallel and merged (see ./ranges.ts).
import type { BoundaryKind, FindingKind } from '../../shared/verify-types'
import { columnMismatches, sealedSpanFields, spanColumnsAgreeFast } from '../chain/body'
import type { Predecessor } from '../chain/source/row-source'
import { AuditError } from '../base/errors'
import type { LinkOwner, RowProver } from '../chain/addon/row-prover'
import { GENESIS_HASH, makeSealer, sha256Hex, type Sealer } from '../chain/seal'
import { RangeBuilder, type OrdRange } from './ranges'
import type { KeyMaterial } from '../chain/keys'

export interface PartitionSpec {
  /** Ordinal of the first row within the whole verified range. */
  firstOrd: number
  /** Whether this partition is the first of the range (its boundary is reported). */
  first: boolean
}

export interface PartitionResult {
  rows: number
  firstSeq: number | null
  lastSeq: number | null
  lastHmac: string | null
  findings: OrdRange<FindingKind>[]
  segments: OrdRange<number>[]
  /** prev_hash: the first row's stored value; predecessor: the row it is checked against, if any. */
  boundary: {
    seq: number
    kind: BoundaryKind
    prev_hash: string
    predecessor?: { seq: number; hmac_hash: string }
  } | null
  /**
   * SQLite's count of the range, made by the run that read to the end of the scan on the connection
   * it read with (`RowSource.countAfterRun`), where the source has one; for the pass's check.
   */
  counted?: number
}

export interface VerifyHooks {
  /** Called about every few thousand rows with the rows done in this partition. */
  onRows?: (rowsDone: number) => void
  signal?: { aborted: boolean }
}

const EMPTY = Buffer.alloc(0)
const HEX64 = /^[0-9a-f]{64}$/

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null
}

/**
 * The per-row checks of one partition, fed row by row by either source (SQLite on a copy, or the
 * direct file reader; ./part.ts): both hand over the same values, so both give the same verdict.
 */
export class RowChecker implements LinkOwner {
  private readonly sealers: Sealer[]
  private readonly keyBytes: Uint8Array[]
  /** The native prover while it holds this partition's link (expectedPrev and lastHmac are then stale). */
  private heldBy: RowProver | null = null
  private readonly findings = new RangeBuilder<FindingKind>()
  private readonly segments = new RangeBuilder<number>()
  private expectedPrev: string | null
  private prevSeq: number | null
  private prevSeqBig: bigint | null = null
  private boundary: PartitionResult['boundary'] = null
  private rows = 0
  private firstSeq: number | null = null
  private lastSeq: number | null = null
  private lastHmac: string | null = null
  private lastKey = 0
  /** Whether expectedPrev is lowercase hex; null: not looked at yet (only the direct reader asks). */
  private linkIsHex: boolean | null = false

  constructor(
    keys: KeyMaterial[],
    private readonly has: { span_name: boolean; span_kind: boolean },
    private readonly spec: Pick<PartitionSpec, 'firstOrd' | 'first'>,
    pred: Predecessor | null,
    private readonly hooks: VerifyHooks = {},
  ) {
    this.sealers = keys.map((k) => makeSealer(k.bytes))
    this.keyBytes = keys.map((k) => k.bytes)
    if (pred) {
      this.expectedPrev = str(pred.hmac) ?? ''
      this.prevSeq = Number(pred.seq)
      if (!Number.isSafeInteger(this.prevSeq)) this.prevSeqBig = pred.seq
    } else {
      this.expectedPrev = null // decided on the first row: GENESIS at seq ≤ 1, else a trusted boundary
      this.prevSeq = null
    }
  }

  /**
   * One row: seq, its exact text beyond ±2^53, timestamp_ns as decimal text when it is an integer,
   * span_name and span_kind as values, the body's bytes, and the three hash columns. `columnsProven`: the caller has already proven, on the raw
   * bytes, what `spanColumnsAgreeFast` proves (the direct reader does, without building strings).
   */
  push(
    seq: number,
    seqText: unknown,
    tsText: unknown,
    spanName: unknown,
    spanKind: unknown,
    bodyRaw: unknown,
    chRaw: unknown,
    prevRaw: unknown,
    hmacRaw: unknown,
    columnsProven = false,
  ): void {
    this.heldBy?.release()
    const { spec, findings, segments, sealers } = this
    const rows = this.rows
    const ord = spec.firstOrd + rows
    // Exact BigInt arithmetic only where a number could be wrong (seq beyond ±2^53).
    const big = typeof seqText === 'string' || this.prevSeqBig !== null
    const body = Buffer.isBuffer(bodyRaw) ? bodyRaw : EMPTY
    const ch = str(chRaw)
    const prev = str(prevRaw)
    const mac = str(hmacRaw)

    if (typeof seqText === 'string') findings.add('seq_out_of_range', seq, ord)

    if (this.expectedPrev === null) {
      if (seq <= 1) {
        this.expectedPrev = GENESIS_HASH
      } else {
        // Nothing before this row in the file: the stored prev_hash can only be trusted as the
        // boundary (rows before it were archived or deleted) — reported, never hidden.
        this.expectedPrev = prev ?? ''
        if (spec.first) this.boundary = { seq, kind: 'trusted', prev_hash: prev ?? '' }
      }
    } else if (rows === 0 && spec.first && this.prevSeq !== null) {
      // The row's own stored prev_hash, and the predecessor it must equal (a deleted row between
      // them shows as a mismatch here, as a seq_gap and a link_mismatch in the findings).
      this.boundary = {
        seq,
        kind: 'predecessor',
        prev_hash: prev ?? '',
        predecessor: { seq: this.prevSeq, hmac_hash: this.expectedPrev },
      }
    }

    if (big) {
      const seqBig = typeof seqText === 'string' ? BigInt(seqText) : BigInt(seq)
      const before = this.prevSeqBig ?? (this.prevSeq === null ? null : BigInt(this.prevSeq))
      if (before !== null && seqBig !== before + 1n) {
        const missing = seqBig - before - 1n
        findings.add('seq_gap', seq, ord, missing > 0n ? Number(missing) : 0)
      }
      this.prevSeqBig = typeof seqText === 'string' ? seqBig : null
    } else if (this.prevSeq !== null && seq !== this.prevSeq + 1) {
      findings.add('seq_gap', seq, ord, Math.max(0, seq - this.prevSeq - 1))
    }

    if (ch === null || sha256Hex(body) !== ch) findings.add('body_hash_mismatch', seq, ord)
    if (prev === null || prev !== this.expectedPrev) findings.add('link_mismatch', seq, ord)

    let keyIndex = -1
    if (mac !== null && prev !== null && ch !== null && sealers.length > 0) {
      // Rows sealed by one key come in runs: try the last key that matched first.
      const lastKey = this.lastKey
      if (sealers[lastKey]!.seal(prev, ch) === mac) keyIndex = lastKey
      else {
        for (let k = 0; k < sealers.length; k++) {
          if (k !== lastKey && sealers[k]!.seal(prev, ch) === mac) {
            keyIndex = k
            break
          }
        }
      }
    }
    if (keyIndex >= 0) {
      this.lastKey = keyIndex
      segments.add(keyIndex, seq, ord)
    } else if (sealers.length > 0) {
      findings.add('hmac_mismatch', seq, ord)
    }

    const ts = typeof tsText === 'string' ? tsText : null
    if (!columnsProven && spanColumnsAgreeFast(body, ts, spanName, spanKind) === null) {
      const fields = sealedSpanFields(body)
      if (
        fields &&
        columnMismatches(fields, ts === null ? null : BigInt(ts), spanName, spanKind, this.has).length > 0
      ) {
        findings.add('column_mismatch', seq, ord)
      }
    }

    this.advance(seq, mac, null)
  }

  /**
   * For a caller that can prove a row clean on its raw bytes (the direct reader): the prev_hash the
   * row must hold, when seq `seq` follows the previous row with nothing else to decide (not the
   * partition's first row, no gap, seqs within ±2^53, some key, and the previous hmac lowercase hex,
   * so ASCII); else null, and the row goes to `push`.
   */
  provableLink(seq: number): string | null {
    this.heldBy?.release()
    this.linkIsHex ??= HEX64.test(this.expectedPrev ?? '')
    return this.linkIsHex && this.follows(seq) ? this.expectedPrev : null
  }

  private follows(seq: number): boolean {
    return (
      this.rows > 0 &&
      this.prevSeqBig === null &&
      this.prevSeq !== null &&
      seq === this.prevSeq + 1 &&
      this.sealers.length > 0
    )
  }

  /** The seq a row following the last one would have, while the prover may take it; else null. */
  nextSeq(): number | null {
    return this.prevSeq !== null && this.prevSeqBig === null && this.rows > 0 ? this.prevSeq + 1 : null
  }

  /**
   * `provableLink` for the native prover: whether row `seq` may be proven by it, which then holds
   * this partition's link and the key that sealed the previous row.
   */
  proverHoldsLink(seq: number, prover: RowProver): boolean {
    if (!this.follows(seq)) return false
    if (this.heldBy !== null && prover.owns(this)) return true
    this.heldBy?.release()
    this.linkIsHex ??= HEX64.test(this.expectedPrev ?? '')
    if (!this.linkIsHex) return false
    prover.start(this, this.keyBytes[this.lastKey]!, this.expectedPrev!)
    this.heldBy = prover
    return true
  }

  /** The prover gives the link back: the hmac_hash of the last row it proved (lowercase hex). */
  releaseLink(link: string): void {
    this.heldBy = null
    this.expectedPrev = link
    this.lastHmac = link
    this.linkIsHex = true
  }

  /** A row the native prover proved (as `pushProven`, with the seal kept by the prover). */
  pushProvenByProver(seq: number): void {
    this.segments.add(this.lastKey, seq, this.spec.firstOrd + this.rows)
    this.advance(seq, null, null, true)
  }

  /** The seal under the key that sealed the previous row (the one `push` tries first). */
  sealUnderLastKey(prev: string, canonical: string): string {
    return this.sealers[this.lastKey]!.seal(prev, canonical)
  }

  /**
   * A row the caller proved clean: seq as `provableLink` allowed, canonical_hash equal to the body's
   * SHA-256, prev_hash equal to that link, hmac_hash equal to `sealUnderLastKey` (`mac`), columns
   * agreeing with the body. Leaves exactly the state `push` would for that row.
   */
  pushProven(seq: number, mac: string): void {
    this.segments.add(this.lastKey, seq, this.spec.firstOrd + this.rows)
    this.advance(seq, mac, true)
  }

  private advance(seq: number, mac: string | null, macIsHex: boolean | null, held = false): void {
    if (!held) {
      this.expectedPrev = mac ?? ''
      this.linkIsHex = macIsHex
      this.lastHmac = mac
    }
    this.prevSeq = seq
    if (this.firstSeq === null) this.firstSeq = seq
    this.lastSeq = seq
    this.rows++
    // The cancel flag (one atomic load) is looked at every 256 rows, progress sent every 2048: a row
    // tried under many candidate keys can cost a millisecond, and a cancel must not wait 2048 of them.
    if ((this.rows & 255) === 0) {
      if ((this.rows & 2047) === 0) this.hooks.onRows?.(this.rows)
      if (this.hooks.signal?.aborted) throw new AuditError('cancelled', 'verification cancelled')
    }
  }

  finish(): PartitionResult {
    this.heldBy?.release()
    this.hooks.onRows?.(this.rows)
    return {
      rows: this.rows,
      firstSeq: this.firstSeq,
      lastSeq: this.lastSeq,
      lastHmac: this.lastHmac,
      findings: this.findings.finish(),
      segments: this.segments.finish(),
      boundary: this.boundary,
    }
  }
}
