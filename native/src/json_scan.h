// A validating JSON scanner (RFC 8259 exactly as JSON.parse accepts it; body-scan.test.ts holds it
// to JSON.parse on its whole corpus) that records the value spans of a few wanted attributes, plus
// the UTF-8 check Node's isUtf8 makes, so a body costs one call.
#ifndef BIJOTEL_JSON_SCAN_H
#define BIJOTEL_JSON_SCAN_H
#include <stddef.h>
#include <stdint.h>

enum { SCAN_INVALID = 0, SCAN_VALID = 1, SCAN_BAIL = 2, SCAN_NOT_UTF8 = 3 };
enum { SCAN_MAX_KEYS = 8, SCAN_KEY_BYTES = 512 };

typedef struct {
  /** Key 0: the top-level key holding the attributes; 1..count: the wanted attributes. */
  int count;
  uint8_t bytes[SCAN_KEY_BYTES];
  int off[SCAN_MAX_KEYS + 1];
  int len[SCAN_MAX_KEYS + 1];
  uint64_t length_mask;
} scan_keys;

/** 0 when the keys do not fit. */
int scan_keys_set(scan_keys *k, const uint8_t *bytes, const int32_t *lengths, int n);

/**
 * SCAN_NOT_UTF8, or the verdict on `body` as one JSON text, with the value spans of the wanted
 * attributes in starts/ends (relative to the body; start -1 = absent).
 */
int json_scan(const scan_keys *k, const uint8_t *body, size_t n, int32_t starts[SCAN_MAX_KEYS],
              int32_t ends[SCAN_MAX_KEYS]);
#endif
