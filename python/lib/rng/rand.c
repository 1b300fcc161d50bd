/* rand.c -- LEGACY, for demonstrations only: the sequence of glibc's
 * rand() after srand(seed) (random_r.c, TYPE_3: additive feedback
 * r[i] = r[i-3] + r[i-31], seeded by the Park-Miller LCG, 310 outputs
 * discarded, each output shifted right by one).  Reimplemented so that
 * results do not depend on the platform's C library.  One native output is
 * a 31-bit value (RAND_MAX = 2^31-1).  The byte stream is the outputs'
 * bits concatenated, least significant first: output t is bits 31t ..
 * 31t+30 of the stream, byte i is bits 8i .. 8i+7 (docs/stream.md §2).  So
 * every bit of a u64 carries entropy (stream version 1 put each output in
 * a 32-bit word: bits 31 and 63 of every u64 were 0, Lemire's draws never
 * reached the upper half of a range, and rejection sampling hung).
 * Test vector: srand(1) -> 1804289383, 846930886, 1681692777, so the
 * first u64 is 1804289383 | 846930886 << 31 | (1681692777 & 3) << 62. */
#include <stdlib.h>

#include "generators.h"

typedef struct glibc_rand {
    uint32_t r[34];
    unsigned i; /* slot of r[n-34], n being the index of the next value */
    uint64_t acc; /* stream bits produced but not yet written (nacc < 32) */
    unsigned nacc;
} glibc_rand;

static int seed_u64(fs_rng *rng, uint64_t seed)
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
    st->acc = 0;
    st->nacc = 0;
    rng->ext = st;
    return FS_OK;
}

/* rand(): the next 31-bit output. */
static uint32_t next(glibc_rand *g)
{
    /* ring of 34: slot i holds r[n-34]; r[n-31] is i+3, r[n-3] is i+31 */
    uint32_t v = g->r[(g->i + 3) % 34] + g->r[(g->i + 31) % 34];
    g->r[g->i] = v;
    g->i = (g->i + 1) % 34;
    return v >> 1;
}

static void refill(fs_rng *rng)
{
    glibc_rand *g = rng->ext;
    fs_stream *s = rng->s;
    uint64_t acc = g->acc;
    unsigned nacc = g->nacc;
    for (size_t k = 0; k < FS_RNG_BUF; k += 4) {
        while (nacc < 32) { /* nacc + 31 <= 62: fits */
            acc |= (uint64_t)next(g) << nacc;
            nacc += 31;
        }
        uint32_t out = (uint32_t)acc;
        acc >>= 32;
        nacc -= 32;
        memcpy(s->buf + k, &out, 4);
    }
    g->acc = acc;
    g->nacc = nacc;
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
    31, 31 * 32, 32, 0, 1};

const fs_rng_vtable fs__rand_vt = {&info, refill, destroy, seed_u64, NULL};
