/* controls.c -- NEGATIVE CONTROLS.  Deliberately biased shuffles from the
 * blog posts and from history, kept so that the statistical tests can show
 * they have power.  Never use them to shuffle anything that matters. */
#include <stdint.h>
#include <stdlib.h>

#include "shuffle.h"

/* Post 001: "swap two random positions rand()%1023 times".  Wrong because
 * the number of swaps is random and often small: with probability 1/1023
 * nothing moves at all, and each element is left in place far more often
 * than 1/n.  (Even a fixed, large count only approaches uniform.) */
int fs__naive_swap(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    uint32_t count = fs__u32(rng) % 1023;
    for (uint32_t c = 0; c < count; c++) {
        size_t a = fs__u32(rng) % n, b = fs__u32(rng) % n;
        fs__swap(base + a * size, base + b * size, size);
    }
    return FS_OK;
}

int fs_shuffle_swaps(void *base, size_t n, size_t size, uint64_t swaps,
                     fs_rng *rng)
{
    int rc = fs__shuffle_prepare(base, n, size, &rng);
    if (rc != FS_OK || n < 2)
        return rc;
    unsigned char *b = base;
    for (uint64_t c = 0; c < swaps; c++) {
        size_t i = (size_t)fs__below(rng, n), j = (size_t)fs__below(rng, n);
        fs__swap(b + i * size, b + j * size, size);
    }
    return rng->error;
}

/* "Swap each i with a random position of the whole array": n^n equally
 * likely draw sequences onto n! orders; n^n is not a multiple of n! for
 * n > 2, so some orders must be more likely than others (n = 3: 27 paths
 * over 6 orders). */
int fs__swap_any(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = (size_t)fs__below(rng, n);
        fs__swap(base + i * size, base + j * size, size);
    }
    return FS_OK;
}

/* Durstenfeld with j = r % (i+1), r a 15-bit value as rand() gives where
 * RAND_MAX = 32767: unless i+1 divides 32768 the small residues are more
 * likely, and beyond 32768 positions the high indices are never drawn. */
int fs__mod_bias(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    for (size_t i = n - 1; i > 0; i--) {
        uint32_t r = fs__u32(rng) >> 17;
        size_t j = r % (i + 1);
        fs__swap(base + i * size, base + j * size, size);
    }
    return FS_OK;
}

/* The 1999 ASF Software shuffle (Arkin et al.): for ctr := 1 to 52 do
 * swap Card[ctr] with Card[Random(51)+1].  Two faults: swap-any (52^52
 * paths) and an off-by-one -- Random(51) + 1 is in 1..51, so the last
 * position is never chosen as a target.  Random(r) is Delphi's
 * (u32 * r) >> 32, exactly so when the generator is "delphi". */
int fs__asf_1999(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = (size_t)(((uint64_t)fs__u32(rng) * (n - 1)) >> 32);
        fs__swap(base + i * size, base + j * size, size);
    }
    return FS_OK;
}

/* Sort with a comparator that answers "less" or "greater" at random (the
 * `sort(() => Math.random() - 0.5)` of many web pages).  A merge sort asks
 * far fewer than log2(n!) useful questions along most paths and the
 * answers are inconsistent, so orders near the input are favoured. */
static void merge_random(unsigned char *a, unsigned char *tmp, size_t n,
                         size_t size, fs_rng *rng)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int take_left = fs__u32(rng) & 1;
                memcpy(tmp + k++ * size, a + (take_left ? i++ : j++) * size,
                       size);
            }
            while (i < mid)
                memcpy(tmp + k++ * size, a + i++ * size, size);
            while (j < hi)
                memcpy(tmp + k++ * size, a + j++ * size, size);
        }
        memcpy(a, tmp, n * size);
    }
}

int fs__random_comparator(unsigned char *base, size_t n, size_t size,
                          fs_rng *rng)
{
    unsigned char *tmp = malloc(n * size);
    if (tmp == NULL)
        return FS_ENOMEM;
    merge_random(base, tmp, n, size, rng);
    free(tmp);
    return FS_OK;
}
