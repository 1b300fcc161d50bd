/* generators.h -- the generator table (one file per generator). */
#ifndef FS_GENERATORS_H
#define FS_GENERATORS_H

#include <sodium.h>

#include "../internal.h"

extern const fs_rng_vtable fs__chacha20_vt, fs__xoshiro256ss_vt,
    fs__pcg64_vt, fs__mt19937_vt, fs__mt19937_64_vt, fs__splitmix64_vt,
    fs__rand_vt, fs__delphi_vt;

/* Initialises libsodium once (seed.c says why it must come first). */
int fs__sodium_ready(void);

/* Seeds rng (rng->vt set) from the seed string, or from the OS if NULL. */
int fs__gen_seed(fs_rng *rng, const char *seed);

/* chacha20 over caller memory (at most 64 bytes: fs__child.ext). */
void fs__chacha20_keyed(fs_rng *rng, void *ext, const unsigned char key[32],
                        const unsigned char nonce[12]);

/* splitmix64's step, shared by its generator and by xoshiro's seeding. */
static inline uint64_t fs__splitmix64_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
