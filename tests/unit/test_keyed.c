/* test_keyed.c -- the keyed permutation (<fairshuf/keyed.h>): a bijection
 * for every size, inverse, golden outputs of the derivation, and
 * statistical quality over many fixed keys with negative controls (the
 * same construction with 1 or 2 Feistel rounds) that must fail the very
 * same tests.
 *
 * Acceptance bands: the keys are fixed, so every statistic below is one
 * deterministic number; the bands are the 1e-7 upper tails of the
 * statistics' distributions under a uniform permutation (chi-square
 * p-values from fs_tally_result(), p >= 1e-7 passes), and a control must
 * land beyond 1e-12 (p <= 1e-12).  For the 1000 x 1000 position matrix the
 * Pearson sum, scaled by (n-1)/n, is chi-square with (n-1)^2 df (stats.h);
 * at 998,001 df it is normal to within 1e-3: |z| <= 5.3 is the band.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/keyed.h"
#include "fairshuf/stats.h"
#include "keyed_internal.h"

#define P_PASS 1e-7
#define P_FAIL 1e-12

static void test_key(uint8_t key[32], uint64_t i, const char *label)
{
    memset(key, 0, 32);
    for (int b = 0; b < 8; b++)
        key[b] = (uint8_t)(i >> (8 * b));
    size_t len = strlen(label);
    memcpy(key + 8, label, len < 24 ? len : 24);
}

/* 1 if at() is a bijection of [0, n), checked exhaustively, with
 * inverse(at(i)) == i checked at every i (stride 1) or every stride-th. */
static int exhaustive_ok(const fs_keyed *p, uint64_t n, uint64_t stride)
{
    size_t words = (size_t)(n + 63) / 64;
    uint64_t *seen = calloc(words, sizeof *seen);
    assert_non_null(seen);
    int ok = 1;
    for (uint64_t i = 0; i < n && ok; i++) {
        uint64_t j = fs_keyed_at(p, i);
        if (j >= n || (seen[j / 64] >> (j % 64) & 1) ||
            (i % stride == 0 && fs_keyed_inverse(p, j) != i))
            ok = 0;
        else
            seen[j / 64] |= (uint64_t)1 << (j % 64);
    }
    free(seen);
    return ok;
}

/* Every n <= 2000: at() exhaustively a bijection; the inverse everywhere
 * for n <= 300 and every n that is a multiple of 50, at every 17th
 * position otherwise. */
static void bijection_every_n_to_2000(void **s)
{
    (void)s;
    uint8_t key[32];
    test_key(key, 1, "small");
    for (uint64_t n = 1; n <= 2000; n++) {
        fs_keyed p;
        assert_int_equal(fs_keyed_init(&p, n, key), FS_OK);
        if (!exhaustive_ok(&p, n, n <= 300 || n % 50 == 0 ? 1 : 17))
            fail_msg("not a bijection for n = %llu", (unsigned long long)n);
    }
}

/* 1 if the batch call maps [0, n) onto [0, n) (each value once), its
 * inverse maps every value back, and both agree with the per-call path at
 * every stride-th position. */
static int batch_exhaustive_ok(const fs_keyed *p, uint64_t n, uint64_t stride)
{
    uint64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    size_t words = (size_t)(n + 63) / 64;
    uint64_t *seen = calloc(words, sizeof *seen);
    assert_true(a && b && seen);
    for (uint64_t i = 0; i < n; i++)
        a[i] = i;
    fs_keyed_at_many(p, a, a, n); /* in place */
    fs_keyed_inverse_many(p, a, b, n);
    int ok = 1;
    for (uint64_t i = 0; i < n && ok; i++) {
        uint64_t j = a[i];
        if (j >= n || (seen[j / 64] >> (j % 64) & 1) || b[i] != i ||
            (i % stride == 0 && (fs_keyed_at(p, i) != j ||
                                 fs_keyed_inverse(p, j) != i)))
            ok = 0;
        else
            seen[j / 64] |= (uint64_t)1 << (j % 64);
    }
    free(a);
    free(b);
    free(seen);
    return ok;
}

