/* bounded.c -- exactly unbiased integers in [0, n).
 *
 * Lemire, "Fast random integer generation in an interval" (ACM TOMACS
 * 2019): x*n for a uniform 64-bit x spreads 2^64 words over n results;
 * rejecting the words whose low half falls below 2^64 mod n leaves exactly
 * floor(2^64/n) words per result.  tests/unit/test_bounded.c proves it
 * exhaustively on 16-bit words with the same step (internal.h).
 *
 * Batches (Brackett-Rozinsky & Lemire, "Batched ranged random integer
 * generation", 2024): for bounds n1..nk with product P < 2^64, the digits
 * of floor(x*P / 2^64) in mixed radix (n1, ..., nk) are read off by
 * successive multiplications of the low half; the word is accepted iff the
 * final low half is >= 2^64 mod P: Lemire on P, hence exact. */
#include "internal.h"

uint64_t fs_below(fs_rng *rng, uint64_t n)
{
    rng = fs__rng(rng);
    if (rng == NULL)
        return 0;
    if (n == 0) {
        fs_rng_set_error(rng, FS_EINVAL);
        return 0;
    }
    return fs__below(rng, n);
}

int fs_uniform(fs_rng *rng, uint64_t n, uint64_t *out)
{
    rng = fs__rng(rng);
    if (rng == NULL)
        return FS_ERANDOM;
    if (n == 0 || out == NULL)
        return FS_EINVAL;
    *out = fs__below(rng, n);
    return rng->error;
}

/* One batch: bounds b[0..k) with product p (<= 2^64-1). */
static void batch(fs_rng *rng, const uint64_t *b, uint64_t *out, size_t k,
                  uint64_t p)
{
    for (;;) {
        uint64_t lo = fs__batch_step64(fs__u64(rng), b, out, k);
        if (FS_LIKELY(lo >= p) || lo >= fs__lemire_threshold64(p) ||
            rng->error != FS_OK)
            return;
    }
}

int fs_below_batch(fs_rng *rng, const uint64_t *bounds, uint64_t *out,
                   size_t k)
{
    rng = fs__rng(rng);
    if (rng == NULL)
        return FS_ERANDOM;
    if (k > 0 && (bounds == NULL || out == NULL))
        return FS_EINVAL;
    for (size_t i = 0; i < k; i++)
        if (bounds[i] == 0)
            return FS_EINVAL;
    size_t start = 0;
    while (start < k) {
        uint64_t p = bounds[start];
        size_t end = start + 1;
        while (end < k && bounds[end] <= UINT64_MAX / p)
            p *= bounds[end++];
        batch(rng, bounds + start, out + start, end - start, p);
        start = end;
    }
    return rng->error;
}
