/* weighted.c -- Efraimidis-Spirakis weighted order and sampling in log
 * space (<fairshuf/weighted.h>). */
#include <math.h>
#include <stdlib.h>

#include "fairshuf/weighted.h"
#include "internal.h"

typedef struct keyed_index {
    double key;
    uint64_t i;
} keyed_index;

static int by_key(const void *a, const void *b)
{
    const keyed_index *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Keys log(-log U) - log w, sorted: the first is the first weighted draw. */
static int sorted_keys(const double *w, size_t n, keyed_index **out,
                       size_t *bad, fs_rng *rng)
{
    if (w == NULL && n > 0)
        return FS_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(w[i] > 0) || !isfinite(w[i])) {
            if (bad)
                *bad = i;
            return FS_EINVAL;
        }
    if (rng == NULL && (rng = fs_rng_default()) == NULL)
        return FS_ERANDOM;
    keyed_index *k = malloc((n ? n : 1) * sizeof *k);
    if (k == NULL)
        return FS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        double u = ((double)(fs_rng_u64(rng) >> 11) + 0.5) * 0x1p-53;
        k[i].key = log(-log(u)) - log(w[i]);
        k[i].i = i;
    }
    int rc = fs_rng_error(rng);
    if (rc != FS_OK) {
        free(k);
        return rc;
    }
    qsort(k, n, sizeof *k, by_key);
    *out = k;
    return FS_OK;
}

int fs_weighted_order(const double *w, size_t n, uint64_t *order, size_t *bad,
                      fs_rng *rng)
{
    if (order == NULL && n > 0)
        return FS_EINVAL;
    return fs_weighted_sample(w, n, n, order, bad, rng);
}

int fs_weighted_sample(const double *w, size_t n, size_t k, uint64_t *out,
                       size_t *bad, fs_rng *rng)
{
    if (k > n || (out == NULL && k > 0))
        return FS_EINVAL;
    keyed_index *keys;
    int rc = sorted_keys(w, n, &keys, bad, rng);
    if (rc != FS_OK)
        return rc;
    for (size_t j = 0; j < k; j++)
        out[j] = keys[j].i;
    free(keys);
    return FS_OK;
}
