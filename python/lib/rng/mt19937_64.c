/* mt19937_64.c -- 64-bit Mersenne Twister (Nishimura 2000), the generator
 * of C++ std::mt19937_64, seeded as std::mt19937_64(seed).  Test vector:
 * seed 5489 -> 14514284786278117030, ...; the 10000th output is
 * 9981545732273789042 (C++ [rand.predef]). */
#include <stdlib.h>

#include "generators.h"

#define N 312
#define M 156
#define UPPER 0xffffffff80000000ULL
#define LOWER 0x7fffffffULL

typedef struct mt64 {
    uint64_t x[N];
    unsigned i;
} mt64;

static int seed_u64(fs_rng *rng, uint64_t seed)
{
    mt64 *m = malloc(sizeof *m);
    if (m == NULL)
        return FS_ENOMEM;
    m->x[0] = seed;
    for (unsigned i = 1; i < N; i++)
        m->x[i] = 6364136223846793005ULL * (m->x[i - 1] ^ (m->x[i - 1] >> 62)) + i;
    m->i = N;
    rng->ext = m;
    return FS_OK;
}

static uint64_t next(mt64 *m)
{
    if (m->i >= N) {
        for (unsigned k = 0; k < N; k++) {
            uint64_t y = (m->x[k] & UPPER) | (m->x[(k + 1) % N] & LOWER);
            m->x[k] = m->x[(k + M) % N] ^ (y >> 1) ^
                      ((y & 1u) ? 0xb5026f5aa96619e9ULL : 0);
        }
        m->i = 0;
    }
    uint64_t y = m->x[m->i++];
    y ^= (y >> 29) & 0x5555555555555555ULL;
    y ^= (y << 17) & 0x71d67fffeda60000ULL;
    y ^= (y << 37) & 0xfff7eee000000000ULL;
    return y ^ (y >> 43);
}

static void refill(fs_rng *rng)
{
    fs_stream *s = rng->s;
    for (size_t k = 0; k < FS_RNG_BUF; k += 8) {
        uint64_t v = next(rng->ext);
        memcpy(s->buf + k, &v, 8);
    }
    s->pos = 0;
    s->end = FS_RNG_BUF;
}

static void destroy(fs_rng *rng)
{
    free(rng->ext);
    rng->ext = NULL;
}

static const fs_rng_info info = {
    "mt19937_64", "64-bit Mersenne Twister, identical to C++ std::mt19937_64",
    64, 19968, 64, 0, 0};

const fs_rng_vtable fs__mt19937_64_vt = {&info, refill, destroy, seed_u64, NULL};
