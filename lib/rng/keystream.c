/* keystream.c -- see keystream.h.  Both implementations XOR the keystream
 * onto fs__zeros (FS_RNG_BUF bytes at a time), so no buffer is cleared
 * first. */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "generators.h"
#include "keystream.h"

static void sodium_ks(unsigned char *out, size_t len,
                      const unsigned char key[32],
                      const unsigned char nonce[12], uint32_t counter)
{
    /* sodium_init() selects libsodium's SIMD code (about 5x the portable
     * code's speed); once per process, and before any getrandom of ours
     * (seed.c).  If it fails, the portable code gives the same bytes. */
    (void)fs__sodium_ready();
    while (len > 0) {
        size_t m = len < FS_RNG_BUF ? len : FS_RNG_BUF;
        crypto_stream_chacha20_ietf_xor_ic(out, fs__zeros, m, nonce, counter,
                                           key);
        out += m;
        len -= m;
        counter += (uint32_t)(m / 64); /* m < FS_RNG_BUF only at the end */
    }
}

/* fs__chacha20_erase_step's keystream (the new key is next[0..32)). */
static void sodium_erase_step(unsigned char *const *out, size_t nout,
                              size_t len, const unsigned char key[32],
                              unsigned char next[64])
{
    static const unsigned char nonce[12];
    uint32_t blocks = (uint32_t)(len / 64);
    for (size_t i = 0; i < nout; i++)
        sodium_ks(out[i], len, key, nonce, (uint32_t)i * blocks);
    sodium_ks(next, 64, key, nonce, (uint32_t)nout * blocks);
}

#ifdef FS_CHACHA_OPENSSL
#include <openssl/evp.h>
#include <pthread.h>

struct fs__chacha_ctx {
    EVP_CIPHER_CTX *c;
    unsigned char key[32], nonce[12];
    uint32_t next; /* the block a continuing call starts at */
    int live;      /* c holds key/nonce at block next */
};

/* Sets c to (key, nonce, counter) if init, then writes len bytes; 0 on
 * success.  (OpenSSL's IV: the counter, little-endian, then the nonce.) */
static int ossl_ks(EVP_CIPHER_CTX *c, int init, unsigned char *out,
                   size_t len, const unsigned char key[32],
                   const unsigned char nonce[12], uint32_t counter)
{
    if (init) {
        unsigned char iv[16];
        for (int i = 0; i < 4; i++)
            iv[i] = (unsigned char)(counter >> (8 * i));
        memcpy(iv + 4, nonce, 12);
        /* The cipher only once per context: re-keying a context that has
         * it skips OpenSSL 3's fetch (a third of a 4 KiB call's cost). */
        const EVP_CIPHER *ciph =
            EVP_CIPHER_CTX_get0_cipher(c) != NULL ? NULL : EVP_chacha20();
        if (EVP_EncryptInit_ex(c, ciph, NULL, key, iv) != 1)
            return -1;
    }
    while (len > 0) {
        size_t m = len < FS_RNG_BUF ? len : FS_RNG_BUF;
        int got = 0;
        if (EVP_EncryptUpdate(c, out, &got, fs__zeros, (int)m) != 1 ||
            got != (int)m)
            return -1;
        out += m;
        len -= m;
    }
    return 0;
}

/* Calls without a context of their own use the thread's: set up once, keyed
 * per call, and re-keyed with the all-zero key after each call (with one
 * byte drawn after a call that ended mid-block, which overwrites the
 * keystream block OpenSSL keeps for the rest of it), so that it never
 * holds a key or output between calls -- nothing a later read of memory,
 * or a forked child, could use.  Freed when the thread exits. */
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;
static int tl_key_ok;
static _Thread_local EVP_CIPHER_CTX *tl_ctx;

static void tl_free(void *p)
{
    EVP_CIPHER_CTX_free(p); /* wipes the key schedule */
}

static void tl_key_init(void)
{
    tl_key_ok = pthread_key_create(&tl_key, tl_free) == 0;
}

static EVP_CIPHER_CTX *thread_ctx(void)
{
    if (FS_LIKELY(tl_ctx != NULL))
        return tl_ctx;
    pthread_once(&tl_once, tl_key_init);
    EVP_CIPHER_CTX *c = tl_key_ok ? EVP_CIPHER_CTX_new() : NULL;
    if (c != NULL && pthread_setspecific(tl_key, c) != 0) {
        EVP_CIPHER_CTX_free(c);
        c = NULL;
    }
    return tl_ctx = c;
}

