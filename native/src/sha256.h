// SHA-256 (FIPS 180-4) compression and one-shot digest: x86 SHA extensions where the CPU has them,
// a portable implementation otherwise. The caller learns which one runs (sha256_accelerated).
#ifndef BIJOTEL_SHA256_H
#define BIJOTEL_SHA256_H
#include <stddef.h>
#include <stdint.h>

void sha256_init(uint32_t state[8]);
/** Absorbs `blocks` whole 64-byte blocks. */
void sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);
/**
 * Finishes a message whose first `prefix_bytes` (a multiple of 64) are already absorbed in
 * `state`, with the remaining `len` bytes at `data`; writes the 32-byte digest.
 */
void sha256_finish(uint32_t state[8], uint64_t prefix_bytes, const uint8_t *data, size_t len,
                   uint8_t out[32]);
void sha256(const uint8_t *data, size_t len, uint8_t out[32]);
/** 1 when the x86 SHA extensions are used, 0 for the portable code. */
int sha256_accelerated(void);
/** For tests: 1 forces the portable code, 0 the detected one. */
void sha256_force_portable(int on);
#endif
