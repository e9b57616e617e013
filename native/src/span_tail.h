// The sealed span's tail against the row's unsealed columns, on the record's bytes: the C twin of
// columnsAgreeOnBytes in src/main/verify/record-proof.ts (same grammar, same answers; the
// differential tests run every fixture through both).
#ifndef BIJOTEL_SPAN_TAIL_H
#define BIJOTEL_SPAN_TAIL_H
#include <stddef.h>
#include <stdint.h>

/** A column of the record: its SQLite serial type and where its bytes start. */
typedef struct {
  int64_t type;
  size_t at;
} column;

/**
 * Whether the body ends with `,"end_time_ns":"<ts>","kind":<kind>,"name":<name>,"start_time_ns":V,
 * "status_code":V,"status_description":V}` holding the columns' own bytes (ts an integer column,
 * name plain ASCII text, kind plain ASCII text or NULL; `kind` may be NULL for a table without it).
 * False is "not proven", never "disagrees".
 */
int span_tail_agrees(const uint8_t *rec, const uint8_t *body, size_t len, column ts, column name,
                     const column *kind);
#endif
