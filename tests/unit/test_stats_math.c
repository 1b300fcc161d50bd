/* test_stats_math.c -- the numbers under the verdicts: incomplete gamma,
 * chi-square and normal tails against GSL; Lehmer codes; exact
 * distributions against brute-force enumeration; Holm's procedure. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>

#include "fairshuf.h"
#include "fairshuf/stats.h"

#define REL 1e-10

static void close_rel(double got, double want, const char *what, double a,
                      double x)
{
    double err = fabs(got - want) / fabs(want);
    if (!(err <= REL)) {
        print_error("%s(%.17g, %.17g): got %.17g want %.17g (rel %.3g)\n",
                    what, a, x, got, want, err);
        fail();
    }
}

/* Grid of shapes and arguments spanning both algorithms (series and
 * continued fraction), both tails and the large degrees of freedom of
 * the perm test (10! - 1 cells). */
static const double shapes[] = {0.5, 1,    1.5,   2,     2.5,    3,
                                4.5, 7,    11.5,  24.5,  50,     59.5,
                                100, 360,  999.5, 2000,  12345.5, 1e5,
                                5e5, 1814399.5};
static const double factors[] = {0.01, 0.1, 0.5, 0.8, 0.95, 0.99, 1, 1.01,
                                 1.05, 1.2, 1.5, 2,   3,    5,    10};

static void test_gamma_q_vs_gsl(void **state)
{
    (void)state;
    gsl_set_error_handler_off();
    int checked = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (size_t j = 0; j < sizeof factors / sizeof *factors; j++) {
            double a = shapes[i], x = a * factors[j];
            /* also absolute offsets of a few standard deviations */
            for (int k = 0; k < 2; k++) {
                if (k == 1)
                    x = a + (factors[j] - 1) * 10 * sqrt(a);
                if (x <= 0)
                    continue;
                gsl_sf_result r;
                if (gsl_sf_gamma_inc_Q_e(a, x, &r) != GSL_SUCCESS ||
                    r.val < 1e-290)
                    continue;
                close_rel(fs_gamma_q(a, x), r.val, "gamma_q", a, x);
                gsl_sf_result rp;
                if (gsl_sf_gamma_inc_P_e(a, x, &rp) == GSL_SUCCESS &&
                    rp.val > 1e-290)
                    close_rel(fs_gamma_p(a, x), rp.val, "gamma_p", a, x);
                checked++;
            }
        }
    assert_true(checked > 400);
}

static void test_chisq_vs_gsl(void **state)
{
    (void)state;
    static const double dfs[] = {1,   2,   3,    4,    5,     8,     9,
                                 15,  23,  24,   35,   48,    99,    119,
                                 625, 719, 5039, 40319, 362879, 3628799};
    int checked = 0;
    for (size_t i = 0; i < sizeof dfs / sizeof *dfs; i++)
        for (size_t j = 0; j < sizeof factors / sizeof *factors; j++) {
            double df = dfs[i], x = df * factors[j];
            double want = gsl_cdf_chisq_Q(x, df);
            if (want < 1e-290)
                continue;
            close_rel(fs_chisq_q(df, x), want, "chisq_q", df, x);
            checked++;
        }
    assert_true(checked > 250);
    /* edges */
    assert_true(fs_chisq_q(3, 0) == 1);
    assert_true(isnan(fs_chisq_q(0, 1)));
    assert_true(isnan(fs_gamma_q(-1, 1)));
    assert_true(fs_gamma_q(2, INFINITY) == 0);
}

static void test_normal_vs_gsl(void **state)
{
    (void)state;
    for (double z = -30; z <= 30; z += 0.25) {
        close_rel(fs_normal_q(z), gsl_cdf_ugaussian_Q(z), "normal_q", z, 0);
        double want2 = 2 * gsl_cdf_ugaussian_Q(fabs(z));
        close_rel(fs_normal_p2(z), want2, "normal_p2", z, 0);
    }
}

