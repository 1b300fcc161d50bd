/* batched.c -- Durstenfeld and inside-out with batched bounded draws: the
 * same swaps as the plain forms, but one 64-bit word serves up to
 * FS_BATCH_MAX consecutive indices (batch.h).  Exact: each batch is one
 * Lemire draw on the product of its bounds.  The stream differs from
 * one-fs__below-per-index, so the named `durstenfeld` keeps the plain form
 * and FS_ALG_AUTO uses this one (docs/performance.md, "Stream of auto").
 *
 * The loops run one range of constant batch size k at a time, so that k
 * is a compile-time constant and the decode is unrolled; the ranges are
 * exactly where fs__batch_k() gives that k, so this is only a faster way
 * to run the rule in batch.h. */
#include "batch.h"

/* Largest first bound of a batch with k = K + 1 (fs__batch_k): a batch of
 * size K is taken while its first bound exceeds NEXT_LIMIT(K). */
#define LIMIT_1 (UINT64_C(1) << 30)
#define LIMIT_2 (UINT64_C(1) << 20)
#define LIMIT_3 (UINT64_C(1) << 15)
#define LIMIT_4 (UINT64_C(1) << 12)
#define LIMIT_5 (UINT64_C(1) << 10)
#define LIMIT_6 0

/* Descending: for i = n-1 down to 1 in batches of k = fs__batch_k(i+1)
 * (capped at i), bounds i+1, i, ..., i+2-k; digit t swaps a[i-t] with
 * a[j_t]. */
#define SWAP_T(T, a, x, y)                                                \
    do {                                                                  \
        T tmp_ = a[x];                                                    \
        a[x] = a[y];                                                      \
        a[y] = tmp_;                                                      \
    } while (0)
#define DOWN_RANGE(T, K)                                                  \
    while (i >= (K) && (uint64_t)i + 1 > LIMIT_##K) {                     \
        uint64_t j[K];                                                    \
        fs__batch_down(&w, (uint64_t)i + 1, (K), j);                      \
        FS_UNROLL                                                         \
        for (unsigned t = 0; t < (K); t++)                                \
            SWAP_T(T, a, i - t, j[t]);                                    \
        i -= (K);                                                         \
    }
#define DOWN_TYPED(T)                                                     \
    do {                                                                  \
        T *a = (T *)(void *)base;                                         \
        DOWN_RANGE(T, 1)                                                  \
        DOWN_RANGE(T, 2)                                                  \
        DOWN_RANGE(T, 3)                                                  \
        DOWN_RANGE(T, 4)                                                  \
        DOWN_RANGE(T, 5)                                                  \
        DOWN_RANGE(T, 6)                                                  \
        if (i > 0) { /* the last i < 6 indices: one batch of k = i */     \
            uint64_t j[FS_BATCH_MAX];                                     \
            unsigned k = (unsigned)i;                                     \
            fs__batch_down(&w, (uint64_t)i + 1, k, j);                    \
            for (unsigned t = 0; t < k; t++)                              \
                SWAP_T(T, a, i - t, j[t]);                                \
        }                                                                 \
    } while (0)

void fs__durstenfeld_batched(unsigned char *base, size_t n, size_t size,
                             fs_rng *rng)
{
    if (n < 2)
        return;
    fs__wsrc w;
    fs__wsrc_open(&w, rng);
    size_t i = n - 1;
    if (size == 8 && ((uintptr_t)base & 7) == 0) {
        DOWN_TYPED(uint64_t);
    } else if (size == 4 && ((uintptr_t)base & 3) == 0) {
        DOWN_TYPED(uint32_t);
    } else {
        while (i > 0) {
            unsigned k = fs__batch_k((uint64_t)i + 1);
            if (k > i)
                k = (unsigned)i;
            uint64_t j[FS_BATCH_MAX];
            fs__batch_down(&w, (uint64_t)i + 1, k, j);
            for (unsigned t = 0; t < k; t++, i--)
                if (j[t] != i)
                    fs__swap(base + i * size, base + j[t] * size, size);
        }
    }
    fs__wsrc_close(&w);
}

