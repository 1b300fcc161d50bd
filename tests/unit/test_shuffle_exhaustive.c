/* test_shuffle_exhaustive.c -- for n <= 7, feed a shuffle every possible
 * sequence of draws and count the permutations it makes.  A fair
 * algorithm makes each of the n! permutations exactly equally often; a
 * flawed one cannot (swap-any: n^n paths onto n! orders; asf-1999: (n-1)^n
 * paths, and the last position is never a swap target). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "support/scripted.h"

/* How one algorithm draws: number of draws, the bound of draw d, and
 * whether a draw is a 64-bit Lemire word or a 32-bit scaled word. */
typedef struct drawing {
    fs_algorithm alg;
    unsigned (*ndraws)(unsigned n);
    uint64_t (*bound)(unsigned n, unsigned d);
    int scaled32;
} drawing;

static unsigned n_minus_1(unsigned n) { return n - 1; }
static unsigned n_draws(unsigned n) { return n; }
/* Durstenfeld, Sattolo: i = n-1 down to 1, bound i+1 (Sattolo: i). */
static uint64_t b_durstenfeld(unsigned n, unsigned d) { return n - d; }
static uint64_t b_sattolo(unsigned n, unsigned d) { return n - 1 - d; }
/* Inside-out: i = 1..n-1, bound i+1. */
static uint64_t b_inside_out(unsigned n, unsigned d) { (void)n; return d + 2; }
/* Fisher-Yates: k = 0..n-1, bound n-k (the last draw has bound 1). */
static uint64_t b_fisher_yates(unsigned n, unsigned d) { return n - d; }
static uint64_t b_swap_any(unsigned n, unsigned d) { (void)d; return n; }
static uint64_t b_asf(unsigned n, unsigned d) { (void)d; return n - 1; }

/* Enumerates every draw sequence and returns the count per Lehmer rank.
 * Fails if any result is not a permutation or draws go unused. */
static uint64_t *enumerate(const drawing *dr, unsigned n, uint64_t *paths)
{
    unsigned k = dr->ndraws(n);
    uint64_t *counts = calloc(factorial(n), sizeof *counts);
    unsigned digit[8] = {0};
    uint64_t words[8];
    uint32_t words32[8];
    fs_rng *rng = scripted_new();
    *paths = 0;
    for (;;) {
        for (unsigned d = 0; d < k; d++) {
            if (dr->scaled32)
                words32[d] = word_for_scaled32(digit[d], (uint32_t)dr->bound(n, d));
            else
                words[d] = word_for_below(digit[d], dr->bound(n, d));
        }
        if (dr->scaled32)
            scripted_set(rng, words32, k * 4);
        else
            scripted_set(rng, words, k * 8);
        uint64_t a[8];
        for (unsigned i = 0; i < n; i++)
            a[i] = i;
        assert_int_equal(fs_shuffle_with(dr->alg, a, n, sizeof a[0], rng),
                         FS_OK);
        assert_int_equal(scripted_left(rng), 0);
        unsigned seen = 0;
        for (unsigned i = 0; i < n; i++)
            seen |= 1u << a[i];
        assert_int_equal(seen, (1u << n) - 1);
        counts[perm_rank(a, n)]++;
        (*paths)++;
        /* next draw sequence, odometer style */
        unsigned d = 0;
        while (d < k && ++digit[d] == dr->bound(n, d))
            digit[d++] = 0;
        if (d == k)
            break;
    }
    scripted_free(rng);
    return counts;
}

/* 1 if every permutation appears exactly paths/n! times. */
static int each_exactly(const uint64_t *counts, unsigned n, uint64_t paths)
{
    uint64_t f = factorial(n);
    if (paths % f != 0)
        return 0;
    for (uint64_t r = 0; r < f; r++)
        if (counts[r] != paths / f)
            return 0;
    return 1;
}

static void check_fair(const drawing *dr)
{
    for (unsigned n = 2; n <= 7; n++) {
        uint64_t paths;
        uint64_t *c = enumerate(dr, n, &paths);
        assert_int_equal(paths, factorial(n));
        assert_true(each_exactly(c, n, paths));
        free(c);
    }
}

static void durstenfeld(void **s)
{
    (void)s;
    drawing d = {FS_ALG_DURSTENFELD, n_minus_1, b_durstenfeld, 0};
    check_fair(&d);
}

static void inside_out(void **s)
{
    (void)s;
    drawing d = {FS_ALG_INSIDE_OUT, n_minus_1, b_inside_out, 0};
    check_fair(&d);
}

static void fisher_yates(void **s)
{
    (void)s;
    drawing d = {FS_ALG_FISHER_YATES, n_draws, b_fisher_yates, 0};
    check_fair(&d);
}

/* Sattolo: (n-1)! draw sequences, each a distinct single n-cycle. */
static void sattolo(void **s)
{
    (void)s;
    drawing d = {FS_ALG_SATTOLO, n_minus_1, b_sattolo, 0};
    for (unsigned n = 2; n <= 7; n++) {
        uint64_t paths, distinct = 0;
        uint64_t *c = enumerate(&d, n, &paths);
        assert_int_equal(paths, factorial(n - 1));
        for (uint64_t r = 0; r < factorial(n); r++) {
            assert_true(c[r] <= 1);
            distinct += c[r];
        }
        assert_int_equal(distinct, factorial(n - 1));
        free(c);
    }
}

static void swap_any_fails(void **s)
{
    (void)s;
    drawing d = {FS_ALG_SWAP_ANY, n_draws, b_swap_any, 0};
    for (unsigned n = 3; n <= 6; n++) {
        uint64_t paths;
        uint64_t *c = enumerate(&d, n, &paths);
        assert_false(each_exactly(c, n, paths));
        free(c);
    }
}

static void asf_1999_fails(void **s)
{
    (void)s;
    drawing d = {FS_ALG_ASF_1999, n_draws, b_asf, 1};
    for (unsigned n = 3; n <= 7; n++) {
        uint64_t paths;
        uint64_t *c = enumerate(&d, n, &paths);
        assert_int_equal(paths, (uint64_t)pow((double)(n - 1), n) + 0.5);
        assert_false(each_exactly(c, n, paths));
        free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(durstenfeld),    cmocka_unit_test(inside_out),
        cmocka_unit_test(fisher_yates),   cmocka_unit_test(sattolo),
        cmocka_unit_test(swap_any_fails), cmocka_unit_test(asf_1999_fails),
    };
    return cmocka_run_group_tests_name("shuffle_exhaustive", tests, NULL, NULL);
}
