/* test_swaps.c -- fs_shuffle_swaps, the swap control with its count as a
 * parameter (posts 000/001): contract, and the exact chance that an
 * element stays home, 1/n + (1 - 1/n)(1 - 2/n)^N, against a fixed-seed
 * count with a precomputed band; Durstenfeld, the fair shuffle, is the
 * control that must land near 1/n instead. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fairshuf.h"

static void contract(void **s)
{
    (void)s;
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "chacha20", "swaps"), FS_OK);
    uint32_t a[10];
    assert_int_equal(fs_shuffle_swaps(NULL, 3, 4, 5, rng), FS_EINVAL);
    assert_int_equal(fs_shuffle_swaps(a, 3, 0, 5, rng), FS_EINVAL);
    assert_int_equal(fs_shuffle_swaps(a, SIZE_MAX, 8, 5, rng), FS_ERANGE);
    for (unsigned i = 0; i < 10; i++)
        a[i] = i;
    assert_int_equal(fs_shuffle_swaps(a, 10, sizeof *a, 0, rng), FS_OK);
    for (unsigned i = 0; i < 10; i++) /* no swap: nothing moves */
        assert_int_equal(a[i], i);
    assert_int_equal(fs_shuffle_swaps(a, 10, sizeof *a, 1000, rng), FS_OK);
    unsigned seen = 0; /* still a permutation */
    for (unsigned i = 0; i < 10; i++)
        seen |= 1u << a[i];
    assert_int_equal(seen, 0x3ff);
    fs_rng_free(rng);
}

/* Element 0 at position 0 after N swaps of n = 54, T trials. */
static unsigned home(int swaps, uint64_t k, unsigned trials)
{
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "chacha20", "swaps-home"), FS_OK);
    unsigned h = 0;
    uint32_t a[54];
    for (unsigned t = 0; t < trials; t++) {
        for (unsigned i = 0; i < 54; i++)
            a[i] = i;
        if (swaps)
            assert_int_equal(fs_shuffle_swaps(a, 54, sizeof *a, k, rng),
                             FS_OK);
        else
            assert_int_equal(fs_shuffle_with(FS_ALG_DURSTENFELD, a, 54,
                                             sizeof *a, rng),
                             FS_OK);
        h += a[0] == 0;
    }
    fs_rng_free(rng);
    return h;
}

static void stays_home(void **s)
{
    (void)s;
    const unsigned T = 20000;
    /* N = 27 (post 001): p = 1/54 + (53/54)(52/54)^27 = 0.3606...; a
     * binomial count stays within 5 sd of T p */
    double p = 1.0 / 54 + (53.0 / 54) * pow(52.0 / 54, 27);
    double sd = sqrt(T * p * (1 - p));
    unsigned h = home(1, 27, T);
    assert_true(fabs(h - T * p) < 5 * sd);
    /* the fair control: 1/54, far outside the band above */
    double q = 1.0 / 54, sdq = sqrt(T * q * (1 - q));
    unsigned f = home(0, 0, T);
    assert_true(fabs(f - T * q) < 5 * sdq);
    assert_false(fabs(f - T * p) < 5 * sd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(contract),
        cmocka_unit_test(stays_home),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
