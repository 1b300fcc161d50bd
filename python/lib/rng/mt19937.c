/* mt19937.c -- 32-bit Mersenne Twister (Matsumoto & Nishimura 1998), the
 * generator of C++ std::mt19937, seeded as std::mt19937(seed) (seed taken
 * mod 2^32).  Test vector: seed 5489 -> 3499211612, 581869302, 3890346734;
 * the 10000th output is 4123659995 (C++ [rand.predef]). */
#include <stdlib.h>

#include "generators.h"

#define N 624
#define M 397

typedef struct mt {
    uint32_t x[N];
    unsigned i;
} mt;

static int seed_u64(fs_rng *rng, uint64_t seed)
{
    mt *m = malloc(sizeof *m);
    if (m == NULL)
        return FS_ENOMEM;
    m->x[0] = (uint32_t)seed;
    for (unsigned i = 1; i < N; i++)
        m->x[i] = 1812433253u * (m->x[i - 1] ^ (m->x[i - 1] >> 30)) + i;
    m->i = N;
    rng->ext = m;
    return FS_OK;
}

static uint32_t next(mt *m)
{
    if (m->i >= N) {
        for (unsigned k = 0; k < N; k++) {
            uint32_t y = (m->x[k] & 0x80000000u) |
                         (m->x[(k + 1) % N] & 0x7fffffffu);
            m->x[k] = m->x[(k + M) % N] ^ (y >> 1) ^
                      ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        m->i = 0;
    }
    uint32_t y = m->x[m->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static void refill(fs_rng *rng)
{
    fs_stream *s = rng->s;
    for (size_t k = 0; k < FS_RNG_BUF; k += 4) {
        uint32_t v = next(rng->ext);
        memcpy(s->buf + k, &v, 4);
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
    "mt19937", "32-bit Mersenne Twister, identical to C++ std::mt19937",
    32, 19937, 32, 0, 0};

const fs_rng_vtable fs__mt19937_vt = {&info, refill, destroy, seed_u64, NULL};
