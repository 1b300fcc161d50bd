/* seed.c -- seed strings to keys and integers (docs/stream.md), and the
 * operating system's entropy.  Never time, never pid, never a fallback. */
#include <errno.h>
#include <sys/random.h>

#include "generators.h"

int fs_os_random(void *buf, size_t n)
{
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
    if (sodium_init() < 0)
        return FS_ERANDOM;
    if (vt == &fs__chacha20_vt)
        return fs__chacha20_seed(rng, seed);
    uint64_t v;
    int rc = seed ? fs_seed_to_u64(seed, &v) : fs_os_random(&v, sizeof v);
    if (rc != FS_OK)
        return rc;
    if (vt == &fs__xoshiro256ss_vt)
        fs__xoshiro256ss_seed(rng, v);
    else if (vt == &fs__pcg64_vt)
        fs__pcg64_seed(rng, v);
    else if (vt == &fs__mt19937_vt)
        return fs__mt19937_seed(rng, v);
    else if (vt == &fs__mt19937_64_vt)
        return fs__mt19937_64_seed(rng, v);
    else if (vt == &fs__splitmix64_vt)
        fs__splitmix64_seed(rng, v);
    else if (vt == &fs__rand_vt)
        return fs__rand_seed(rng, v);
    else if (vt == &fs__delphi_vt)
        fs__delphi_seed(rng, v);
    return FS_OK;
}
