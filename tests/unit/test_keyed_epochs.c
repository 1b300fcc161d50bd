/* test_keyed_epochs.c -- the keyed permutation across consecutive epoch
 * keys (issue 26): one seed, epochs 0 .. E-1, as a data loader or a
 * playlist uses it.  Grain's index_shuffle (4 rounds) fails these: element
 * 0's position at n = 10 over 400k consecutive seeds gave chi^2 = 151.6 on
 * 9 df.  The negative control is the same network cut to 4 rounds
 * (fs__keyed_init_rounds), which must FAIL the same tests; the library's
 * rounds must pass them.
 *
 * Bands, as in test_keyed.c: every statistic is one deterministic number
 * (fixed seed, fixed epochs); a chi-square p >= 1e-7 passes, a control
 * must reach p <= 1e-12.  Also here: all n! orders at n <= 6 over
 * consecutive epochs, and over independent keys at n = 3 .. 8 (8!:
 * 403,200 keys, 10 per order). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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
#define EPOCHS 100000
#define CONTROL_ROUNDS 4

typedef struct {
    double p_elem0; /* chi^2 of element 0's position (n-1 df) */
    double p_pos;   /* element x position matrix */
    double p_perm;  /* all n! orders (n <= 8), else 1 */
} epoch_stats;

static double show(const char *what, unsigned n, unsigned rounds, double p)
{
    if (getenv("FS_KEYED_SHOW"))
        fprintf(stderr, "# %s n=%u rounds=%u p=%.3g\n", what, n, rounds, p);
    return p;
}

/* The permutations of [0, n) for `keys` keys -- epochs 0.. of one seed
 * (by_epoch) or independent fixed keys -- at `rounds` (0: the library's). */
static epoch_stats run(unsigned n, unsigned keys, unsigned rounds, int by_epoch)
{
    unsigned tests = FS_TEST_POSITION | (n <= 8 ? FS_TEST_PERM : 0);
    fs_tally *t;
    assert_int_equal(fs_tally_new(&t, n, tests, 0), FS_OK);
    uint64_t *pos = malloc(n * sizeof *pos), *item = malloc(n * sizeof *item);
    uint32_t *perm = malloc(n * sizeof *perm);
    double *elem0 = calloc(n, sizeof *elem0);
    assert_true(pos && item && perm && elem0);
    for (unsigned i = 0; i < n; i++)
        pos[i] = i;
    for (unsigned k = 0; k < keys; k++) {
        uint8_t key[32] = {0};
        if (by_epoch) {
            assert_int_equal(fs_keyed_epoch_key("epochs", k, key), FS_OK);
        } else {
            for (int b = 0; b < 8; b++)
                key[b] = (uint8_t)((uint64_t)k >> (8 * b));
            memcpy(key + 8, "independent", 11);
        }
        fs_keyed p;
        assert_int_equal(fs__keyed_init_rounds(&p, n, key, rounds), FS_OK);
        fs_keyed_at_many(&p, pos, item, n);
        for (unsigned i = 0; i < n; i++)
            perm[i] = (uint32_t)item[i];
        elem0[fs_keyed_inverse(&p, 0)] += 1;
        assert_int_equal(fs_tally_add(t, perm), FS_OK);
    }
    epoch_stats s = {1, 1, 1};
    double e = (double)keys / n, x = 0;
    for (unsigned i = 0; i < n; i++)
        x += (elem0[i] - e) * (elem0[i] - e) / e;
    s.p_elem0 = show("element 0", n, rounds, fs_chisq_q(n - 1, x));
    fs_test_result r;
    assert_int_equal(fs_tally_result(t, FS_TEST_POSITION, &r), FS_OK);
    s.p_pos = show("positions", n, rounds, r.p);
    if (n <= 8) {
        assert_int_equal(fs_tally_result(t, FS_TEST_PERM, &r), FS_OK);
        s.p_perm = show("orders", n, rounds, r.p);
    }
    fs_tally_free(t);
    free(pos);
    free(item);
    free(perm);
    free(elem0);
    return s;
}

static void element0_and_positions(void **st)
{
    (void)st;
    const unsigned sizes[] = {10, 20, 50};
    for (size_t z = 0; z < 3; z++) {
        epoch_stats s = run(sizes[z], EPOCHS, 0, 1);
        if (s.p_elem0 < P_PASS || s.p_pos < P_PASS)
            fail_msg("n = %u: element 0 p = %g, positions p = %g", sizes[z],
                     s.p_elem0, s.p_pos);
    }
}

static void element0_and_positions_control_fails(void **st)
{
    (void)st;
    const unsigned sizes[] = {10, 20, 50};
    for (size_t z = 0; z < 3; z++) {
        epoch_stats s = run(sizes[z], EPOCHS, CONTROL_ROUNDS, 1);
        if (s.p_elem0 > P_FAIL && s.p_pos > P_FAIL)
            fail_msg("control passed at n = %u: element 0 p = %g, "
                     "positions p = %g", sizes[z], s.p_elem0, s.p_pos);
    }
}

static void all_orders_by_epoch(void **st)
{
    (void)st;
    for (unsigned n = 3; n <= 6; n++) {
        epoch_stats s = run(n, EPOCHS, 0, 1);
        if (s.p_perm < P_PASS)
            fail_msg("all orders, n = %u: p = %g", n, s.p_perm);
    }
}

static void all_orders_by_epoch_control_fails(void **st)
{
    (void)st;
    for (unsigned n = 3; n <= 6; n++) {
        epoch_stats s = run(n, EPOCHS, CONTROL_ROUNDS, 1);
        if (s.p_perm > P_FAIL)
            fail_msg("control passed all orders at n = %u: p = %g", n, s.p_perm);
    }
}

/* All n! orders over independent keys, n = 3 .. 8 (8!: 403,200 keys, 10
 * per order; smaller n: at least 100,800 keys). */
static void all_orders_by_key(void **st)
{
    (void)st;
    for (unsigned n = 3; n <= 8; n++) {
        unsigned keys = (unsigned)fs_factorial(n) * 10;
        if (keys < 100800)
            keys = 100800;
        epoch_stats s = run(n, keys, 0, 0);
        if (s.p_perm < P_PASS)
            fail_msg("all orders over keys, n = %u: p = %g", n, s.p_perm);
        s = run(n, keys, CONTROL_ROUNDS, 0);
        if (s.p_perm > P_FAIL)
            fail_msg("control passed all orders over keys at n = %u: p = %g",
                     n, s.p_perm);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(element0_and_positions),
        cmocka_unit_test(element0_and_positions_control_fails),
        cmocka_unit_test(all_orders_by_epoch),
        cmocka_unit_test(all_orders_by_epoch_control_fails),
        cmocka_unit_test(all_orders_by_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
