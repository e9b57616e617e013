// Node-API binding of the row prover: one call per row does what three `crypto.hash` calls and the
// hex compares did (each `crypto.hash` call costs ≈0.6 µs before hashing a byte: OpenSSL 3's
// per-digest context). The hashing is the host's OpenSSL, the one node:crypto uses (crypto.h); this
// file only decides which bytes go in and compares what comes out. Node-API is ABI-stable, so the
// same build loads in Node and in Electron.
#define NAPI_VERSION 8
#define _POSIX_C_SOURCE 200809L
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "facts_binding.h"
#include "file_hash.h"
#include "json_scan.h"
#include "napi_args.h"
#include "pages.h"
#include "record.h"
#include "span_tail.h"

static const char HEX[] = "0123456789abcdef";

static void to_hex(const uint8_t digest[32], uint8_t out[64]) {
  for (int i = 0; i < 32; i++) {
    out[2 * i] = (uint8_t)HEX[digest[i] >> 4];
    out[2 * i + 1] = (uint8_t)HEX[digest[i] & 15];
  }
}

/**
 * A key as hmacKey hands it out: a tag, then the key's bytes. The HMAC itself is OpenSSL's, keyed
 * from these bytes in the thread that uses them (an HMAC_CTX is never shared between threads).
 */
static const uint8_t KEY_TAG[4] = {'B', 'J', 'K', 1};

static napi_value boolean(napi_env env, int b) {
  napi_value r;
  napi_get_boolean(env, b, &r);
  return r;
}

static napi_value string_hex(napi_env env, const uint8_t digest[32]) {
  uint8_t hex[64];
  to_hex(digest, hex);
  napi_value r;
  napi_create_string_latin1(env, (const char *)hex, 64, &r);
  return r;
}

/** sha256Hex(data): lowercase hex. */
static napi_value js_sha256_hex(napi_env env, napi_callback_info info) {
  ARGS(1);
  uint8_t *d;
  size_t n;
  if (argc < 1 || !bytes_arg(env, argv[0], &d, &n)) return NULL;
  uint8_t digest[32];
  if (!sha256(d, n, digest)) {
    napi_throw_error(env, NULL, "the host's SHA-256 is not available");
    return NULL;
  }
  return string_hex(env, digest);
}

/** hmacKey(key): the key state `startRun` and `hmacHex` take. */
static napi_value js_hmac_key(napi_env env, napi_callback_info info) {
  ARGS(1);
  uint8_t *d;
  size_t n;
  if (argc < 1 || !bytes_arg(env, argv[0], &d, &n)) return NULL;
  uint8_t *out;
  napi_value buf;
  if (napi_create_buffer(env, sizeof KEY_TAG + n, (void **)&out, &buf) != napi_ok) return NULL;
  memcpy(out, KEY_TAG, sizeof KEY_TAG);
  if (n > 0) memcpy(out + sizeof KEY_TAG, d, n);
  return buf;
}

/** The key bytes of a key state from hmacKey, or a thrown TypeError. */
static int key_arg(napi_env env, napi_value v, const uint8_t **key, size_t *len) {
  uint8_t *d;
  size_t n;
  if (!bytes_arg(env, v, &d, &n)) return 0;
  if (n < sizeof KEY_TAG || memcmp(d, KEY_TAG, sizeof KEY_TAG) != 0) {
    napi_throw_type_error(env, NULL, "expected a key state from hmacKey");
    return 0;
  }
  *key = d + sizeof KEY_TAG;
  *len = n - sizeof KEY_TAG;
  return 1;
}

/** What one thread's prover holds between rows: the key that sealed the last row, and the link. */
typedef struct {
  /** OpenSSL's HMAC, keyed by startRun; `scratch` is hmacHex's, so it never rekeys a run. */
  hmac_ctx *key;
  hmac_ctx *scratch;
  uint8_t link[64];
  /** Column numbers: body, canonical_hash, prev_hash, hmac_hash, timestamp_ns, span_name, span_kind. */
  int32_t cols[7];
  /** What rowFacts, pageFacts and the page walks read rows with (scanKeys, factsColumns). */
  facts_setup facts;
} prover;

enum { C_BODY, C_CH, C_PREV, C_MAC, C_TS, C_NAME, C_KIND };

static void free_prover(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  prover *pr = data;
  hmac_free(pr->key);
  hmac_free(pr->scratch);
  free(pr);
}

static prover *prover_of(napi_env env) {
  void *p = NULL;
  if (napi_get_instance_data(env, &p) != napi_ok || p == NULL) {
    p = calloc(1, sizeof(prover));
    if (p == NULL || napi_set_instance_data(env, p, free_prover, NULL) != napi_ok) {
      free(p);
      napi_throw_error(env, NULL, "out of memory");
      return NULL;
    }
  }
  return (prover *)p;
}

