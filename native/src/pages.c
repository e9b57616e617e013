// Walks over a chain's pages, each done in one call (see pages.h and src/main/chain/addon/leaf-pages.ts).
// An accelerator only: every SQLite file-format rule here mirrors the one TypeScript module,
// src/main/chain/sqlite/ (named at each rule), and anything this code does not decide is left to it.
// Pages are read with pread through the caller's descriptors, both opened read-only; nothing is
// written to any file.
#define _POSIX_C_SOURCE 200809L
#include "pages.h"

#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "napi_args.h"

/** leafTimes' geometry slots (the last, the fewest record fields, optional), its state slots and its results. */
enum { LT_PAGE_SIZE, LT_DB_PAGES, LT_USABLE, LT_NCOLS, LT_TS_COL, LT_GEOMETRY, LT_MIN_FIELDS = LT_GEOMETRY };
enum { LT_LEAF, LT_TO, LT_ROW, LT_ADVISED, LT_STATE };
enum { LT_DONE = 0, LT_FOR_TYPESCRIPT = 1, LT_FULL = 2 };
/**
 * The deepest page SQLite's cursor reaches (btree.c moveToChild, BTCURSOR_MAX_DEPTH - 1, the root
 * at 0): a deeper tree is corrupt to SQLite and left to TypeScript, which declines it (MAX_DEPTH).
 */
enum { LL_MAX_DEPTH = 19 };

/**
 * Cells a b-tree page may hold (btree.c MX_CELL): a page claiming more is corrupt to SQLite. Mirrors
 * maxCells and the strict cellCount of src/main/chain/sqlite/page.ts (an interior page, the root
 * included, with no cell is corrupt too: the checks `cells == 0 || cells > max_cells(...)` below).
 */
static size_t max_cells(size_t ps) { return (ps - 8) / 6; }

/**
 * The page holding the lock bytes at 2^30 (pager.c PAGER_SJ_PGNO): never a database page. Mirrors
 * lockPage in src/main/chain/sqlite/header.ts (file format §1.4).
 */
