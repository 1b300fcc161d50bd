/* rejection.c -- post 001's first method: put each card, in order, into a
 * uniformly random empty slot, drawing again when the slot is taken.  Each
 * card lands in a uniform empty slot, so the result is uniform; the cost
 * is the coupon collector's n*H_n ~ n ln n draws. */
#include <stdlib.h>

#include "shuffle.h"

int fs__rejection(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    unsigned char *out = malloc(n * size);
    unsigned char *taken = calloc(n, 1);
    if (out == NULL || taken == NULL) {
        free(out);
        free(taken);
        return FS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        size_t slot;
        do
            slot = (size_t)fs__below(rng, n);
        while (taken[slot] && rng->error == FS_OK);
        taken[slot] = 1;
        memcpy(out + slot * size, base + i * size, size);
    }
    memcpy(base, out, n * size);
    free(out);
    free(taken);
    return FS_OK;
}
