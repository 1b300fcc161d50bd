/* test_maxcell.c -- the max-cell test (issue 30): the one most extreme
 * cell of the position matrix, Bonferroni-corrected over the cells, sees a
 * 1% single-cell bias at 100,000 trials of n = 6 that the chi-square
 * position test misses; fair shuffles pass at fixed seeds (the negative
 * control); the power figures match their definition. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/stats.h"

/* T shuffles of n; in a fraction eps (1/den, den = 0: never) element 0 is
 * put on position 0 and the rest shuffled fairly. */
static fs_tally *run(unsigned n, unsigned T, unsigned den, const char *seed,
                     unsigned tests)
{
    fs_rng *rng;
    fs_tally *t;
    assert_int_equal(fs_rng_new(&rng, "xoshiro256ss", seed), FS_OK);
    assert_int_equal(fs_tally_new(&t, n, tests, 0), FS_OK);
    uint32_t a[256];
    for (unsigned k = 0; k < T; k++) {
        for (unsigned i = 0; i < n; i++)
            a[i] = i;
        if (den && fs_below(rng, den) == 0)
            assert_int_equal(fs_shuffle(a + 1, n - 1, sizeof *a, rng), FS_OK);
        else
            assert_int_equal(fs_shuffle(a, n, sizeof *a, rng), FS_OK);
        assert_int_equal(fs_tally_add(t, a), FS_OK);
    }
    fs_rng_free(rng);
    return t;
}

static void sees_one_cell(void **s)
{
    (void)s;
    assert_string_equal(fs_test_name(FS_TEST_MAXCELL), "max-cell");
    assert_int_equal(fs_test_find("max-cell"), FS_TEST_MAXCELL);
    fs_tally *t = run(6, 100000, 100, "one-cell",
                      FS_TEST_MAXCELL | FS_TEST_POSITION);
    fs_test_result m, pos;
    assert_int_equal(fs_tally_result(t, FS_TEST_MAXCELL, &m), FS_OK);
    assert_int_equal(fs_tally_result(t, FS_TEST_POSITION, &pos), FS_OK);
    assert_true(m.applicable && m.normal);
    assert_true(m.df == 36);
    assert_true(m.worst[0].row == 0 && m.worst[0].col == 0);
    /* the exact null sd of a cell: Bernoulli(1/6) per trial */
    double sd = sqrt(100000 * (1.0 / 6) * (5.0 / 6));
    assert_true(fabs(m.statistic - (m.worst[0].observed - m.worst[0].expected) / sd) < 1e-9);
    assert_true(fabs(m.p - fmin(1, 36 * fs_normal_p2(m.statistic))) < 1e-15);
    assert_true(m.p < 1e-4);  /* caught, after the correction */
    printf("# max-cell p %g, position p %g\n", m.p, pos.p);
    assert_true(m.p < pos.p / 100); /* far stronger than the chi-square */
    fs_tally_free(t);
}

static void fair_passes(void **s)
{
    (void)s;
    static const char *seeds[] = {"a", "b", "c", "d"};
    for (unsigned i = 0; i < 4; i++) {
        fs_tally *t = run(6, 100000, 0, seeds[i], FS_TEST_MAXCELL);
        fs_test_result m;
        assert_int_equal(fs_tally_result(t, FS_TEST_MAXCELL, &m), FS_OK);
        assert_true(m.applicable);
        assert_true(m.p > 0.01);
        assert_true(fabs(m.p - fmin(1, 36 * fs_normal_p2(m.statistic))) < 1e-15);
        fs_tally_free(t);
    }
    /* binned (n > 64): the cell sd is hypergeometric, still calibrated */
    fs_tally *t = run(200, 3000, 0, "binned", FS_TEST_MAXCELL);
    fs_test_result m;
    assert_int_equal(fs_tally_result(t, FS_TEST_MAXCELL, &m), FS_OK);
    assert_true(m.applicable && m.df == 256 && m.p > 0.01);
    assert_true(fabs(m.statistic) < 4.5);
    fs_tally_free(t);
    /* too few trials: not run */
    t = run(6, 20, 0, "few", FS_TEST_MAXCELL);
    assert_int_equal(fs_tally_result(t, FS_TEST_MAXCELL, &m), FS_OK);
    assert_false(m.applicable);
    fs_tally_free(t);
}

static void power_figures(void **s)
{
    (void)s;
    /* n = 6, 100,000 trials, alpha 0.01 over a family of 7 */
    double d = fs_maxcell_detectable(6, 100000, 0.01, 7);
    assert_true(fabs(d - 0.00762) < 0.00002);
    double need = fs_maxcell_trials(6, 0.01, 0.01, 7);
    assert_true(need == 58123);
    /* the inverse of each other */
    assert_true(fs_maxcell_detectable(6, (uint64_t)need, 0.01, 7) <= 0.01);
    assert_true(fs_maxcell_detectable(6, (uint64_t)need - 100, 0.01, 7) > 0.01);
    /* a larger family asks more */
    assert_true(fs_maxcell_trials(6, 0.01, 0.01, 1) < need);
    assert_true(isnan(fs_maxcell_detectable(1, 100, 0.01, 1)));
    assert_true(isnan(fs_maxcell_detectable(65, 100, 0.01, 1)));
    assert_true(isnan(fs_maxcell_trials(6, 0, 0.01, 1)));
    assert_true(isnan(fs_maxcell_trials(6, 0.01, 1, 1)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sees_one_cell),
        cmocka_unit_test(fair_passes),
        cmocka_unit_test(power_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