/* Ascending: dst[0] = src[0]; then for i = 1, 2, ... in batches of
 * k = fs__batch_k(i + FS_BATCH_MAX) (a bound no batch from i exceeds, so
 * the product always fits), capped at n - i; bounds i+1, ..., i+k; digit t
 * places src[i+t] at a uniform slot j_t of dst[0..i+t] (what was there
 * moves to i+t). */
#define UP_ONE(T, x, jj)                                                  \
    do {                                                                  \
        d[x] = d[jj];                                                     \
        d[jj] = s[x];                                                     \
    } while (0)
#define UP_RANGE(T, K)                                                    \
    while (n - i >= (K) && (uint64_t)i + FS_BATCH_MAX > LIMIT_##K) {      \
        uint64_t j[K];                                                    \
        fs__batch_up(&w, (uint64_t)i + 1, (K), j);                        \
        FS_UNROLL                                                         \
        for (unsigned t = 0; t < (K); t++)                                \
            UP_ONE(T, i + t, j[t]);                                       \
        i += (K);                                                         \
    }
#define UP_TYPED(T)                                                       \
    do {                                                                  \
        T *d = (T *)(void *)dst;                                          \
        const T *s = (const T *)(const void *)src;                        \
        d[0] = s[0];                                                      \
        size_t i = 1;                                                     \
        while (i < n) {                                                   \
            unsigned k = fs__batch_k((uint64_t)i + FS_BATCH_MAX);         \
            if (n - i >= k) {                                             \
                switch (k) {                                              \
                case 6: UP_RANGE6(T); continue;                           \
                case 5: UP_RANGE5(T); continue;                           \
                case 4: UP_RANGE4(T); continue;                           \
                case 3: UP_RANGE3(T); continue;                           \
                case 2: UP_RANGE2(T); continue;                           \
                default: break;                                           \
                }                                                         \
            }                                                             \
            if (k > n - i)                                                \
                k = (unsigned)(n - i);                                    \
            uint64_t j[FS_BATCH_MAX];                                     \
            fs__batch_up(&w, (uint64_t)i + 1, k, j);                      \
            for (unsigned t = 0; t < k; t++)                              \
                UP_ONE(T, i + t, j[t]);                                   \
            i += k;                                                       \
        }                                                                 \
    } while (0)
/* While the rule keeps giving K and K elements remain. */
#define UP_RANGEK(T, K)                                                   \
    while (n - i >= (K) && fs__batch_k((uint64_t)i + FS_BATCH_MAX) == (K)) \
    {                                                                     \
        uint64_t j[K];                                                    \
        fs__batch_up(&w, (uint64_t)i + 1, (K), j);                        \
        FS_UNROLL                                                         \
        for (unsigned t = 0; t < (K); t++)                                \
            UP_ONE(T, i + t, j[t]);                                       \
        i += (K);                                                         \
    }
#define UP_RANGE6(T) UP_RANGEK(T, 6)
#define UP_RANGE5(T) UP_RANGEK(T, 5)
#define UP_RANGE4(T) UP_RANGEK(T, 4)
#define UP_RANGE3(T) UP_RANGEK(T, 3)
#define UP_RANGE2(T) UP_RANGEK(T, 2)

void fs__inside_out_batched(unsigned char *dst, const unsigned char *src,
                            size_t n, size_t size, fs_rng *rng)
{
    if (n == 0)
        return;
    fs__wsrc w;
    fs__wsrc_open(&w, rng);
    if (size == 8 && (((uintptr_t)dst | (uintptr_t)src) & 7) == 0) {
        UP_TYPED(uint64_t);
    } else if (size == 4 && (((uintptr_t)dst | (uintptr_t)src) & 3) == 0) {
        UP_TYPED(uint32_t);
    } else {
        memcpy(dst, src, size);
        size_t i = 1;
        while (i < n) {
            unsigned k = fs__batch_k((uint64_t)i + FS_BATCH_MAX);
            if (k > n - i)
                k = (unsigned)(n - i);
            uint64_t j[FS_BATCH_MAX];
            fs__batch_up(&w, (uint64_t)i + 1, k, j);
            for (unsigned t = 0; t < k; t++, i++) {
                if (j[t] != i)
                    memcpy(dst + i * size, dst + j[t] * size, size);
                memcpy(dst + j[t] * size, src + i * size, size);
            }
        }
    }
    fs__wsrc_close(&w);
}
