#include "sha256.h"

#include <string.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

void sha256_init(uint32_t state[8]) { memcpy(state, IV, sizeof IV); }

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void blocks_portable(uint32_t s[8], const uint8_t *p, size_t blocks) {
  uint32_t w[64];
  while (blocks--) {
    for (int t = 0; t < 16; t++)
      w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 |
             (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
      uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
      uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    for (int t = 0; t < 64; t++) {
      uint32_t t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
      uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    s[0] += a;
    s[1] += b;
    s[2] += c;
    s[3] += d;
    s[4] += e;
    s[5] += f;
    s[6] += g;
    s[7] += h;
    p += 64;
  }
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

// The SHA extensions keep the state as two registers, ABEF and CDGH, and run two rounds per
// instruction; the message schedule is four words per register, sixteen registers per block.
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_shani(uint32_t s[8], const uint8_t *p,
                                                                     size_t blocks) {
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128((const __m128i *)&s[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&s[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
  while (blocks--) {
    const __m128i abef0 = abef, cdgh0 = cdgh;
    __m128i m[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) {
      if (i < 4) {
        m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
      } else {
        __m128i x = _mm_sha256msg1_epu32(m[i - 4], m[i - 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(m[i - 1], m[i - 2], 4));
        m[i] = _mm_sha256msg2_epu32(x, m[i - 1]);
      }
      __m128i wk = _mm_add_epi32(m[i], _mm_loadu_si128((const __m128i *)&K[4 * i]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
    p += 64;
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
  _mm_storeu_si128((__m128i *)&s[0], _mm_blend_epi16(feba, dchg, 0xf0));
  _mm_storeu_si128((__m128i *)&s[4], _mm_alignr_epi8(dchg, feba, 8));
}

static int cpu_has_shani(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const int sse41 = (c >> 19) & 1, ssse3 = (c >> 9) & 1;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return sse41 && ssse3 && ((b >> 29) & 1);
}
#else
static int cpu_has_shani(void) { return 0; }
static void blocks_shani(uint32_t s[8], const uint8_t *p, size_t blocks) { blocks_portable(s, p, blocks); }
#endif

static int detected = -1;
static int portable_forced = 0;

int sha256_accelerated(void) {
  if (detected < 0) detected = cpu_has_shani();
  return detected && !portable_forced;
}

void sha256_force_portable(int on) { portable_forced = on; }

void sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
  if (sha256_accelerated())
    blocks_shani(state, data, blocks);
  else
    blocks_portable(state, data, blocks);
}

void sha256_finish(uint32_t state[8], uint64_t prefix_bytes, const uint8_t *data, size_t len,
                   uint8_t out[32]) {
  const size_t whole = len / 64;
  sha256_blocks(state, data, whole);
  uint8_t tail[128];
  const size_t rest = len - whole * 64;
  // An empty message may come with a null pointer (an empty typed array): no pointer arithmetic on it.
  if (rest > 0) memcpy(tail, data + whole * 64, rest);
  tail[rest] = 0x80;
  const size_t padded = rest + 9 <= 64 ? 64 : 128;
  memset(tail + rest + 1, 0, padded - rest - 1);
  const uint64_t bits = (prefix_bytes + len) * 8;
  for (int i = 0; i < 8; i++) tail[padded - 1 - i] = (uint8_t)(bits >> (8 * i));
  sha256_blocks(state, tail, padded / 64);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (uint8_t)(state[i] >> 24);
    out[4 * i + 1] = (uint8_t)(state[i] >> 16);
    out[4 * i + 2] = (uint8_t)(state[i] >> 8);
    out[4 * i + 3] = (uint8_t)state[i];
  }
}

void sha256(const uint8_t *data, size_t len, uint8_t out[32]) {
  uint32_t s[8];
  sha256_init(s);
  sha256_finish(s, 0, data, len, out);
}