/* n = 2^k - 1, 2^k, 2^k + 1 -- the boundaries where Grain's index_shuffle
 * doubled one index and lost another (2^16 + 1, 2^18 + 1, 2^20 + 1) and
 * thrust's shuffle repeated indices (above 2^32):
 *   k <= 16: exhaustively, per call (inverse at every 5th position) and
 *            through the batch call (every position, both directions);
 *   k <= 22 the same through the batch call with FS_KEYED_EXHAUSTIVE=1
 *            (opt-in: `make check-keyed`);
 *   k = 17 .. 64: 2^12 sampled positions each: in range, distinct, and
 *            back by the inverse, per call and in a batch. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void bijection_powers_of_two(void **s)
{
    (void)s;
    uint8_t key[32];
    test_key(key, 2, "pow2");
    unsigned full = getenv("FS_KEYED_EXHAUSTIVE") != NULL ? 22 : 16;
    enum { SAMPLE = 1 << 12 };
    static uint64_t in[SAMPLE], out[SAMPLE], back[SAMPLE];
    for (unsigned k = 1; k <= 64; k++) {
        for (int d = -1; d <= 1; d++) {
            if (k == 64 && d >= 0)
                continue; /* 2^64 and 2^64 + 1 are not sizes */
            uint64_t n = (k == 64 ? 0 : (uint64_t)1 << k) + (uint64_t)(int64_t)d;
            fs_keyed p;
            assert_int_equal(fs_keyed_init(&p, n, key), FS_OK);
            if (k <= 16 && !exhaustive_ok(&p, n, 5))
                fail_msg("not a bijection for n = 2^%u%+d", k, d);
            if (k <= full) {
                if (!batch_exhaustive_ok(&p, n, 97))
                    fail_msg("batch: not a bijection for n = 2^%u%+d", k, d);
                continue;
            }
            uint64_t x = n;
            for (int t = 0; t < SAMPLE; t++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                /* the ends of the range, then spread positions */
                in[t] = t < 2 ? (uint64_t)t : t < 4 ? n - 1 - (uint64_t)(t - 2)
                                                    : (x >> 7) % n;
                if (t >= 4 && in[t] < 4)
                    in[t] = 4 + t; /* keep the sample's positions distinct */
            }
            qsort(in, SAMPLE, sizeof in[0], cmp_u64);
            fs_keyed_at_many(&p, in, out, SAMPLE);
            fs_keyed_inverse_many(&p, out, back, SAMPLE);
            for (int t = 0; t < SAMPLE; t++) {
                int dup_in = t > 0 && in[t] == in[t - 1];
                if (out[t] >= n || back[t] != in[t] ||
                    (t % 64 == 0 && fs_keyed_at(&p, in[t]) != out[t]))
                    fail_msg("n = 2^%u%+d: at/inverse disagree at %llu", k, d,
                             (unsigned long long)in[t]);
                if (dup_in)
                    out[t] = UINT64_MAX; /* a repeated position, not a collision */
            }
            qsort(out, SAMPLE, sizeof out[0], cmp_u64);
            for (int t = 1; t < SAMPLE; t++)
                if (out[t] == out[t - 1] && out[t] != UINT64_MAX)
                    fail_msg("n = 2^%u%+d: two positions map to %llu", k, d,
                             (unsigned long long)out[t]);
        }
    }
}

/* The batch call is the per-call path, value for value: every n <= 300
 * (whole range, positions >= n included), with and without tables, in
 * place and not. */
