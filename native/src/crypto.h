// SHA-256 and HMAC-SHA256 from the host's own OpenSSL — the library Node's `crypto` runs on — looked
// up in the running process, never written here. Node exports OpenSSL's symbols for addons; Electron
// does not export its BoringSSL, and there (on Linux) the system's OpenSSL is loaded instead. Where
// neither is found, crypto_ready() is 0 and the JavaScript path (node:crypto) proves every row: the
// addon's page walks still serve, its hashing is never used.
#ifndef BIJOTEL_CRYPTO_H
#define BIJOTEL_CRYPTO_H
#include <stddef.h>
#include <stdint.h>

enum { CRYPTO_NONE = 0, CRYPTO_HOST = 1, CRYPTO_SYSTEM = 2 };
/** Where SHA256_* and HMAC_* were found (looked up once per process); CRYPTO_NONE: nowhere. */
int crypto_ready(void);

/** Room for OpenSSL's SHA256_CTX (112 bytes in OpenSSL 1.1/3.x and BoringSSL), kept opaque. */
typedef struct {
  _Alignas(16) unsigned char opaque[256];
} sha256_ctx;

/** SHA256_Init / SHA256_Update / SHA256_Final; each returns 1 on success. */
int sha256_begin(sha256_ctx *c);
int sha256_add(sha256_ctx *c, const uint8_t *data, size_t len);
int sha256_end(sha256_ctx *c, uint8_t out[32]);
/** One digest (0 when the host's hash failed or is missing). */
int sha256(const uint8_t *data, size_t len, uint8_t out[32]);

/** OpenSSL's HMAC_CTX, keyed once, reused for every message under that key. */
typedef struct hmac_ctx_st hmac_ctx;
hmac_ctx *hmac_new(void);
void hmac_free(hmac_ctx *h);
/** HMAC_Init_ex with SHA-256 and the key (any length, an empty one included). */
int hmac_key(hmac_ctx *h, const uint8_t *key, size_t len);
/** HMAC-SHA256 of `msg` under the key set last (HMAC_Init_ex with a NULL key reuses it). */
int hmac(hmac_ctx *h, const uint8_t *msg, size_t len, uint8_t out[32]);
#endif
