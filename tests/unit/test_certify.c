/* test_certify.c -- <fairshuf/certify.h> with fixed seeds: a fair dealer's
 * tests stay above 1e-6 and a naive swap's do not; the identity-labelled
 * deal is the dealer's deal; the bit tests on ChaCha20 pass and on three
 * made-up streams fail the test each is built to fail; GSL checks the
 * chi-square tails the tests use. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>

#include "fairshuf/certify.h"

#define FLOOR 1e-6 /* a fair run's p stays above it (fixed seeds) */

static fs_cert_test *results(fs_cert_tally *t, size_t *n)
{
    assert_int_equal(fs_cert_tally_results(t, NULL, 0, n), FS_OK);
    fs_cert_test *r = calloc(*n, sizeof *r);
    if (*n > 1)
        assert_int_equal(fs_cert_tally_results(t, r, 1, n), FS_ERANGE);
    assert_int_equal(fs_cert_tally_results(t, r, *n, n), FS_OK);
    return r;
}

static double run(const char *game, const char *alg, unsigned deals,
                  size_t *ntests, size_t *rejected_1e6)
{
    fs_dealer *d = malloc(sizeof *d);
    fs_deal *deal = malloc(sizeof *deal);
    assert_int_equal(fs_dealer_init(d, fs_game_find(game), 0, 0,
                                    fs_algorithm_find(alg)->id), FS_OK);
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, NULL, "certify-unit"), FS_OK);
    fs_cert_tally *t;
    assert_int_equal(fs_cert_tally_new(&t, d), FS_OK);
    uint32_t order[FS_DEAL_MAX_CARDS];
    for (unsigned i = 0; i < deals; i++) {
        assert_int_equal(fs_certify_deal(d, rng, deal, order), FS_OK);
        assert_int_equal(fs_cert_tally_add(t, order), FS_OK);
    }
    assert_int_equal(fs_cert_tally_trials(t), deals);
    fs_cert_test *r = results(t, ntests);
    double lo = 1;
    *rejected_1e6 = 0;
    for (size_t i = 0; i < *ntests; i++)
        if (r[i].applicable) {
            assert_true(r[i].p >= 0 && r[i].p <= 1);
            lo = r[i].p < lo ? r[i].p : lo;
            *rejected_1e6 += r[i].p < FLOOR;
        }
    free(r);
    fs_cert_tally_free(t);
    fs_rng_free(rng);
    free(deal);
    free(d);
    return lo;
}

static void fair_passes_naive_fails(void **s)
{
    (void)s;
    size_t n, bad;
    assert_true(run("bridge", "durstenfeld", 20000, &n, &bad) > FLOOR);
    assert_int_equal(bad, 0);
    assert_true(n > 60);
    assert_true(run("doudizhu", "auto", 20000, &n, &bad) > FLOOR);
    /* negative controls: the same count and seed */
    run("bridge", "naive-swap", 20000, &n, &bad);
    assert_true(bad >= 5);
    run("doudizhu", "asf-1999", 20000, &n, &bad);
    assert_true(bad >= 5);
}

/* The labelled deal is the dealer's deal: same generator state, same
 * cards, and order[] is where each card of the fresh shoe went. */
static void labelled_deal_is_the_deal(void **s)
{
    (void)s;
    fs_dealer *d = malloc(sizeof *d), *e = malloc(sizeof *e);
    fs_deal *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    for (int g = 0; g < 3; g++) {
        const char *game = g == 0 ? "holdem" : g == 1 ? "shengji" : "blackjack";
        assert_int_equal(fs_dealer_init(d, fs_game_find(game), 0, 0,
                                        FS_ALG_AUTO), FS_OK);
        *e = *d;
        fs_rng *r1, *r2;
        assert_int_equal(fs_rng_new(&r1, NULL, "same"), FS_OK);
        assert_int_equal(fs_rng_new(&r2, NULL, "same"), FS_OK);
        uint32_t order[FS_DEAL_MAX_CARDS];
        for (int k = 0; k < 5; k++) {
            assert_int_equal(fs_certify_deal(d, r1, a, order), FS_OK);
            assert_int_equal(fs_dealer_deal(e, r2, b), FS_OK);
            assert_int_equal(a->ncards, b->ncards);
            assert_memory_equal(a->cards, b->cards,
                                a->ncards * sizeof a->cards[0]);
            for (size_t j = 0; j < d->n; j++)
                assert_int_equal(d->fresh[order[j]],
                                 (e->identity ? b->cards : e->work)[j]);
        }
        fs_rng_free(r1);
        fs_rng_free(r2);
    }
    free(d);
    free(e);
    free(a);
    free(b);
}

static void bits(void **s)
{
    (void)s;
    const size_t n = 1 << 20;
    uint8_t *buf = malloc(n);
    fs_cert_test r[FS_CERT_BIT_TESTS];
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, NULL, "bits"), FS_OK);
    fs_rng_bytes(rng, buf, n);
    assert_int_equal(fs_cert_bits(buf, n, r), FS_OK);
    for (int i = 0; i < FS_CERT_BIT_TESTS; i++) {
        assert_true(r[i].applicable);
        assert_true(r[i].p > FLOOR);
    }
    assert_true(r[1].df == 255);
    assert_true(r[3].df == 65535);
    /* one bit in 64 forced to 1: monobit fails */
    for (size_t i = 0; i < n; i += 8)
        buf[i] |= 1;
    assert_int_equal(fs_cert_bits(buf, n, r), FS_OK);
    assert_true(r[0].p < FLOOR);
    /* a counter: every byte value equally often, every pair (2k, 2k+1)
     * only: byte frequency passes, byte pairs fail */
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)i;
    assert_int_equal(fs_cert_bits(buf, n, r), FS_OK);
    assert_true(r[1].p > 0.99);
    assert_true(r[3].p < FLOOR);
    /* alternating bits: as many ones as zeros, far too many runs */
    memset(buf, 0x55, n);
    assert_int_equal(fs_cert_bits(buf, n, r), FS_OK);
    assert_true(r[0].p > 0.99);
    assert_true(r[2].p < FLOOR);
    /* too short for the pairs test: listed, not run */
    assert_int_equal(fs_cert_bits(buf, 1000, r), FS_OK);
    assert_false(r[3].applicable);
    assert_int_equal(fs_cert_bits(buf, 8, r), FS_EINVAL);
    fs_rng_free(rng);
    free(buf);
}

/* the chi-square tail the tests report, against GSL */
static void tails_match_gsl(void **s)
{
    (void)s;
    static const double df[] = {2, 51, 255, 2601, 5039, 65535};
    for (size_t i = 0; i < sizeof df / sizeof *df; i++)
        for (double z = -2; z <= 4; z += 1) {
            double x = df[i] + z * sqrt(2 * df[i]);
            double want = gsl_cdf_chisq_Q(x, df[i]);
            assert_true(fabs(fs_chisq_q(df[i], x) - want) <= 1e-9 * want + 1e-15);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fair_passes_naive_fails),
        cmocka_unit_test(labelled_deal_is_the_deal),
        cmocka_unit_test(bits),
        cmocka_unit_test(tails_match_gsl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