static void test_lehmer(void **state)
{
    (void)state;
    uint32_t p[10], q[10];
    for (unsigned n = 1; n <= 8; n++) {
        uint64_t f = fs_factorial(n), r;
        for (uint64_t k = 0; k < f; k++) {
            assert_int_equal(fs_lehmer_unrank(k, n, p), FS_OK);
            assert_int_equal(fs_lehmer_rank(p, n, &r), FS_OK);
            assert_int_equal(r, k);
            if (k > 0) /* lexicographic: each rank is greater than the last */
                for (unsigned i = 0; i < n; i++)
                    if (p[i] != q[i]) {
                        assert_true(p[i] > q[i]);
                        break;
                    }
            for (unsigned i = 0; i < n; i++)
                q[i] = p[i];
        }
    }
    uint32_t id[4] = {0, 1, 2, 3}, rev[4] = {3, 2, 1, 0}, bad[4] = {0, 1, 1, 3};
    uint64_t r;
    assert_int_equal(fs_lehmer_rank(id, 4, &r), FS_OK);
    assert_int_equal(r, 0);
    assert_int_equal(fs_lehmer_rank(rev, 4, &r), FS_OK);
    assert_int_equal(r, 23);
    assert_int_equal(fs_lehmer_rank(bad, 4, &r), FS_EINVAL);
    assert_int_equal(fs_lehmer_unrank(24, 4, p), FS_EINVAL);
    assert_int_equal(fs_lehmer_rank(id, 21, &r), FS_EINVAL);
    assert_int_equal(fs_factorial(20), 2432902008176640000ULL);
    assert_int_equal(fs_factorial(21), 0);
}

static void test_cycle_rank(void **state)
{
    (void)state;
    uint32_t p[8];
    for (unsigned n = 2; n <= 8; n++) {
        uint64_t f = fs_factorial(n - 1), r;
        for (uint64_t k = 0; k < f; k++) {
            assert_int_equal(fs_cycle_unrank(k, n, p), FS_OK);
            /* one cycle through all n */
            unsigned len = 0, x = 0;
            do {
                x = p[x];
                len++;
            } while (x != 0 && len <= n);
            assert_int_equal(len, n);
            assert_int_equal(fs_cycle_rank(p, n, &r), FS_OK);
            assert_int_equal(r, k);
        }
    }
    uint32_t two[4] = {1, 0, 3, 2}; /* two 2-cycles */
    uint64_t r;
    assert_int_equal(fs_cycle_rank(two, 4, &r), FS_EINVAL);
}

/* Brute force over all n! permutations: cycles, fixed points, inversions. */
static void test_exact_distributions(void **state)
{
    (void)state;
    uint32_t p[8];
    for (unsigned n = 1; n <= 8; n++) {
        double cyc[9] = {0}, fix[9] = {0}, pc[9], pf[9];
        double inv_sum = 0, inv_sq = 0, f = (double)fs_factorial(n);
        for (uint64_t k = 0; k < fs_factorial(n); k++) {
            fs_lehmer_unrank(k, n, p);
            unsigned fp = 0, c = 0, inv = 0;
            unsigned char seen[8] = {0};
            for (unsigned i = 0; i < n; i++) {
                fp += p[i] == i;
                for (unsigned j = i + 1; j < n; j++)
                    inv += p[i] > p[j];
                if (!seen[i]) {
                    c++;
                    for (unsigned x = i; !seen[x]; x = p[x])
                        seen[x] = 1;
                }
            }
            cyc[c]++;
            fix[fp]++;
            inv_sum += inv;
            inv_sq += (double)inv * inv;
        }
        fs_dist_cycles(n, pc);
        fs_dist_fixed_points(n, pf);
        for (unsigned k = 0; k <= n; k++) {
            assert_true(fabs(pc[k] - cyc[k] / f) < 1e-14);
            assert_true(fabs(pf[k] - fix[k] / f) < 1e-14);
        }
        double mean, var;
        fs_inversion_moments(n, &mean, &var);
        assert_true(fabs(mean - inv_sum / f) < 1e-9);
        assert_true(fabs(var - (inv_sq / f - mean * mean)) < 1e-9);
    }
    /* large n: still probabilities summing to 1 */
    static double big[2001];
    fs_dist_cycles(2000, big);
    double s = 0, m = 0;
    for (unsigned k = 0; k <= 2000; k++)
        s += big[k], m += k * big[k];
    assert_true(fabs(s - 1) < 1e-12);
    double h = 0; /* mean number of cycles = harmonic number H_n */
    for (unsigned k = 1; k <= 2000; k++)
        h += 1.0 / k;
    assert_true(fabs(m - h) < 1e-10);
    fs_dist_fixed_points(2000, big);
    assert_true(fabs(big[0] - exp(-1)) < 1e-12); /* Poisson(1) limit */
}

