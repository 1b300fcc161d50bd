/* test_shuffle_stats.c -- distribution tests with fixed seeds and
 * precomputed acceptance bands (so they never flake), each with negative
 * controls that must fail the very same test.
 *
 * Bands are exact binomial quantiles computed offline (two-sided, tail
 * 1e-7 per cell; 1e-9 for the 2,916-cell matrix), chi-square critical
 * values are GSL's gsl_cdf_chisq_Qinv(1e-7, df):
 *   perm of 4, 240,000 shuffles, p = 1/24:  [9483, 10526], chi2(23) 76.9
 *   sattolo, 240,000 shuffles, p = 1/6:     [39031, 40976], chi2(5) 40.9
 *   position 54 x 54, 20,000 decks, 1/54:   [260, 493],   chi2(2809) 3216.2
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "support/scripted.h"

#define T4 240000

/* Counts of the 24 orders of 0..3 over T4 shuffles with a fixed seed. */
static void count_perm4(fs_algorithm alg, uint64_t counts[24])
{
    fs_rng *rng = seeded("chacha20", "test_shuffle_stats perm4");
    memset(counts, 0, 24 * sizeof *counts);
    for (int t = 0; t < T4; t++) {
        uint64_t a[4] = {0, 1, 2, 3};
        assert_int_equal(fs_shuffle_with(alg, a, 4, sizeof a[0], rng), FS_OK);
        counts[perm_rank(a, 4)]++;
    }
    fs_rng_free(rng);
}

static double chi2(const uint64_t *c, size_t cells, double expected)
{
    double x = 0;
    for (size_t i = 0; i < cells; i++)
        x += (c[i] - expected) * (c[i] - expected) / expected;
    return x;
}

/* 1 if every cell is in [lo, hi] and chi-square is below crit. */
static int uniform_in_band(const uint64_t *c, size_t cells, uint64_t lo,
                           uint64_t hi, double expected, double crit)
{
    for (size_t i = 0; i < cells; i++)
        if (c[i] < lo || c[i] > hi)
            return 0;
    return chi2(c, cells, expected) < crit;
}

static void perm4_fair_algorithms(void **s)
{
    (void)s;
    size_t n;
    const fs_algorithm_info *a = fs_algorithm_list(&n);
    uint64_t c[24];
    unsigned tested = 0;
    count_perm4(FS_ALG_AUTO, c);
    assert_true(uniform_in_band(c, 24, 9483, 10526, T4 / 24.0, 76.9));
    for (size_t i = 0; i < n; i++) {
        if (!a[i].fair || a[i].cyclic)
            continue;
        count_perm4(a[i].id, c);
        if (!uniform_in_band(c, 24, 9483, 10526, T4 / 24.0, 76.9))
            fail_msg("%s is not uniform over the 24 orders (chi2 %.1f)",
                     a[i].name, chi2(c, 24, T4 / 24.0));
        tested++;
    }
    assert_true(tested >= 6);
}

static void perm4_controls_fail(void **s)
{
    (void)s;
    const fs_algorithm controls[] = {FS_ALG_SWAP_ANY, FS_ALG_ASF_1999,
                                     FS_ALG_RANDOM_COMPARATOR};
    uint64_t c[24];
    for (size_t i = 0; i < 3; i++) {
        count_perm4(controls[i], c);
        assert_false(uniform_in_band(c, 24, 9483, 10526, T4 / 24.0, 76.9));
    }
}

/* Sattolo: uniform over the 6 single 4-cycles, never anything else. */
static int sattolo_ok(const uint64_t c[24])
{
    uint64_t cyc[6];
    size_t k = 0;
    for (uint64_t r = 0; r < 24; r++) {
        /* unrank and test for a single cycle */
        uint64_t p[4], used = 0, rest = r;
        for (int i = 0; i < 4; i++) {
            uint64_t f = factorial(3 - (unsigned)i), d = rest / f, v = 0;
            rest %= f;
            for (;; v++)
                if (!(used >> v & 1) && d-- == 0)
                    break;
            p[i] = v;
            used |= 1ull << v;
        }
        int len = 1; /* length of the cycle through 0 */
        for (uint64_t x = p[0]; x != 0; x = p[x])
            len++;
        if (len == 4) {
            if (k == 6)
                return 0;
            cyc[k++] = c[r];
        } else if (c[r] != 0) {
            return 0;
        }
    }
    return k == 6 && uniform_in_band(cyc, 6, 39031, 40976, T4 / 6.0, 40.9);
}

