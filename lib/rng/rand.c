/* rand.c -- LEGACY, for demonstrations only: the sequence of glibc's
 * rand() after srand(seed) (random_r.c, TYPE_3: additive feedback
 * r[i] = r[i-3] + r[i-31], seeded by the Park-Miller LCG, 310 outputs
 * discarded, each output shifted right by one).  Reimplemented so that
 * results do not depend on the platform's C library.  One native output is
 * a 31-bit value (RAND_MAX = 2^31-1) in a 32-bit word: the top bit of every
 * u32 is zero, which is one reason never to use it.
 * Test vector: srand(1) -> 1804289383, 846930886, 1681692777. */
#include <stdlib.h>

#include "generators.h"

typedef struct glibc_rand {
    uint32_t r[34];
    unsigned i; /* slot of r[n-34], n being the index of the next value */
} glibc_rand;

int fs__rand_seed(fs_rng *rng, uint64_t seed)
{
    glibc_rand *st = malloc(sizeof *st);
    if (st == NULL)
        return FS_ENOMEM;
    int32_t r[344];
    int32_t word = (int32_t)(uint32_t)seed;
    if (word == 0)
        word = 1;
    r[0] = word;
    for (int i = 1; i < 31; i++) {
        int32_t hi = r[i - 1] / 127773, lo = r[i - 1] % 127773;
        word = 16807 * lo - 2836 * hi;
        if (word < 0)
            word += 2147483647;
        r[i] = word;
    }
    for (int i = 31; i < 34; i++)
        r[i] = r[i - 31];
    for (int i = 34; i < 344; i++)
        r[i] = (int32_t)((uint32_t)r[i - 31] + (uint32_t)r[i - 3]);
    /* Keep r[310..343]; the first output is (r[313] + r[341]) >> 1. */
    for (int i = 0; i < 34; i++)
        st->r[i] = (uint32_t)r[310 + i];
    st->i = 0;
    rng->ext = st;
    return FS_OK;
}

static void refill(fs_rng *rng)
{
    glibc_rand *g = rng->ext;
    fs_stream *s = rng->s;
    for (size_t k = 0; k < FS_RNG_BUF; k += 4) {
        /* ring of 34: slot i holds r[n-34]; r[n-31] is i+3, r[n-3] is i+31 */
        uint32_t v = g->r[(g->i + 3) % 34] + g->r[(g->i + 31) % 34];
        g->r[g->i] = v;
        g->i = (g->i + 1) % 34;
        uint32_t out = v >> 1;
        memcpy(s->buf + k, &out, 4);
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
    "rand", "LEGACY: glibc rand()/srand() sequence; demos only, never for play",
    32, 31 * 32, 32, 0, 1};

const fs_rng_vtable fs__rand_vt = {&info, refill, destroy};
