#include "span_tail.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

static const char HEAD[] = "{\"attributes\":";
static const char END_KEY[] = ",\"end_time_ns\":\"";
static const char KIND_KEY[] = "\",\"kind\":";
static const char NAME_KEY[] = ",\"name\":";
static const char START_KEY[] = ",\"start_time_ns\":";
static const char STATUS_CODE[] = ",\"status_code\":";
static const char STATUS_DESCRIPTION[] = ",\"status_description\":";

/** The position after `lit` if `b` holds it at `p`, else -1 (also for a negative `p`). */
static long literal_end(const uint8_t *b, size_t len, long p, const uint8_t *lit, size_t n) {
  if (p < 0 || (size_t)p + n > len || memcmp(b + p, lit, n) != 0) return -1;
  return p + (long)n;
}

/** End of the JSON string or `null` at `p` (strings as `"(?:[^"\\]|\\.)*"` reads them), or -1. */
static long value_end(const uint8_t *b, size_t len, long p) {
  if (p < 0 || (size_t)p >= len) return -1;
  if (b[p] == 'n') return literal_end(b, len, p, LIT("null"));
  if (b[p] != '"') return -1;
  for (p++; (size_t)p < len; p++) {
    const uint8_t x = b[p];
    if (x == '"') return p + 1;
    if (x == '\\') {
      if ((size_t)++p >= len) return -1;
      if (b[p] == '\n' || b[p] == '\r') return -1;
    }
  }
  return -1;
}

/** Length of a TEXT column JSON.stringify writes as itself (printable ASCII, no `"` `\`), or -1. */
static long plain_text_length(const uint8_t *rec, column c) {
  if (c.type < 13 || (c.type & 1) == 0) return -1;
  const long n = (long)((c.type - 13) >> 1);
  for (long i = 0; i < n; i++) {
    const uint8_t b = rec[c.at + i];
    if (b < 0x20 || b > 0x7e || b == '"' || b == '\\') return -1;
  }
  return n;
}

/** The integer of serial type 1–6, 8, 9 at `p` as decimal text in `out`; its length, or -1. */
static int integer_text(const uint8_t *rec, column c, char out[24]) {
  static const int width[] = {0, 1, 2, 3, 4, 6, 8};
  int64_t v;
  if (c.type == 8 || c.type == 9) {
    v = c.type - 8;
  } else if (c.type >= 1 && c.type <= 6) {
    const int w = width[c.type];
    uint64_t u = 0;
    for (int i = 0; i < w; i++) u = u << 8 | rec[c.at + i];
    if (w < 8 && (u >> (8 * w - 1)) & 1) u |= ~(uint64_t)0 << (8 * w); // sign-extend
    v = (int64_t)u;
  } else {
    return -1;
  }
  char tmp[24];
  int n = 0;
  uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + m % 10);
    m /= 10;
  } while (m != 0);
  int k = 0;
  if (v < 0) out[k++] = '-';
  while (n > 0) out[k++] = tmp[--n];
  return k;
}

static int rest_of_span_at(const uint8_t *b, size_t len, long p) {
  p = value_end(b, len, p);
  p = literal_end(b, len, p, LIT(STATUS_CODE));
  if (p < 0) return 0;
  p = literal_end(b, len, value_end(b, len, p), LIT(STATUS_DESCRIPTION));
  if (p < 0) return 0;
  p = value_end(b, len, p);
  return p >= 0 && (size_t)p == len - 1 && b[p] == '}';
}

/** The last position in [from, to] holding `,`, or from - 1. */
static long last_comma(const uint8_t *b, long from, long to) {
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(',');
  while (to - 15 >= from) {
    const int m = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(b + to - 15)), comma));
    if (m != 0) return to - 15 + (31 - __builtin_clz((unsigned)m));
    to -= 16;
  }
#endif
  while (to >= from && b[to] != ',') to--;
  return to;
}

int span_tail_agrees(const uint8_t *rec, const uint8_t *body, size_t len, column ts, column name,
                     const column *kind) {
  const long head = (long)sizeof(HEAD) - 1, start = (long)sizeof(START_KEY) - 1;
  if (len <= (size_t)head || memcmp(body, HEAD, (size_t)head) != 0) return 0;
  char ts_text[24];
  const int ts_len = integer_text(rec, ts, ts_text);
  if (ts_len < 0) return 0;
  const long name_len = plain_text_length(rec, name);
  if (name_len < 0) return 0;
  const int kind_null = kind == NULL || kind->type == 0;
  const long kind_len = kind_null ? 0 : plain_text_length(rec, *kind);
  if (kind_len < 0) return 0;
  // The last `,"start_time_ns":`: the rest of a span cannot hold it (see the TypeScript twin).
  long q = last_comma(body, head, (long)len - start);
  while (q >= head && literal_end(body, len, q, LIT(START_KEY)) < 0) q = last_comma(body, head, q - 1);
  const long segment = (long)sizeof(END_KEY) - 1 + ts_len + (long)sizeof(KIND_KEY) - 1 +
                       (kind_null ? 4 : kind_len + 2) + (long)sizeof(NAME_KEY) - 1 + name_len + 2;
  if (q < head || q - segment < head) return 0;
  long p = literal_end(body, len, q - segment, LIT(END_KEY));
  if (p < 0 || memcmp(body + p, ts_text, (size_t)ts_len) != 0) return 0;
  p = literal_end(body, len, p + ts_len, LIT(KIND_KEY));
  if (p < 0) return 0;
  if (kind_null) {
    p = literal_end(body, len, p, LIT("null"));
  } else {
    if (body[p] != '"' || memcmp(body + p + 1, rec + kind->at, (size_t)kind_len) != 0 ||
        body[p + 1 + kind_len] != '"')
      return 0;
    p += kind_len + 2;
  }
  p = literal_end(body, len, p, LIT(NAME_KEY));
  if (p < 0 || body[p] != '"' || memcmp(body + p + 1, rec + name.at, (size_t)name_len) != 0 ||
      body[p + 1 + name_len] != '"')
    return 0;
  return p + name_len + 2 == q && rest_of_span_at(body, len, q + start);
}