static void batch_matches_single(void **s)
{
    (void)s;
    uint8_t key[32];
    test_key(key, 4, "batch");
    uint64_t in[400], out[400];
    for (uint64_t n = 1; n <= 300; n++) {
        fs_keyed p;
        assert_int_equal(fs_keyed_init(&p, n, key), FS_OK);
        for (uint64_t expected = 0; expected <= n; expected += n) {
            fs_keyed_batch *b;
            assert_int_equal(fs_keyed_batch_new(&b, &p, expected), FS_OK);
            /* tables when `expected` reaches a quarter of 2^half */
            assert_int_equal(fs_keyed_batch_tabulated(b),
                             expected >= ((uint64_t)1 << p.half) / 4);
            for (int inv = 0; inv <= 1; inv++) {
                for (size_t i = 0; i < 400; i++)
                    in[i] = (i * 7) % (n + 20);
                (inv ? fs_keyed_batch_inverse : fs_keyed_batch_at)(b, in, out, 400);
                for (size_t i = 0; i < 400; i++) {
                    uint64_t want = inv ? fs_keyed_inverse(&p, in[i])
                                        : fs_keyed_at(&p, in[i]);
                    if (out[i] != want)
                        fail_msg("n = %llu: batch %s differs at %llu",
                                 (unsigned long long)n, inv ? "inverse" : "at",
                                 (unsigned long long)in[i]);
                }
                (inv ? fs_keyed_batch_inverse : fs_keyed_batch_at)(b, in, in, 400);
                assert_memory_equal(in, out, sizeof in);
            }
            fs_keyed_batch_free(b);
        }
    }
    /* the negative-control rounds (odd counts too) through the batch */
    for (unsigned r = 1; r <= 5; r++) {
        fs_keyed p;
        assert_int_equal(fs__keyed_init_rounds(&p, 1000, key, r), FS_OK);
        for (size_t i = 0; i < 400; i++)
            in[i] = i * 2;
        fs_keyed_at_many(&p, in, out, 400);
        for (size_t i = 0; i < 400; i++)
            assert_true(out[i] == fs_keyed_at(&p, in[i]));
        fs_keyed_inverse_many(&p, in, out, 400);
        for (size_t i = 0; i < 400; i++)
            assert_true(out[i] == fs_keyed_inverse(&p, in[i]));
    }
    fs_keyed_batch *b;
    fs_keyed big;
    assert_int_equal(fs_keyed_init(&big, UINT64_MAX, key), FS_OK);
    assert_int_equal(fs_keyed_batch_new(&b, &big, UINT64_MAX), FS_OK);
    assert_int_equal(fs_keyed_batch_tabulated(b), 0); /* half 32 > 20 */
    fs_keyed_batch_free(b);
    assert_int_equal(fs_keyed_batch_tabulated(NULL), 0);
    fs_keyed z = {0};
    assert_int_equal(fs_keyed_batch_new(&b, &z, 1), FS_EINVAL);
    assert_int_equal(fs_keyed_batch_new(NULL, &z, 1), FS_EINVAL);
    assert_int_equal(fs_keyed_batch_new(&b, NULL, 1), FS_EINVAL);
    fs_keyed_batch_free(NULL);
}

/* Large n: a sample of positions maps into [0, n), back by the inverse,
 * and (therefore) injectively. */
static void bijection_sampled_large(void **s)
{
    (void)s;
    const uint64_t sizes[] = {UINT64_MAX, UINT64_MAX - 1,
                              ((uint64_t)1 << 63) + 1, (uint64_t)1 << 62,
                              ((uint64_t)1 << 62) + 1, 1000000000000ULL,
                              ((uint64_t)1 << 32) + 1, 4294967295ULL};
    uint8_t key[32];
    test_key(key, 3, "large");
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        fs_keyed p;
        uint64_t n = sizes[z];
        assert_int_equal(fs_keyed_init(&p, n, key), FS_OK);
        uint64_t x = 0x9e3779b97f4a7c15ULL;
        for (int t = 0; t < 3000; t++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            uint64_t i = t < 4 ? (t < 2 ? (uint64_t)t : n - 1 - (uint64_t)(t - 2))
                               : x % n;
            uint64_t j = fs_keyed_at(&p, i);
            assert_true(j < n);
            assert_true(fs_keyed_inverse(&p, j) == i);
            uint64_t k = fs_keyed_inverse(&p, i);
            assert_true(k < n);
            assert_true(fs_keyed_at(&p, k) == i);
        }
        assert_true(fs_keyed_size(&p) == n);
    }
}

