/* inside_out.c -- the "inside-out" shuffle (Durstenfeld's copying form;
 * Knuth TAOCP 3.4.2): dst[0..i] is a uniform arrangement of src[0..i] after
 * step i, because src[i] goes to a uniform slot j in [0, i] and whatever
 * was there moves to the end.  The original array is never touched. */
#include <stdlib.h>

#include "shuffle.h"

void fs__inside_out_copy(unsigned char *dst, const unsigned char *src,
                         size_t n, size_t size, fs_rng *rng)
{
    memcpy(dst, src, size);
    for (size_t i = 1; i < n; i++) {
        size_t j = (size_t)fs__below(rng, (uint64_t)i + 1);
        if (j != i)
            memcpy(dst + i * size, dst + j * size, size);
        memcpy(dst + j * size, src + i * size, size);
    }
}

int fs__inside_out(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    unsigned char *copy = malloc(n * size);
    if (copy == NULL)
        return FS_ENOMEM;
    memcpy(copy, base, n * size);
    fs__inside_out_copy(base, copy, n, size, rng);
    free(copy);
    return FS_OK;
}