static void test_holm(void **state)
{
    (void)state;
    double p[5] = {0.01, 0.04, 0.03, 0.005, NAN};
    int rej[5];
    /* sorted: .005*4=.02, .01*3=.03, .03*2=.06 -> stop.  alpha .05 */
    assert_int_equal(fs_holm(p, 5, 0.05, rej), FS_OK);
    assert_int_equal(rej[3], 1);
    assert_int_equal(rej[0], 1);
    assert_int_equal(rej[2], 0);
    assert_int_equal(rej[1], 0);
    assert_int_equal(rej[4], 0);
    double adj[5];
    assert_int_equal(fs_holm_adjust(p, 5, adj), FS_OK);
    assert_true(fabs(adj[3] - 0.02) < 1e-15);
    assert_true(fabs(adj[0] - 0.03) < 1e-15);
    assert_true(fabs(adj[2] - 0.06) < 1e-15);
    assert_true(fabs(adj[1] - 0.06) < 1e-15); /* monotone: max(.04, .06) */
    assert_int_equal(fs_holm(p, 5, 0, rej), FS_EINVAL);
    assert_int_equal(fs_holm(p, 5, 1, rej), FS_EINVAL);
}

static void test_log2_factorial(void **state)
{
    (void)state;
    assert_true(fabs(fs_log2_factorial(52) - 225.58100312370) < 1e-9);
    assert_true(fabs(fs_log2_factorial(0)) < 1e-15);
    assert_true(fabs(fs_log2_factorial(144) - 829.6) < 0.1);
}

/* ---- known answers: statistic, df and p of every test ----------------
 * The tallies' results against the same statistics computed here from
 * the raw permutations, df exact, p = GSL's chi-square (or normal) tail
 * of the statistic.  Catches a wrong df (n! instead of n! - 1), a wrong
 * scale or a wrong pooling, which calibration bands are too loose to see. */
#define KN 4
#define KT 2400

static unsigned rank4(const uint32_t *p)
{
    unsigned r = 0, fact[KN] = {6, 2, 1, 1};
    for (unsigned i = 0; i < KN; i++) {
        unsigned smaller = 0;
        for (unsigned j = i + 1; j < KN; j++)
            smaller += p[j] < p[i];
        r += smaller * fact[i];
    }
    return r;
}

static void check_result(const fs_tally *t, fs_test test, double stat,
                         double df)
{
    fs_test_result r;
    assert_int_equal(fs_tally_result(t, test, &r), FS_OK);
    assert_true(r.applicable);
    if (fabs(r.df - df) > 1e-12 * df) {
        print_error("%s: df %.17g, want %.17g\n", fs_test_name(test), r.df, df);
        fail();
    }
    close_rel(r.statistic, stat, fs_test_name(test), df, stat);
    double want = df == 0 ? 2 * gsl_cdf_ugaussian_Q(fabs(stat))
                          : gsl_cdf_chisq_Q(stat, df);
    if (!(fabs(r.p - want) <= 1e-9 * want + 1e-300)) {
        print_error("%s: p %.17g, want %.17g (stat %.17g, df %.17g)\n",
                    fs_test_name(test), r.p, want, stat, df);
        fail();
    }
}

static double pearson(const double *o, const double *e, unsigned k)
{
    double s = 0;
    for (unsigned i = 0; i < k; i++)
        s += (o[i] - e[i]) * (o[i] - e[i]) / e[i];
    return s;
}

