/* sort.c -- the local sort of the distributed shuffle: most significant
 * digit first, on the 64-bit keys (the digits taken below the highest bit
 * in which the keys of a part differ, so a rank's slice of the key space
 * or a part's narrow range costs no wasted pass), parts of at most 32
 * items by insertion; then runs of equal keys ordered by the next levels'
 * keys -- the tie rule of `fairshuf lines` (docs/lines.md), never input
 * position, so the order stays exactly uniform.  The keys are random, so
 * two scatter passes usually leave parts of a few items. */
#include <stdlib.h>

#include "fairshuf/lines.h"
#include "internal.h"

/* A tied item with its global index. */
typedef struct tie {
    uint64_t key, idx;
    uintptr_t pos;
} tie;

static int key_cmp(const void *a, const void *b)
{
    uint64_t x = ((const tie *)a)->key, y = ((const tie *)b)->key;
    return (x > y) - (x < y);
}

/* Orders a run of items with equal keys at `level` by the keys of the
 * next level, recursively (lexicographic order of infinite random
 * strings). */
static void order_ties(tie *t, size_t r, uint32_t level, const uint8_t *K)
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

static void insertion(fs_mpi__item *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        fs_mpi__item x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].key > x.key) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

enum { SMALL = 32, MAXBITS = 11 };

/* Sorts src[0..n) by key into dst when to_dst, else in place in src;
 * the other array is scratch.  Each level scatters by up to MAXBITS
 * digits below the highest bit in which the part's keys differ, about
 * 8 items per digit, so the depth is small and bounded by 64. */
static void msd(fs_mpi__item *src, fs_mpi__item *dst, size_t n, int to_dst)
{
    fs_mpi__item *out = to_dst ? dst : src;
    if (n <= SMALL) {
        if (to_dst)
            memcpy(dst, src, n * sizeof *src);
        insertion(out, n);
        return;
    }
    uint64_t lo = src[0].key, hi = src[0].key;
    for (size_t i = 1; i < n; i++) {
        uint64_t k = src[i].key;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    if (lo == hi) { /* all equal: the ties are ordered later */
        if (to_dst)
            memcpy(dst, src, n * sizeof *src);
        return;
    }
    unsigned width = 64 - (unsigned)__builtin_clzll(hi - lo), bits = 1;
    while (bits < MAXBITS && ((size_t)8 << bits) < n)
        bits++;
    if (bits > width)
        bits = width;
    unsigned shift = width - bits;
    size_t cnt[1u << MAXBITS], D = (size_t)1 << bits;
    memset(cnt, 0, D * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[(src[i].key - lo) >> shift]++;
    size_t sum = 0;
    for (size_t d = 0; d < D; d++) {
        size_t c = cnt[d];
        cnt[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++)
        dst[cnt[(src[i].key - lo) >> shift]++] = src[i];
    /* part d is now dst[cnt[d] - its size, cnt[d]); the sorted result
     * belongs in out, so each part's own call goes back when out is src */
    size_t start = 0;
    for (size_t d = 0; d < D; d++) {
        size_t end = cnt[d];
        if (end > start)
            msd(dst + start, src + start, end - start, !to_dst);
        start = end;
    }
}

int fs_mpi__sort(fs_mpi__item *a, size_t n, const uint8_t K[32],
                 fs_mpi__idx_fn idx, const void *ctx)
{
    if (n < 2)
        return FS_OK;
    if (n <= SMALL) {
        insertion(a, n);
    } else {
        fs_mpi__item *tmp = malloc(n * sizeof *tmp);
        if (tmp == NULL)
            return FS_ENOMEM;
        msd(a, tmp, n, 0);
        free(tmp);
    }
    for (size_t s = 0; s + 1 < n;) { /* ties: about n^2/2^65 per run */
        size_t e = s + 1;
        while (e < n && a[e].key == a[s].key)
            e++;
        if (e - s > 1) { /* the key stays: only the addresses move */
            tie *t = malloc((e - s) * sizeof *t);
            if (t == NULL)
                return FS_ENOMEM;
            for (size_t i = s; i < e; i++)
                t[i - s] = (tie){0, idx(ctx, a[i].pos), a[i].pos};
            order_ties(t, e - s, 0, K);
            for (size_t i = s; i < e; i++)
                a[i].pos = t[i - s].pos;
            free(t);
        }
        s = e;
    }
    return FS_OK;
}
