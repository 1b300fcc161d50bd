/* lehmer.c -- Lehmer codes: rank and unrank permutations and n-cycles.
 *
 * rank = sum_i d_i (n-1-i)!, d_i = number of elements after position i that
 * are smaller than perm[i] = number of still-unused values below perm[i],
 * found with one popcount on a bit mask of the unused values (n <= 21). */
#include "fairshuf/stats.h"

static const uint64_t fact[21] = {1ULL,
                                  1ULL,
                                  2ULL,
                                  6ULL,
                                  24ULL,
                                  120ULL,
                                  720ULL,
                                  5040ULL,
                                  40320ULL,
                                  362880ULL,
                                  3628800ULL,
                                  39916800ULL,
                                  479001600ULL,
                                  6227020800ULL,
                                  87178291200ULL,
                                  1307674368000ULL,
                                  20922789888000ULL,
                                  355687428096000ULL,
                                  6402373705728000ULL,
                                  121645100408832000ULL,
                                  2432902008176640000ULL};

int fs_lehmer_rank(const uint32_t *perm, unsigned n, uint64_t *rank)
{
    if (perm == NULL || rank == NULL || n < 1 || n > 20)
        return FS_EINVAL;
    uint32_t unused = (1u << n) - 1;
    uint64_t r = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t v = perm[i];
        if (v >= n || !(unused >> v & 1))
            return FS_EINVAL;
        r += (uint64_t)__builtin_popcount(unused & ((1u << v) - 1)) *
             fact[n - 1 - i];
        unused &= ~(1u << v);
    }
    *rank = r;
    return FS_OK;
}

int fs_lehmer_unrank(uint64_t rank, unsigned n, uint32_t *perm)
{
    if (perm == NULL || n < 1 || n > 20 || rank >= fact[n])
        return FS_EINVAL;
    uint32_t unused = (1u << n) - 1;
    for (unsigned i = 0; i < n; i++) {
        uint64_t d = rank / fact[n - 1 - i];
        rank %= fact[n - 1 - i];
        /* the d-th (from 0) unused value */
        uint32_t m = unused;
        for (uint64_t k = 0; k < d; k++)
            m &= m - 1;
        uint32_t v = (uint32_t)__builtin_ctz(m);
        perm[i] = v;
        unused &= ~(1u << v);
    }
    return FS_OK;
}

int fs_cycle_rank(const uint32_t *perm, unsigned n, uint64_t *rank)
{
    if (perm == NULL || rank == NULL || n < 2 || n > 21)
        return FS_EINVAL;
    /* Visit order from 0: 0 -> perm[0] -> ...; its last n-1 entries, minus
     * one, are a permutation of 0..n-2 iff perm is a single n-cycle. */
    uint32_t order[20];
    uint32_t x = 0;
    for (unsigned k = 0; k + 1 < n; k++) {
        x = perm[x];
        if (x == 0 || x >= n)
            return FS_EINVAL;
        order[k] = x - 1;
    }
    if (perm[x] != 0)
        return FS_EINVAL;
    return fs_lehmer_rank(order, n - 1, rank);
}

int fs_cycle_unrank(uint64_t rank, unsigned n, uint32_t *perm)
{
    if (perm == NULL || n < 2 || n > 21)
        return FS_EINVAL;
    uint32_t order[20];
    int rc = fs_lehmer_unrank(rank, n - 1, order);
    if (rc != FS_OK)
        return rc;
    uint32_t x = 0;
    for (unsigned k = 0; k + 1 < n; k++) {
        perm[x] = order[k] + 1;
        x = order[k] + 1;
    }
    perm[x] = 0;
    return FS_OK;
}
