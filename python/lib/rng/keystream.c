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

#ifdef FS_CHACHA_OPENSSL
#include <openssl/evp.h>

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
        if (EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv) != 1)
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

void fs__chacha20(unsigned char *out, size_t len, const unsigned char key[32],
                  const unsigned char nonce[12], uint32_t counter)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int ok = c != NULL && ossl_ks(c, 1, out, len, key, nonce, counter) == 0;
    EVP_CIPHER_CTX_free(c); /* wipes the key schedule */
    if (!ok)
        sodium_ks(out, len, key, nonce, counter);
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
