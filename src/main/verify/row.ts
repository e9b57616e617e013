// One row's own status, for the entry detail view and the replay checker.
import type { RowCheck } from '../../shared/verify-types'
import { columnMismatches, sealedSpanFields } from '../chain/body'
import type { RowSource } from '../chain/source/row-source'
import { toBigIntOrNull } from '../chain/table'
import { AuditError } from '../base/errors'
import { GENESIS_HASH, makeSealer, sha256Hex } from '../chain/seal'
import type { KeyMaterial } from '../chain/keys'

const ROW_COLUMNS = [
  'timestamp_ns',
  'span_name',
  'span_kind',
  'canonical_body',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
] as const

/** The row's own checks, against the row before it in the scan (its predecessor in the file). */
export function checkRow(source: RowSource, keys: KeyMaterial[], seq: number): RowCheck {
  const col = (n: string): number => source.col(n)
  let row: {
    ts: unknown
    name: unknown
    kind: unknown
    body: Buffer
    ch: unknown
    prev: unknown
    mac: unknown
  } | null = null
  // The row before it first: on the direct reader that lookup reads every leaf's rowids once (the
  // rowid table, ../chain/direct/rowid-table.ts), and the row's own lookup then seeks in that table;
  // the other way round, the row's lookup read the leaves up to it and the table read them again.
  const pred = source.before(BigInt(seq))
  source.find(
    BigInt(seq),
    (c) => {
      const v = (i: number): unknown => (i < 0 ? null : c.valueBig(i))
      row = {
        ts: v(col('timestamp_ns')),
        name: v(col('span_name')),
        kind: v(col('span_kind')),
        // A copy: the row is valid only inside this callback (the direct reader's cell bytes are a
        // view of its page buffer), and the row before it is looked up below, reading other pages.
        body: Buffer.from(c.castBlob(col('canonical_body')) ?? Buffer.alloc(0)),
        ch: v(col('canonical_hash')),
        prev: v(col('prev_hash')),
        mac: v(col('hmac_hash')),
      }
    },
    ROW_COLUMNS,
  )
  if (row === null) throw new AuditError('not_found', `seq ${seq} not found in chain`)
  const { ts, name, kind, body, ch, prev, mac } = row
  const computed = sha256Hex(body)
  const expectedPrev = pred
    ? String(pred.hmac)
    : seq <= 1
      ? GENESIS_HASH
      : typeof prev === 'string'
        ? prev
        : ''
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
        span_name: col('span_name') >= 0,
        span_kind: col('span_kind') >= 0,
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
