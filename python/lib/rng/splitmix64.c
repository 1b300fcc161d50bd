/* splitmix64.c -- SplitMix64 (Steele, Lea & Flood, OOPSLA 2014; Vigna's
 * splitmix64.c).  Test vector: state 1234567 -> 6457827717110365317,
 * 3203168211198807973, 9817491932198370423, ... */
#include "generators.h"

static int seed_u64(fs_rng *rng, uint64_t seed)
{
    rng->st.u64[0] = seed;
    return FS_OK;
}

static void refill(fs_rng *rng)
{
    fs_stream *s = rng->s;
    for (size_t k = 0; k < FS_RNG_BUF; k += 8) {
        uint64_t v = fs__splitmix64_next(&rng->st.u64[0]);
        memcpy(s->buf + k, &v, 8);
    }
    s->pos = 0;
    s->end = FS_RNG_BUF;
}

static const fs_rng_info info = {
    "splitmix64", "SplitMix64 (Steele, Lea & Flood); fast, 64-bit state",
    64, 64, 64, 0, 0};

const fs_rng_vtable fs__splitmix64_vt = {&info, refill, NULL, seed_u64, NULL};
