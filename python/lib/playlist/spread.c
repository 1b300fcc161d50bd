/* spread.c -- artist spreading by a balanced merge (<fairshuf/playlist.h>,
 * docs/playlist.md).  Deliberately not uniform. */
#include <stdlib.h>
#include <string.h>

#include "fairshuf/playlist.h"
#include "internal.h"

typedef struct member {
    uint64_t group, key, item;
} member;

/* Every comparator ends on a unique field: qsort is not stable, and
 * docs/stream.md §6 breaks ties of the random keys by index. */
static int by_group_key(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->item > y->item) - (x->item < y->item);
}

typedef struct run {
    size_t start, len;
    uint64_t key;
} run;

/* start orders runs as their groups' values do (runs are made in that
 * order). */
static int by_len_key(const void *a, const void *b)
{
    const run *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Inserts short[0..m) into long[0..l) (m <= l) at evenly spaced gaps with a
 * random offset: short item j goes into gap floor((j + u) (l + 1) / m), a
 * different gap for each j, so no two short items touch. */
static void merge(const uint64_t *shrt, size_t m, const uint64_t *lng,
                  size_t l, uint64_t *out, fs_rng *rng)
{
    double u = (double)(fs_rng_u64(rng) >> 11) * 0x1p-53;
    size_t o = 0, i = 0;
    for (size_t j = 0; j < m; j++) {
        size_t gap = (size_t)(((double)j + u) * (double)(l + 1) / (double)m);
        if (gap > l)
            gap = l;
        while (i < gap)
            out[o++] = lng[i++];
        out[o++] = shrt[j];
    }
    while (i < l)
        out[o++] = lng[i++];
}

int fs_spread_order(const uint64_t *group, size_t n, uint64_t *order,
                    fs_rng *rng)
{
    if (n > 0 && (group == NULL || order == NULL))
        return FS_EINVAL;
    if (n == 0)
        return FS_OK;
    if (rng == NULL && (rng = fs_rng_default()) == NULL)
        return FS_ERANDOM;
    member *m = malloc(n * sizeof *m);
    run *runs = malloc(n * sizeof *runs);
    uint64_t *cur = malloc(n * sizeof *cur), *tmp = malloc(n * sizeof *tmp);
    int rc = FS_ENOMEM;
    if (m == NULL || runs == NULL || cur == NULL || tmp == NULL)
        goto done;
    /* shuffle within groups: sort by (group, random key, index); ties of
     * the 64-bit keys have probability ~n^2 2^-65 */
    for (size_t i = 0; i < n; i++) {
        m[i].group = group[i];
        m[i].key = fs_rng_u64(rng);
        m[i].item = i;
    }
    qsort(m, n, sizeof *m, by_group_key);
    size_t nruns = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || m[i].group != m[i - 1].group) {
            runs[nruns].start = i;
            runs[nruns].len = 0;
            runs[nruns].key = fs_rng_u64(rng);
            nruns++;
        }
        runs[nruns - 1].len++;
    }
    qsort(runs, nruns, sizeof *runs, by_len_key);
    size_t len = 0;
    for (size_t r = 0; r < nruns; r++) {
        uint64_t *g = tmp + len; /* the group, after the running sequence */
        for (size_t k = 0; k < runs[r].len; k++)
            g[k] = m[runs[r].start + k].item;
        size_t gl = runs[r].len;
        /* the shorter goes into the longer; equal lengths: a coin */
        int group_short = gl < len || (gl == len && (fs_rng_u64(rng) & 1));
        memcpy(tmp, cur, len * sizeof *cur);
        if (group_short)
            merge(g, gl, tmp, len, cur, rng);
        else
            merge(tmp, len, g, gl, cur, rng);
        len += gl;
    }
    memcpy(order, cur, n * sizeof *order);
    rc = fs_rng_error(rng);
done:
    free(m);
    free(runs);
    free(cur);
    free(tmp);
    return rc;
}
