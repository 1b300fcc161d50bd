/* seed.c -- seed strings to keys and integers (docs/stream.md), and the
 * operating system's entropy.  Never time, never pid, never a fallback. */
#include <errno.h>
#include <pthread.h>
#include <sys/random.h>

#include "generators.h"

/* libsodium is initialised once, before the library's first getrandom():
 * sodium_init() reads getrandom() itself and aborts the process if a read
 * fails after its first probe succeeded, so run after our first draw it
 * turned an OS refusing a later draw into SIGABRT (issue 10).  Run first,
 * it is done before any draw of ours can be refused, and each refusal of
 * ours is an error (FS_ERANDOM), never an abort. */
static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_status;

static void sodium_setup(void)
{
    sodium_status = sodium_init() < 0 ? FS_ERANDOM : FS_OK;
}

int fs__sodium_ready(void)
{
    pthread_once(&sodium_once, sodium_setup);
    return sodium_status;
}

int fs_os_random(void *buf, size_t n)
{
    if (fs__sodium_ready() != FS_OK)
        return FS_ERANDOM;
    unsigned char *p = buf;
    while (n > 0) {
        size_t chunk = n > 256 ? 256 : n;
        ssize_t got = getrandom(p, chunk, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            sodium_memzero(buf, (size_t)(p - (unsigned char *)buf));
            return FS_ERANDOM;
        }
        p += got;
        n -= (size_t)got;
    }
    return FS_OK;
}

int fs_seed_to_key(const char *seed, uint8_t key[32])
{
    if (seed == NULL || seed[0] == '\0')
        return FS_ESEED;
    if (fs_hex_decode(seed, key, 32) == FS_OK) /* 64 hex digits: the key */
        return FS_OK;
    crypto_hash_sha256(key, (const unsigned char *)seed, strlen(seed));
    return FS_OK;
}

int fs_seed_to_u64(const char *seed, uint64_t *out)
{
    if (seed == NULL || seed[0] == '\0')
        return FS_ESEED;
    uint64_t v = 0;
    int decimal = 1;
    for (const char *p = seed; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10) {
            decimal = 0;
            break;
        }
        v = v * 10 + d;
    }
    if (!decimal) {
        unsigned char h[32];
        crypto_hash_sha256(h, (const unsigned char *)seed, strlen(seed));
        v = 0;
        for (int i = 7; i >= 0; i--)
            v = v << 8 | h[i];
    }
    *out = v;
    return FS_OK;
}

int fs__gen_seed(fs_rng *rng, const char *seed)
{
    const fs_rng_vtable *vt = rng->vt;
    if (fs__sodium_ready() != FS_OK)
        return FS_ERANDOM;
    if (vt->seed_string)
        return vt->seed_string(rng, seed);
    uint64_t v;
    int rc = seed ? fs_seed_to_u64(seed, &v) : fs_os_random(&v, sizeof v);
    if (rc != FS_OK)
        return rc;
    return vt->seed_u64(rng, v);
}
