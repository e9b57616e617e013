// Test oracle: the detectors in their simplest form, over rows held in memory (a Map of hashes seen,
// a Map of rows per second), read with one plain SQL query on a copy. The engine's columns pass
// (src/main/integrity/columns-pass.ts) must agree with it on every chain the tests build.
import type Database from 'better-sqlite3'
import type { IntegrityThresholds } from '../../../src/shared/integrity-types'
import { parseBody, providerOfBytes } from '../../../src/main/chain/body'
import { bodyFacts } from '../../../src/main/chain/body-scan'
import { hashKey } from '../../../src/main/chain/columns/fingerprint'
import { toBigIntOrNull } from '../../../src/main/chain/table'
import { epochSecond } from '../../../src/main/chain/ts-words'
import { duplicateAnomaly } from '../../../src/main/integrity/hashes'
import { finish, OrderedPass } from '../../../src/main/integrity/ordered-pass'
import type { DetectorResults } from '../../../src/main/integrity/report'
import { burstAnomaly } from '../../../src/main/integrity/timestamps'

export interface IntegrityRow {
  seq: bigint
  ts: bigint
  hashKey: string | null
  provider: string
}

function rowProvider(body: unknown): string {
  if (body === null || body === undefined) return 'unknown'
  if (!(body instanceof Uint8Array)) {
    const bytes = Buffer.from(String(body), 'utf8')
    return providerOfBytes(bytes, parseBody(bytes))
  }
  return bodyFacts(Buffer.from(body)).provider
}

/** Every row, ascending by seq, as the reference's detectors read it (§5.2). */
export function loadRows(db: Database.Database): IntegrityRow[] {
  const raws = db
    .prepare('SELECT seq, timestamp_ns, canonical_hash, CAST(canonical_body AS BLOB) FROM chain ORDER BY seq')
    .raw(true)
    .safeIntegers(true)
    .all() as unknown[][]
  return raws.map((raw) => ({
    seq: raw[0] as bigint,
    ts: toBigIntOrNull(raw[1])!,
    hashKey: hashKey(raw[2]),
    provider: rowProvider(raw[3]),
  }))
}

/** The detectors over rows in memory (ascending by seq); rotation left empty. */
export function analyzeRows(rows: IntegrityRow[], thresholds: IntegrityThresholds): DetectorResults {
  const pass = new OrderedPass(rows.length, thresholds)
  const firstSeen = new Map<string, bigint>()
  const dups: DetectorResults['hash_anomalies'] = []
  const perSecond = new Map<bigint, number>()
  for (const r of rows) {
    pass.pushColumns(r.seq, r.ts, r.provider)
    if (r.hashKey !== null) {
      const first = firstSeen.get(r.hashKey)
      if (first === undefined) firstSeen.set(r.hashKey, r.seq)
      else dups.push(duplicateAnomaly(r.seq, first))
    }
    const s = epochSecond(r.ts)
    perSecond.set(s, (perSecond.get(s) ?? 0) + 1)
  }
  const bursts = [...perSecond]
    .filter(([, c]) => c > thresholds.burst_threshold)
    .map(([s, c]) => burstAnomaly(s, c))
  return finish(pass, dups, bursts)
}
