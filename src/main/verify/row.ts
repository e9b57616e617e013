// One row's own status, for the entry detail view and the replay checker.
import type { RowCheck } from '../../shared/verify-types'
import { columnMismatches, sealedSpanFields } from '../chain/body'
import type { ChainFile } from '../chain/reader'
import { toBigIntOrNull } from '../chain/table'
import { AuditError, asChainReadError } from '../errors'
import { GENESIS_HASH, makeSealer, sha256Hex } from './hmac'
import type { KeyMaterial } from './secrets'

export function checkRow(chain: ChainFile, keys: KeyMaterial[], seq: number): RowCheck {
  let row: unknown[] | undefined
  let pred: unknown[] | undefined
  try {
    row = chain.db
      .prepare(
        `SELECT seq, timestamp_ns, ${chain.col('span_name')}, ${chain.col('span_kind')}, CAST(canonical_body AS BLOB),
                canonical_hash, prev_hash, hmac_hash FROM chain WHERE seq = ?`,
      )
      .raw(true)
      .safeIntegers(true)
      .get(BigInt(seq)) as unknown[] | undefined
    pred = chain.db
      .prepare('SELECT seq, hmac_hash FROM chain WHERE seq < ? ORDER BY seq DESC LIMIT 1')
      .raw(true)
      .safeIntegers(true)
      .get(BigInt(seq)) as unknown[] | undefined
  } catch (e) {
    throw asChainReadError(e, `checking seq ${seq}`)
  }
  if (!row) throw new AuditError('not_found', `seq ${seq} not found in chain`)
  const [, ts, name, kind, bodyRaw, ch, prev, mac] = row
  const body = Buffer.isBuffer(bodyRaw) ? bodyRaw : Buffer.alloc(0)
  const computed = sha256Hex(body)
  const expectedPrev = pred ? String(pred[1]) : seq <= 1 ? GENESIS_HASH : typeof prev === 'string' ? prev : ''
  let keyIndex: number | null = null
  if (typeof prev === 'string' && typeof ch === 'string' && typeof mac === 'string') {
    for (const k of keys) {
      if (makeSealer(k.bytes).seal(prev, ch) === mac) {
        keyIndex = k.index
        break
      }
    }
  }
  const fields = sealedSpanFields(body)
  const mism = fields
    ? columnMismatches(fields, toBigIntOrNull(ts), name, kind, {
        span_name: chain.has('span_name'),
        span_kind: chain.has('span_kind'),
      })
    : []
  return {
    seq,
    body_hash_ok: computed === ch,
    link_ok: prev === expectedPrev,
    hmac_ok: keys.length === 0 ? null : keyIndex !== null,
    key_index: keyIndex,
    columns_ok: fields ? mism.length === 0 : null,
    column_mismatches: mism,
    computed_canonical_hash: computed,
    expected_prev_hash: expectedPrev,
  }
}