facts_setup *facts_here(napi_env env) {
  prover *pr = prover_of(env);
  return pr == NULL ? NULL : &pr->facts;
}

const facts_setup *facts_of(napi_env env) { return facts_here(env); }

/** This thread's HMAC context in `*slot`, made on first use; NULL (and a thrown error) without one. */
static hmac_ctx *hmac_here(napi_env env, hmac_ctx **slot) {
  if (*slot == NULL) *slot = hmac_new();
  if (*slot == NULL) napi_throw_error(env, NULL, "the host's HMAC-SHA256 is not available");
  return *slot;
}

/** hmacHex(keyState, message): lowercase hex HMAC-SHA256. */
static napi_value js_hmac_hex(napi_env env, napi_callback_info info) {
  ARGS(2);
  const uint8_t *key;
  uint8_t *d;
  size_t kn, n;
  prover *pr = prover_of(env);
  if (pr == NULL || argc < 2 || !key_arg(env, argv[0], &key, &kn) || !bytes_arg(env, argv[1], &d, &n)) return NULL;
  hmac_ctx *h = hmac_here(env, &pr->scratch);
  if (h == NULL) return NULL;
  uint8_t mac[32];
  if (!hmac_key(h, key, kn) || !hmac(h, d, n, mac)) {
    napi_throw_error(env, NULL, "the host's HMAC-SHA256 failed");
    return NULL;
  }
  return string_hex(env, mac);
}

/**
 * startRun(keyState, linkHex, columns): the key the next rows are sealed under, the prev_hash they
 * link to, and the column numbers (body, canonical_hash, prev_hash, hmac_hash, timestamp_ns,
 * span_name, span_kind; -1 for a column the table lacks).
 */
static napi_value js_start_run(napi_env env, napi_callback_info info) {
  ARGS(3);
  const uint8_t *key;
  uint8_t *link;
  int32_t *cols;
  size_t kn, n, ncols;
  prover *pr = prover_of(env);
  if (pr == NULL || argc < 3 || !key_arg(env, argv[0], &key, &kn) || !bytes_arg(env, argv[1], &link, &n) ||
      !int32s_arg(env, argv[2], &cols, &ncols))
    return NULL;
  if (n != 64 || ncols != 7) {
    napi_throw_range_error(env, NULL, "a link is 64 hex bytes, and there are 7 column numbers");
    return NULL;
  }
  hmac_ctx *h = hmac_here(env, &pr->key);
  if (h == NULL) return NULL;
  if (!hmac_key(h, key, kn)) {
    napi_throw_error(env, NULL, "the host's HMAC-SHA256 failed");
    return NULL;
  }
  memcpy(pr->link, link, 64);
  memcpy(pr->cols, cols, sizeof pr->cols);
  return NULL;
}

/** link(): the current link, the hmac_hash of the last row proven (64 hex characters). */
static napi_value js_link(napi_env env, napi_callback_info info) {
  (void)info;
  prover *pr = prover_of(env);
  if (pr == NULL) return NULL;
  napi_value r;
  napi_create_string_latin1(env, (const char *)pr->link, 64, &r);
  return r;
}

enum { HEX64_TEXT = 13 + 2 * 64 };

/**
 * proveRow(record, types, offsets): a row read by the direct reader (its record bytes, and the
 * serial type and offset of each column) proven clean, as the TypeScript fast path proves it: the
 * span tail agrees with timestamp_ns, span_name and span_kind; prev_hash equals the link;
 * canonical_hash is hex(SHA-256(body)); hmac_hash is hex(HMAC(key, prev ‖ canonical)). Then, and
 * only then, the link becomes that hmac. False means only "not proven here": the caller decides the
 * row the ordinary way, and the link is unchanged.
 */
