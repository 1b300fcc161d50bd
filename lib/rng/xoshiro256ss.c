/* xoshiro256ss.c -- xoshiro256** 1.0 (Blackman & Vigna, "Scrambled linear
 * pseudorandom number generators", 2021; prng.di.unimi.it).  Seeded with
 * four successive splitmix64 outputs from the integer seed, as the authors
 * advise.  Test vectors: state {1,2,3,4} -> 11520, 0, 1509978240, ...;
 * seed 42 -> 1546998764402558742, ... (shared/reference/vectors.md). */
#include "generators.h"
#include "xoshiro.h"

static int seed_u64(fs_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        rng->st.u64[i] = fs__splitmix64_next(&seed);
    return FS_OK;
}

/* The state is kept in locals for the whole buffer: written through
 * rng->st it would be reloaded after every store into the buffer (the
 * compiler must assume they alias), which made refills ~3x slower. */
static void refill(fs_rng *rng)
{
    uint64_t s0 = rng->st.u64[0], s1 = rng->st.u64[1], s2 = rng->st.u64[2],
             s3 = rng->st.u64[3];
    fs_stream *out = rng->s;
    unsigned char *buf = out->buf;
    for (size_t k = 0; k < FS_RNG_BUF; k += 8) {
        uint64_t r = fs__xoshiro256ss_next(&s0, &s1, &s2, &s3);
        memcpy(buf + k, &r, 8);
    }
    rng->st.u64[0] = s0;
    rng->st.u64[1] = s1;
    rng->st.u64[2] = s2;
    rng->st.u64[3] = s3;
    out->pos = 0;
    out->end = FS_RNG_BUF;
}

static const fs_rng_info info = {
    "xoshiro256ss", "xoshiro256** (Blackman & Vigna); fast, not cryptographic",
    64, 256, 64, 0, 0};

const fs_rng_vtable fs__xoshiro256ss_vt = {&info, refill, NULL, seed_u64, NULL};
