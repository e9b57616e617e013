// Node-API binding of the row prover: one call per row does what three `crypto.hash` calls and the
// hex compares did (each `crypto.hash` call costs ≈0.6 µs before hashing a byte: OpenSSL 3's
// per-digest context). Node-API is ABI-stable, so the same build loads in Node and in Electron.
#define NAPI_VERSION 8
#define _POSIX_C_SOURCE 200809L
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <errno.h>
#include <unistd.h>
#endif

#include "sha256.h"
#include "json_scan.h"
#include "span_tail.h"

static const char HEX[] = "0123456789abcdef";

static void to_hex(const uint8_t digest[32], uint8_t out[64]) {
  for (int i = 0; i < 32; i++) {
    out[2 * i] = (uint8_t)HEX[digest[i] >> 4];
    out[2 * i + 1] = (uint8_t)HEX[digest[i] & 15];
  }
}

/** Key state: SHA-256 state after the key ⊕ ipad block, then after the key ⊕ opad block. */
typedef struct {
  uint32_t inner[8];
  uint32_t outer[8];
} hmac_state;

static void hmac_prepare(const uint8_t *key, size_t len, hmac_state *st) {
  uint8_t k[64] = {0};
  if (len > 64)
    sha256(key, len, k);
  else
    memcpy(k, key, len);
  uint8_t pad[64];
  for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
  sha256_init(st->inner);
  sha256_blocks(st->inner, pad, 1);
  for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
  sha256_init(st->outer);
  sha256_blocks(st->outer, pad, 1);
}

static void hmac(const hmac_state *st, const uint8_t *msg, size_t len, uint8_t out[32]) {
  uint32_t s[8];
  uint8_t inner[32];
  memcpy(s, st->inner, sizeof s);
  sha256_finish(s, 64, msg, len, inner);
  memcpy(s, st->outer, sizeof s);
  sha256_finish(s, 64, inner, 32, out);
}

/** A typed array argument of `want` type: its data and element count, or a thrown TypeError. */
static int typed_arg(napi_env env, napi_value v, napi_typedarray_type want, void **data, size_t *len,
                     const char *message) {
  napi_typedarray_type type;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &type, len, data, &ab, &off) != napi_ok || type != want) {
    napi_throw_type_error(env, NULL, message);
    return 0;
  }
  return 1;
}

static int bytes_arg(napi_env env, napi_value v, uint8_t **data, size_t *len) {
  return typed_arg(env, v, napi_uint8_array, (void **)data, len, "expected a Uint8Array");
}

static int int32s_arg(napi_env env, napi_value v, int32_t **data, size_t *len) {
  return typed_arg(env, v, napi_int32_array, (void **)data, len, "expected an Int32Array");
}

/** The call's first `n` arguments in `argv` (missing ones undefined), their count in `argc`. */
#define ARGS(n)                                                                                                        \
  size_t argc = (n);                                                                                                   \
  napi_value argv[(n)];                                                                                                \
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL)

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
  sha256(d, n, digest);
  return string_hex(env, digest);
}

/** hmacKey(key): the 64-byte key state `proveRow` and `hmacHex` take. */
static napi_value js_hmac_key(napi_env env, napi_callback_info info) {
  ARGS(1);
  uint8_t *d;
  size_t n;
  if (argc < 1 || !bytes_arg(env, argv[0], &d, &n)) return NULL;
  void *out;
  napi_value buf;
  if (napi_create_buffer(env, sizeof(hmac_state), &out, &buf) != napi_ok) return NULL;
  hmac_prepare(d, n, (hmac_state *)out);
  return buf;
}

static int key_arg(napi_env env, napi_value v, const hmac_state **st) {
  uint8_t *d;
  size_t n;
  if (!bytes_arg(env, v, &d, &n)) return 0;
  if (n != sizeof(hmac_state)) {
    napi_throw_type_error(env, NULL, "expected a key state from hmacKey");
    return 0;
  }
  *st = (const hmac_state *)d;
  return 1;
}

/** hmacHex(keyState, message): lowercase hex HMAC-SHA256. */
static napi_value js_hmac_hex(napi_env env, napi_callback_info info) {
  ARGS(2);
  const hmac_state *st;
  uint8_t *d;
  size_t n;
  if (argc < 2 || !key_arg(env, argv[0], &st) || !bytes_arg(env, argv[1], &d, &n)) return NULL;
  uint8_t mac[32];
  hmac(st, d, n, mac);
  return string_hex(env, mac);
}

/** What one thread's prover holds between rows: the key that sealed the last row, and the link. */
typedef struct {
  hmac_state key;
  uint8_t link[64];
  /** Column numbers: body, canonical_hash, prev_hash, hmac_hash, timestamp_ns, span_name, span_kind. */
  int32_t cols[7];
  /** The JSON scanner's keys (scanKeys). */
  scan_keys keys;
  int keys_set;
  /** rowFacts' column numbers: timestamp_ns, canonical_body, canonical_hash (factsColumns). */
  int32_t fcols[3];
  int fcols_set;
  /** pageFacts' record layout: the table's column count and the usable page size (0: not set). */
  int32_t ncols;
  int32_t usable;
} prover;

enum { C_BODY, C_CH, C_PREV, C_MAC, C_TS, C_NAME, C_KIND };

