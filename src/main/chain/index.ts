// An in-memory index of an opened chain — per row: seq, timestamp, provider, model — so the
// timeline, the charts and filtered/sorted tables answer without shipping rows to the renderer or
// re-reading bodies. About 20 bytes a row; built in chunks so the process stays responsive.
import type Database from 'better-sqlite3'
import { AuditError, asChainReadError } from '../errors'
import { modelOf, parseBody, providerOf } from './body'
import type { ChainFile } from './reader'

export interface ChainIndex {
  rows: number
  seq: Float64Array
  ts: BigInt64Array
  /** Rows whose timestamp column is not an integer get `tsValid[i] = 0` (and ts 0). */
  tsValid: Uint8Array
  provider: Uint16Array
  model: Uint16Array
  hasReplay: Uint8Array
  providerNames: string[]
  modelNames: string[]
}

const CHUNK = 5000

function internTable(): { names: string[]; id(name: string): number } {
  const names: string[] = []
  const ids = new Map<string, number>()
  return {
    names,
    id(name: string): number {
      let i = ids.get(name)
      if (i === undefined) {
        i = names.length
        names.push(name)
        ids.set(name, i)
      }
      return i
    },
  }
}

const REPLAY_NEEDLE = Buffer.from('"bijotel.replay.output_hash"')

export async function buildChainIndex(
  chain: ChainFile,
  onProgress?: (done: number, total: number) => void,
  signal?: { aborted: boolean },
): Promise<ChainIndex> {
  const db: Database.Database = chain.db
  let total: number
  try {
    total = Number(db.prepare('SELECT COUNT(*) FROM chain').pluck().safeIntegers(true).get() as bigint)
  } catch (e) {
    throw asChainReadError(e, 'counting rows')
  }
  const idx: ChainIndex = {
    rows: 0,
    seq: new Float64Array(total),
    ts: new BigInt64Array(total),
    tsValid: new Uint8Array(total),
    provider: new Uint16Array(total),
    model: new Uint16Array(total),
    hasReplay: new Uint8Array(total),
    providerNames: [],
    modelNames: [],
  }
  const providers = internTable()
  const models = internTable()
  models.id('(none)')
  const stmt = db
    .prepare('SELECT seq, timestamp_ns, CAST(canonical_body AS BLOB) FROM chain WHERE seq > ? ORDER BY seq LIMIT ?')
    .raw(true)
    .safeIntegers(true)
  let after = -(2n ** 63n)
  let i = 0
  for (;;) {
    let batch: unknown[][]
    try {
      batch = stmt.all(after, CHUNK) as unknown[][]
    } catch (e) {
      throw asChainReadError(e, 'indexing rows')
    }
    if (batch.length === 0) break
    for (const [seq, ts, body] of batch) {
      if (i >= total) break
      const buf = Buffer.isBuffer(body) ? body : Buffer.alloc(0)
      const parsed = parseBody(buf)
      idx.seq[i] = Number(seq as bigint)
      if (typeof ts === 'bigint') {
        idx.ts[i] = ts
        idx.tsValid[i] = 1
      }
      idx.provider[i] = Math.min(providers.id(providerOf(parsed)), 65535)
      const m = modelOf(parsed)
      idx.model[i] = Math.min(m === null ? 0 : models.id(m), 65535)
      idx.hasReplay[i] = buf.indexOf(REPLAY_NEEDLE) >= 0 ? 1 : 0
      after = seq as bigint
      i++
    }
    onProgress?.(i, total)
    if (signal?.aborted) throw new AuditError('cancelled', 'indexing cancelled')
    // Let other work (IPC, HTTP requests) run between chunks.
    await new Promise<void>((r) => setImmediate(r))
    if (batch.length < CHUNK) break
  }
  idx.rows = i
  idx.providerNames = providers.names
  idx.modelNames = models.names
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
