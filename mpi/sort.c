/* sort.c -- the local sort of the distributed shuffle: LSD radix on the
 * 64-bit keys (16-bit digits; a digit all items share is skipped, and on
 * rank r of P the top log2(P) bits nearly are), then runs of equal keys
 * ordered by the next levels' keys -- the tie rule of `fairshuf lines`
 * (docs/lines.md), never input position, so the order stays exactly
 * uniform. */
#include <stdlib.h>

#include "fairshuf/lines.h"
#include "internal.h"

static int key_cmp(const void *a, const void *b)
{
    uint64_t x = ((const fs_mpi__item *)a)->key,
             y = ((const fs_mpi__item *)b)->key;
    return (x > y) - (x < y);
}

/* Orders a run of items with equal keys at `level` by the keys of the
 * next level, recursively (lexicographic order of infinite random
 * strings). */
static void order_ties(fs_mpi__item *t, size_t r, uint32_t level,
                       const uint8_t *K)
{
    for (size_t i = 0; i < r; i++)
        t[i].key = fs_lines_key(K, t[i].idx, level + 1);
    qsort(t, r, sizeof *t, key_cmp);
    for (size_t a = 0; a < r;) {
        size_t e = a + 1;
        while (e < r && t[e].key == t[a].key)
            e++;
        if (e - a > 1)
            order_ties(t + a, e - a, level + 1, K);
        a = e;
    }
}

int fs_mpi__sort(fs_mpi__item *a, size_t n, const uint8_t K[32])
{
    if (n < 2)
        return FS_OK;
    if (n < 64) {
        qsort(a, n, sizeof *a, key_cmp);
    } else {
        fs_mpi__item *tmp = malloc(n * sizeof *tmp);
        size_t *cnt = malloc(65536 * sizeof *cnt);
        if (tmp == NULL || cnt == NULL) {
            free(tmp);
            free(cnt);
            return FS_ENOMEM;
        }
        fs_mpi__item *src = a, *dst = tmp;
        for (unsigned shift = 0; shift < 64; shift += 16) {
            memset(cnt, 0, 65536 * sizeof *cnt);
            for (size_t i = 0; i < n; i++)
                cnt[(src[i].key >> shift) & 0xffff]++;
            if (cnt[(src[0].key >> shift) & 0xffff] == n)
                continue; /* every item has this digit */
            size_t sum = 0;
            for (size_t d = 0; d < 65536; d++) {
                size_t c = cnt[d];
                cnt[d] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++)
                dst[cnt[(src[i].key >> shift) & 0xffff]++] = src[i];
            fs_mpi__item *x = src;
            src = dst;
            dst = x;
        }
        if (src != a)
            memcpy(a, src, n * sizeof *a);
        free(tmp);
        free(cnt);
    }
    for (size_t s = 0; s + 1 < n;) { /* ties: about n^2/2^65 per run */
        size_t e = s + 1;
        while (e < n && a[e].key == a[s].key)
            e++;
        if (e - s > 1) {
            uint64_t k = a[s].key;
            order_ties(a + s, e - s, 0, K);
            for (size_t i = s; i < e; i++)
                a[i].key = k; /* restore level 0 for the caller */
        }
        s = e;
    }
    return FS_OK;
}