/** The proof of proveRow on a record in `rec` (columns at `offs`); 1 and the link advanced, or 0. */
static int prove_record(prover *pr, const uint8_t *rec, size_t len, const int32_t *types, const int32_t *offs,
                        size_t ncols) {
  const int32_t *k = pr->cols;
  column body, ch, prev, mac, ts, name, kind;
  if (!column_at(types, offs, ncols, k[C_BODY], len, &body) || body.type < 12 ||
      !column_at(types, offs, ncols, k[C_CH], len, &ch) || ch.type != HEX64_TEXT ||
      !column_at(types, offs, ncols, k[C_PREV], len, &prev) || prev.type != HEX64_TEXT ||
      !column_at(types, offs, ncols, k[C_MAC], len, &mac) || mac.type != HEX64_TEXT ||
      !column_at(types, offs, ncols, k[C_TS], len, &ts) ||
      !column_at(types, offs, ncols, k[C_NAME], len, &name))
    return 0;
  const int has_kind = k[C_KIND] >= 0;
  if (has_kind && !column_at(types, offs, ncols, k[C_KIND], len, &kind)) return 0;
  if (memcmp(rec + prev.at, pr->link, 64) != 0) return 0;
  const size_t body_len = serial_size(body.type);
  if (!span_tail_agrees(rec, rec + body.at, body_len, ts, name, has_kind ? &kind : NULL)) return 0;
  uint8_t digest[32], hex[64];
  if (!sha256(rec + body.at, body_len, digest)) return 0;
  to_hex(digest, hex);
  if (memcmp(rec + ch.at, hex, 64) != 0) return 0;
  uint8_t msg[128];
  memcpy(msg, pr->link, 64);
  memcpy(msg + 64, hex, 64);
  // No run started (no key): nothing is proven here.
  if (pr->key == NULL || !hmac(pr->key, msg, 128, digest)) return 0;
  to_hex(digest, hex);
  if (memcmp(rec + mac.at, hex, 64) != 0) return 0;
  memcpy(pr->link, hex, 64);
  return 1;
}

static napi_value js_prove_row(napi_env env, napi_callback_info info) {
  ARGS(3);
  prover *pr = prover_of(env);
  if (pr == NULL) return NULL;
  uint8_t *rec;
  int32_t *types, *offs;
  size_t len, nt, no;
  if (argc < 3 || !bytes_arg(env, argv[0], &rec, &len) || !int32s_arg(env, argv[1], &types, &nt) ||
      !int32s_arg(env, argv[2], &offs, &no))
    return NULL;
  return boolean(env, prove_record(pr, rec, len, types, offs, nt < no ? nt : no));
}

/**
 * proveLeaf(page, header, from, firstRowid, lastRowid, layout): proveRow for the cells of a table
 * leaf from cell `from` on, each decoded here (decode_cell, the twin of CellReader.read, so no
 * record is decoded twice and no value reaches JavaScript), while each cell's rowid is the next one
 * (firstRowid, firstRowid + 1, …, at most lastRowid) and each is proven. `layout`: the table's
 * column count, the usable page size and the fewest fields a record may have. Returns the cells
 * proven; the caller decides the next one the ordinary way.
 */
/** The cells proveLeaf proves of the leaf at `page` (`len` bytes, b-tree header at `header`). */
static int32_t prove_cells(prover *pr, const uint8_t *page, size_t len, int32_t header, int32_t from, int64_t first,
                           int64_t last, const int32_t *layout) {
  int32_t done = 0;
  if (layout[0] <= 0 || layout[0] > PF_MAX_COLUMNS || header < 0 || from < 0 || (size_t)header + 8 > len) return 0;
  int32_t types[PF_MAX_COLUMNS], offs[PF_MAX_COLUMNS];
  const int32_t count = page[header + 3] << 8 | page[header + 4];
  for (int32_t i = from; i < count; i++, done++) {
    const size_t ptr = (size_t)header + 8 + 2 * (size_t)i;
    int64_t rowid;
    if (ptr + 2 > len ||
        !decode_cell(page, len, (size_t)(page[ptr] << 8 | page[ptr + 1]), layout[1], layout[0], layout[2], &rowid,
                     types, offs) ||
        rowid != first + done || rowid > last || !prove_record(pr, page, len, types, offs, (size_t)layout[0]))
      break;
  }
  return done;
}

static napi_value js_prove_leaf(napi_env env, napi_callback_info info) {
  ARGS(6);
  prover *pr = prover_of(env);
  if (pr == NULL) return NULL;
  uint8_t *page;
  int32_t *layout;
  size_t len, nl;
  int32_t header, from;
  int64_t first, last;
  if (argc < 6 || !bytes_arg(env, argv[0], &page, &len) || napi_get_value_int32(env, argv[1], &header) != napi_ok ||
      napi_get_value_int32(env, argv[2], &from) != napi_ok || napi_get_value_int64(env, argv[3], &first) != napi_ok ||
      napi_get_value_int64(env, argv[4], &last) != napi_ok || !int32s_arg(env, argv[5], &layout, &nl))
    return NULL;
  napi_value r;
  napi_create_int32(env, nl >= 3 ? prove_cells(pr, page, len, header, from, first, last, layout) : 0, &r);
  return r;
}

