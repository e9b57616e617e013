// A process that is not Node, for crypto-source.test.ts: native/src/crypto.c linked into a plain C
// program, where no OpenSSL is in the process — as in Electron, which does not export its BoringSSL
// — so the addon's lookup goes on to the system's library. Reads lines from stdin:
//   S <hex>             -> SHA-256 of the bytes, hex
//   H <keyhex> <msghex> -> HMAC-SHA256 under the key, twice with one context (the second reuses it)
// and first prints `source N` (crypto.h: 0 none, 1 host, 2 system).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../../native/src/crypto.h"

static size_t unhex(const char *s, uint8_t *out) {
  size_t n = 0;
  for (; s[0] && s[1] && s[0] != ' ' && s[0] != '\n'; s += 2) {
    unsigned v;
    if (sscanf(s, "%2x", &v) != 1) break;
    out[n++] = (uint8_t)v;
  }
  return n;
}

static void hex(const uint8_t d[32]) {
  for (int i = 0; i < 32; i++) printf("%02x", d[i]);
}

int main(void) {
  printf("source %d\n", crypto_ready());
  static char line[1 << 16];
  static uint8_t a[1 << 15], b[1 << 15];
  while (fgets(line, sizeof line, stdin)) {
    uint8_t d[32];
    if (line[0] == 'S') {
      const size_t n = unhex(line + 2, a);
      if (!sha256(a, n, d)) return printf("sha256 failed\n"), 1;
      hex(d);
      printf("\n");
    } else if (line[0] == 'H') {
      const char *m = strchr(line + 2, ' ');
      if (m == NULL) return 2;
      const size_t kn = unhex(line + 2, a), mn = unhex(m + 1, b);
      hmac_ctx *h = hmac_new();
      if (h == NULL || !hmac_key(h, a, kn)) return printf("hmac failed\n"), 1;
      for (int i = 0; i < 2; i++) {
        if (!hmac(h, b, mn, d)) return printf("hmac failed\n"), 1;
        hex(d);
        printf(i == 0 ? " " : "\n");
      }
      hmac_free(h);
    }
  }
  return 0;
}
