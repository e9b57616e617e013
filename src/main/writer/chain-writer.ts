// The only code in the project that writes SQLite: it appends sealed rows to a chain.db it was told to
// create or append to, exactly as Python BIJOTEL's `_seal_canonical` does (reference §1.1, §3.2):
// BEGIN IMMEDIATE → read the newest row's hmac_hash (GENESIS if none) → HMAC(prev ‖ canonical_hash)
// → INSERT → COMMIT. The previous hash is read inside the write transaction every time, so two
// writers (threads or processes) can never fork the chain — unlike the Go collector, which caches it
// and uses a deferred BEGIN (§2.6 item 6).
import Database from 'better-sqlite3'
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { AuditError, oneLine } from '../base/errors'
import { makeSealer, sha256Hex, type Sealer } from '../chain/seal'
import { canonicalizeSpan, spanRecordOf, type SpanRecord } from './canonical'
import { canonicalBytes } from '../chain/jcs'
import {
  BUSY_TIMEOUT_MS,
  DB_FILE_MODE,
  GENESIS,
  INSERT_ROW_SQL,
  LAST_HMAC_SQL,
  MIN_SECRET_BYTES,
  initChainSchema,
} from '../chain/schema'

/** One row to seal; the body is already canonical bytes. */
export interface RowInput {
  canonicalBody: Buffer
  /** sha256 hex of the body; computed when absent. */
  canonicalHash?: string
  timestampNs: bigint
  traceId: string
  spanId: string
  spanName: string
  spanKind: string | null
  semanticBodyHash: string | null
}

/** What Python's `_seal_canonical` returns. */
export interface SealResult {
  seq: number
  prev_hash: string
  hmac_hash: string
  canonical_hash: string
}

export type WriterMode =
  /** The file must not exist; it is created (0600). */
  | 'create'
  /** The file must exist and already hold a chain table. */
  | 'append'
  /** Python's behaviour: create when absent, else append (initialising the schema if needed). */
  | 'open'

export interface ChainWriterOptions {
  mode?: WriterMode
  busyTimeoutMs?: number
  /**
   * Bulk loading (the demo generator): `synchronous=OFF` and a large page cache. Rows are sealed
   * exactly the same way; only durability against a power cut is traded for speed.
   */
  bulk?: boolean
}

export interface EventOptions {
  eventName?: string
  timestampNs?: bigint
  traceId?: string
  spanId?: string
  semanticBodyHash?: string | null
}

export function checkSecret(secret: Uint8Array): Buffer {
  if (!(secret instanceof Uint8Array)) throw new AuditError('bad_secret', 'secret_key must be bytes')
  if (secret.length < MIN_SECRET_BYTES)
    throw new AuditError('bad_secret', 'secret_key must be at least 16 bytes')
  return Buffer.from(secret)
}

/** ns since the epoch now, with sub-millisecond digits from the monotonic clock. */
export function nowNs(): bigint {
  const ms = BigInt(Date.now())
  const sub = process.hrtime.bigint() % 1_000_000n
  return ms * 1_000_000n + sub
}

function chmodBestEffort(path: string): void {
  try {
    chmodSync(path, DB_FILE_MODE)
  } catch {
    // best effort, as in the reference (e.g. filesystems without POSIX modes)
  }
}

export class ChainWriter {
  readonly path: string
  private readonly db: Database.Database
  private sealer: Sealer
  private readonly insert: Database.Statement
  private readonly lastHmac: Database.Statement
  private readonly sealMany: Database.Transaction<(rows: RowInput[]) => SealResult[]>
  private closed = false
  private indexesDeferred = false

  private constructor(path: string, secret: Buffer, opts: ChainWriterOptions) {
    this.path = path
    const mode = opts.mode ?? 'open'
    const exists = existsSync(path)
    if (mode === 'create') {
      if (exists) throw new AuditError('bad_argument', `refusing to overwrite existing file: ${path}`)
      // A leftover -wal / -journal would be replayed into the new database by SQLite.
      for (const side of ['-wal', '-journal']) {
        if (existsSync(path + side))
          throw new AuditError(
            'bad_argument',
            `refusing to create ${path}: a stale ${path + side} exists beside it`,
          )
      }
      // Atomic "must not exist", and owner-only from the first byte.
      try {
        closeSync(openSync(path, 'wx', DB_FILE_MODE))
      } catch (e) {
        throw new AuditError('io', `cannot create ${path}: ${oneLine(e)}`)
      }
    } else if (mode === 'append') {
      if (!exists) throw new AuditError('db_missing', `chain DB not found: ${path}`)
    }
    if (exists && !statSync(path).isFile()) throw new AuditError('not_a_file', `not a regular file: ${path}`)
    try {
      this.db = new Database(path, {
        fileMustExist: mode === 'append',
        timeout: opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
      })
    } catch (e) {
      throw new AuditError('io', `cannot open ${path} for writing: ${oneLine(e)}`)
    }
    try {
      if (mode === 'append') {
        const t = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain'").get()
        if (!t)
          throw new AuditError(
            'no_chain_table',
            `not a BIJOTEL chain: ${path} has no \`chain\` table (refusing to add one)`,
          )
      }
      initChainSchema(this.db, opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS)
      if (opts.bulk) {
        this.db.pragma('synchronous = OFF')
        this.db.pragma('cache_size = -262144')
      }
      this.insert = this.db.prepare(INSERT_ROW_SQL)
      this.lastHmac = this.db.prepare(LAST_HMAC_SQL).pluck()
    } catch (e) {
      this.db.close()
      if (e instanceof AuditError) throw e
      throw new AuditError('io', `cannot initialise the chain schema in ${path}: ${oneLine(e)}`)
    }
    chmodBestEffort(path)
    this.sealer = makeSealer(secret)
    this.sealMany = this.db.transaction((rows: RowInput[]): SealResult[] => {
      const prevRaw = this.lastHmac.get() as unknown
      let prev = prevRaw === undefined || prevRaw === null ? GENESIS : String(prevRaw)
      const out: SealResult[] = []
      for (const r of rows) {
        const ch = r.canonicalHash ?? sha256Hex(r.canonicalBody)
        const mac = this.sealer.seal(prev, ch)
        const info = this.insert.run(
          r.timestampNs,
          r.traceId,
          r.spanId,
          r.spanName,
          r.spanKind,
          r.canonicalBody,
          ch,
          prev,
          mac,
          r.semanticBodyHash,
        )
        out.push({ seq: Number(info.lastInsertRowid), prev_hash: prev, hmac_hash: mac, canonical_hash: ch })
        prev = mac
      }
      return out
    })
  }

