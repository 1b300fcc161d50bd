/* sattolo.c -- Sattolo's algorithm (Inf. Proc. Letters 22, 1986):
 * Durstenfeld with j uniform in [0, i) instead of [0, i].  The result is a
 * uniform random cyclic permutation: one of the (n-1)! single n-cycles,
 * each equally likely.  Fair for what it promises, but not a shuffle: no
 * element ever stays in place. */
#include "shuffle.h"

int fs__sattolo(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)fs__below(rng, i);
        fs__swap(base + i * size, base + j * size, size);
    }
    return FS_OK;
}
