/* xoshiro256ss.c -- xoshiro256** 1.0 (Blackman & Vigna, "Scrambled linear
 * pseudorandom number generators", 2021; prng.di.unimi.it).  Seeded with
 * four successive splitmix64 outputs from the integer seed, as the authors
 * advise.  Test vectors: state {1,2,3,4} -> 11520, 0, 1509978240, ...;
 * seed 42 -> 1546998764402558742, ... (shared/reference/vectors.md). */
#include "generators.h"

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void fs__xoshiro256ss_seed(fs_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        rng->st.u64[i] = fs__splitmix64_next(&seed);
}

static void refill(fs_rng *rng)
{
    uint64_t *s = rng->st.u64;
    fs_stream *out = rng->s;
    for (size_t k = 0; k < FS_RNG_BUF; k += 8) {
        uint64_t r = rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        memcpy(out->buf + k, &r, 8);
    }
    out->pos = 0;
    out->end = FS_RNG_BUF;
}

static const fs_rng_info info = {
    "xoshiro256ss", "xoshiro256** (Blackman & Vigna); fast, not cryptographic",
    64, 256, 64, 0, 0};

const fs_rng_vtable fs__xoshiro256ss_vt = {&info, refill, NULL};