/* Forgets the key (and, if `partial`, the kept block); a context that
 * cannot be re-keyed is freed instead. */
static void thread_ctx_wipe(EVP_CIPHER_CTX *c, int partial)
{
    static const unsigned char zero[32];
    unsigned char one;
    int got;
    if (EVP_EncryptInit_ex(c, NULL, NULL, zero, zero) != 1 ||
        (partial && EVP_EncryptUpdate(c, &one, &got, zero, 1) != 1)) {
        (void)pthread_setspecific(tl_key, NULL);
        EVP_CIPHER_CTX_free(c);
        tl_ctx = NULL;
    }
}

void fs__chacha20(unsigned char *out, size_t len, const unsigned char key[32],
                  const unsigned char nonce[12], uint32_t counter)
{
    EVP_CIPHER_CTX *c = thread_ctx();
    int ok = c != NULL && ossl_ks(c, 1, out, len, key, nonce, counter) == 0;
    if (c != NULL)
        thread_ctx_wipe(c, len % 64 != 0);
    if (!ok)
        sodium_ks(out, len, key, nonce, counter);
}

void fs__chacha20_erase_step(unsigned char *const *out, size_t nout,
                             size_t len, unsigned char key[32])
{
    static const unsigned char nonce[12];
    unsigned char next[64];
    EVP_CIPHER_CTX *c = thread_ctx();
    int ok = c != NULL;
    for (size_t i = 0; ok && i < nout; i++)
        ok = ossl_ks(c, i == 0, out[i], len, key, nonce, 0) == 0;
    ok = ok && ossl_ks(c, nout == 0, next, 64, key, nonce, 0) == 0;
    if (c != NULL)
        thread_ctx_wipe(c, 0);
    if (!ok)
        sodium_erase_step(out, nout, len, key, next);
    memcpy(key, next, 32);
    sodium_memzero(next, sizeof next);
}

fs__chacha_ctx *fs__chacha_ctx_new(void)
{
    fs__chacha_ctx *x = calloc(1, sizeof *x);
    if (x != NULL && (x->c = EVP_CIPHER_CTX_new()) == NULL) {
        free(x);
        x = NULL;
    }
    return x;
}

void fs__chacha_ctx_free(fs__chacha_ctx *x)
{
    if (x == NULL)
        return;
    EVP_CIPHER_CTX_free(x->c);
    sodium_memzero(x, sizeof *x);
    free(x);
}

void fs__chacha20_ctx(fs__chacha_ctx *x, unsigned char *out, size_t len,
                      const unsigned char key[32],
                      const unsigned char nonce[12], uint32_t counter)
{
    if (x == NULL)
        return fs__chacha20(out, len, key, nonce, counter);
    int cont = x->live && x->next == counter &&
               sodium_memcmp(x->key, key, 32) == 0 &&
               memcmp(x->nonce, nonce, 12) == 0;
    if (ossl_ks(x->c, !cont, out, len, key, nonce, counter) != 0) {
        x->live = 0;
        return sodium_ks(out, len, key, nonce, counter);
    }
    memcpy(x->key, key, 32);
    memcpy(x->nonce, nonce, 12);
    x->next = counter + (uint32_t)(len / 64);
    x->live = len % 64 == 0; /* else the next call starts mid-block */
}

#else /* libsodium only */

void fs__chacha20_erase_step(unsigned char *const *out, size_t nout,
                             size_t len, unsigned char key[32])
{
    unsigned char next[64];
    sodium_erase_step(out, nout, len, key, next);
    memcpy(key, next, 32);
    sodium_memzero(next, sizeof next);
}

void fs__chacha20(unsigned char *out, size_t len, const unsigned char key[32],
                  const unsigned char nonce[12], uint32_t counter)
{
    sodium_ks(out, len, key, nonce, counter);
}

fs__chacha_ctx *fs__chacha_ctx_new(void)
{
    return NULL;
}

void fs__chacha_ctx_free(fs__chacha_ctx *ctx)
{
    (void)ctx;
}

void fs__chacha20_ctx(fs__chacha_ctx *ctx, unsigned char *out, size_t len,
                      const unsigned char key[32],
                      const unsigned char nonce[12], uint32_t counter)
{
    (void)ctx;
    sodium_ks(out, len, key, nonce, counter);
}

#endif
