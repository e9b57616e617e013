// The chain table's columns (reference §1.1), as one runtime list: the readers check a file's
// columns against it, the commands name them from it, and every other list of columns (a command's
// selection, the export entry's key order) is typed as a subset of it, so a column renamed here
// breaks those at compile time rather than at an auditor's desk.

/** Columns of the reference schema (§1.1). */
export const CHAIN_COLUMNS = [
  'seq',
  'timestamp_ns',
  'trace_id',
  'span_id',
  'span_name',
  'span_kind',
  'canonical_body',
  'canonical_hash',
  'prev_hash',
  'hmac_hash',
  'semantic_body_hash',
] as const

export type ChainColumn = (typeof CHAIN_COLUMNS)[number]
