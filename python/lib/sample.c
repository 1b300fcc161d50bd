/* sample.c -- k of n without replacement, and reservoir sampling. */
#include <stdlib.h>

#include "shuffle/shuffle.h"

/* Open-addressing set of values + 1 (0 marks an empty slot). */
typedef struct set {
    uint64_t *slot;
    uint64_t mask;
    int shift;
} set;

static int set_init(set *s, size_t k)
{
    size_t cap = 16;
    int bits = 4;
    while (cap < 2 * k) {
        cap *= 2;
        bits++;
    }
    s->slot = calloc(cap, sizeof *s->slot);
    s->mask = cap - 1;
    s->shift = 64 - bits;
    return s->slot ? FS_OK : FS_ENOMEM;
}

/* Inserts v; returns 0 if it was already there. */
static int set_add(set *s, uint64_t v)
{
    uint64_t h = ((v + 1) * 0x9e3779b97f4a7c15ULL) >> s->shift;
    while (s->slot[h] != 0) {
        if (s->slot[h] == v + 1)
            return 0;
        h = (h + 1) & s->mask;
    }
    s->slot[h] = v + 1;
    return 1;
}

/* Floyd's algorithm (Bentley & Floyd, CACM 30(9), 1987): for j from n-k to
 * n-1 add a uniform t in [0, j], or j itself if t is taken; every k-subset
 * is equally likely.  The subset is then put in uniform order. */
static int floyd(uint64_t n, size_t k, uint64_t *out, fs_rng *rng)
{
    set s;
    if (set_init(&s, k) != FS_OK)
        return FS_ENOMEM;
    size_t got = 0;
    for (uint64_t j = n - k; j < n; j++) {
        uint64_t t = fs__below(rng, j + 1);
        out[got++] = set_add(&s, t) ? t : (set_add(&s, j), j);
    }
    free(s.slot);
    if (k > 1)
        fs__durstenfeld((unsigned char *)out, k, sizeof *out, rng);
    return FS_OK;
}

int fs_sample(uint64_t n, size_t k, uint64_t *out, fs_rng *rng)
{
    rng = fs__rng(rng);
    if (rng == NULL)
        return FS_ERANDOM;
    if (k > n || (k > 0 && out == NULL))
        return FS_EINVAL;
    if (k == 0)
        return rng->error;
    int rc;
    if (n / 4 <= k) {
        /* Dense: a partial shuffle of the whole index array. */
        uint64_t *idx = malloc((size_t)n * sizeof *idx);
        if (idx == NULL)
            return FS_ENOMEM;
        for (uint64_t i = 0; i < n; i++)
            idx[i] = i;
        rc = fs_shuffle_partial(idx, (size_t)n, sizeof *idx, k, rng);
        memcpy(out, idx, k * sizeof *out);
        free(idx);
    } else {
        rc = floyd(n, k, out, rng);
    }
    return rc != FS_OK ? rc : rng->error;
}

void fs_reservoir_init(fs_reservoir *r, uint64_t k, fs_rng *rng)
{
    r->k = k;
    r->seen = 0;
    r->rng = rng;
}

/* Algorithm R (Waterman; Knuth TAOCP 3.4.2): item t (0-based) replaces a
 * uniform slot with probability k/(t+1), so after m items each is in the
 * reservoir with probability k/m. */
int64_t fs_reservoir_offer(fs_reservoir *r)
{
    uint64_t t = r->seen++;
    if (t < r->k)
        return (int64_t)t;
    fs_rng *rng = fs__rng(r->rng);
    if (rng == NULL || rng->error != FS_OK)
        return -1;
    uint64_t j = fs__below(rng, t + 1);
    /* a draw the generator failed on places nothing */
    return j < r->k && rng->error == FS_OK ? (int64_t)j : -1;
}
