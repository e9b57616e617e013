// Reading one row of a SQLite table where it lies (see record.h).
#include "record.h"

/**
 * Bytes a value of serial type `t` takes in a record (file format §2.1). Mirrors serialSize in
 * src/main/chain/sqlite/record.ts; the reserved types 10 and 11 are refused by the callers, as strict
 * serialSize declines them.
 */
size_t serial_size(int64_t t) {
  static const size_t fixed[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
  return t < 12 ? fixed[t < 0 ? 0 : t] : (size_t)((t - 12) >> 1);
}

/** Column `i` of the record, if its bytes lie inside it. */
int column_at(const int32_t *types, const int32_t *offs, size_t ncols, int32_t i, size_t len, column *out) {
  if (i < 0 || (size_t)i >= ncols || types[i] < 0 || offs[i] < 0 || types[i] == 10 || types[i] == 11)
    return 0;
  out->type = types[i];
  out->at = (size_t)offs[i];
  return out->at <= len && serial_size(out->type) <= len - out->at;
}

/** The integer of serial type 1–6, 8 or 9 at the column (big-endian two's complement): readIntBig in src/main/chain/sqlite/record.ts. */
int64_t record_integer(const uint8_t *rec, column c) {
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
 * src/main/chain/columns/fingerprint.ts computes it (two FNV-1a-style lanes over "s:" + text, four bytes
 * a step, folded to 52 bits); 0 for non-ASCII text, which TypeScript fingerprints.
 */
int hash_fingerprint(const uint8_t *s, size_t n, double *out) {
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
 * A varint at p, all of it before `end`: its length (0 when it runs past `end`), its value in *v (file
 * format §1.3). Mirrors decodeVarint in src/main/chain/sqlite/varint.ts, unsigned: a nine-byte value
 * is read as the 64 bits; callers refuse any value TypeScript would read as negative.
 */
int varint_before(const uint8_t *p, const uint8_t *end, uint64_t *v) {
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
 * One cell of a table leaf, decoded as CellReader.read (src/main/chain/sqlite/cell.ts) decodes
 * it: the rowid, and each column's serial type and offset in the page. 0 for any cell CellReader
 * would refuse or read otherwise, which TypeScript then decides: an overflowing payload, a local
 * payload past the usable size (btree.c accessPayload), a rowid beyond ±2^53, a record header not
 * consumed exactly by its fields or fields that do not fill the payload (vdbe.c OP_Column), more
 * fields than columns, fewer than `min_fields`, a reserved serial type, a varint past its bounds.
 */
int decode_cell(const uint8_t *page, size_t len, size_t at, int32_t usable, int32_t ncols, int32_t min_fields,
                int64_t *rowid, int32_t *types, int32_t *offs) {
  if (usable < 480 || (size_t)usable > len) return 0;
  const uint8_t *end = page + usable;
  const uint8_t *p = page + at;
  uint64_t size, id, hs, t;
  int n;
  // A nine-byte payload size is read otherwise by btree.c btreeParseCellPtr (seven bits a byte
  // through all nine bytes): CellReader.read declines it.
  if (at >= (size_t)usable || !(n = varint_before(p, end, &size)) || n == 9 || size > (uint64_t)(usable - 35))
    return 0;
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
  int32_t fields = 0;
  for (int32_t c = 0; c < ncols; c++) {
    if (hp < header_end) {
      if (!(n = varint_before(hp, header_end, &t)) || t > 0x7fffffff || t == 10 || t == 11) return 0;
      hp += n;
      types[c] = (int32_t)t;
      offs[c] = (int32_t)(base - page + dp);
      dp += serial_size((int64_t)t);
      if (dp > size) return 0;
      fields++;
    } else {
      // Columns added by ALTER TABLE after the row was written, without a DEFAULT: NULL.
      types[c] = 0;
      offs[c] = (int32_t)(base - page + dp);
    }
  }
  if (hp != header_end || dp != size || fields < min_fields) return 0;
  return 1;
}

/**
 * What the integrity monitor and the index keep of a row, from the record where it lies (see
 * src/main/chain/addon/row-facts.ts for the layout of `out`): the timestamp, and with `with_body` the
 * hash fingerprint and the body's scan verdict (scanBody's codes, spans relative to the record), or
 * FACTS_JS when the body is not TEXT or BLOB (or not asked for) and TypeScript decides its facts.
 */
int row_facts(const facts_setup *pr, const uint8_t *rec, size_t len, const int32_t *types, const int32_t *offs,
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

int leaf_cell_facts(const facts_setup *pr, const uint8_t *page, size_t len, size_t header, size_t i, double *out,
                    int with_body) {
  int32_t types[PF_MAX_COLUMNS], offs[PF_MAX_COLUMNS];
  const size_t ptr = header + 8 + 2 * i;
  int64_t rowid;
  if (pr->ncols > PF_MAX_COLUMNS || ptr + 2 > len ||
      !decode_cell(page, len, (size_t)(page[ptr] << 8 | page[ptr + 1]), pr->usable, pr->ncols, pr->min_fields, &rowid,
                   types, offs))
    return 0;
  const int verdict = row_facts(pr, page, len, types, offs, (size_t)pr->ncols, out, with_body);
  if (out[F_TS] != 1) return 0;
  if (with_body && (out[F_FP] != 1 || (verdict != SCAN_VALID && verdict != SCAN_INVALID && verdict != SCAN_NOT_UTF8)))
    return 0;
  out[PF_ROWID] = (double)rowid;
  out[PF_VERDICT] = verdict;
  return 1;
}
