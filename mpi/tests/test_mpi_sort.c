/* test_mpi_sort.c -- the local pieces of fairshuf-mpi that the 64-bit
 * keys of real runs never exercise: ties (equal level-0 keys) ordered by
 * the level-1, 2 keys of their line numbers, as `fairshuf lines` does,
 * never by position; the range partition and the out-of-core bucket
 * index both monotone in the key.  Built and run (by tests/run.sh) when
 * MPI is found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf/lines.h"
#include "../internal.h"

static const uint8_t K[32] = {1, 2, 3};

/* The items' global indices: 1000 + their address (the sort asks only
 * for ties). */
static uint64_t idx_of(const void *ctx, uintptr_t pos)
{
    (void)ctx;
    return 1000 + pos;
}

static int by_level1(const void *a, const void *b)
{
    uint64_t x = fs_lines_key(K, idx_of(NULL, ((const fs_mpi__item *)a)->pos), 1);
    uint64_t y = fs_lines_key(K, idx_of(NULL, ((const fs_mpi__item *)b)->pos), 1);
    return (x > y) - (x < y);
}

/* 300 items, keys 0..2 (many ties), given in index order: each run of
 * equal keys must come out in level-1 order, the key kept. */
static void ties_by_next_level(void **s)
{
    (void)s;
    enum { N = 300 };
    fs_mpi__item a[N], ref[N];
    for (size_t i = 0; i < N; i++) {
        a[i].key = (uint64_t)(i % 3) << 62;
        a[i].pos = i;
    }
    memcpy(ref, a, sizeof a);
    assert_int_equal(fs_mpi__sort(a, N, K, idx_of, NULL), FS_OK);
    for (uint64_t k = 0; k < 3; k++) { /* reference: group, then level 1 */
        fs_mpi__item g[N] = {{0}};
        size_t m = 0;
        for (size_t i = 0; i < N; i++)
            if (ref[i].key == k << 62)
                g[m++] = ref[i];
        qsort(g, m, sizeof *g, by_level1);
        for (size_t i = 0; i < m; i++) {
            assert_int_equal(a[k * 100 + i].pos, g[i].pos);
            assert_int_equal(a[k * 100 + i].key, k << 62);
        }
    }
    /* not input order: ties broken by position would keep idx rising */
    int rising = 1;
    for (size_t i = 1; i < 100; i++)
        rising &= a[i].pos > a[i - 1].pos;
    assert_false(rising);
}

static void sorts_n(size_t N)
{
    fs_mpi__item *a = malloc(N * sizeof *a);
    uint64_t *k = malloc(N * sizeof *k);
    assert_non_null(a);
    assert_non_null(k);
    fs_lines_keys(K, 0, 0, k, N);
    for (size_t i = 0; i < N; i++) {
        a[i].key = k[i] >> (i % 2 ? 0 : 40); /* digits that vary or not */
        a[i].pos = i;
    }
    assert_int_equal(fs_mpi__sort(a, N, K, idx_of, NULL), FS_OK);
    for (size_t i = 1; i < N; i++)
        assert_true(a[i - 1].key <= a[i].key);
    free(a);
    free(k);
}

/* Random distinct keys: plain ascending order -- 5000 items (one group,
 * sorted in cache) and 20000 (first scattered into groups by the top
 * digits, each group then sorted). */
static void sorts_keys(void **s)
{
    (void)s;
    for (size_t N = 5000; N <= 20000; N += 15000)
        sorts_n(N);
}


static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const fs_mpi__item *)a)->key, y = ((const fs_mpi__item *)b)->key;
    return (x > y) - (x < y);
}

/* fs_mpi__make_room and fs_mpi__sort_grouped, as array.c's unpack uses
 * them: rank r of P keeps some items, grouped by fs_mpi__digit as pack
 * makes them, and receives others in any order; they are put in their
 * groups among the own, and the result is ascending and holds the same
 * items.  Sizes from empty groups to 6 * 4096 items, so groups are one
 * item, empty, or larger than one insertion pass. */
