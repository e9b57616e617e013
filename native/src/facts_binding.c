// The Node-API binding of the row facts the integrity monitor and the index keep (record.c
// row_facts, leaf_cell_facts) and of the JSON scanner's keys (json_scan.c): what each call reads
// is set up once per thread (scanKeys, factsColumns) in the facts setup addon.c keeps.
#define NAPI_VERSION 8
#define _POSIX_C_SOURCE 200809L
#include "facts_binding.h"

#include <string.h>

#include "napi_args.h"

/** scanKeys(bytes, lengths): the keys of the JSON scanner, concatenated (see json_scan.h). */
napi_value js_scan_keys(napi_env env, napi_callback_info info) {
  ARGS(2);
  facts_setup *pr = facts_here(env);
  uint8_t *bytes;
  int32_t *lengths;
  size_t n, count;
  if (pr == NULL || argc < 2 || !bytes_arg(env, argv[0], &bytes, &n) || !int32s_arg(env, argv[1], &lengths, &count))
    return NULL;
  size_t total = 0;
  for (size_t i = 0; i < count; i++) total += lengths[i] < 0 ? SCAN_KEY_BYTES + 1 : (size_t)lengths[i];
  if (total != n || !scan_keys_set(&pr->keys, bytes, lengths, (int)count)) {
    napi_throw_range_error(env, NULL, "scanKeys: 1 to 9 keys of at most 512 bytes in all");
    return NULL;
  }
  pr->keys_set = 1;
  return NULL;
}

/**
 * scanBody(body, starts, ends): 3 when the body is not UTF-8, else the JSON verdict (0 invalid,
 * 1 valid, 2 for JSON.parse to decide) with the wanted attributes' value spans in starts/ends.
 */
napi_value js_scan_body(napi_env env, napi_callback_info info) {
  ARGS(3);
  facts_setup *pr = facts_here(env);
  uint8_t *body;
  int32_t *starts, *ends;
  size_t n, ns, ne;
  if (pr == NULL || argc < 3 || !bytes_arg(env, argv[0], &body, &n) || !int32s_arg(env, argv[1], &starts, &ns) ||
      !int32s_arg(env, argv[2], &ends, &ne))
    return NULL;
  if (!pr->keys_set || ns < SCAN_MAX_KEYS || ne < SCAN_MAX_KEYS) {
    napi_throw_error(env, NULL, "scanBody: scanKeys first, and spans for 8 keys");
    return NULL;
  }
  napi_value r;
  // Spans are int32: a body beyond 2 GB goes to JSON.parse (which would refuse it anyway).
  napi_create_int32(env, n > 0x7fffffff ? SCAN_BAIL : json_scan(&pr->keys, body, n, starts, ends), &r);
  return r;
}

/**
 * factsColumns(columns): rowFacts' column numbers (timestamp_ns, canonical_body, canonical_hash),
 * then, for pageFacts, the table's column count, the usable page size and (optional) the fewest
 * record fields read here (see decode_cell).
 */
napi_value js_facts_columns(napi_env env, napi_callback_info info) {
  ARGS(1);
  facts_setup *pr = facts_here(env);
  int32_t *cols;
  size_t n;
  if (pr == NULL || argc < 1 || !int32s_arg(env, argv[0], &cols, &n)) return NULL;
  if ((n != 5 && n != 6) || cols[3] < 1 || cols[4] < 480 || cols[4] > 65536 || (n == 6 && cols[5] < 0)) {
    napi_throw_range_error(env, NULL,
                           "factsColumns takes 3 column numbers, a column count, a usable page size and the fewest fields");
    return NULL;
  }
  memcpy(pr->fcols, cols, sizeof pr->fcols);
  pr->ncols = cols[3];
  pr->usable = cols[4];
  pr->min_fields = n == 6 ? cols[5] : 0;
  pr->fcols_set = 1;
  return NULL;
}


/**
 * rowFacts(record, types, offsets, out): what the integrity monitor and the index keep of a row,
 * from the record where it lies (see src/main/chain/addon/row-facts.ts for the layout of `out`).
 * Returns the body's scan verdict (scanBody's codes, spans relative to the record), or 4 when the
 * body is not TEXT or BLOB and TypeScript decides its facts.
 */
napi_value js_row_facts(napi_env env, napi_callback_info info) {
  ARGS(4);
  facts_setup *pr = facts_here(env);
  uint8_t *rec;
  int32_t *types, *offs;
  size_t len, nt, no, nout;
  double *out;
  if (pr == NULL || argc < 4 || !bytes_arg(env, argv[0], &rec, &len) || !int32s_arg(env, argv[1], &types, &nt) ||
      !int32s_arg(env, argv[2], &offs, &no) ||
      !typed_arg(env, argv[3], napi_float64_array, (void **)&out, &nout, "rowFacts: expected a Float64Array"))
    return NULL;
  if (nout < F_SIZE) {
    napi_throw_range_error(env, NULL, "rowFacts: the Float64Array holds 24 slots");
    return NULL;
  }
  if (!pr->fcols_set || !pr->keys_set) {
    napi_throw_error(env, NULL, "rowFacts: factsColumns and scanKeys first");
    return NULL;
  }
  napi_value r;
  napi_create_int32(env, row_facts(pr, rec, len, types, offs, nt < no ? nt : no, out, 1), &r);
  return r;
}


/**
 * pageFacts(page, header, from, out, withBody): rowFacts for the cells of a table leaf page from
 * cell `from` on (header: the page header's offset, 100 on page 1), each cell decoded here; PF_STRIDE
 * slots a cell in `out`, the rowid and the verdict in the last two. It stops before the first cell
 * it leaves to TypeScript — one decode_cell refuses, or whose timestamp is not an integer, or (with
 * the body) whose fingerprint or body facts TypeScript must decide — and returns the cells done.
 */
napi_value js_page_facts(napi_env env, napi_callback_info info) {
  ARGS(5);
  facts_setup *pr = facts_here(env);
  uint8_t *page;
  size_t len, nout;
  double *out;
  int32_t header, from, with_body;
  if (pr == NULL || argc < 5 || !bytes_arg(env, argv[0], &page, &len) ||
      napi_get_value_int32(env, argv[1], &header) != napi_ok || napi_get_value_int32(env, argv[2], &from) != napi_ok ||
      !typed_arg(env, argv[3], napi_float64_array, (void **)&out, &nout, "pageFacts: expected a Float64Array") ||
      napi_get_value_int32(env, argv[4], &with_body) != napi_ok)
    return NULL;
  if (!pr->fcols_set || !pr->keys_set) {
    napi_throw_error(env, NULL, "pageFacts: factsColumns and scanKeys first");
    return NULL;
  }
  int32_t done = 0;
  if (header >= 0 && from >= 0 && pr->ncols <= PF_MAX_COLUMNS && (size_t)header + 8 <= len) {
    const int32_t count = page[header + 3] << 8 | page[header + 4];
    const int32_t room = (int32_t)(nout / PF_STRIDE);
    for (int32_t i = from; i < count && done < room; i++, done++)
      if (!leaf_cell_facts(pr, page, len, (size_t)header, (size_t)i, out + (size_t)done * PF_STRIDE, with_body)) break;
  }
  napi_value r;
  napi_create_int32(env, done, &r);
  return r;
}
