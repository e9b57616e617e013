// SHA-256 of a whole evidence file, read in file order on libuv's thread pool (Node-API async
// work), so the `Evidence:` line's hash starts at once — no worker thread to load — and runs beside
// verify's row workers without a byte of the file becoming a JavaScript value. Every byte the file
// holds is hashed in order, pages the reader never needs (overflow, freelist, lock-byte, the tail
// past the last whole page) included: the digest is of the file, not of the chain.
//
// Read with pread into one buffer, never mmap: a file truncated while mapped raises SIGBUS and would
// end the process, and the people handing over the evidence may still be writing it. A short read
// ends the pass; the caller compares the bytes hashed with the size it opened (change detection).
#define NAPI_VERSION 8
#define _POSIX_C_SOURCE 200809L
#include "file_hash.h"

#ifndef _WIN32
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crypto.h"

/** 256 KB: the read lands in the cache the hash then reads it from. */
#define PIECE (256 * 1024)
/** A read buffer 64 bytes past a 4 KB boundary (chain/read-buffer.ts says why). */
#define SKEW 64

typedef struct {
  sha256_ctx s;        // OpenSSL's SHA256_CTX (crypto.h): it keeps the partial block between reads
  uint64_t total;      // bytes absorbed
  int failed;          // the host's hash reported a failure: no digest is given
  uint8_t *mem;        // the allocation; `buf` = mem + SKEW
  int busy;            // an async read is running on this state
  // The async read under way.
  int fd;
  int64_t pos;
  int64_t len;
  int64_t got;
  int err;
  napi_async_work work;
  napi_deferred deferred;
  napi_ref self; // holds the JavaScript handle while a read runs, so the state is not freed under it
  // A caller's buffer the read lands in (the recovery carver scans the same bytes after the job, so
  // the file is read once for both); NULL: the private 256 KB buffer. Held by `dest_ref` meanwhile.
  uint8_t *dest;
  napi_ref dest_ref;
} file_hash;

static void absorb(file_hash *h, const uint8_t *p, size_t n) {
  h->total += n;
  if (!sha256_add(&h->s, p, n)) h->failed = 1;
}

static void free_hash(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  file_hash *h = data;
  free(h->mem);
  free(h);
}

/** fileHashStart(): a fresh hashing state (freed with its JavaScript handle). */
napi_value js_file_hash_start(napi_env env, napi_callback_info info) {
  (void)info;
  file_hash *h = calloc(1, sizeof *h);
  void *mem = NULL;
  if (h == NULL || posix_memalign(&mem, 4096, PIECE + SKEW) != 0) {
    free(h);
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  h->mem = mem;
  if (!sha256_begin(&h->s)) {
    free(h->mem);
    free(h);
    napi_throw_error(env, NULL, "the host's SHA-256 is not available");
    return NULL;
  }
  napi_value r;
  if (napi_create_external(env, h, free_hash, NULL, &r) != napi_ok) {
    free(h->mem);
    free(h);
    return NULL;
  }
  return r;
}

static file_hash *hash_arg(napi_env env, napi_value v) {
  void *p = NULL;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external || napi_get_value_external(env, v, &p) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected a file hash state");
    return NULL;
  }
  return p;
}

/** On the thread pool: `len` bytes from `pos`, or fewer at the end of the file, read and absorbed. */
static void read_execute(napi_env env, void *data) {
  (void)env;
  file_hash *h = data;
  while (h->got < h->len) {
    // Into the caller's buffer piece by piece too: each piece is hashed while it is still in cache.
    uint8_t *buf = h->dest != NULL ? h->dest + h->got : h->mem + SKEW;
    const int64_t want = h->len - h->got < PIECE ? h->len - h->got : PIECE;
    const ssize_t r = pread(h->fd, buf, (size_t)want, (off_t)(h->pos + h->got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      h->err = errno;
      return;
    }
    if (r == 0) return; // the end of the file
    absorb(h, buf, (size_t)r);
    h->got += r;
  }
}

static void read_complete(napi_env env, napi_status status, void *data) {
  file_hash *h = data;
  h->busy = 0;
  napi_value v;
  if (status != napi_ok || h->err != 0) {
    napi_value msg;
    const char *text = h->err != 0 ? strerror(h->err) : "hashing stopped";
    napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &v);
    napi_reject_deferred(env, h->deferred, v);
  } else {
    napi_create_double(env, (double)h->got, &v);
    napi_resolve_deferred(env, h->deferred, v);
  }
  napi_delete_async_work(env, h->work);
  napi_delete_reference(env, h->self);
  h->self = NULL;
  if (h->dest_ref != NULL) napi_delete_reference(env, h->dest_ref);
  h->dest_ref = NULL;
  h->dest = NULL;
}