static void sorts_grouped(void **s)
{
    (void)s;
    static const size_t sizes[] = {0, 1, 33, 5000, 24576};
    for (unsigned P = 1; P <= 3; P++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t n = sizes[z], nown = 0, nr = 0;
            unsigned r = P - 1, bits = fs_mpi__bits(n / 2);
            size_t D = (size_t)1 << bits;
            uint64_t *k = malloc((4 * n + 1) * sizeof *k);
            fs_mpi__item *own = malloc((n + 1) * sizeof *own);
            fs_mpi__item *got = malloc((n + 1) * sizeof *got);
            fs_mpi__item *a = malloc((n + 1) * sizeof *a);
            fs_mpi__item *ref = malloc((n + 1) * sizeof *ref);
            size_t *oend = calloc(D, sizeof *oend), *at = calloc(D, sizeof *at);
            size_t *end = calloc(D, sizeof *end);
            assert_true(k && own && got && a && ref && oend && at && end);
            fs_lines_keys(K, 7 * n + P, 0, k, 4 * n + 1);
            /* the keys of rank r's slice, half kept, half "received" */
            for (size_t i = 0; i < 4 * n + 1 && nown + nr < n; i++) {
                if (fs_mpi__dest(k[i], (int)P) != (int)r)
                    continue;
                fs_mpi__item x = {k[i], i};
                if (i % 2)
                    own[nown++] = x;
                else
                    got[nr++] = x;
            }
            size_t m = nown + nr;
            for (size_t i = 0; i < nown; i++)
                oend[fs_mpi__digit(own[i].key, P, bits)]++;
            for (size_t d = 0, sum = 0; d < D; d++) {
                size_t c = oend[d];
                oend[d] = sum; /* starts, then ends after the scatter */
                sum += c;
            }
            for (size_t i = 0; i < nown; i++)
                a[oend[fs_mpi__digit(own[i].key, P, bits)]++] = own[i];
            for (size_t i = 0; i < nr; i++)
                at[fs_mpi__digit(got[i].key, P, bits)]++;
            fs_mpi__make_room(a, oend, at, end, bits);
            for (size_t i = 0; i < nr; i++)
                a[at[fs_mpi__digit(got[i].key, P, bits)]++] = got[i];
            memcpy(ref, own, nown * sizeof *own);
            memcpy(ref + nown, got, nr * sizeof *got);
            qsort(ref, m, sizeof *ref, by_key);
            assert_int_equal(fs_mpi__sort_grouped(a, m, end, bits, K, idx_of,
                                                  NULL), FS_OK);
            for (size_t i = 0; i < m; i++) {
                assert_int_equal(a[i].key, ref[i].key);
                assert_int_equal(a[i].pos, ref[i].pos);
            }
            free(k);
            free(own);
            free(got);
            free(a);
            free(ref);
            free(oend);
            free(at);
            free(end);
        }
}

/* Keys crowded into a few digits (a narrow range, then one far key):
 * still sorted, by the recursion of the in-cache sort. */
static void sorts_crowded(void **s)
{
    (void)s;
    enum { N = 40000 };
    fs_mpi__item *a = malloc(N * sizeof *a);
    uint64_t *k = malloc(N * sizeof *k);
    assert_non_null(a);
    assert_non_null(k);
    fs_lines_keys(K, 99, 0, k, N);
    for (size_t i = 0; i < N; i++) {
        a[i].key = i + 1 == N ? UINT64_MAX : k[i] >> 50;
        a[i].pos = i;
    }
    assert_int_equal(fs_mpi__sort(a, N, K, idx_of, NULL), FS_OK);
    for (size_t i = 1; i < N; i++)
        assert_true(a[i - 1].key <= a[i].key);
    assert_int_equal(a[N - 1].key, UINT64_MAX);
    free(a);
    free(k);
}

/* dest(key) never decreases with the key, every rank gets its slice,
 * and inside a slice the bucket index (key * P) >> 58 never decreases. */
static void partition_monotone(void **s)
{
    (void)s;
    for (int P = 1; P <= 7; P++) {
        uint64_t k[4096];
        fs_lines_keys(K, (uint64_t)P << 20, 0, k, 4096);
        for (size_t i = 0; i < 4096; i++)
            for (size_t j = i + 1; j < i + 8 && j < 4096; j++) {
                uint64_t lo = k[i] < k[j] ? k[i] : k[j];
                uint64_t hi = k[i] < k[j] ? k[j] : k[i];
                int dl = fs_mpi__dest(lo, P), dh = fs_mpi__dest(hi, P);
                assert_true(dl <= dh);
                if (dl == dh)
                    assert_true(((lo * (uint64_t)P) >> 58) <=
                                ((hi * (uint64_t)P) >> 58));
            }
        assert_int_equal(fs_mpi__dest(0, P), 0);
        assert_int_equal(fs_mpi__dest(UINT64_MAX, P), P - 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ties_by_next_level),
        cmocka_unit_test(sorts_keys),
        cmocka_unit_test(partition_monotone),
        cmocka_unit_test(sorts_grouped),
        cmocka_unit_test(sorts_crowded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