  /** Open (and initialise) a chain.db for writing. The secret must be at least 16 bytes. */
  static open(path: string, secret: Uint8Array, opts: ChainWriterOptions = {}): ChainWriter {
    return new ChainWriter(path, checkSecret(secret), opts)
  }

  /** Seal with another key from now on (secret rotation: new rows link to the old head). */
  rotateSecret(secret: Uint8Array): void {
    this.sealer = makeSealer(checkSecret(secret))
  }

  /** Seal one row in its own BEGIN IMMEDIATE transaction. */
  appendRow(row: RowInput): SealResult {
    return this.appendRows([row])[0] as SealResult
  }

  /** Seal several rows in one BEGIN IMMEDIATE transaction (all or none). */
  appendRows(rows: RowInput[]): SealResult[] {
    if (this.closed) throw new AuditError('io', `chain writer for ${this.path} is closed`)
    if (rows.length === 0) return []
    return this.sealMany.immediate(rows)
  }

  /** Seal an ended span (OTel ReadableSpan or a plain SpanRecord) as Python's HmacChainSpanProcessor. */
  appendSpan(span: SpanRecord | ReadableSpan, ids?: { traceId: string; spanId: string }): SealResult {
    const rec = spanRecordOf(span)
    const c = canonicalizeSpan(rec)
    const ctx =
      typeof (span as ReadableSpan).spanContext === 'function' ? (span as ReadableSpan).spanContext() : null
    const end = rec.endTimeNs ?? rec.startTimeNs ?? 0n
    return this.appendRow({
      canonicalBody: c.body,
      canonicalHash: c.canonicalHash,
      timestampNs: end,
      traceId: ids?.traceId ?? ctx?.traceId ?? '0'.repeat(32),
      spanId: ids?.spanId ?? ctx?.spanId ?? '0'.repeat(16),
      spanName: rec.name,
      spanKind: c.dict.kind,
      semanticBodyHash: c.semanticBodyHash,
    })
  }

  /** Python's `append_event`: the body is JCS(event) itself, not span-shaped. */
  appendEvent(event: unknown, opts: EventOptions = {}): SealResult {
    const body = canonicalBytes(event)
    return this.appendRow({
      canonicalBody: body,
      timestampNs: opts.timestampNs ?? nowNs(),
      traceId: opts.traceId ?? '0'.repeat(32),
      spanId: opts.spanId ?? '0'.repeat(16),
      spanName: opts.eventName ?? 'audit.event',
      spanKind: null,
      semanticBodyHash: opts.semanticBodyHash ?? null,
    })
  }

  /**
   * Bulk loading into a chain this writer just created (the demo generator): the two indexes are
   * dropped and SQLite's journal is off until `endBulkLoad()` / `close()`, which switch WAL back on
   * and rebuild the indexes with the same DDL (so the stored schema text is unchanged) — one sort
   * instead of a random B-tree insert per row, and every page written once. Rows are sealed exactly
   * as usual. Refused on a chain that already has rows.
   */
  beginBulkLoad(): void {
    if (this.head() !== GENESIS)
      throw new AuditError('bad_argument', 'bulk loading is only for a new, empty chain')
    this.db.exec('DROP INDEX IF EXISTS idx_chain_trace; DROP INDEX IF EXISTS idx_chain_semhash')
    this.db.pragma('journal_mode = OFF')
    this.indexesDeferred = true
  }

  endBulkLoad(): void {
    if (!this.indexesDeferred) return
    this.db.pragma('journal_mode = WAL')
    initChainSchema(this.db)
    this.indexesDeferred = false
  }

  /** hmac_hash of the newest row (GENESIS for an empty chain). */
  head(): string {
    const v = this.lastHmac.get() as unknown
    return v === undefined || v === null ? GENESIS : String(v)
  }

  close(): void {
    if (this.closed) return
    try {
      this.endBulkLoad()
    } finally {
      this.closed = true
      this.db.close()
    }
  }
}

/**
 * Python's module-level `append_event(db_path, secret_key, event, ...)`: opens (creating when absent),
 * initialises the schema, seals one row, closes.
 */
export function appendEvent(
  dbPath: string,
  secret: Uint8Array,
  event: unknown,
  opts: EventOptions = {},
): SealResult {
  const w = ChainWriter.open(dbPath, secret, { mode: 'open' })
  try {
    return w.appendEvent(event, opts)
  } finally {
    w.close()
  }
}