/**
 * proveLeaves(window, pages, at, layout, first, last, out): proveLeaf over table leaves
 * pages[at], pages[at + 1], … read in one window of the file (RowScanner.scanLeafFirst's per-leaf
 * calls, made here: one call per window, not per leaf). `layout`: column count, usable page size,
 * fewest fields, page size, the window's first page number, its page count, the lock-byte page.
 * Each leaf is taken only as scanLeaves would take it without declining (in the window, not the
 * lock-byte page, type 0x0d, 1 to MX_CELL cells: btree.c btreeInitPage); at the first that is not,
 * or is not proven whole, it stops. out[0]: leaves proven whole; out[1]: cells proven at the start
 * of the leaf after them; out[2]: 1 when that leaf lies outside the window. Returns the rows proven.
 */
static napi_value js_prove_leaves(napi_env env, napi_callback_info info) {
  ARGS(7);
  prover *pr = prover_of(env);
  if (pr == NULL) return NULL;
  uint8_t *win;
  int32_t *pages, *layout, *out;
  size_t len, np, nl, no;
  int32_t at;
  int64_t first, last;
  if (argc < 7 || !bytes_arg(env, argv[0], &win, &len) || !int32s_arg(env, argv[1], &pages, &np) ||
      napi_get_value_int32(env, argv[2], &at) != napi_ok || !int32s_arg(env, argv[3], &layout, &nl) ||
      napi_get_value_int64(env, argv[4], &first) != napi_ok || napi_get_value_int64(env, argv[5], &last) != napi_ok ||
      !int32s_arg(env, argv[6], &out, &no))
    return NULL;
  int64_t rows = 0;
  int32_t whole = 0, part = 0, beyond = 0;
  if (nl >= 7 && no >= 3 && at >= 0 && layout[3] >= 512) {
    const int32_t size = layout[3], win_first = layout[4], win_count = layout[5], lock = layout[6];
    const int32_t most = (size - 8) / 6;
    for (size_t l = (size_t)at; l < np; l++) {
      const int32_t n = pages[l];
      // The leaf's place in the window, in 64 bits: n - win_first of two int32s can overflow (UB).
      const int64_t idx = (int64_t)n - (int64_t)win_first;
      if (idx < 0 || idx >= win_count || ((uint64_t)idx + 1) * (uint64_t)size > len) {
        beyond = 1;
        break;
      }
      if (n == lock) break;
      const uint8_t *page = win + (size_t)idx * (size_t)size;
      const int32_t h = n == 1 ? 100 : 0;
      const int32_t count = page[h + 3] << 8 | page[h + 4];
      if (page[h] != 0x0d || count < 1 || count > most) break;
      const int32_t done = prove_cells(pr, page, (size_t)size, h, 0, first + rows, last, layout);
      rows += done;
      if (done < count) {
        part = done;
        break;
      }
      whole++;
    }
  }
  if (no >= 3) {
    out[0] = whole;
    out[1] = part;
    out[2] = beyond;
  }
  napi_value r;
  napi_create_int64(env, rows, &r);
  return r;
}

/**
 * cryptoSource(): where OpenSSL's SHA-256 and HMAC were found (crypto.h) — "host" (the running
 * process), "system", or "none", and then nothing is proven or hashed here.
 */
static napi_value js_crypto_source(napi_env env, napi_callback_info info) {
  (void)info;
  const int s = crypto_ready();
  napi_value r;
  napi_create_string_utf8(env, s == CRYPTO_HOST ? "host" : s == CRYPTO_SYSTEM ? "system" : "none", NAPI_AUTO_LENGTH,
                          &r);
  return r;
}

#define METHOD(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_enumerable, NULL}

NAPI_MODULE_INIT() {
  const napi_property_descriptor props[] = {
      METHOD("sha256Hex", js_sha256_hex),
      METHOD("hmacKey", js_hmac_key),
      METHOD("hmacHex", js_hmac_hex),
      METHOD("startRun", js_start_run),
      METHOD("link", js_link),
      METHOD("proveRow", js_prove_row),
      METHOD("proveLeaf", js_prove_leaf),
      METHOD("proveLeaves", js_prove_leaves),
      METHOD("factsColumns", js_facts_columns),
      METHOD("rowFacts", js_row_facts),
      METHOD("pageFacts", js_page_facts),
#ifndef _WIN32
      METHOD("leafTimes", js_leaf_times),
      METHOD("collectLeaves", js_collect_leaves),
      METHOD("windowFacts", js_window_facts),
      METHOD("fileHashStart", js_file_hash_start),
      METHOD("fileHashRead", js_file_hash_read),
      METHOD("fileHashDigest", js_file_hash_digest),
#endif
      METHOD("scanKeys", js_scan_keys),
      METHOD("scanBody", js_scan_body),
      METHOD("cryptoSource", js_crypto_source),
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}