static void known_answers_for(const char *alg, const char *seed)
{
    fs_tally *t;
    assert_int_equal(fs_tally_new(&t, KN, FS_TEST_ALL, 0), FS_OK);
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "xoshiro256ss", seed), FS_OK);
    double perm[24] = {0}, pos[KN * KN] = {0}, pairs[KN * KN] = {0};
    double cyc[KN + 1] = {0}, fix[KN + 1] = {0}, inv = 0;
    for (unsigned trial = 0; trial < KT; trial++) {
        uint32_t p[KN] = {0, 1, 2, 3};
        assert_int_equal(fs_shuffle_with(fs_algorithm_find(alg)->id, p, KN,
                                         sizeof p[0], rng), FS_OK);
        assert_int_equal(fs_tally_add(t, p), FS_OK);
        perm[rank4(p)]++;
        unsigned seen = 0, cycles = 0, fixed = 0;
        for (unsigned j = 0; j < KN; j++) {
            pos[p[j] * KN + j]++;
            if (j + 1 < KN)
                pairs[p[j] * KN + p[j + 1]]++;
            fixed += p[j] == j;
            for (unsigned i = 0; i < j; i++)
                inv += p[i] > p[j];
            if (!(seen >> j & 1)) {
                cycles++;
                for (unsigned x = j; !(seen >> x & 1); x = p[x])
                    seen |= 1u << x;
            }
        }
        cyc[cycles]++;
        fix[fixed]++;
    }
    fs_rng_free(rng);
    double T = KT, n = KN, e[24];
    /* perm: n! cells, df n! - 1 */
    for (int i = 0; i < 24; i++)
        e[i] = T / 24;
    check_result(t, FS_TEST_PERM, pearson(perm, e, 24), 23);
    /* position: S (n-1)/n ~ chi-square((n-1)^2) */
    for (int i = 0; i < KN * KN; i++)
        e[i] = T / n;
    check_result(t, FS_TEST_POSITION, pearson(pos, e, 16) * (n - 1) / n,
                 (n - 1) * (n - 1));
    /* pairs: the n(n-1) off-diagonal cells, mean (n-1)^2, variance
     * 2 (n^2 - n - 1): S / c with c = (n^2-n-1)/(n-1)^2 */
    double po[12], pe[12];
    unsigned k = 0;
    for (unsigned a = 0; a < KN; a++)
        for (unsigned b = 0; b < KN; b++)
            if (a != b)
                po[k] = pairs[a * KN + b], pe[k++] = T / n;
    double mu = (n - 1) * (n - 1), tr2 = n * n - n - 1;
    check_result(t, FS_TEST_PAIRS, pearson(po, pe, 12) / (tr2 / mu),
                 mu * mu / tr2);
    /* inversions: mean n(n-1)/4 = 3, variance n(n-1)(2n+5)/72 = 13/6 */
    check_result(t, FS_TEST_INVERSIONS, (inv - T * 3) / sqrt(T * 13.0 / 6), 0);
    /* cycles of a uniform permutation of 4: c(4,k)/4! = 6, 11, 6, 1 over
     * 24; class 0 (never) pools with class 1: 4 classes, df 3 */
    double co[4] = {cyc[0] + cyc[1], cyc[2], cyc[3], cyc[4]};
    double ce[4] = {T * 6 / 24, T * 11 / 24, T * 6 / 24, T * 1 / 24};
    check_result(t, FS_TEST_CYCLES, pearson(co, ce, 4), 3);
    /* fixed points: 9, 8, 6, 0, 1 over 24; 3 fixed points is impossible
     * and pools with 4: classes {0} {1} {2} {3,4}, df 3 */
    double fo[4] = {fix[0], fix[1], fix[2], fix[3] + fix[4]};
    double fe[4] = {T * 9 / 24, T * 8 / 24, T * 6 / 24, T * 1 / 24};
    check_result(t, FS_TEST_FIXED, pearson(fo, fe, 4), 3);
    fs_tally_free(t);
}

static void test_known_answers(void **state)
{
    (void)state;
    known_answers_for("durstenfeld", "known-1"); /* p-values mid-range */
    known_answers_for("durstenfeld", "known-2");
    known_answers_for("naive-swap", "known-3");  /* small p-values */
}

/* Holm's correction is applied: one p-value between alpha/m and alpha is
 * not rejected in a family of m, and is rejected alone. */