static void sattolo_uniform_cycles(void **s)
{
    (void)s;
    uint64_t c[24];
    count_perm4(FS_ALG_SATTOLO, c);
    assert_true(sattolo_ok(c));
    /* Control: a uniform shuffle is not a uniform cyclic permutation. */
    count_perm4(FS_ALG_DURSTENFELD, c);
    assert_false(sattolo_ok(c));
}

/* Position matrix of a 54-card deck over 20,000 shuffles. */
static int position54_ok(fs_algorithm alg)
{
    enum { N = 54, T = 20000 };
    static uint64_t m[N * N];
    memset(m, 0, sizeof m);
    fs_rng *rng = seeded("chacha20", "test_shuffle_stats position54");
    for (int t = 0; t < T; t++) {
        uint32_t a[N];
        for (uint32_t i = 0; i < N; i++)
            a[i] = i;
        assert_int_equal(fs_shuffle_with(alg, a, N, sizeof a[0], rng), FS_OK);
        for (int pos = 0; pos < N; pos++)
            m[a[pos] * N + (unsigned)pos]++;
    }
    fs_rng_free(rng);
    return uniform_in_band(m, N * N, 260, 493, (double)T / N, 3216.2);
}

static void position54(void **s)
{
    (void)s;
    size_t n;
    const fs_algorithm_info *a = fs_algorithm_list(&n);
    assert_true(position54_ok(FS_ALG_AUTO));
    for (size_t i = 0; i < n; i++)
        if (a[i].fair && !a[i].cyclic && !position54_ok(a[i].id))
            fail_msg("%s fails the 54-card position test", a[i].name);
    /* Post 001's naive swap leaves cards in place far too often. */
    assert_false(position54_ok(FS_ALG_NAIVE_SWAP));
    assert_false(position54_ok(FS_ALG_SWAP_ANY));
}

/* mod-bias at n = 1000: with 15-bit r, j = r % (i+1) favours the residues
 * below c_i = 32768 mod (i+1).  For a uniform permutation the value at
 * position i is uniform on [0, n), so P(a[i] < c_i) = c_i / n exactly.
 * The statistic sums those indicators over the top 300 positions of T
 * shuffles; its z-score against the independent-indicator variance (an
 * upper bound here: the indicators of one permutation are negatively
 * correlated) must stay within 6 for a fair shuffle and exceed it for
 * mod-bias. */
static double mod_bias_z(fs_algorithm alg)
{
    enum { N = 1000, TOP = 300, T = 8000 };
    static uint32_t a[N];
    fs_rng *rng = seeded("xoshiro256ss", "test_shuffle_stats mod-bias");
    double hits = 0, mean = 0, var = 0;
    for (int t = 0; t < T; t++) {
        for (uint32_t i = 0; i < N; i++)
            a[i] = i;
        assert_int_equal(fs_shuffle_with(alg, a, N, sizeof a[0], rng), FS_OK);
        for (uint32_t i = N - TOP; i < N; i++) {
            uint32_t c = 32768 % (i + 1);
            double p = (double)c / N;
            hits += a[i] < c;
            mean += p;
            var += p * (1 - p);
        }
    }
    fs_rng_free(rng);
    return (hits - mean) / sqrt(var);
}

static void mod_bias_1000(void **s)
{
    (void)s;
    double fair = mod_bias_z(FS_ALG_DURSTENFELD);
    double biased = mod_bias_z(FS_ALG_MOD_BIAS);
    print_message("# mod-bias z: durstenfeld %.2f, mod-bias %.2f\n", fair,
                  biased);
    assert_true(fabs(fair) < 6);
    assert_true(biased > 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(perm4_fair_algorithms),
        cmocka_unit_test(perm4_controls_fail),
        cmocka_unit_test(sattolo_uniform_cycles),
        cmocka_unit_test(position54),
        cmocka_unit_test(mod_bias_1000),
    };
    return cmocka_run_group_tests_name("shuffle_stats", tests, NULL, NULL);
}
