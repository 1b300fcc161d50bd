/* rejection.c -- post 001's first method: put each card, in order, into a
 * uniformly random empty slot, drawing again when the slot is taken.  Each
 * card lands in a uniform empty slot, so the result is uniform; the cost
 * is the coupon collector's n*H_n ~ n ln n draws.
 *
 * A generator that cannot reach some slot would make this loop forever
 * (glibc rand's words before stream version 2 never reached the upper
 * half).  With an empty slot left, a draw misses with probability at most
 * 1 - 1/n, so 128n misses in a row happen with probability below e^-128
 * for a sound generator: past that the generator is refused
 * (FS_EUNSUPPORTED) instead of hanging.  The bound never changes the
 * stream of a generator that passes it. */
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
    size_t limit = n > SIZE_MAX / 128 ? SIZE_MAX : 128 * n;
    for (size_t i = 0; i < n; i++) {
        size_t slot, misses = 0;
        do
            slot = (size_t)fs__below(rng, n);
        while (taken[slot] && rng->error == FS_OK && ++misses < limit);
        if (taken[slot] && rng->error == FS_OK) {
            free(out);
            free(taken);
            return FS_EUNSUPPORTED;
        }
        taken[slot] = 1;
        memcpy(out + slot * size, base + i * size, size);
    }
    memcpy(base, out, n * size);
    free(out);
    free(taken);
    return FS_OK;
}