static void errors_and_edges(void **s)
{
    (void)s;
    fs_keyed p;
    uint8_t key[32] = {0};
    assert_int_equal(fs_keyed_init(&p, 0, key), FS_EINVAL);
    assert_int_equal(fs_keyed_init(NULL, 5, key), FS_EINVAL);
    assert_int_equal(fs_keyed_init(&p, 5, NULL), FS_EINVAL);
    assert_int_equal(fs_keyed_from_seed(&p, 5, "", 0), FS_ESEED);
    assert_int_equal(fs_keyed_from_seed(&p, 5, NULL, 0), FS_ESEED);
    assert_int_equal(fs_keyed_epoch_key("x", 0, NULL), FS_EINVAL);
    assert_int_equal(fs__keyed_init_rounds(&p, 5, key, FS_KEYED_ROUNDS_MAX + 1),
                     FS_EINVAL);
    assert_int_equal(fs_keyed_init(&p, 1, key), FS_OK);
    assert_true(fs_keyed_at(&p, 0) == 0);
    assert_true(fs_keyed_inverse(&p, 0) == 0);
    /* out of range: returned unchanged */
    assert_true(fs_keyed_at(&p, 7) == 7);
    assert_true(fs_keyed_inverse(&p, 7) == 7);
    fs_keyed_wipe(&p);
    fs_keyed_wipe(NULL);
    assert_true(p.n == 0);
}

/* Golden outputs: docs/keyed.md pins the derivation, so these never
 * change within FS_STREAM_VERSION.  The epoch key was checked against
 * Python's hmac/hashlib; tests/cli/keyed_spec.py recomputes the rest from
 * the specification alone. */
static void golden(void **s)
{
    (void)s;
    uint8_t key[32];
    char hex[65];
    assert_int_equal(fs_keyed_epoch_key("fairshuf", 0, key), FS_OK);
    fs_hex_encode(key, 32, hex);
    assert_string_equal(hex, "7e7bd5dec2f25f3fece4b98e395fbf5b"
                             "921f4bcc9b40122ae6b18d1ec62b202e");
    assert_int_equal(fs_keyed_epoch_key("fairshuf", 1, key), FS_OK);
    fs_hex_encode(key, 32, hex);
    assert_string_equal(hex, "3c4d4360465ae3390682f388e51fc8d2"
                             "2f82abc33179683ba8e6670184794be6");
    static const struct {
        uint64_t n, at[4];
    } g[] = {
        {10, {1, 6, 0, 9}},
        {1000, {805, 529, 146, 521}},
        {1000000, {801067, 237797, 249183, 421140}},
        {UINT64_MAX, {1604112067060227316ULL, 12454397698876240879ULL,
                      328215541606689506ULL, 10323326110655038166ULL}},
    };
    for (size_t z = 0; z < sizeof g / sizeof g[0]; z++) {
        fs_keyed p;
        assert_int_equal(fs_keyed_from_seed(&p, g[z].n, "fairshuf", 0), FS_OK);
        for (uint64_t i = 0; i < 4; i++)
            assert_true(fs_keyed_at(&p, i) == g[z].at[i]);
    }
    fs_keyed p;
    assert_int_equal(fs_keyed_from_seed(&p, UINT64_MAX, "fairshuf", 7), FS_OK);
    assert_true(fs_keyed_at(&p, 12345) == 12913200428144469631ULL);
}

/* ---- statistics -------------------------------------------------------- */

/* Tally of the permutations of [0, n) under keys 0..keys-1 (n <= 2^31). */
static fs_tally *tally_keys(unsigned n, unsigned keys, unsigned tests,
                            unsigned rounds, const char *label)
{
    fs_tally *t;
    assert_int_equal(fs_tally_new(&t, n, tests, 0), FS_OK);
    uint32_t *perm = malloc(n * sizeof *perm);
    assert_non_null(perm);
    for (unsigned k = 0; k < keys; k++) {
        uint8_t key[32];
        fs_keyed p;
        test_key(key, k, label);
        assert_int_equal(fs__keyed_init_rounds(&p, n, key, rounds), FS_OK);
        for (unsigned i = 0; i < n; i++)
            perm[i] = (uint32_t)fs_keyed_at(&p, i);
        assert_int_equal(fs_tally_add(t, perm), FS_OK);
    }
    free(perm);
    return t;
}

static double tally_p(const fs_tally *t, fs_test test)
{
    fs_test_result r;
    assert_int_equal(fs_tally_result(t, test, &r), FS_OK);
    assert_true(r.applicable);
    if (getenv("FS_KEYED_SHOW"))
        fprintf(stderr, "# %s stat %.1f df %.1f p %.3g\n", fs_test_name(test),
                r.statistic, r.df, r.p);
    return r.p;
}

