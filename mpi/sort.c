/* sort.c -- the local sort of the distributed shuffle, on the 64-bit
 * keys: one scatter into groups of a few thousand items by the top
 * digits below the keys' common top bits (the packing loops make these
 * groups as they make the items: fs_mpi__sort_grouped), then
 * each group in cache: one more scatter to about one item per digit and
 * an insertion pass; then runs of equal keys ordered by the next levels'
 * keys -- the tie rule of `fairshuf lines` (docs/lines.md), never input
 * position, so the order stays exactly uniform. */
#include <stdlib.h>

#include "advise.h"
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

enum { SMALL = 32 };

enum { FINEBITS = 12 };

/* Scatters a[0..n) into tmp by up to `want` digits (at most FINEBITS,
 * at most the keys' spread) below the keys' common top bits; cnt[d] ends
 * as the end of digit d's part.  Returns the number of digits, 0 when
 * every key is equal (nothing moved). */
static size_t scatter(const fs_mpi__item *a, fs_mpi__item *tmp, size_t n,
                      unsigned want, size_t cnt[1u << FINEBITS])
{
    uint64_t lo = a[0].key, hi = a[0].key;
    for (size_t i = 1; i < n; i++) {
        uint64_t k = a[i].key;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    if (lo == hi)
        return 0;
    unsigned width = 64 - (unsigned)__builtin_clzll(hi - lo);
    unsigned bits = want < FINEBITS ? want : FINEBITS;
    bits = bits < width ? bits : width;
    unsigned shift = width - bits;
    size_t D = (size_t)1 << bits;
    memset(cnt, 0, D * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[(a[i].key - lo) >> shift]++;
    for (size_t d = 0, sum = 0; d < D; d++) {
        size_t c = cnt[d];
        cnt[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++)
        tmp[cnt[(a[i].key - lo) >> shift]++] = a[i];
    return D;
}

/* Sorts a[0..n), a group of a few thousand items (it stays in cache), by
 * key, with tmp[0..n) as scratch: one scatter by about log2(n) digits --
 * about one item per digit -- then one insertion pass over the whole
 * group, which only moves items inside their digit.  A digit holding
 * more than SMALL items (keys not spread evenly: tests, ties) is sorted
 * first by the same function, so the pass stays linear. */
static void fine(fs_mpi__item *a, fs_mpi__item *tmp, size_t n)
{
    if (n <= SMALL) {
        insertion(a, n);
        return;
    }
    unsigned want = 1;
    while (want < FINEBITS && ((size_t)1 << want) < n)
        want++;
    size_t cnt[1u << FINEBITS], D = scatter(a, tmp, n, want, cnt);
    if (D == 0)
        return;
    memcpy(a, tmp, n * sizeof *a);
    for (size_t d = 0, start = 0; d < D; start = cnt[d++])
        if (cnt[d] - start > SMALL)
            fine(a + start, tmp + start, cnt[d] - start);
    insertion(a, n);
}

/* Runs of equal keys (about n^2/2^65 of them) by the next levels'
 * keys; the key stays, only the addresses move. */
static int order_runs(fs_mpi__item *a, size_t n, const uint8_t K[32],
                      fs_mpi__idx_fn idx, const void *ctx)
{
    for (size_t s = 0; s + 1 < n;) {
        size_t e = s + 1;
        while (e < n && a[e].key == a[s].key)
            e++;
        if (e - s > 1) {
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

/* Sorts a[0..n), keys in any range, with tmp[0..n) as scratch: one
 * scatter by fs_mpi__bits(n) digits below the keys' common top bits into
 * tmp, then each group back and sorted in cache by fine(). */
static void spread(fs_mpi__item *a, fs_mpi__item *tmp, size_t n)
{
    if (n <= (size_t)2 << FINEBITS) {
        fine(a, tmp, n);
        return;
    }
    size_t cnt[1u << FINEBITS], D = scatter(a, tmp, n, fs_mpi__bits(n), cnt);
    for (size_t d = 0, start = 0; d < D; start = cnt[d++]) {
        memcpy(a + start, tmp + start, (cnt[d] - start) * sizeof *a);
        fine(a + start, tmp + start, cnt[d] - start);
    }
}

int fs_mpi__sort(fs_mpi__item *a, size_t n, const uint8_t K[32],
                 fs_mpi__idx_fn idx, const void *ctx)
{
    if (n < 2)
        return FS_OK;
    fs_mpi__item *tmp = n > SMALL ? malloc(n * sizeof *tmp) : NULL;
    if (n > SMALL && tmp == NULL)
        return FS_ENOMEM;
    fs__huge(tmp, n * sizeof *tmp); /* written in thousands of streams */
    spread(a, tmp, n);
    free(tmp);
    return order_runs(a, n, K, idx, ctx);
}

unsigned fs_mpi__bits(uint64_t n)
{
    unsigned b = 1;
    while (b < FINEBITS && (n >> b) > 4096)
        b++;
    return b;
}

void fs_mpi__make_room(fs_mpi__item *a, const size_t *own_end, size_t *at,
                       size_t *end, unsigned bits)
{
    size_t D = (size_t)1 << bits, all = 0;
    for (size_t d = 0; d < D; d++) {
        size_t own = own_end[d] - (d ? own_end[d - 1] : 0);
        all += own + at[d];
        end[d] = all;
        at[d] = all - at[d]; /* the received follow the group's own */
    }
    /* last group first: each moves right, past no group not yet moved */
    for (size_t d = D; d-- > 0;) {
        size_t os = d ? own_end[d - 1] : 0, to = d ? end[d - 1] : 0;
        memmove(a + to, a + os, (own_end[d] - os) * sizeof *a);
    }
}

int fs_mpi__sort_grouped(fs_mpi__item *a, size_t n, const size_t *end,
                         unsigned bits, const uint8_t K[32],
                         fs_mpi__idx_fn idx, const void *ctx)
{
    size_t D = (size_t)1 << bits, big = 0;
    for (size_t d = 0, s = 0; d < D; s = end[d++])
        big = end[d] - s > big ? end[d] - s : big;
    fs_mpi__item *scratch = big > SMALL ? malloc(big * sizeof *scratch) : NULL;
    if (big > SMALL && scratch == NULL)
        return FS_ENOMEM;
    for (size_t d = 0, s = 0; d < D; s = end[d++])
        fine(a + s, scratch, end[d] - s);
    free(scratch);
    return order_runs(a, n, K, idx, ctx);
}
