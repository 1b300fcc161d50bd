/* durstenfeld.c -- Durstenfeld's in-place shuffle (CACM 7(7), 1964; Knuth's
 * Algorithm P): for i = n-1 down to 1, swap element i with a uniform j in
 * [0, i].  Invariant: base[i+1..n) is a uniform random arrangement of the
 * elements chosen so far, independent of the order of base[0..i].  Every
 * draw sequence (j_{n-1}, ..., j_1) gives a distinct permutation, and there
 * are exactly n! of them: uniform. */
#include "shuffle.h"

#define DURSTENFELD_TYPED(T)                                              \
    do {                                                                  \
        T *a = (T *)(void *)base;                                         \
        for (size_t i = n - 1; i > 0; i--) {                              \
            size_t j = (size_t)fs__below(rng, (uint64_t)i + 1);           \
            T t = a[i];                                                   \
            a[i] = a[j];                                                  \
            a[j] = t;                                                     \
        }                                                                 \
    } while (0)

int fs__durstenfeld(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    if (size == 8 && ((uintptr_t)base & 7) == 0)
        DURSTENFELD_TYPED(uint64_t);
    else if (size == 4 && ((uintptr_t)base & 3) == 0)
        DURSTENFELD_TYPED(uint32_t);
    else
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)fs__below(rng, (uint64_t)i + 1);
            if (j != i)
                fs__swap(base + i * size, base + j * size, size);
        }
    return FS_OK;
}