static int64_t lock_page(size_t ps) { return (int64_t)(0x40000000 / ps) + 1; }

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
static int leaf_times(const uint8_t *page, const int32_t *g, int32_t min_fields, int32_t header, size_t row,
                      size_t count, double *seq, int64_t *seq_big, int64_t *ts, uint8_t *ts_valid) {
  const size_t len = (size_t)g[LT_PAGE_SIZE];
  // An empty leaf is corrupt unless it is the root, which only TypeScript knows.
  if (count == 0 || count > max_cells(len)) return 0;
  int32_t types[PF_MAX_COLUMNS], offs[PF_MAX_COLUMNS];
  for (size_t i = 0; i < count; i++) {
    const size_t ptr = (size_t)header + 8 + 2 * i;
    int64_t rowid;
    column c;
    if (ptr + 2 > len ||
        !decode_cell(page, len, (size_t)(page[ptr] << 8 | page[ptr + 1]), g[LT_USABLE], g[LT_NCOLS], min_fields, &rowid,
                     types, offs) ||
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
  if (n < 1 || n > L->db_pages || n == lock_page(L->ps)) return 0;
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

/**
 * collectLeaves' visit (src/main/chain/direct/btree.ts), or 0 wherever TypeScript must decide. The
 * page header offsets (100 on page 1), the 12-byte interior header and its right child at offset 8
 * mirror src/main/chain/sqlite/page.ts (headerOffset, btreeHeaderSize).
 */
static int lister_visit(leaf_lister *L, int64_t n, int64_t upper, int depth) {
  if (depth > LL_MAX_DEPTH || !lister_claim(L, n)) return 0;
  uint8_t *page = L->bufs[depth];
  if (!lister_page(L, n, page)) return 0;
  const size_t ps = L->ps, h = n == 1 ? 100 : 0;
  if (page[h] == 0x0d) return lister_push(L, n, upper);
  if (page[h] != 0x05) return 0;
  const size_t cells = (size_t)(page[h + 3] << 8 | page[h + 4]);
  // An interior page without cells is corrupt to SQLite (moveToRoot, moveToChild).
  if (cells == 0 || cells > max_cells(ps) || h + 12 + 2 * cells > ps) return 0;
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
  if (children_are_leaves && depth + 1 > LL_MAX_DEPTH) return 0;
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
napi_value js_collect_leaves(napi_env env, napi_callback_info info) {
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
 * Bytes of the file asked for ahead of a pass reading it forward (posix_fadvise WILLNEED): from a
 * cold page cache the disk then has more in flight than the kernel's own 128 KB readahead — the
 * 2.26 GB bench chain read in ≈1.0 s instead of 1.4–2.3 s here. A hint: it reads nothing into our
 * memory and changes no file.
 */
enum { AHEAD_BYTES = 16 << 20 };

/** Asks for the bytes ahead of `pos`, once per half of AHEAD_BYTES; *advised: how far it has asked. */
static void advise_ahead(int fd, double pos, double *advised) {
#ifdef POSIX_FADV_WILLNEED
  if (!(*advised >= 0 && *advised <= 9e18)) *advised = 0;
  // A jump back (leaves out of file order) starts the hints again from there.
  if (pos < *advised - 2.0 * AHEAD_BYTES) *advised = pos;
  if (pos + AHEAD_BYTES / 2 < *advised) return;
  const double from = pos > *advised ? pos : *advised;
  posix_fadvise(fd, (off_t)from, (off_t)(pos + AHEAD_BYTES - from), POSIX_FADV_WILLNEED);
  *advised = pos + AHEAD_BYTES;
#else
  (void)fd;
  (void)pos;
  (void)advised;
#endif
}

/**
 * leafTimes(fds, geometry, walPages, walOffsets, leaves, state, buffer, seq, seqBig, ts, tsValid):
 * the rowid and timestamp of every row of table leaves [state[0], state[1]) of `leaves`, read here
 * with pread (runs of consecutive pages in one call; a page's WAL image where the WAL has one) and
 * written from row state[2] on (state[3]: how far ahead the file has been asked for, kept between
 * calls; see advise_ahead). It stops at the end, before a leaf it leaves to TypeScript (a page
 * out of range or past the end of the file, not a table leaf, a cell pageFacts would refuse, a
 * timestamp that is not an integer) or before a leaf the arrays have no room for; state[0] and
 * state[2] then say where. Returns LT_DONE, LT_FOR_TYPESCRIPT or LT_FULL. Nothing is written to any
 * file: both descriptors are the caller's, opened read-only.
 */
napi_value js_leaf_times(napi_env env, napi_callback_info info) {
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
  const int32_t min_fields = ng > LT_MIN_FIELDS ? g[LT_MIN_FIELDS] : 0;
  size_t l = (size_t)state[LT_LEAF], row = (size_t)state[LT_ROW];
  const size_t to = (size_t)state[LT_TO];
  int result = LT_DONE;
  while (l < to && result == LT_DONE) {
    const int32_t n = leaves[l];
    const int64_t lock = lock_page((size_t)ps);
    if (n < 1 || n > g[LT_DB_PAGES] || n == lock) {
      result = LT_FOR_TYPESCRIPT;
      break;
    }
    // A run: this page and the ones following it in the file, none of them in the WAL.
    const double in_wal = nwal > 0 ? wal_offset(wal_no, wal_off, nwal, n) : -1;
    size_t k = l + 1;
    if (in_wal < 0)
      while (k < to && k - l < run_pages && leaves[k] == leaves[k - 1] + 1 && leaves[k] <= g[LT_DB_PAGES] &&
             leaves[k] != lock &&
             (nwal == 0 || wal_offset(wal_no, wal_off, nwal, leaves[k]) < 0))
        k++;
    const size_t want = (k - l) * (size_t)ps;
    if (in_wal < 0) advise_ahead(fds[0], ((double)n - 1) * ps, &state[LT_ADVISED]);
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
      if (!leaf_times(page, g, min_fields, header, row, count, seq, seq_big, ts, ts_valid)) {
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
  const facts_setup *pr;
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
  if (n < 1 || n > W->db_pages || n == lock_page(W->ps)) return NULL;
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
  // An empty leaf is corrupt unless it is the root: TypeScript decides it.
  if (count == 0 || count > max_cells(ps) || W->leaves >= W->leaf_cap) return 0;
  W->leaf_pages[W->leaves] = (int32_t)n;
  W->leaf_keys[W->leaves++] = upper;
  double o[PF_STRIDE];
  size_t row = W->pos - (count - first);
  for (size_t i = first; i < count; i++, row++) {
    if (!leaf_cell_facts(W->pr, page, ps, h, i, o, 1)) return 0;
    const int32_t id = window_signature(W, page, o, (int)o[PF_VERDICT]);
    if (id < 0) return 0;
    W->seq[row] = o[PF_ROWID];
    W->seq_big[row] = (int64_t)o[PF_ROWID];
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
  if (cells == 0 || cells > max_cells(ps) || h + 12 + 2 * cells > ps) return -1;
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
 * lastLeafColumns reads them (walkLeavesBackward, then pageFacts' checks on every row), written
 * at the end of the row columns, oldest first. The provider column holds signature numbers; the
 * call returns the signatures (an array of Buffers: the verdict byte, then per provider attribute a
 * 32-bit length, 0xffffffff when absent, and the value's bytes), or null wherever TypeScript must
 * decide — a page or cell it would read otherwise, a row pageFacts would refuse, too many leaves
 * for leafPages — and then TypeScript reads the window. state: the first row written and the
 * leaves read (leafPages and leafKeys hold them newest first). factsColumns and scanKeys first.
 * Reads through the caller's read-only descriptors; writes nothing to any file.
 */
napi_value js_window_facts(napi_env env, napi_callback_info info) {
  ARGS(16);
  const facts_setup *pr = facts_of(env);
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
