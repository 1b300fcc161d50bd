/* sort_key.c -- shuffle by sorting on random 64-bit keys ("assign random
 * keys, sort": the method of SQL's ORDER BY RANDOM() and of `sort -R`'s
 * idea).  With distinct keys the order of i.i.d. uniform keys is a uniform
 * permutation; equal keys would favour the input order, so every run of
 * tied keys gets fresh keys and is sorted again until no ties are left.
 * O(n log n). */
#include <stdlib.h>

#include "shuffle.h"

typedef struct keyed {
    uint64_t key;
    size_t index;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b; /* index breaks ties: a total order, so
                                  * the stream does not depend on qsort */
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->index > y->index) - (x->index < y->index);
}

/* Re-draws and re-sorts the tied runs of k[0..n); 1 if any were found. */
static int break_ties(keyed *k, size_t n, fs_rng *rng)
{
    int found = 0;
    size_t i = 0;
    while (i < n) {
        size_t j = i + 1;
        while (j < n && k[j].key == k[i].key)
            j++;
        if (j - i > 1) {
            found = 1;
            do {
                for (size_t t = i; t < j; t++)
                    k[t].key = fs__u64(rng);
                qsort(k + i, j - i, sizeof *k, by_key);
            } while (break_ties(k + i, j - i, rng) && rng->error == FS_OK);
        }
        i = j;
    }
    return found;
}

int fs__sort_key(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    keyed *k = malloc(n * sizeof *k);
    unsigned char *copy = malloc(n * size);
    if (k == NULL || copy == NULL) {
        free(k);
        free(copy);
        return FS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        k[i].key = fs__u64(rng);
        k[i].index = i;
    }
    qsort(k, n, sizeof *k, by_key);
    if (rng->error == FS_OK)
        (void)break_ties(k, n, rng);
    memcpy(copy, base, n * size);
    for (size_t i = 0; i < n; i++)
        memcpy(base + i * size, copy + k[i].index * size, size);
    free(k);
    free(copy);
    return FS_OK;
}
