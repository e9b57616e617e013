#include "json_scan.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { MAX_DEPTH = 256, OBJ = 1, ARR = 2, VALUE = 0, KEY = 1, AFTER = 2 };

int scan_keys_set(scan_keys *k, const uint8_t *bytes, const int32_t *lengths, int n) {
  if (n < 1 || n - 1 > SCAN_MAX_KEYS) return 0;
  int at = 0;
  k->length_mask = 0;
  for (int i = 0; i < n; i++) {
    if (lengths[i] < 0 || at + lengths[i] > SCAN_KEY_BYTES) return 0;
    k->off[i] = at;
    k->len[i] = lengths[i];
    if (lengths[i] > 0) memcpy(k->bytes + at, bytes + at, (size_t)lengths[i]);
    at += lengths[i];
    if (i > 0) k->length_mask |= (uint64_t)1 << (lengths[i] & 63);
  }
  k->count = n - 1;
  return 1;
}

/** Length of the valid multi-byte UTF-8 sequence at s[i] (not ASCII), or 0. */
static inline size_t utf8_sequence(const uint8_t *s, size_t i, size_t n) {
  const uint8_t c = s[i];
  if (c >= 0xc2 && c <= 0xdf) return i + 1 < n && (s[i + 1] & 0xc0) == 0x80 ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (i + 2 >= n || (s[i + 1] & 0xc0) != 0x80 || (s[i + 2] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && s[i + 1] < 0xa0) return 0; // overlong
    if (c == 0xed && s[i + 1] > 0x9f) return 0; // surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (i + 3 >= n || (s[i + 1] & 0xc0) != 0x80 || (s[i + 2] & 0xc0) != 0x80 || (s[i + 3] & 0xc0) != 0x80)
      return 0;
    if (c == 0xf0 && s[i + 1] < 0x90) return 0; // overlong
    if (c == 0xf4 && s[i + 1] > 0x8f) return 0; // above U+10FFFF
    return 4;
  }
  return 0; // a continuation byte, an overlong lead (C0, C1) or F5–FF
}

/** Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF), as Node's isUtf8. */
static int utf8_valid(const uint8_t *s, size_t n) {
  size_t i = 0;
  for (;;) {
#if defined(__SSE2__)
    // ASCII 64 bytes at a time, then 16, to the first byte with its high bit set.
    while (i + 64 <= n) {
      const __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 16));
      const __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32)), d = _mm_loadu_si128((const __m128i *)(s + i + 48));
      if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0) break;
      i += 64;
    }
    while (i + 16 <= n) {
      const int m = _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + i)));
      if (m != 0) {
        i += (size_t)__builtin_ctz((unsigned)m);
        break;
      }
      i += 16;
    }
#endif
    while (i < n && s[i] < 0x80) i++;
    if (i >= n) return 1;
    const size_t len = utf8_sequence(s, i, n);
    if (len == 0) return 0;
    i += len;
  }
}

static inline int is_ws(unsigned c) { return c <= 0x20 && (c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09); }

static inline int is_hex(unsigned x) {
  return (x >= 0x30 && x <= 0x39) || ((x | 0x20) >= 0x61 && (x | 0x20) <= 0x66);
}

/** Index of the quote closing the string whose content starts at `i`, or -1 if it is not valid. */
static inline long string_end(const uint8_t *b, size_t i, size_t end, int *escaped_out) {
  int escaped = 0;
  for (;;) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8(0x22), backslash = _mm_set1_epi8(0x5c);
    const __m128i bias = _mm_set1_epi8((char)0x80), space = _mm_set1_epi8((char)(0x20 ^ 0x80));
    while (i + 16 <= end) {
      const __m128i v = _mm_loadu_si128((const __m128i *)(b + i));
      // Unsigned v < 0x20 as a signed compare of both sides shifted by 0x80.
      const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                           _mm_cmplt_epi8(_mm_xor_si128(v, bias), space));
      const int m = _mm_movemask_epi8(special);
      if (m != 0) {
        i += (size_t)__builtin_ctz((unsigned)m);
        break;
      }
      i += 16;
    }
#endif
    if (i >= end) return -1;
    const unsigned k = b[i];
    if (k >= 0x20 && k != 0x22 && k != 0x5c) {
      i++;
    } else if (k == 0x22) {
      break;
    } else if (k == 0x5c) {
      escaped = 1;
      const unsigned e = i + 1 < end ? b[i + 1] : 0;
      if (e == 0x75) {
        if (i + 5 >= end || !is_hex(b[i + 2]) || !is_hex(b[i + 3]) || !is_hex(b[i + 4]) || !is_hex(b[i + 5]))
          return -1;
        i += 6;
      } else if (e == 0x22 || e == 0x5c || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 ||
                 e == 0x74) {
        i += 2;
      } else {
        return -1;
      }
    } else {
      return -1;
    }
  }
  *escaped_out = escaped;
  return (long)i;
}

static inline size_t digits_end(const uint8_t *b, size_t p, size_t end) {
  while (p < end && b[p] >= 0x30 && b[p] <= 0x39) p++;
  return p;
}

static inline int key_is(const scan_keys *k, const uint8_t *b, size_t ks, size_t ke, int w) {
  const size_t n = (size_t)k->len[w];
  if (ke - ks != n) return 0;
  const uint8_t *x = b + ks, *y = k->bytes + k->off[w];
  // Keys are short: a byte loop beats a call to memcmp.
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) return 0;
  return 1;
}

