/* fyperm.c -- forward Fisher-Yates, one value at a time: step i draws j in
 * [i, n), swaps i and j, and yields position i.  The prefix property (the
 * first h values do not depend on later steps) is what makes `-n K` the
 * head of the full output.  Sparse form: only displaced positions are kept
 * in an open-addressing map, so `-i 1-18446744073709551614 -n 2` is O(1).
 * With an fs_gnurand source this is GNU's randperm_new draw for draw. */
#include <stdlib.h>

#include "fairshuf/lines.h"
#include "internal.h"

struct fs_fyperm {
    uint64_t n, h, i;
    uint32_t *dense;     /* n <= 2^32 and dense: the array itself */
    uint64_t *keys;      /* sparse: position + 1 (0 = empty) */
    uint64_t *vals;
    uint64_t mask;
};

int fs_fyperm_new(fs_fyperm **out, uint64_t n, uint64_t h)
{
    *out = NULL;
    if (h > n)
        return FS_EINVAL;
    fs_fyperm *p = calloc(1, sizeof *p);
    if (p == NULL)
        return FS_ENOMEM;
    p->n = n;
    p->h = h;
    int sparse = (n >= 128 * 1024 && n / 64 >= h) || n > ((uint64_t)1 << 32);
    if (!sparse) {
        p->dense = malloc((size_t)(n ? n : 1) * sizeof *p->dense);
        if (p->dense == NULL) {
            free(p);
            return FS_ENOMEM;
        }
        for (uint64_t i = 0; i < n; i++)
            p->dense[i] = (uint32_t)i;
    } else {
        /* one insertion per step: a table of >= 2h slots stays half empty */
        uint64_t cap = 16;
        while (cap < 2 * h && cap < ((uint64_t)1 << 62))
            cap <<= 1;
        if (cap > SIZE_MAX / 16) {
            free(p);
            return FS_ENOMEM;
        }
        p->keys = calloc((size_t)cap, sizeof *p->keys);
        p->vals = malloc((size_t)cap * sizeof *p->vals);
        if (p->keys == NULL || p->vals == NULL) {
            free(p->keys);
            free(p->vals);
            free(p);
            return FS_ENOMEM;
        }
        p->mask = cap - 1;
    }
    *out = p;
    return FS_OK;
}

void fs_fyperm_free(fs_fyperm *p)
{
    if (p == NULL)
        return;
    free(p->dense);
    free(p->keys);
    free(p->vals);
    free(p);
}

static inline uint64_t slot_of(const fs_fyperm *p, uint64_t pos)
{
    uint64_t s = (pos * 0x9E3779B97F4A7C15u) >> 20;
    for (s &= p->mask;; s = (s + 1) & p->mask)
        if (p->keys[s] == pos + 1 || p->keys[s] == 0)
            return s;
}

static inline uint64_t sparse_get(const fs_fyperm *p, uint64_t pos)
{
    uint64_t s = slot_of(p, pos);
    return p->keys[s] ? p->vals[s] : pos;
}

static inline void sparse_set(fs_fyperm *p, uint64_t pos, uint64_t v)
{
    uint64_t s = slot_of(p, pos);
    p->keys[s] = pos + 1;
    p->vals[s] = v;
}

/* The dense form with the default generator: the draw for step i + LEAD
 * is made (and a[j] prefetched) while step i swaps, so the random accesses
 * overlap instead of queueing.  Draw order is unchanged. */
#define LEAD 32
static int dense_rng(fs_fyperm *p, fs_rng *rng, uint64_t *out, size_t count)
{
    uint32_t *a = p->dense;
    uint64_t js[LEAD];
    uint64_t i0 = p->i, end = p->i + count, drawn = p->i;
    while (drawn < end && drawn < i0 + LEAD) {
        uint64_t m = p->n - drawn;
        js[drawn % LEAD] = drawn + (m > 1 ? fs__below(rng, m) : 0);
        __builtin_prefetch(&a[js[drawn % LEAD]], 1);
        drawn++;
    }
    for (uint64_t i = i0; i < end; i++) {
        uint64_t j = js[i % LEAD];
        if (drawn < end) {
            uint64_t m = p->n - drawn;
            js[drawn % LEAD] = drawn + (m > 1 ? fs__below(rng, m) : 0);
            __builtin_prefetch(&a[js[drawn % LEAD]], 1);
            drawn++;
        }
        uint32_t v = a[j];
        a[j] = a[i];
        *out++ = v;
    }
    p->i = end;
    return rng->error;
}

int fs_fyperm_next(fs_fyperm *p, const fs_draws *d, uint64_t *out,
                   size_t count)
{
    if (count > p->h - p->i)
        return FS_EINVAL;
    if (p->dense && d->gnu == NULL) {
        fs_rng *rng = fs__rng(d->rng);
        if (rng == NULL)
            return FS_ERANDOM;
        return dense_rng(p, rng, out, count);
    }
    for (size_t k = 0; k < count; k++) {
        uint64_t i = p->i, r = 0;
        if (p->n - i > 1) {
            int rc = fs_draws_below(d, p->n - i, &r);
            if (rc != FS_OK)
                return rc;
        }
        uint64_t j = i + r;
        if (p->dense) {
            uint32_t v = p->dense[j];
            p->dense[j] = p->dense[i];
            out[k] = v;
        } else {
            uint64_t vi = sparse_get(p, i), vj = sparse_get(p, j);
            sparse_set(p, j, vi);
            out[k] = vj;
        }
        p->i++;
    }
    return FS_OK;
}
