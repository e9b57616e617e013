// Test kit: the BIJOTEL writer's chain columns after seq, with their declared types, in its order
// (src/main/chain/schema.ts CHAIN_TABLE_DDL, reference §2), for generators that declare the table
// in other spellings, orders or layouts.
export const WRITER_COLUMNS: readonly (readonly [string, string])[] = [
  ['timestamp_ns', 'INTEGER NOT NULL'],
  ['trace_id', 'TEXT NOT NULL'],
  ['span_id', 'TEXT NOT NULL'],
  ['span_name', 'TEXT NOT NULL'],
  ['span_kind', 'TEXT'],
  ['canonical_body', 'BLOB NOT NULL'],
  ['canonical_hash', 'TEXT NOT NULL'],
  ['prev_hash', 'TEXT NOT NULL'],
  ['hmac_hash', 'TEXT NOT NULL'],
  ['semantic_body_hash', 'TEXT'],
]
