/* fisher_yates.c -- the original Fisher-Yates method (Statistical Tables,
 * 1938), as posts 000, 002 and 004 draw it: pick a uniform element of the
 * ones left, strike it out, write it next.  O(n^2) for the strike-outs;
 * kept as the readable reference the fast forms are checked against.
 * Output position k receives remaining[j], j uniform in [0, n-k). */
#include <stdlib.h>

#include "shuffle.h"

int fs__fisher_yates(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    unsigned char *left = malloc(n * size);
    if (left == NULL)
        return FS_ENOMEM;
    memcpy(left, base, n * size);
    for (size_t k = 0; k < n; k++) {
        size_t remaining = n - k;
        size_t j = (size_t)fs__below(rng, remaining);
        memcpy(base + k * size, left + j * size, size);
        memmove(left + j * size, left + (j + 1) * size,
                (remaining - j - 1) * size);
    }
    free(left);
    return FS_OK;
}
