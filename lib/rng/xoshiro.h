/* xoshiro.h -- one step of xoshiro256** (xoshiro256ss.c), shared by the
 * generator's refill and by the batched shuffle, which runs the generator
 * inline once its buffer is used up (lib/shuffle/batched.c): the words are
 * the same either way.  The state is four words the caller keeps in
 * locals (through rng->st they would be reloaded after every store). */
#ifndef FS_XOSHIRO_H
#define FS_XOSHIRO_H

#include "../internal.h"

extern const fs_rng_vtable fs__xoshiro256ss_vt;

static inline uint64_t fs__rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* The next output; advances the state (s0, s1, s2, s3). */
static inline uint64_t fs__xoshiro256ss_next(uint64_t *s0, uint64_t *s1,
                                             uint64_t *s2, uint64_t *s3)
{
    uint64_t r = fs__rotl64(*s1 * 5, 7) * 9;
    uint64_t t = *s1 << 17;
    *s2 ^= *s0;
    *s3 ^= *s1;
    *s1 ^= *s2;
    *s0 ^= *s3;
    *s2 ^= t;
    *s3 = fs__rotl64(*s3, 45);
    return r;
}

#endif
