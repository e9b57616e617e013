// Reading one row of a SQLite table where it lies, as the direct reader does
// (src/main/chain/sqlite/cell.ts CellReader): serial types, columns, integers, a table leaf's
// cell, and the facts the integrity monitor and the index keep of a row.
#ifndef BIJOTEL_RECORD_H
#define BIJOTEL_RECORD_H
#include <stddef.h>
#include <stdint.h>

#include "json_scan.h"
#include "span_tail.h"

/** What row_facts reads a row with: the JSON scanner's keys (scanKeys) and the columns (factsColumns). */
typedef struct {
  scan_keys keys;
  int keys_set;
  /** timestamp_ns, canonical_body, canonical_hash. */
  int32_t fcols[3];
  int fcols_set;
  /** The table's column count and the usable page size (0: not set). */
  int32_t ncols;
  int32_t usable;
  /** Records with fewer fields are left to TypeScript (a column past them has a DEFAULT). */
  int32_t min_fields;
} facts_setup;

/** row_facts' answer when TypeScript decides the body's facts; the slots of its `out`. */
enum { FACTS_JS = 4 };
enum { F_TS = 16, F_SECOND = 17, F_HI = 18, F_LO = 19, F_FP = 20, F_FP_VALUE = 21, F_SIZE = 24 };
/** pageFacts' slots per cell: rowFacts' 24, with the rowid and the verdict in the last two. */
enum { PF_ROWID = 22, PF_VERDICT = 23, PF_STRIDE = 24, PF_MAX_COLUMNS = 64 };

size_t serial_size(int64_t t);
int column_at(const int32_t *types, const int32_t *offs, size_t ncols, int32_t i, size_t len, column *out);
int64_t record_integer(const uint8_t *rec, column c);
int hash_fingerprint(const uint8_t *s, size_t n, double *out);
int varint_before(const uint8_t *p, const uint8_t *end, uint64_t *v);
int decode_cell(const uint8_t *page, size_t len, size_t at, int32_t usable, int32_t ncols, int32_t min_fields,
                int64_t *rowid, int32_t *types, int32_t *offs);
int row_facts(const facts_setup *pr, const uint8_t *rec, size_t len, const int32_t *types, const int32_t *offs,
              size_t ncols, double *out, int with_body);

/**
 * pageFacts' decision on cell `i` of a table leaf whose header is at `header`: 1 with its facts in
 * `out` (PF_STRIDE slots, rowid and verdict in the last two), or 0 when TypeScript must decide it —
 * a cell decode_cell refuses, a timestamp that is not an integer, or (with the body) a fingerprint
 * or body facts for TypeScript.
 */
int leaf_cell_facts(const facts_setup *pr, const uint8_t *page, size_t len, size_t header, size_t i, double *out,
                    int with_body);

#endif