static void test_holm_corrects(void **state)
{
    (void)state;
    double p[6] = {0.004, 0.3, 0.5, 0.6, 0.7, 0.9};
    int rej[6];
    assert_int_equal(fs_holm(p, 6, 0.01, rej), FS_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(rej[i], 0); /* 6 * 0.004 = 0.024 > 0.01 */
    assert_int_equal(fs_holm(p, 1, 0.01, rej), FS_OK);
    assert_int_equal(rej[0], 1);
    double adj[6];
    assert_int_equal(fs_holm_adjust(p, 6, adj), FS_OK);
    const double want[6] = {0.024, 1, 1, 1, 1, 1};
    for (int i = 0; i < 6; i++)
        assert_true(fabs(adj[i] - want[i]) < 1e-15);
    /* step-down: p(2) multiplied by m - 1, not m; monotone */
    double q[3] = {0.01, 0.02, 0.03}, qa[3];
    assert_int_equal(fs_holm_adjust(q, 3, qa), FS_OK);
    assert_true(fabs(qa[0] - 0.03) < 1e-15);
    assert_true(fabs(qa[1] - 0.04) < 1e-15);
    assert_true(fabs(qa[2] - 0.04) < 1e-15); /* max(0.03, 0.04) */
    assert_int_equal(fs_holm(q, 3, 0.035, rej), FS_OK);
    assert_int_equal(rej[0], 1);
    assert_int_equal(rej[1], 0);
    assert_int_equal(rej[2], 0);
}

/* Pooling with a short tail: n = 6, 200 trials.  Cycles: c(6,k) = 120,
 * 274, 225, 85, 15, 1 of 720 expect 33.3, 76.1, 62.5, 23.6, 4.2, 0.3; the
 * tail {5, 6} expects 4.4 < 5 and must join {4}: classes {0,1} {2} {3}
 * {4,5,6}, df 3.  Fixed points: 265, 264, 135, 40, 15, 0, 1 of 720: the
 * tail {4,5,6} expects 4.4 and joins {3}: {0} {1} {2} {3..6}, df 3. */
static void test_known_answers_short_tail(void **state)
{
    (void)state;
    const unsigned n = 6, T = 200;
    fs_tally *t;
    assert_int_equal(fs_tally_new(&t, n, FS_TEST_CYCLES | FS_TEST_FIXED, 0),
                     FS_OK);
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "xoshiro256ss", "short-tail"), FS_OK);
    double cyc[7] = {0}, fix[7] = {0};
    for (unsigned trial = 0; trial < T; trial++) {
        uint32_t p[6] = {0, 1, 2, 3, 4, 5};
        assert_int_equal(fs_shuffle(p, n, sizeof p[0], rng), FS_OK);
        assert_int_equal(fs_tally_add(t, p), FS_OK);
        unsigned seen = 0, cycles = 0, fixed = 0;
        for (unsigned j = 0; j < n; j++) {
            fixed += p[j] == j;
            if (!(seen >> j & 1)) {
                cycles++;
                for (unsigned x = j; !(seen >> x & 1); x = p[x])
                    seen |= 1u << x;
            }
        }
        cyc[cycles]++;
        fix[fixed]++;
    }
    fs_rng_free(rng);
    double co[4] = {cyc[1], cyc[2], cyc[3], cyc[4] + cyc[5] + cyc[6]};
    double ce[4] = {T * 120.0 / 720, T * 274.0 / 720, T * 225.0 / 720,
                    T * 101.0 / 720};
    check_result(t, FS_TEST_CYCLES, pearson(co, ce, 4), 3);
    double fo[4] = {fix[0], fix[1], fix[2], fix[3] + fix[4] + fix[5] + fix[6]};
    double fe[4] = {T * 265.0 / 720, T * 264.0 / 720, T * 135.0 / 720,
                    T * 56.0 / 720};
    check_result(t, FS_TEST_FIXED, pearson(fo, fe, 4), 3);
    fs_tally_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gamma_q_vs_gsl),
        cmocka_unit_test(test_chisq_vs_gsl),
        cmocka_unit_test(test_normal_vs_gsl),
        cmocka_unit_test(test_lehmer),
        cmocka_unit_test(test_cycle_rank),
        cmocka_unit_test(test_exact_distributions),
        cmocka_unit_test(test_holm),
        cmocka_unit_test(test_log2_factorial),
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_known_answers_short_tail),
        cmocka_unit_test(test_holm_corrects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
