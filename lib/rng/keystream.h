/* keystream.h -- the ChaCha20 keystream (RFC 8439: 256-bit key, 96-bit
 * nonce, 32-bit block counter) behind one pair of calls, for every user in
 * the library: the chacha20 generator, the bucket shuffle's labels, the
 * line keys, the keyed permutations' round keys.
 *
 * Built with OpenSSL's libcrypto (CHACHA=openssl, the default wherever
 * libcrypto 3.0+ is found), whose AVX-512 code makes the keystream about
 * twice as fast on CPUs that have it (docs/performance.md), or with
 * libsodium (CHACHA=sodium, the fallback).  The bytes are the same either
 * way -- the cipher is the same; `make check-sodium` runs the known-answer
 * vectors and goldens on the fallback build --
 * and a call that OpenSSL fails is made again with libsodium, so the
 * choice changes speed only, never output or errors. */
#ifndef FS_KEYSTREAM_H
#define FS_KEYSTREAM_H

#include <stddef.h>
#include <stdint.h>

/* out[0..len) = keystream bytes from block `counter` on (any len; the
 * counter must not wrap within the call). */
void fs__chacha20(unsigned char *out, size_t len, const unsigned char key[32],
                  const unsigned char nonce[12], uint32_t counter);

/* One step of fast key erasure (the OS-keyed generator, chacha20.c):
 * out[0][0..len), out[1][0..len), ... out[nout-1] = keystream blocks 0..
 * of (key, nonce 0) in order, len a multiple of 64; then key = the first
 * 32 bytes of the block after them (the rest of that block is discarded).
 * Nothing of the old key stays behind. */
void fs__chacha20_erase_step(unsigned char *const *out, size_t nout,
                             size_t len, unsigned char key[32]);

/* A context for one sequential stream: a call that continues where the
 * previous one ended (same key and nonce, counter = the block after it, the
 * previous len a multiple of 64) skips OpenSSL's key set-up.  NULL (always
 * with libsodium, or when out of memory) is a valid context: every call is
 * then fs__chacha20().  _free wipes the copy of the key it holds. */
typedef struct fs__chacha_ctx fs__chacha_ctx;
fs__chacha_ctx *fs__chacha_ctx_new(void);
void fs__chacha_ctx_free(fs__chacha_ctx *ctx);
void fs__chacha20_ctx(fs__chacha_ctx *ctx, unsigned char *out, size_t len,
                      const unsigned char key[32],
                      const unsigned char nonce[12], uint32_t counter);

#endif
