/* test_weighted.c -- weighted order and sampling (<fairshuf/weighted.h>)
 * against exact probabilities computed by enumeration, with a fixed seed
 * and precomputed bands, and a common wrong method (key = U * w, which
 * looks right and is not) as the control that must fail the same tests.
 *
 * Bands: the chi-square critical value at tail 1e-7 for 23 df is 76.9
 * (GSL gsl_cdf_chisq_Qinv, as test_shuffle_stats.c); a single frequency
 * passes within 5.3 binomial standard deviations (two-sided ~1e-7).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/stats.h"
#include "fairshuf/weighted.h"
#include "support/scripted.h"

/* The control: sort by U * w, largest first. */
static void wrong_order(const double *w, size_t n, uint64_t *order, fs_rng *rng)
{
    double key[8];
    for (size_t i = 0; i < n; i++) {
        key[i] = ((double)(fs_rng_u64(rng) >> 11) + 0.5) * 0x1p-53 * w[i];
        order[i] = i;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && key[order[j]] > key[order[j - 1]]; j--) {
            uint64_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

/* Exact probability of a full order under successive weighted draws. */
static double order_prob(const double *w, size_t n, const uint64_t *order)
{
    double total = 0, p = 1;
    for (size_t i = 0; i < n; i++)
        total += w[i];
    for (size_t j = 0; j < n; j++) {
        p *= w[order[j]] / total;
        total -= w[order[j]];
    }
    return p;
}

#define T4 120000

static double chi2_orders4(int control)
{
    const double w[4] = {1, 2, 3, 4};
    fs_rng *rng = seeded("chacha20", "test_weighted orders");
    uint64_t count[24] = {0}, order[4];
    for (int t = 0; t < T4; t++) {
        if (control)
            wrong_order(w, 4, order, rng);
        else
            assert_int_equal(fs_weighted_order(w, 4, order, NULL, rng), FS_OK);
        count[perm_rank(order, 4)]++;
    }
    double x = 0;
    for (uint64_t r = 0; r < 24; r++) {
        uint32_t p32[4];
        uint64_t p[4];
        assert_int_equal(fs_lehmer_unrank(r, 4, p32), FS_OK);
        for (int i = 0; i < 4; i++)
            p[i] = p32[i];
        assert_true(perm_rank(p, 4) == r);
        double e = T4 * order_prob(w, 4, p);
        x += (count[r] - e) * (count[r] - e) / e;
    }
    fs_rng_free(rng);
    return x;
}

static void orders_match_exact_probabilities(void **s)
{
    (void)s;
    assert_true(chi2_orders4(0) < 76.9);
}

static void orders_control_fails(void **s)
{
    (void)s;
    assert_true(chi2_orders4(1) > 76.9);
}

/* k = 2 of 5: inclusion frequencies against the exact inclusion
 * probabilities (sum over the 20 ordered pairs); returns the largest |z|. */
static double inclusion_max_z(int control)
{
    const double w[5] = {1, 1, 2, 5, 10};
    enum { T = 100000 };
    double exact[5] = {0};
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            if (a != b) {
                double p = w[a] / 19 * w[b] / (19 - w[a]);
                exact[a] += p;
                exact[b] += p;
            }
    fs_rng *rng = seeded("chacha20", "test_weighted inclusion");
    uint64_t count[5] = {0}, out[5];
    for (int t = 0; t < T; t++) {
        if (control)
            wrong_order(w, 5, out, rng);
        else
            assert_int_equal(fs_weighted_sample(w, 5, 2, out, NULL, rng), FS_OK);
        count[out[0]]++;
        count[out[1]]++;
    }
    fs_rng_free(rng);
    double worst = 0;
    for (int i = 0; i < 5; i++) {
        double z = (count[i] - T * exact[i]) / sqrt(T * exact[i] * (1 - exact[i]));
        worst = fmax(worst, fabs(z));
    }
    return worst;
}

static void inclusion_matches_enumeration(void **s)
{
    (void)s;
    assert_true(inclusion_max_z(0) <= 5.3);
}

static void inclusion_control_fails(void **s)
{
    (void)s;
    assert_true(inclusion_max_z(1) > 5.3);
}

/* 1e-300 and 1e300 keep their meaning: log space. */
static void extreme_weights(void **s)
{
    (void)s;
    fs_rng *rng = seeded("chacha20", "test_weighted extreme");
    const double w[3] = {1e-300, 1e300, 1};
    uint64_t o[3];
    for (int t = 0; t < 1000; t++) {
        assert_int_equal(fs_weighted_order(w, 3, o, NULL, rng), FS_OK);
        assert_true(o[0] == 1 && o[1] == 2 && o[2] == 0);
    }
    /* two tiny weights 1:2 -- the second first with probability 2/3 */
    const double tiny[2] = {1e-300, 2e-300};
    int second = 0;
    for (int t = 0; t < 30000; t++) {
        assert_int_equal(fs_weighted_order(tiny, 2, o, NULL, rng), FS_OK);
        second += o[0] == 1;
    }
    assert_true(fabs(second - 20000.0) <= 5.3 * sqrt(30000 * 2.0 / 9));
    fs_rng_free(rng);
}

/* All weights equal: the all-orders test of a uniform shuffle at n = 5. */
static void equal_weights_uniform(void **s)
{
    (void)s;
    fs_rng *rng = seeded("chacha20", "test_weighted equal");
    fs_tally *t;
    assert_int_equal(fs_tally_new(&t, 5, FS_TEST_PERM | FS_TEST_POSITION, 0), FS_OK);
    const double w[5] = {3, 3, 3, 3, 3};
    for (int k = 0; k < 24000; k++) {
        uint64_t o[5];
        uint32_t p[5];
        assert_int_equal(fs_weighted_order(w, 5, o, NULL, rng), FS_OK);
        for (int i = 0; i < 5; i++)
            p[i] = (uint32_t)o[i];
        assert_int_equal(fs_tally_add(t, p), FS_OK);
    }
    fs_test_result r;
    assert_int_equal(fs_tally_result(t, FS_TEST_PERM, &r), FS_OK);
    assert_true(r.p >= 1e-7);
    assert_int_equal(fs_tally_result(t, FS_TEST_POSITION, &r), FS_OK);
    assert_true(r.p >= 1e-7);
    fs_tally_free(t);
    fs_rng_free(rng);
}

static void errors_name_the_index(void **s)
{
    (void)s;
    uint64_t o[3];
    size_t bad = 99;
    const double zero[3] = {1, 0, 1}, neg[3] = {1, 1, -2},
                 nan_[3] = {NAN, 1, 1}, inf[3] = {1, INFINITY, 1};
    assert_int_equal(fs_weighted_order(zero, 3, o, &bad, NULL), FS_EINVAL);
    assert_true(bad == 1);
    assert_int_equal(fs_weighted_order(neg, 3, o, &bad, NULL), FS_EINVAL);
    assert_true(bad == 2);
    assert_int_equal(fs_weighted_order(nan_, 3, o, &bad, NULL), FS_EINVAL);
    assert_true(bad == 0);
    assert_int_equal(fs_weighted_order(inf, 3, o, &bad, NULL), FS_EINVAL);
    assert_true(bad == 1);
    const double ok[3] = {1, 2, 3};
    assert_int_equal(fs_weighted_sample(ok, 3, 4, o, NULL, NULL), FS_EINVAL);
    assert_int_equal(fs_weighted_sample(ok, 3, 0, NULL, NULL, NULL), FS_OK);
    assert_int_equal(fs_weighted_order(NULL, 0, NULL, NULL, NULL), FS_OK);
}

/* docs/stream.md §6: one word per item, U = (k + 1/2) 2^-53 rounded, ties
 * by index.  k = 2^52 rounds to U = 1/2 exactly; k = 2^53 - 1 rounds to
 * U = 1, whose key is -inf: items 1 and 2 come first (in index order),
 * ahead of weight 1e300, whatever their weight. */
static void keys_and_ties_as_specified(void **s)
{
    (void)s;
    const double w[4] = {1e300, 1, 1, 2};
    const uint64_t words[4] = {1ull << 63, UINT64_MAX, UINT64_MAX, 1ull << 10};
    const uint64_t want[4] = {1, 2, 0, 3};
    uint64_t o[4];
    fs_rng *r = scripted_new();
    scripted_set(r, words, sizeof words);
    assert_int_equal(fs_weighted_order(w, 4, o, NULL, r), FS_OK);
    assert_memory_equal(o, want, sizeof want);
    assert_int_equal(scripted_left(r), 0);
    scripted_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(orders_match_exact_probabilities),
        cmocka_unit_test(orders_control_fails),
        cmocka_unit_test(inclusion_matches_enumeration),
        cmocka_unit_test(inclusion_control_fails),
        cmocka_unit_test(extreme_weights),
        cmocka_unit_test(equal_weights_uniform),
        cmocka_unit_test(errors_name_the_index),
        cmocka_unit_test(keys_and_ties_as_specified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
