// The host's OpenSSL, found by name in the running process, else (Linux) the system's (crypto.h says
// why). The prototypes are OpenSSL's own (<openssl/sha.h>, <openssl/hmac.h>, <openssl/evp.h>); the
// contexts stay opaque, so no OpenSSL header is needed to build and no struct layout is assumed
// beyond SHA256_CTX's size.
#define _GNU_SOURCE
#include "crypto.h"

#ifdef _WIN32
#include <windows.h>
static void *symbol_in(void *lib, const char *name) { return (void *)GetProcAddress((HMODULE)lib, name); }
static void *host_library(void) { return (void *)GetModuleHandleW(NULL); }
static void *system_library(void) { return NULL; }
#else
#include <dlfcn.h>
#include <pthread.h>
static void *symbol_in(void *lib, const char *name) { return dlsym(lib, name); }
static void *host_library(void) { return RTLD_DEFAULT; }
/**
 * Electron does not export its BoringSSL to addons (electron/electron#13176; #16243 was not merged),
 * so there the host has none of these names. On Linux the system's OpenSSL is then the audited
 * library, kept to this addon (RTLD_LOCAL). Not on macOS, whose /usr/lib/libcrypto apps must not load.
 */
static void *system_library(void) {
#ifdef __linux__
  static const char *const names[] = {"libcrypto.so.3", "libcrypto.so.1.1"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib != NULL) return lib;
  }
#endif
  return NULL;
}
#endif

typedef struct evp_md_st EVP_MD;
typedef struct engine_st ENGINE;

static struct {
  int (*sha_init)(void *c);
  int (*sha_update)(void *c, const void *data, size_t len);
  int (*sha_final)(unsigned char *md, void *c);
  const EVP_MD *(*evp_sha256)(void);
  hmac_ctx *(*hmac_new)(void);
  void (*hmac_free)(hmac_ctx *h);
  int (*hmac_init)(hmac_ctx *h, const void *key, int len, const EVP_MD *md, ENGINE *impl);
  int (*hmac_update)(hmac_ctx *h, const unsigned char *data, size_t len);
  int (*hmac_final)(hmac_ctx *h, unsigned char *md, unsigned int *len);
  int source; // CRYPTO_NONE, CRYPTO_HOST or CRYPTO_SYSTEM
} host;

/**
 * Every name from `lib`, or the library is not used: one library's functions, never a mix. (`lib` may
 * be NULL: glibc's RTLD_DEFAULT, the process's own symbols, is the null handle.)
 */
static int take(void *lib) {
  host.sha_init = (int (*)(void *))symbol_in(lib, "SHA256_Init");
  host.sha_update = (int (*)(void *, const void *, size_t))symbol_in(lib, "SHA256_Update");
  host.sha_final = (int (*)(unsigned char *, void *))symbol_in(lib, "SHA256_Final");
  host.evp_sha256 = (const EVP_MD *(*)(void))symbol_in(lib, "EVP_sha256");
  host.hmac_new = (hmac_ctx * (*)(void)) symbol_in(lib, "HMAC_CTX_new");
  host.hmac_free = (void (*)(hmac_ctx *))symbol_in(lib, "HMAC_CTX_free");
  host.hmac_init = (int (*)(hmac_ctx *, const void *, int, const EVP_MD *, ENGINE *))symbol_in(lib, "HMAC_Init_ex");
  host.hmac_update = (int (*)(hmac_ctx *, const unsigned char *, size_t))symbol_in(lib, "HMAC_Update");
  host.hmac_final = (int (*)(hmac_ctx *, unsigned char *, unsigned int *))symbol_in(lib, "HMAC_Final");
  return host.sha_init && host.sha_update && host.sha_final && host.evp_sha256 && host.hmac_new && host.hmac_free &&
         host.hmac_init && host.hmac_update && host.hmac_final;
}

static void look_up(void) {
  void *system = NULL;
  if (take(host_library()))
    host.source = CRYPTO_HOST;
  else if ((system = system_library()) != NULL && take(system))
    host.source = CRYPTO_SYSTEM;
  else
    host.source = CRYPTO_NONE;
}

#ifdef _WIN32
static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static BOOL CALLBACK look_up_once(PINIT_ONCE o, PVOID p, PVOID *c) {
  (void)o, (void)p, (void)c;
  look_up();
  return TRUE;
}
int crypto_ready(void) {
  InitOnceExecuteOnce(&once, look_up_once, NULL, NULL);
  return host.source;
}
#else
static pthread_once_t once = PTHREAD_ONCE_INIT;
int crypto_ready(void) {
  pthread_once(&once, look_up);
  return host.source;
}
#endif

int sha256_begin(sha256_ctx *c) { return crypto_ready() && host.sha_init(c->opaque) == 1; }
int sha256_add(sha256_ctx *c, const uint8_t *data, size_t len) {
  // An empty message may come with a null pointer (an empty typed array): nothing to add.
  return len == 0 || host.sha_update(c->opaque, data, len) == 1;
}
int sha256_end(sha256_ctx *c, uint8_t out[32]) { return host.sha_final(out, c->opaque) == 1; }

int sha256(const uint8_t *data, size_t len, uint8_t out[32]) {
  sha256_ctx c;
  return sha256_begin(&c) && sha256_add(&c, data, len) && sha256_end(&c, out);
}

hmac_ctx *hmac_new(void) { return crypto_ready() ? host.hmac_new() : NULL; }
void hmac_free(hmac_ctx *h) {
  if (h != NULL) host.hmac_free(h);
}

int hmac_key(hmac_ctx *h, const uint8_t *key, size_t len) {
  // A NULL key means "keep the last one" to HMAC_Init_ex: an empty key is passed as a real pointer.
  static const uint8_t none = 0;
  if (len > 0x7fffffff) return 0;
  return host.hmac_init(h, len > 0 ? key : &none, (int)len, host.evp_sha256(), NULL) == 1;
}

int hmac(hmac_ctx *h, const uint8_t *msg, size_t len, uint8_t out[32]) {
  unsigned int n = 0;
  return host.hmac_init(h, NULL, 0, NULL, NULL) == 1 && (len == 0 || host.hmac_update(h, msg, len) == 1) &&
         host.hmac_final(h, out, &n) == 1 && n == 32;
}