static void free_prover(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
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

/**
 * startRun(keyState, linkHex, columns): the key the next rows are sealed under, the prev_hash they
 * link to, and the column numbers (body, canonical_hash, prev_hash, hmac_hash, timestamp_ns,
 * span_name, span_kind; -1 for a column the table lacks).
 */
static napi_value js_start_run(napi_env env, napi_callback_info info) {
  ARGS(3);
  const hmac_state *st;
  uint8_t *link;
  int32_t *cols;
  size_t n, ncols;
  prover *pr = prover_of(env);
  if (pr == NULL || argc < 3 || !key_arg(env, argv[0], &st) || !bytes_arg(env, argv[1], &link, &n) ||
      !int32s_arg(env, argv[2], &cols, &ncols))
    return NULL;
  if (n != 64 || ncols != 7) {
    napi_throw_range_error(env, NULL, "a link is 64 hex bytes, and there are 7 column numbers");
    return NULL;
  }
  pr->key = *st;
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

/** Bytes a value of serial type `t` takes in a record. */
static size_t serial_size(int64_t t) {
  static const size_t fixed[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
  return t < 12 ? fixed[t < 0 ? 0 : t] : (size_t)((t - 12) >> 1);
}

/** Column `i` of the record, if its bytes lie inside it. */
static int column_at(const int32_t *types, const int32_t *offs, size_t ncols, int32_t i, size_t len,
                     column *out) {
  if (i < 0 || (size_t)i >= ncols || types[i] < 0 || offs[i] < 0 || types[i] == 10 || types[i] == 11)
    return 0;
  out->type = types[i];
  out->at = (size_t)offs[i];
  return out->at <= len && serial_size(out->type) <= len - out->at;
}

enum { HEX64_TEXT = 13 + 2 * 64 };

/** The integer of serial type 1–6, 8 or 9 at the column (big-endian two's complement). */
static int64_t record_integer(const uint8_t *rec, column c) {
  static const int width[] = {0, 1, 2, 3, 4, 6, 8};
  if (c.type == 8 || c.type == 9) return c.type - 8;
  const int w = width[c.type];
  uint64_t u = 0;
  for (int i = 0; i < w; i++) u = u << 8 | rec[c.at + i];
  if (w < 8 && (u >> (8 * w - 1)) & 1) u |= ~(uint64_t)0 << (8 * w);
  return (int64_t)u;
}

/**
 * fingerprint(hashKey(text)) of a non-empty ASCII TEXT value, as hashFingerprint in
 * src/main/chain/direct/columns.ts computes it (two FNV-1a-style lanes over "s:" + text, four bytes
 * a step, folded to 52 bits); 0 for non-ASCII text, which TypeScript fingerprints.
 */
static int hash_fingerprint(const uint8_t *s, size_t n, double *out) {
  const uint32_t P_A = 0x01000193, P_B = 0x5bd1e995;
  uint32_t a = ((0x811c9dc5u ^ 0x73) * P_A ^ 0x3a) * P_A;
  uint32_t b = ((0x01000193u ^ 0x73) * P_B ^ 0x3a) * P_B;
  unsigned high = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    high |= s[i] | s[i + 1] | s[i + 2] | s[i + 3];
    const uint32_t w = (uint32_t)s[i] | (uint32_t)s[i + 1] << 8 | (uint32_t)s[i + 2] << 16 | (uint32_t)s[i + 3] << 24;
    a = (a ^ w) * P_A;
    b = (b ^ w) * P_B;
  }
  for (; i < n; i++) {
    high |= s[i];
    a = (a ^ s[i]) * P_A;
    b = (b ^ s[i]) * P_B;
  }
  if (high > 0x7f) return 0;
  *out = (double)a * 1048576.0 + (double)((b >> 12) & 0xfffff);
  return 1;
}

/**
 * proveRow(record, types, offsets): a row read by the direct reader (its record bytes, and the
 * serial type and offset of each column) proven clean, as the TypeScript fast path proves it: the
 * span tail agrees with timestamp_ns, span_name and span_kind; prev_hash equals the link;
 * canonical_hash is hex(SHA-256(body)); hmac_hash is hex(HMAC(key, prev ‖ canonical)). Then, and
 * only then, the link becomes that hmac. False means only "not proven here": the caller decides the
 * row the ordinary way, and the link is unchanged.
 */
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
  const size_t ncols = nt < no ? nt : no;
  const int32_t *k = pr->cols;
  column body, ch, prev, mac, ts, name, kind;
  if (!column_at(types, offs, ncols, k[C_BODY], len, &body) || body.type < 12 ||
      !column_at(types, offs, ncols, k[C_CH], len, &ch) || ch.type != HEX64_TEXT ||
      !column_at(types, offs, ncols, k[C_PREV], len, &prev) || prev.type != HEX64_TEXT ||
      !column_at(types, offs, ncols, k[C_MAC], len, &mac) || mac.type != HEX64_TEXT ||
      !column_at(types, offs, ncols, k[C_TS], len, &ts) ||
      !column_at(types, offs, ncols, k[C_NAME], len, &name))
    return boolean(env, 0);
  const int has_kind = k[C_KIND] >= 0;
  if (has_kind && !column_at(types, offs, ncols, k[C_KIND], len, &kind)) return boolean(env, 0);
  if (memcmp(rec + prev.at, pr->link, 64) != 0) return boolean(env, 0);
  const size_t body_len = serial_size(body.type);
  if (!span_tail_agrees(rec, rec + body.at, body_len, ts, name, has_kind ? &kind : NULL))
    return boolean(env, 0);
  uint8_t digest[32], hex[64];
  sha256(rec + body.at, body_len, digest);
  to_hex(digest, hex);
  if (memcmp(rec + ch.at, hex, 64) != 0) return boolean(env, 0);
  uint8_t msg[128];
  memcpy(msg, pr->link, 64);
  memcpy(msg + 64, hex, 64);
  hmac(&pr->key, msg, 128, digest);
  to_hex(digest, hex);
  if (memcmp(rec + mac.at, hex, 64) != 0) return boolean(env, 0);
  memcpy(pr->link, hex, 64);
  return boolean(env, 1);
}

/** scanKeys(bytes, lengths): the keys of the JSON scanner, concatenated (see json_scan.h). */
static napi_value js_scan_keys(napi_env env, napi_callback_info info) {
  ARGS(2);
  prover *pr = prover_of(env);
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
static napi_value js_scan_body(napi_env env, napi_callback_info info) {
  ARGS(3);
  prover *pr = prover_of(env);
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
 * then, for pageFacts, the table's column count and the usable page size.
 */
static napi_value js_facts_columns(napi_env env, napi_callback_info info) {
  ARGS(1);
  prover *pr = prover_of(env);
  int32_t *cols;
  size_t n;
  if (pr == NULL || argc < 1 || !int32s_arg(env, argv[0], &cols, &n)) return NULL;
  if (n != 5 || cols[3] < 1 || cols[4] < 480 || cols[4] > 65536) {
    napi_throw_range_error(env, NULL, "factsColumns takes 3 column numbers, a column count and a usable page size");
    return NULL;
  }
  memcpy(pr->fcols, cols, sizeof pr->fcols);
  pr->ncols = cols[3];
  pr->usable = cols[4];
  pr->fcols_set = 1;
  return NULL;
}

enum { FACTS_JS = 4 };
enum { F_TS = 16, F_SECOND = 17, F_HI = 18, F_LO = 19, F_FP = 20, F_FP_VALUE = 21, F_SIZE = 24 };

/**
 * What the integrity monitor and the index keep of a row, from the record where it lies (see
 * src/main/native/row-facts.ts for the layout of `out`): the timestamp, and with `with_body` the
 * hash fingerprint and the body's scan verdict (scanBody's codes, spans relative to the record), or
 * FACTS_JS when the body is not TEXT or BLOB (or not asked for) and TypeScript decides its facts.
 */
static int row_facts(const prover *pr, const uint8_t *rec, size_t len, const int32_t *types, const int32_t *offs,
                     size_t ncols, double *out, int with_body) {
  column ts, body, ch;
  out[F_TS] = 0;
  if (column_at(types, offs, ncols, pr->fcols[0], len, &ts) && ((ts.type >= 1 && ts.type <= 6) || ts.type == 8 ||
                                                                 ts.type == 9)) {
    const int64_t v = record_integer(rec, ts);
    // Python's ts // 1_000_000_000 (floor); C division truncates toward zero.
    int64_t q = v / 1000000000;
    if (v < 0 && q * 1000000000 != v) q--;
    out[F_TS] = 1;
    out[F_SECOND] = (double)q;
    out[F_HI] = (double)(int32_t)(uint32_t)((uint64_t)v >> 32);
    out[F_LO] = (double)(uint32_t)(uint64_t)v;
  }
  out[F_FP] = 0;
  if (!with_body) return FACTS_JS;
  if (column_at(types, offs, ncols, pr->fcols[2], len, &ch) && ch.type >= 15 && (ch.type & 1) == 1) {
    double fp;
    if (hash_fingerprint(rec + ch.at, serial_size(ch.type), &fp)) {
      out[F_FP] = 1;
      out[F_FP_VALUE] = fp;
    }
  }
  int verdict = FACTS_JS;
  if (column_at(types, offs, ncols, pr->fcols[1], len, &body) && body.type >= 12) {
    int32_t starts[SCAN_MAX_KEYS], ends[SCAN_MAX_KEYS];
    const size_t n = serial_size(body.type);
    verdict = n > 0x7fffffff ? SCAN_BAIL : json_scan(&pr->keys, rec + body.at, n, starts, ends);
    for (int w = 0; w < SCAN_MAX_KEYS; w++) {
      out[w] = starts[w] < 0 ? -1 : (double)(body.at + (size_t)starts[w]);
      out[8 + w] = starts[w] < 0 ? -1 : (double)(body.at + (size_t)ends[w]);
    }
  }
  return verdict;
}

/**
 * rowFacts(record, types, offsets, out): what the integrity monitor and the index keep of a row,
 * from the record where it lies (see src/main/native/row-facts.ts for the layout of `out`).
 * Returns the body's scan verdict (scanBody's codes, spans relative to the record), or 4 when the
 * body is not TEXT or BLOB and TypeScript decides its facts.
 */
static napi_value js_row_facts(napi_env env, napi_callback_info info) {
  ARGS(4);
  prover *pr = prover_of(env);
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

/** pageFacts' slots per cell: rowFacts' 24, with the rowid and the verdict in the last two. */
enum { PF_ROWID = 22, PF_VERDICT = 23, PF_STRIDE = 24, PF_MAX_COLUMNS = 64 };

/** A varint at p, all of it before `end`: its length (0 when it runs past `end`), its value in *v. */
static int varint_before(const uint8_t *p, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (int i = 0; i < 9; i++) {
    if (p + i >= end) return 0;
    if (i == 8) {
      *v = x << 8 | p[8];
      return 9;
    }
    x = x << 7 | (p[i] & 0x7f);
    if (!(p[i] & 0x80)) {
      *v = x;
      return i + 1;
    }
  }
  return 0;
}

/**
 * One cell of a table leaf, decoded as CellReader.read (src/main/chain/direct/btree.ts) decodes
 * it: the rowid, and each column's serial type and offset in the page. 0 for any cell CellReader
 * would refuse or read otherwise (an overflowing payload, a rowid beyond ±2^53, a record that
 * overruns its payload, a reserved serial type, a varint past its bounds): TypeScript decides those.
 */
static int decode_cell(const uint8_t *page, size_t len, size_t at, int32_t usable, int32_t ncols, int64_t *rowid,
                       int32_t *types, int32_t *offs) {
  const uint8_t *end = page + len;
  const uint8_t *p = page + at;
  uint64_t size, id, hs, t;
  int n;
  if (at >= len || !(n = varint_before(p, end, &size)) || size > (uint64_t)(usable - 35)) return 0;
  p += n;
  if (!(n = varint_before(p, end, &id))) return 0;
  p += n;
  *rowid = (int64_t)id;
  if (*rowid > 9007199254740991LL || *rowid < -9007199254740991LL) return 0;
  const uint8_t *base = p;
  if ((size_t)(end - base) < size || !(n = varint_before(base, base + size, &hs)) || hs < (uint64_t)n || hs > size)
    return 0;
  const uint8_t *hp = base + n, *header_end = base + hs;
  size_t dp = hs;
  for (int32_t c = 0; c < ncols; c++) {
    if (hp < header_end) {
      if (!(n = varint_before(hp, header_end, &t)) || t > 0x7fffffff || t == 10 || t == 11) return 0;
      hp += n;
      types[c] = (int32_t)t;
      offs[c] = (int32_t)(base - page + dp);
      dp += serial_size((int64_t)t);
      if (dp > size) return 0;
    } else {
      // Columns added by ALTER TABLE after the row was written are absent: NULL.
      types[c] = 0;
      offs[c] = (int32_t)(base - page + dp);
    }
  }
  return 1;
}

/**
 * pageFacts(page, header, from, out, withBody): rowFacts for the cells of a table leaf page from
 * cell `from` on (header: the page header's offset, 100 on page 1), each cell decoded here; PF_STRIDE
 * slots a cell in `out`, the rowid and the verdict in the last two. It stops before the first cell
 * it leaves to TypeScript — one decode_cell refuses, or whose timestamp is not an integer, or (with
 * the body) whose fingerprint or body facts TypeScript must decide — and returns the cells done.
 */
static napi_value js_page_facts(napi_env env, napi_callback_info info) {
  ARGS(5);
  prover *pr = prover_of(env);
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
    int32_t types[PF_MAX_COLUMNS], offs[PF_MAX_COLUMNS];
    for (int32_t i = from; i < count && done < room; i++, done++) {
      const size_t ptr = (size_t)header + 8 + 2 * (size_t)i;
      int64_t rowid;
      if (ptr + 2 > len || !decode_cell(page, len, (size_t)(page[ptr] << 8 | page[ptr + 1]), pr->usable, pr->ncols,
                                        &rowid, types, offs))
        break;
      double *o = out + (size_t)done * PF_STRIDE;
      const int verdict = row_facts(pr, page, len, types, offs, (size_t)pr->ncols, o, with_body);
      if (o[F_TS] != 1) break;
      if (with_body && (o[F_FP] != 1 || (verdict != SCAN_VALID && verdict != SCAN_INVALID && verdict != SCAN_NOT_UTF8)))
        break;
      o[PF_ROWID] = (double)rowid;
      o[PF_VERDICT] = verdict;
    }
  }
  napi_value r;
  napi_create_int32(env, done, &r);
  return r;
}

#ifndef _WIN32
/** leafTimes' geometry slots, its state slots and its results. */
enum { LT_PAGE_SIZE, LT_DB_PAGES, LT_USABLE, LT_NCOLS, LT_TS_COL, LT_GEOMETRY };
enum { LT_LEAF, LT_TO, LT_ROW, LT_STATE };
enum { LT_DONE = 0, LT_FOR_TYPESCRIPT = 1, LT_FULL = 2 };
/** collectLeaves' depth limit (collectLeaves in btree.ts refuses deeper trees too). */
enum { LL_MAX_DEPTH = 40 };

/** Where page `n`'s newest image lies in the WAL (page numbers sorted ascending), or -1. */
static double wal_offset(const int32_t *no, const double *off, size_t count, int32_t n) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (no[mid] < n)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < count && no[lo] == n ? off[lo] : -1;
}

/** Bytes read at `pos` until `len` or the end of the file (what Pager.readFull does). */
static size_t read_full(int fd, uint8_t *buf, size_t len, double pos) {
  size_t got = 0;
  while (got < len) {
    const ssize_t r = pread(fd, buf + got, len - got, (off_t)pos + (off_t)got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return got;
}

/**
 * One table leaf's rows: rowid and integer timestamp of every cell, or 0 when any cell is one
 * pageFacts would leave to TypeScript (the caller then reads the leaf there).
 */
static int leaf_times(const uint8_t *page, const int32_t *g, int32_t header, size_t row, size_t count,
                      double *seq, int64_t *seq_big, int64_t *ts, uint8_t *ts_valid) {
  const size_t len = (size_t)g[LT_PAGE_SIZE];
  int32_t types[PF_MAX_COLUMNS], offs[PF_MAX_COLUMNS];
  for (size_t i = 0; i < count; i++) {
    const size_t ptr = (size_t)header + 8 + 2 * i;
    int64_t rowid;
    column c;
    if (ptr + 2 > len ||
        !decode_cell(page, len, (size_t)(page[ptr] << 8 | page[ptr + 1]), g[LT_USABLE], g[LT_NCOLS], &rowid, types,
                     offs) ||
        !column_at(types, offs, (size_t)g[LT_NCOLS], g[LT_TS_COL], len, &c) ||
        !((c.type >= 1 && c.type <= 6) || c.type == 8 || c.type == 9))
      return 0;
    seq[row + i] = (double)rowid;
    seq_big[row + i] = rowid;
    ts[row + i] = record_integer(page, c);
    ts_valid[row + i] = 1;
  }
  return 1;
}

/** What collectLeaves walks: the file and WAL, the page geometry, and where it writes the leaves. */
typedef struct {
  int db_fd, wal_fd;
  size_t ps;
  int64_t db_pages;
  const int32_t *wal_no;
  const double *wal_off;
  size_t nwal;
  uint8_t *used;
  int32_t *pages;
  int64_t *keys;
  size_t count, cap;
  uint8_t *bufs[LL_MAX_DEPTH + 2];
} leaf_lister;

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static int lister_page(const leaf_lister *L, int64_t n, uint8_t *buf) {
  if (n < 1 || n > L->db_pages) return 0;
  const double w = L->nwal > 0 ? wal_offset(L->wal_no, L->wal_off, L->nwal, (int32_t)n) : -1;
  const size_t got = w >= 0 ? read_full(L->wal_fd, buf, L->ps, w) : read_full(L->db_fd, buf, L->ps, ((double)n - 1) * (double)L->ps);
  return got == L->ps;
}

/** Each page once (a b-tree reaching a page twice is corrupt), as collectLeaves' claim(). */
static int lister_claim(leaf_lister *L, int64_t n) {
  if (n < 1 || n > L->db_pages || L->used[n]) return 0;
  L->used[n] = 1;
  return 1;
}

static int lister_push(leaf_lister *L, int64_t n, int64_t upper) {
  if (L->count >= L->cap) return 0;
  L->pages[L->count] = (int32_t)n;
  L->keys[L->count++] = upper;
  return 1;
}

/** collectLeaves' visit (src/main/chain/direct/btree.ts), or 0 wherever TypeScript must decide. */
static int lister_visit(leaf_lister *L, int64_t n, int64_t upper, int depth) {
  if (depth > LL_MAX_DEPTH || !lister_claim(L, n)) return 0;
  uint8_t *page = L->bufs[depth];
  if (!lister_page(L, n, page)) return 0;
  const size_t ps = L->ps, h = n == 1 ? 100 : 0;
  if (page[h] == 0x0d) return lister_push(L, n, upper);
  if (page[h] != 0x05) return 0;
  const size_t cells = (size_t)(page[h + 3] << 8 | page[h + 4]);
  if (h + 12 + 2 * cells > ps) return 0;
  const int64_t right = be32(page + h + 8);
  int64_t first = right;
  if (cells > 0) {
    const size_t at = (size_t)(page[h + 12] << 8 | page[h + 13]);
    if (at + 5 > ps) return 0;
    first = be32(page + at);
  }
  uint8_t *child = L->bufs[depth + 1];
  if (!lister_page(L, first, child)) return 0;
  const int children_are_leaves = child[first == 1 ? 100 : 0] == 0x0d;
  for (size_t i = 0; i < cells; i++) {
    const size_t at = (size_t)(page[h + 12 + 2 * i] << 8 | page[h + 13 + 2 * i]);
    uint64_t key;
    if (at + 5 > ps || !varint_before(page + at + 4, page + ps, &key)) return 0;
    const int64_t c = be32(page + at);
    if (children_are_leaves ? !lister_claim(L, c) || !lister_push(L, c, (int64_t)key)
                            : !lister_visit(L, c, (int64_t)key, depth + 1))
      return 0;
  }
  return children_are_leaves ? lister_claim(L, right) && lister_push(L, right, upper)
                             : lister_visit(L, right, upper, depth + 1);
}

/**
 * collectLeaves(fds, geometry, walPages, walOffsets, root, pages, keys): the leaf pages of the table
 * b-tree rooted at `root` in key order, with the upper bound of each one's keys, as collectLeaves in
 * src/main/chain/direct/btree.ts lists them (interior pages and each interior page's first child
 * read with pread, a page's WAL image where the WAL has one). Returns how many, or -1 wherever the
 * TypeScript must decide (a page out of range or reached twice, a short read, a page of another
 * kind, a cell past its page, an absurd depth): it then lists the tree, or says what is wrong.
 */
static napi_value js_collect_leaves(napi_env env, napi_callback_info info) {
  ARGS(7);
  int32_t *fds, *g, *wal_no, *pages;
  double *wal_off;
  int64_t *keys;
  int32_t root;
  size_t nfds, ng, nwal, nwal_off, npages, nkeys;
  if (argc < 7 || !int32s_arg(env, argv[0], &fds, &nfds) || !int32s_arg(env, argv[1], &g, &ng) ||
      !int32s_arg(env, argv[2], &wal_no, &nwal) ||
      !typed_arg(env, argv[3], napi_float64_array, (void **)&wal_off, &nwal_off, "collectLeaves: walOffsets") ||
      napi_get_value_int32(env, argv[4], &root) != napi_ok || !int32s_arg(env, argv[5], &pages, &npages) ||
      !typed_arg(env, argv[6], napi_bigint64_array, (void **)&keys, &nkeys, "collectLeaves: keys"))
    return NULL;
  const int32_t ps = ng >= LT_GEOMETRY ? g[LT_PAGE_SIZE] : 0;
  if (nfds < 2 || ng < LT_GEOMETRY || nwal != nwal_off || ps < 512 || ps > 65536 || (ps & (ps - 1)) != 0 ||
      g[LT_DB_PAGES] < 1) {
    napi_throw_range_error(env, NULL, "collectLeaves: bad arguments");
    return NULL;
  }
  leaf_lister L = {fds[0], fds[1], (size_t)ps, g[LT_DB_PAGES], wal_no, wal_off, nwal, NULL, pages, keys, 0,
                   npages < nkeys ? npages : nkeys, {NULL}};
  int ok = (L.used = calloc((size_t)g[LT_DB_PAGES] + 1, 1)) != NULL;
  for (int d = 0; ok && d < LL_MAX_DEPTH + 2; d++) ok = (L.bufs[d] = malloc((size_t)ps)) != NULL;
  ok = ok && lister_visit(&L, root, INT64_MAX, 0);
  free(L.used);
  for (int d = 0; d < LL_MAX_DEPTH + 2; d++) free(L.bufs[d]);
  napi_value r;
  napi_create_int64(env, ok ? (int64_t)L.count : -1, &r);
  return r;
}

/**
 * leafTimes(fds, geometry, walPages, walOffsets, leaves, state, buffer, seq, seqBig, ts, tsValid):
 * the rowid and timestamp of every row of table leaves [state[0], state[1]) of `leaves`, read here
 * with pread (runs of consecutive pages in one call; a page's WAL image where the WAL has one) and
 * written from row state[2] on. It stops at the end, before a leaf it leaves to TypeScript (a page
 * out of range or past the end of the file, not a table leaf, a cell pageFacts would refuse, a
 * timestamp that is not an integer) or before a leaf the arrays have no room for; state[0] and
 * state[2] then say where. Returns LT_DONE, LT_FOR_TYPESCRIPT or LT_FULL. Nothing is written to any
 * file: both descriptors are the caller's, opened read-only.
 */
static napi_value js_leaf_times(napi_env env, napi_callback_info info) {
  ARGS(11);
  int32_t *fds, *g, *wal_no, *leaves;
  double *wal_off, *state, *seq;
  int64_t *seq_big, *ts;
  uint8_t *buf, *ts_valid;
  size_t nfds, ng, nwal, nwal_off, nleaves, nstate, nbuf, nseq, nseq_big, nts, nvalid;
  if (argc < 11 || !int32s_arg(env, argv[0], &fds, &nfds) || !int32s_arg(env, argv[1], &g, &ng) ||
      !int32s_arg(env, argv[2], &wal_no, &nwal) ||
      !typed_arg(env, argv[3], napi_float64_array, (void **)&wal_off, &nwal_off, "leafTimes: walOffsets") ||
      !int32s_arg(env, argv[4], &leaves, &nleaves) ||
      !typed_arg(env, argv[5], napi_float64_array, (void **)&state, &nstate, "leafTimes: state") ||
      !bytes_arg(env, argv[6], &buf, &nbuf) ||
      !typed_arg(env, argv[7], napi_float64_array, (void **)&seq, &nseq, "leafTimes: seq") ||
      !typed_arg(env, argv[8], napi_bigint64_array, (void **)&seq_big, &nseq_big, "leafTimes: seqBig") ||
      !typed_arg(env, argv[9], napi_bigint64_array, (void **)&ts, &nts, "leafTimes: ts") ||
      !bytes_arg(env, argv[10], &ts_valid, &nvalid))
    return NULL;
  size_t cap = nseq;
  if (nseq_big < cap) cap = nseq_big;
  if (nts < cap) cap = nts;
  if (nvalid < cap) cap = nvalid;
  const int32_t ps = ng >= LT_GEOMETRY ? g[LT_PAGE_SIZE] : 0;
  // Written as !(in range) so that a NaN is refused too.
  if (nfds < 2 || ng < LT_GEOMETRY || nwal != nwal_off || nstate < LT_STATE || ps < 512 || ps > 65536 ||
      (ps & (ps - 1)) != 0 || nbuf < (size_t)ps || g[LT_NCOLS] < 1 || g[LT_NCOLS] > PF_MAX_COLUMNS ||
      g[LT_USABLE] < 480 || g[LT_USABLE] > ps || !(state[LT_LEAF] >= 0 && state[LT_LEAF] <= (double)nleaves) ||
      !(state[LT_TO] >= 0 && state[LT_TO] <= (double)nleaves) ||
      !(state[LT_ROW] >= 0 && state[LT_ROW] <= (double)cap)) {
    napi_throw_range_error(env, NULL, "leafTimes: bad arguments");
    return NULL;
  }
  const size_t run_pages = nbuf / (size_t)ps;
  size_t l = (size_t)state[LT_LEAF], row = (size_t)state[LT_ROW];
  const size_t to = (size_t)state[LT_TO];
  int result = LT_DONE;
  while (l < to && result == LT_DONE) {
    const int32_t n = leaves[l];
    if (n < 1 || n > g[LT_DB_PAGES]) {
      result = LT_FOR_TYPESCRIPT;
      break;
    }
    // A run: this page and the ones following it in the file, none of them in the WAL.
    const double in_wal = nwal > 0 ? wal_offset(wal_no, wal_off, nwal, n) : -1;
    size_t k = l + 1;
    if (in_wal < 0)
      while (k < to && k - l < run_pages && leaves[k] == leaves[k - 1] + 1 && leaves[k] <= g[LT_DB_PAGES] &&
             (nwal == 0 || wal_offset(wal_no, wal_off, nwal, leaves[k]) < 0))
        k++;
    const size_t want = (k - l) * (size_t)ps;
    const size_t got = in_wal >= 0 ? read_full(fds[1], buf, (size_t)ps, in_wal)
                                   : read_full(fds[0], buf, want, ((double)n - 1) * ps);
    const size_t pages = got / (size_t)ps;
    if (pages == 0) {
      result = LT_FOR_TYPESCRIPT;
      break;
    }
    for (size_t j = 0; j < pages; j++, l++) {
      const uint8_t *page = buf + j * (size_t)ps;
      const int32_t header = leaves[l] == 1 ? 100 : 0;
      if (page[header] != 0x0d) {
        result = LT_FOR_TYPESCRIPT;
        break;
      }
      const size_t count = (size_t)(page[header + 3] << 8 | page[header + 4]);
      if (row + count > cap) {
        result = LT_FULL;
        break;
      }
      if (!leaf_times(page, g, header, row, count, seq, seq_big, ts, ts_valid)) {
        result = LT_FOR_TYPESCRIPT;
        break;
      }
      row += count;
    }
  }
  state[LT_LEAF] = (double)l;
  state[LT_ROW] = (double)row;
  napi_value r;
  napi_create_int32(env, result, &r);
  return r;
}

/** windowFacts' row columns (arguments 7 to 12) and its state slots. */
enum { WF_SEQ, WF_SEQ_BIG, WF_TS, WF_SECONDS, WF_FP, WF_PROVIDER, WF_COLUMNS };
enum { WF_START, WF_LEAVES, WF_STATE };
/** Provider signatures a window may hold (the provider column is a Uint16Array). */
enum { WF_MAX_SIGNATURES = 65535, WF_TABLE = 1 << 17 };

/**
 * The provider signatures of a window: the bytes that decide a row's provider (its scan verdict,
 * then the raw value spans of the two provider attributes), each distinct one numbered in order
 * of first appearance; TypeScript turns each into a name once (body-scan.ts decides it).
 */
typedef struct {
  uint8_t *arena;
  size_t used, cap;
  size_t *at;
  uint32_t *len;
  int32_t *table;
  size_t count;
} signatures;

static void signatures_free(signatures *S) {
  free(S->arena);
  free(S->at);
  free(S->len);
  free(S->table);
}

/** The number of the signature `bytes`, added if new; -1 when out of memory or room. */
static int32_t signature_id(signatures *S, const uint8_t *bytes, size_t n) {
  uint32_t h = 0x811c9dc5u;
  for (size_t i = 0; i < n; i++) h = (h ^ bytes[i]) * 0x01000193u;
  for (size_t slot = h & (WF_TABLE - 1);; slot = (slot + 1) & (WF_TABLE - 1)) {
    const int32_t id = S->table[slot];
    if (id < 0) {
      if (S->count >= WF_MAX_SIGNATURES) return -1;
      if (S->used + n > S->cap) {
        const size_t cap = (S->used + n) * 2;
        uint8_t *a = realloc(S->arena, cap);
        if (a == NULL) return -1;
        S->arena = a;
        S->cap = cap;
      }
      memcpy(S->arena + S->used, bytes, n);
      S->at[S->count] = S->used;
      S->len[S->count] = (uint32_t)n;
      S->used += n;
      S->table[slot] = (int32_t)S->count;
      return (int32_t)S->count++;
    }
    if (S->len[id] == n && memcmp(S->arena + S->at[id], bytes, n) == 0) return id;
  }
}

/** What windowFacts walks: the file, the rows it still wants and where it writes them. */
typedef struct {
  const prover *pr;
  int db_fd, wal_fd;
  size_t ps, run_pages;
  int64_t db_pages, steps;
  const int32_t *wal_no;
  const double *wal_off;
  size_t nwal;
  /** The read-behind run: pages [behind_first, behind_first + behind_count) of the file. */
  uint8_t *behind;
  int64_t behind_first, behind_count;
  uint8_t *wal_page;
  uint8_t *bufs[LL_MAX_DEPTH + 2];
  /** Rows still wanted; the next row is written just below `pos`. */
  size_t left, pos;
  double *seq, *seconds, *fp;
  int64_t *seq_big, *ts;
  uint16_t *provider;
  int32_t *leaf_pages;
  int64_t *leaf_keys;
  size_t leaves, leaf_cap;
  signatures sig;
  uint8_t *scratch;
  size_t scratch_cap;
} window_walk;

/** Page `n` as Pager.pageBehind serves it (a run of the file ending at `n`, or its WAL image); NULL to give up. */
static const uint8_t *window_page(window_walk *W, int64_t n) {
  if (n < 1 || n > W->db_pages) return NULL;
  const double w = W->nwal > 0 ? wal_offset(W->wal_no, W->wal_off, W->nwal, (int32_t)n) : -1;
  if (w >= 0) return read_full(W->wal_fd, W->wal_page, W->ps, w) == W->ps ? W->wal_page : NULL;
  if (n < W->behind_first || n >= W->behind_first + W->behind_count) {
    const int64_t first = n - (int64_t)W->run_pages + 1 > 1 ? n - (int64_t)W->run_pages + 1 : 1;
    const size_t want = (size_t)(n - first + 1) * W->ps;
    if (read_full(W->db_fd, W->behind, want, (double)(first - 1) * (double)W->ps) != want) return NULL;
    W->behind_first = first;
    W->behind_count = n - first + 1;
  }
  return W->behind + (size_t)(n - W->behind_first) * W->ps;
}

/** The provider signature of a row pageFacts' checks passed (see `signatures`). */
static int32_t window_signature(window_walk *W, const uint8_t *page, const double *o, int verdict) {
  size_t n = 1;
  if (verdict == SCAN_VALID)
    for (int k = 0; k < 2; k++) n += 4 + (o[k] < 0 ? 0 : (size_t)(o[8 + k] - o[k]));
  if (n > W->scratch_cap) {
    uint8_t *s = realloc(W->scratch, n);
    if (s == NULL) return -1;
    W->scratch = s;
    W->scratch_cap = n;
  }
  uint8_t *p = W->scratch;
  *p++ = (uint8_t)verdict;
  if (verdict == SCAN_VALID)
    for (int k = 0; k < 2; k++) {
      const uint32_t len = o[k] < 0 ? 0xffffffffu : (uint32_t)(o[8 + k] - o[k]);
      memcpy(p, &len, 4);
      p += 4;
      if (o[k] >= 0) {
        memcpy(p, page + (size_t)o[k], len);
        p += len;
      }
    }
  return signature_id(&W->sig, W->scratch, n);
}

/** One leaf's newest rows, those still wanted; 0 wherever TypeScript must decide. */
static int window_leaf(window_walk *W, const uint8_t *page, int64_t n, int64_t upper) {
  const size_t h = n == 1 ? 100 : 0, ps = W->ps;
  const size_t count = (size_t)(page[h + 3] << 8 | page[h + 4]);
  const size_t first = count > W->left ? count - W->left : 0;
  if (W->leaves >= W->leaf_cap) return 0;
  W->leaf_pages[W->leaves] = (int32_t)n;
  W->leaf_keys[W->leaves++] = upper;
  int32_t types[PF_MAX_COLUMNS], offs[PF_MAX_COLUMNS];
  double o[PF_STRIDE];
  size_t row = W->pos - (count - first);
  for (size_t i = first; i < count; i++, row++) {
    const size_t ptr = h + 8 + 2 * i;
    int64_t rowid;
    if (ptr + 2 > ps ||
        !decode_cell(page, ps, (size_t)(page[ptr] << 8 | page[ptr + 1]), W->pr->usable, W->pr->ncols, &rowid, types,
                     offs))
      return 0;
    const int verdict = row_facts(W->pr, page, ps, types, offs, (size_t)W->pr->ncols, o, 1);
    if (o[F_TS] != 1 || o[F_FP] != 1 || (verdict != SCAN_VALID && verdict != SCAN_INVALID && verdict != SCAN_NOT_UTF8))
      return 0;
    const int32_t id = window_signature(W, page, o, verdict);
    if (id < 0) return 0;
    W->seq[row] = (double)rowid;
    W->seq_big[row] = rowid;
    W->ts[row] = (int64_t)((uint64_t)(uint32_t)(int32_t)o[F_HI] << 32 | (uint32_t)o[F_LO]);
    W->seconds[row] = o[F_SECOND];
    W->fp[row] = o[F_FP_VALUE];
    W->provider[row] = (uint16_t)id;
  }
  W->pos -= count - first;
  W->left -= count - first;
  return 1;
}

/**
 * walkLeavesBackward's visit (src/main/chain/direct/btree.ts): 1 to go on, 0 when the window is
 * full, -1 wherever TypeScript must decide.
 */
static int window_visit(window_walk *W, int64_t n, int depth, int64_t upper) {
  if (depth > LL_MAX_DEPTH || ++W->steps > W->db_pages) return -1;
  const uint8_t *seen = window_page(W, n);
  if (seen == NULL) return -1;
  const size_t h = n == 1 ? 100 : 0, ps = W->ps;
  if (seen[h] == 0x0d) return window_leaf(W, seen, n, upper) ? (W->left > 0) : -1;
  if (seen[h] != 0x05) return -1;
  uint8_t *page = W->bufs[depth];
  memcpy(page, seen, ps);
  const size_t cells = (size_t)(page[h + 3] << 8 | page[h + 4]);
  if (h + 12 + 2 * cells > ps) return -1;
  int r = window_visit(W, be32(page + h + 8), depth + 1, upper);
  for (size_t i = cells; r == 1 && i-- > 0;) {
    const size_t at = (size_t)(page[h + 12 + 2 * i] << 8 | page[h + 13 + 2 * i]);
    uint64_t key;
    if (at + 4 > ps || !varint_before(page + at + 4, page + ps, &key)) return -1;
    r = window_visit(W, be32(page + at), depth + 1, (int64_t)key);
  }
  return r;
}

/**
 * windowFacts(fds, geometry, walPages, walOffsets, root, limit, seq, seqBig, ts, seconds, hashFp,
 * provider, leafPages, leafKeys, state, buffer): what the integrity monitor keeps of the newest
 * `limit` rows of the table b-tree rooted at `root`, read in one walk back from its right edge as
 * extractLastColumns reads them (walkLeavesBackward, then pageFacts' checks on every row), written
 * at the end of the row columns, oldest first. The provider column holds signature numbers; the
 * call returns the signatures (an array of Buffers: the verdict byte, then per provider attribute a
 * 32-bit length, 0xffffffff when absent, and the value's bytes), or null wherever TypeScript must
 * decide — a page or cell it would read otherwise, a row pageFacts would refuse, too many leaves
 * for leafPages — and then TypeScript reads the window. state: the first row written and the
 * leaves read (leafPages and leafKeys hold them newest first). factsColumns and scanKeys first.
 * Reads through the caller's read-only descriptors; writes nothing to any file.
 */
static napi_value js_window_facts(napi_env env, napi_callback_info info) {
  ARGS(16);
  prover *pr = prover_of(env);
  int32_t *fds, *g, *wal_no, *leaf_pages, root, limit;
  double *wal_off, *state, *cols_f[WF_COLUMNS] = {NULL};
  int64_t *cols_i[WF_COLUMNS] = {NULL}, *leaf_keys;
  uint16_t *provider;
  uint8_t *buf;
  size_t nfds, ng, nwal, nwal_off, nleaves, nkeys, nstate, nbuf, ncol[WF_COLUMNS];
  if (pr == NULL || argc < 16 || !int32s_arg(env, argv[0], &fds, &nfds) || !int32s_arg(env, argv[1], &g, &ng) ||
      !int32s_arg(env, argv[2], &wal_no, &nwal) ||
      !typed_arg(env, argv[3], napi_float64_array, (void **)&wal_off, &nwal_off, "windowFacts: walOffsets") ||
      napi_get_value_int32(env, argv[4], &root) != napi_ok || napi_get_value_int32(env, argv[5], &limit) != napi_ok ||
      !typed_arg(env, argv[6], napi_float64_array, (void **)&cols_f[WF_SEQ], &ncol[WF_SEQ], "windowFacts: seq") ||
      !typed_arg(env, argv[7], napi_bigint64_array, (void **)&cols_i[WF_SEQ_BIG], &ncol[WF_SEQ_BIG],
                 "windowFacts: seqBig") ||
      !typed_arg(env, argv[8], napi_bigint64_array, (void **)&cols_i[WF_TS], &ncol[WF_TS], "windowFacts: ts") ||
      !typed_arg(env, argv[9], napi_float64_array, (void **)&cols_f[WF_SECONDS], &ncol[WF_SECONDS],
                 "windowFacts: seconds") ||
      !typed_arg(env, argv[10], napi_float64_array, (void **)&cols_f[WF_FP], &ncol[WF_FP], "windowFacts: hashFp") ||
      !typed_arg(env, argv[11], napi_uint16_array, (void **)&provider, &ncol[WF_PROVIDER], "windowFacts: provider") ||
      !int32s_arg(env, argv[12], &leaf_pages, &nleaves) ||
      !typed_arg(env, argv[13], napi_bigint64_array, (void **)&leaf_keys, &nkeys, "windowFacts: leafKeys") ||
      !typed_arg(env, argv[14], napi_float64_array, (void **)&state, &nstate, "windowFacts: state") ||
      !bytes_arg(env, argv[15], &buf, &nbuf))
    return NULL;
  if (!pr->fcols_set || !pr->keys_set) {
    napi_throw_error(env, NULL, "windowFacts: factsColumns and scanKeys first");
    return NULL;
  }
  const int32_t ps = ng >= LT_GEOMETRY ? g[LT_PAGE_SIZE] : 0;
  int sized = limit >= 1;
  for (int c = 0; c < WF_COLUMNS; c++) sized = sized && ncol[c] >= (size_t)limit;
  if (nfds < 2 || ng < LT_GEOMETRY || nwal != nwal_off || nstate < WF_STATE || ps < 512 || ps > 65536 ||
      (ps & (ps - 1)) != 0 || nbuf < (size_t)ps || g[LT_DB_PAGES] < 1 || !sized || pr->ncols > PF_MAX_COLUMNS ||
      pr->usable > ps) {
    napi_throw_range_error(env, NULL, "windowFacts: bad arguments");
    return NULL;
  }
  window_walk W = {pr, fds[0], fds[1], (size_t)ps, nbuf / (size_t)ps, g[LT_DB_PAGES], 0, wal_no, wal_off, nwal, buf,
                   0, 0, NULL, {NULL}, (size_t)limit, (size_t)limit, cols_f[WF_SEQ], cols_f[WF_SECONDS],
                   cols_f[WF_FP], cols_i[WF_SEQ_BIG], cols_i[WF_TS], provider, leaf_pages, leaf_keys, 0,
                   nleaves < nkeys ? nleaves : nkeys, {NULL, 0, 0, NULL, NULL, NULL, 0}, NULL, 0};
  int ok = (W.wal_page = malloc((size_t)ps)) != NULL;
  for (int d = 0; ok && d < LL_MAX_DEPTH + 2; d++) ok = (W.bufs[d] = malloc((size_t)ps)) != NULL;
  ok = ok && (W.sig.at = malloc(WF_MAX_SIGNATURES * sizeof *W.sig.at)) != NULL &&
       (W.sig.len = malloc(WF_MAX_SIGNATURES * sizeof *W.sig.len)) != NULL &&
       (W.sig.table = malloc(WF_TABLE * sizeof *W.sig.table)) != NULL;
  if (ok) memset(W.sig.table, 0xff, WF_TABLE * sizeof *W.sig.table);
  ok = ok && window_visit(&W, root, 0, INT64_MAX) >= 0;
  napi_value r = NULL;
  if (ok) {
    state[WF_START] = (double)W.pos;
    state[WF_LEAVES] = (double)W.leaves;
    napi_create_array_with_length(env, W.sig.count, &r);
    for (size_t i = 0; i < W.sig.count; i++) {
      napi_value b;
      napi_create_buffer_copy(env, W.sig.len[i], W.sig.arena + W.sig.at[i], NULL, &b);
      napi_set_element(env, r, (uint32_t)i, b);
    }
  } else
    napi_get_null(env, &r);
  free(W.wal_page);
  for (int d = 0; d < LL_MAX_DEPTH + 2; d++) free(W.bufs[d]);
  signatures_free(&W.sig);
  free(W.scratch);
  return r;
}
#endif

static napi_value js_accelerated(napi_env env, napi_callback_info info) {
  (void)info;
  return boolean(env, sha256_accelerated());
}

/** forcePortable(on): tests run the portable compression on a CPU with SHA extensions. */
static napi_value js_force_portable(napi_env env, napi_callback_info info) {
  ARGS(1);
  bool on = false;
  if (argc > 0) napi_get_value_bool(env, argv[0], &on);
  sha256_force_portable(on);
  return boolean(env, sha256_accelerated());
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
      METHOD("factsColumns", js_facts_columns),
      METHOD("rowFacts", js_row_facts),
      METHOD("pageFacts", js_page_facts),
#ifndef _WIN32
      METHOD("leafTimes", js_leaf_times),
      METHOD("collectLeaves", js_collect_leaves),
      METHOD("windowFacts", js_window_facts),
#endif
      METHOD("scanKeys", js_scan_keys),
      METHOD("scanBody", js_scan_body),
      METHOD("accelerated", js_accelerated),
      METHOD("forcePortable", js_force_portable),
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}