int json_scan(const scan_keys *k, const uint8_t *b, size_t n, int32_t starts[SCAN_MAX_KEYS],
              int32_t ends[SCAN_MAX_KEYS]) {
  if (!utf8_valid(b, n)) return SCAN_NOT_UTF8;
  // Reads at or past the end see 0, a byte the grammar rejects wherever it is met.
#define AT(q) ((q) < end ? (unsigned)b[q] : 0u)
  const size_t end = n;
  uint8_t stack[MAX_DEPTH + 1];
  size_t p = 0;
  int sp = 0, attrs_depth = -1, pending = -1, next_is_attrs = 0, state = VALUE, escaped = 0;
  size_t pending_start = 0;
  for (int w = 0; w < SCAN_MAX_KEYS; w++) starts[w] = -1;
  for (;;) {
    if (state != AFTER)
      while (p < end && is_ws(b[p])) p++;
    if (state == VALUE) {
      if (p >= end) return SCAN_INVALID;
      const unsigned c = b[p];
      if (c == 0x7b || c == 0x5b) {
        if (sp == MAX_DEPTH) return SCAN_BAIL;
        const int obj = c == 0x7b;
        stack[++sp] = obj ? OBJ : ARR;
        if (obj && next_is_attrs) attrs_depth = sp;
        next_is_attrs = 0;
        p++;
        while (p < end && is_ws(b[p])) p++;
        if (AT(p) == (obj ? 0x7du : 0x5du)) {
          p++;
          if (attrs_depth == sp) attrs_depth = -1;
          sp--;
          state = AFTER;
        } else {
          state = obj ? KEY : VALUE;
        }
        continue;
      }
      next_is_attrs = 0;
      if (c == 0x22) {
        const long e = string_end(b, p + 1, end, &escaped);
        if (e < 0) return SCAN_INVALID;
        p = (size_t)e + 1;
      } else if (c == 0x4e || c == 0x49 || (c == 0x2d && AT(p + 1) == 0x49)) {
        /* NaN, Infinity, -Infinity: not JSON (RFC 8259 §6), yet Python's json.loads reads them, and
           Python BIJOTEL's integrity monitor then reads the body's provider: TypeScript decides. */
        return SCAN_BAIL;
      } else if (c == 0x2d || (c >= 0x30 && c <= 0x39)) {
        if (c == 0x2d) p++;
        if (AT(p) == 0x30) {
          p++;
        } else {
          const size_t d = digits_end(b, p, end);
          if (d == p) return SCAN_INVALID;
          p = d;
        }
        if (AT(p) == 0x2e) {
          const size_t d = digits_end(b, p + 1, end);
          if (d == p + 1) return SCAN_INVALID;
          p = d;
        }
        const unsigned x = AT(p);
        if (x == 0x65 || x == 0x45) {
          p++;
          const unsigned s = AT(p);
          if (s == 0x2b || s == 0x2d) p++;
          const size_t d = digits_end(b, p, end);
          if (d == p) return SCAN_INVALID;
          p = d;
        }
      } else if (c == 0x74) {
        if (AT(p + 1) != 0x72 || AT(p + 2) != 0x75 || AT(p + 3) != 0x65) return SCAN_INVALID;
        p += 4;
      } else if (c == 0x66) {
        if (AT(p + 1) != 0x61 || AT(p + 2) != 0x6c || AT(p + 3) != 0x73 || AT(p + 4) != 0x65) return SCAN_INVALID;
        p += 5;
      } else if (c == 0x6e) {
        if (AT(p + 1) != 0x75 || AT(p + 2) != 0x6c || AT(p + 3) != 0x6c) return SCAN_INVALID;
        p += 4;
      } else {
        return SCAN_INVALID;
      }
      state = AFTER;
    } else if (state == KEY) {
      if (AT(p) != 0x22) return SCAN_INVALID;
      const size_t ks = p + 1;
      const long e = string_end(b, ks, end, &escaped);
      if (e < 0) return SCAN_INVALID;
      const size_t ke = (size_t)e;
      p = ke + 1;
      const int top = sp == 1 && stack[1] == OBJ;
      // An escaped key might spell a wanted one: leave such a body to JSON.parse.
      if (escaped && (top || sp == attrs_depth)) return SCAN_BAIL;
      if (AT(p) != 0x3a) {
        while (p < end && is_ws(b[p])) p++;
        if (AT(p) != 0x3a) return SCAN_INVALID;
      }
      p++;
      while (p < end && is_ws(b[p])) p++;
      if (top && key_is(k, b, ks, ke, 0)) {
        // A later "attributes" replaces an earlier one, as in JSON.parse.
        for (int w = 0; w < SCAN_MAX_KEYS; w++) starts[w] = -1;
        next_is_attrs = 1;
      } else if (sp == attrs_depth && ((k->length_mask >> ((ke - ks) & 63)) & 1) != 0) {
        // The wanted keys differ from one another: the first match is the only one.
        for (int w = 1; w <= k->count; w++) {
          if (key_is(k, b, ks, ke, w)) {
            pending = w - 1;
            pending_start = p;
            break;
          }
        }
      }
      state = VALUE;
    } else {
      if (pending >= 0 && sp == attrs_depth) {
        starts[pending] = (int32_t)pending_start;
        ends[pending] = (int32_t)p;
        pending = -1;
      }
      while (p < end && is_ws(b[p])) p++;
      if (sp == 0) return p == end ? SCAN_VALID : SCAN_INVALID;
      const unsigned c = AT(p);
      p++;
      const int kind = stack[sp];
      if (c == 0x2c) {
        state = kind == OBJ ? KEY : VALUE;
      } else if ((c == 0x7d && kind == OBJ) || (c == 0x5d && kind == ARR)) {
        if (attrs_depth == sp) attrs_depth = -1;
        sp--;
      } else {
        return SCAN_INVALID;
      }
    }
  }
#undef AT
}