static double p_orders(unsigned n, unsigned keys, unsigned rounds)
{
    fs_tally *t = tally_keys(n, keys, FS_TEST_PERM, rounds, "orders");
    double p = tally_p(t, FS_TEST_PERM);
    fs_tally_free(t);
    return p;
}

static void all_orders_5_and_6(void **s)
{
    (void)s;
    assert_true(p_orders(5, 12000, 0) >= P_PASS);
    assert_true(p_orders(6, 36000, 0) >= P_PASS);
}

static void all_orders_controls_fail(void **s)
{
    (void)s;
    for (unsigned r = 1; r <= 2; r++) {
        assert_true(p_orders(5, 12000, r) <= P_FAIL);
        assert_true(p_orders(6, 36000, r) <= P_FAIL);
    }
}

/* Full (unbinned) element x position matrix at n = 1000 over `keys` keys:
 * z of the scaled Pearson sum against chi-square((n-1)^2). */
static double position_z(unsigned rounds)
{
    enum { N = 1000, KEYS = 1000 };
    uint32_t *c = calloc((size_t)N * N, sizeof *c);
    assert_non_null(c);
    for (unsigned k = 0; k < KEYS; k++) {
        uint8_t key[32];
        fs_keyed p;
        test_key(key, k, "position");
        assert_int_equal(fs__keyed_init_rounds(&p, N, key, rounds), FS_OK);
        for (unsigned i = 0; i < N; i++)
            c[fs_keyed_at(&p, i) * N + i]++;
    }
    double e = (double)KEYS / N, x = 0;
    for (size_t i = 0; i < (size_t)N * N; i++)
        x += (c[i] - e) * (c[i] - e) / e;
    free(c);
    double df = (double)(N - 1) * (N - 1);
    double z = (x * (N - 1) / N - df) / sqrt(2 * df);
    if (getenv("FS_KEYED_SHOW"))
        fprintf(stderr, "# position rounds %u z %.2f\n", rounds, z);
    return z;
}

static void position_matrix_1000(void **s)
{
    (void)s;
    assert_true(fabs(position_z(0)) <= 5.3);
}

static void position_control_fails(void **s)
{
    (void)s;
    assert_true(fabs(position_z(1)) > 5.3);
}

/* n = 50: successive pairs, inversions, cycles, fixed points and the
 * (unbinned) position matrix, over 6000 keys. */
static void pairs_cycles_50(void **s)
{
    (void)s;
    fs_tally *t = tally_keys(50, 6000, FS_TEST_ALL, 0, "pairs");
    const fs_test tests[] = {FS_TEST_PAIRS, FS_TEST_POSITION, FS_TEST_CYCLES,
                             FS_TEST_FIXED, FS_TEST_INVERSIONS};
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (tally_p(t, tests[i]) < P_PASS)
            fail_msg("%s fails at 8 rounds", fs_test_name(tests[i]));
    fs_tally_free(t);
}

static void pairs_control_fails(void **s)
{
    (void)s;
    for (unsigned r = 1; r <= 2; r++) {
        fs_tally *t = tally_keys(50, 6000, FS_TEST_ALL, r, "pairs");
        tally_p(t, FS_TEST_POSITION);
        tally_p(t, FS_TEST_CYCLES);
        tally_p(t, FS_TEST_FIXED);
        tally_p(t, FS_TEST_INVERSIONS);
        assert_true(tally_p(t, FS_TEST_PAIRS) <= P_FAIL);
        fs_tally_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bijection_every_n_to_2000),
        cmocka_unit_test(bijection_powers_of_two),
        cmocka_unit_test(bijection_sampled_large),
        cmocka_unit_test(batch_matches_single),
        cmocka_unit_test(errors_and_edges),
        cmocka_unit_test(golden),
        cmocka_unit_test(all_orders_5_and_6),
        cmocka_unit_test(all_orders_controls_fail),
        cmocka_unit_test(position_matrix_1000),
        cmocka_unit_test(position_control_fails),
        cmocka_unit_test(pairs_cycles_50),
        cmocka_unit_test(pairs_control_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