/**
 * fileHashRead(state, fd, pos, len[, dest]): a promise of the bytes read from `pos` and absorbed —
 * `len`, or fewer where the file ends. Reads must follow one another (each `pos` where the last one
 * ended). With `dest` (a Uint8Array of at least `len` bytes) the bytes are read into it, from its
 * start; the caller must not touch it until the promise settles.
 */
napi_value js_file_hash_read(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 4) {
    napi_throw_type_error(env, NULL, "fileHashRead(state, fd, pos, len)");
    return NULL;
  }
  file_hash *h = hash_arg(env, argv[0]);
  if (h == NULL) return NULL;
  int32_t fd;
  int64_t pos, len;
  if (napi_get_value_int32(env, argv[1], &fd) != napi_ok || napi_get_value_int64(env, argv[2], &pos) != napi_ok ||
      napi_get_value_int64(env, argv[3], &len) != napi_ok || fd < 0 || pos < 0 || len < 0) {
    napi_throw_type_error(env, NULL, "fileHashRead: bad descriptor, position or length");
    return NULL;
  }
  if (h->busy || (uint64_t)pos != h->total) {
    napi_throw_error(env, NULL, "fileHashRead: reads must follow one another");
    return NULL;
  }
  uint8_t *dest = NULL;
  napi_valuetype dt = napi_undefined;
  if (argc >= 5 && napi_typeof(env, argv[4], &dt) == napi_ok && dt != napi_undefined) {
    bool is_typed = false;
    napi_typedarray_type type;
    size_t length = 0;
    void *data = NULL;
    if (napi_is_typedarray(env, argv[4], &is_typed) != napi_ok || !is_typed ||
        napi_get_typedarray_info(env, argv[4], &type, &length, &data, NULL, NULL) != napi_ok ||
        type != napi_uint8_array || (int64_t)length < len || (data == NULL && len > 0)) {
      napi_throw_type_error(env, NULL, "fileHashRead: dest must be a Uint8Array of at least len bytes");
      return NULL;
    }
    dest = data;
  }
  h->fd = fd;
  h->pos = pos;
  h->len = len;
  h->got = 0;
  h->err = 0;
  napi_value promise, name;
  napi_create_promise(env, &h->deferred, &promise);
  napi_create_string_utf8(env, "bijotel:fileHash", NAPI_AUTO_LENGTH, &name);
  if (napi_create_reference(env, argv[0], 1, &h->self) != napi_ok) return NULL;
  if (dest != NULL && napi_create_reference(env, argv[4], 1, &h->dest_ref) != napi_ok) {
    napi_delete_reference(env, h->self);
    h->self = NULL;
    return NULL;
  }
  h->dest = dest;
  if (napi_create_async_work(env, NULL, name, read_execute, read_complete, h, &h->work) != napi_ok ||
      napi_queue_async_work(env, h->work) != napi_ok) {
    napi_delete_reference(env, h->self);
    h->self = NULL;
    if (h->dest_ref != NULL) napi_delete_reference(env, h->dest_ref);
    h->dest_ref = NULL;
    h->dest = NULL;
    napi_throw_error(env, NULL, "fileHashRead: cannot queue the read");
    return NULL;
  }
  h->busy = 1;
  return promise;
}

/** fileHashDigest(state): the lowercase hex SHA-256 of every byte absorbed (the state is spent). */
napi_value js_file_hash_digest(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  file_hash *h = argc < 1 ? NULL : hash_arg(env, argv[0]);
  if (h == NULL) return NULL;
  if (h->busy) {
    napi_throw_error(env, NULL, "fileHashDigest: a read is still running");
    return NULL;
  }
  uint8_t out[32];
  if (h->failed || !sha256_end(&h->s, out)) {
    napi_throw_error(env, NULL, "fileHashDigest: the host's SHA-256 failed");
    return NULL;
  }
  static const char HEX[] = "0123456789abcdef";
  char hex[64];
  for (int i = 0; i < 32; i++) {
    hex[2 * i] = HEX[out[i] >> 4];
    hex[2 * i + 1] = HEX[out[i] & 15];
  }
  // Spent: a second digest is of the empty message, never a stale one.
  h->failed = !sha256_begin(&h->s);
  h->total = 0;
  napi_value r;
  napi_create_string_latin1(env, hex, 64, &r);
  return r;
}
#endif
