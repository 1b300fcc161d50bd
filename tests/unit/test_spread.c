/* test_spread.c -- artist spreading (fs_spread_order): a permutation; on a
 * library with one dominant artist (120 of 300) it reaches the minimum of
 * adjacent same-artist pairs while plain shuffle's count matches its
 * expectation sum c(c-1)/n -- and plain shuffle, the control, fails the
 * spreading bound; different seeds give different orders; the draws and
 * tie rules of docs/stream.md §6 on a scripted stream. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/playlist.h"
#include "support/library.h"
#include "support/scripted.h"

#define N LIBRARY_N

/* The library: 120 songs by artist 0; 180 by artists 1..40, sizes ~ 1/k. */
static void library(uint64_t *artist)
{
    library_artists(artist);
}

static unsigned adjacent(const uint64_t *artist, const uint64_t *order)
{
    unsigned a = 0;
    for (size_t i = 1; i < N; i++)
        a += artist[order[i]] == artist[order[i - 1]];
    return a;
}

/* Mean adjacent pairs over 400 orders from `spread` or a plain shuffle. */
static double mean_adjacent(int spread)
{
    uint64_t artist[N], order[N];
    library(artist);
    fs_rng *rng = seeded("chacha20", "test_spread");
    double sum = 0;
    for (int t = 0; t < 400; t++) {
        if (spread) {
            assert_int_equal(fs_spread_order(artist, N, order, rng), FS_OK);
            unsigned char seen[N] = {0};
            for (size_t i = 0; i < N; i++) {
                assert_true(order[i] < N && !seen[order[i]]);
                seen[order[i]] = 1;
            }
        } else {
            for (size_t i = 0; i < N; i++)
                order[i] = i;
            assert_int_equal(fs_shuffle(order, N, sizeof *order, rng), FS_OK);
        }
        sum += adjacent(artist, order);
    }
    fs_rng_free(rng);
    return sum / 400;
}

/* The minimum here is 0 (120 <= 300 / 2); "close" is a mean below 1. */
static void spread_reaches_the_minimum(void **s)
{
    (void)s;
    assert_true(mean_adjacent(1) < 1.0);
}

/* Plain shuffle: its mean matches sum c(c-1)/n (sd of a single count is
 * about 5, of the mean of 400 about 0.3: band +-2) -- and it is far from
 * the spreading bound, so the test above can fail. */
static void plain_shuffle_matches_expectation_and_fails(void **s)
{
    (void)s;
    uint64_t artist[N];
    library(artist);
    size_t c[41] = {0};
    for (size_t i = 0; i < N; i++)
        c[artist[i]]++;
    double expect = 0;
    for (int a = 0; a <= 40; a++)
        expect += (double)c[a] * (c[a] - 1) / N;
    double plain = mean_adjacent(0);
    assert_true(fabs(plain - expect) < 2);
    assert_false(plain < 1.0);
}

static void seeds_differ_and_edges(void **s)
{
    (void)s;
    uint64_t artist[N], a[N], b[N];
    library(artist);
    fs_rng *r1 = seeded("chacha20", "one"), *r2 = seeded("chacha20", "two");
    assert_int_equal(fs_spread_order(artist, N, a, r1), FS_OK);
    assert_int_equal(fs_spread_order(artist, N, b, r2), FS_OK);
    int same = 0;
    for (size_t i = 0; i < N; i++)
        same += a[i] == b[i];
    assert_true(same < N / 10);
    /* one group: any order of it; n = 1; errors */
    uint64_t one[5] = {7, 7, 7, 7, 7}, o[5];
    assert_int_equal(fs_spread_order(one, 5, o, r1), FS_OK);
    assert_int_equal(fs_spread_order(one, 1, o, r1), FS_OK);
    assert_true(o[0] == 0);
    assert_int_equal(fs_spread_order(NULL, 5, o, r1), FS_EINVAL);
    assert_int_equal(fs_spread_order(NULL, 0, NULL, r1), FS_OK);
    fs_rng_free(r1);
    fs_rng_free(r2);
}

/* docs/stream.md §6, draw by draw: 6 item keys, 4 group keys, then per
 * merge a coin when the sizes are equal and one offset word.  All keys 0,
 * so the ties decide: items by index within a group (group 3: 1, 3;
 * group 5: 0, 2), equal-size groups by value (7 before 9).  Merges: [5]
 * (f = 1/2, nothing to insert); [4] into [5] (coin odd, f = 1 - 2^-53:
 * gap 1) = 5 4; that into 1 3 (coin even, f = 1/4: gaps 0, 1) = 5 1 4 3;
 * 0 2 into it (f = 3/4: gaps 1, 4) = 5 0 1 4 3 2. */
static void draws_and_ties_as_specified(void **s)
{
    (void)s;
    const uint64_t group[6] = {5, 3, 5, 3, 9, 7}, want[6] = {5, 0, 1, 4, 3, 2};
    const uint64_t words[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                1ull << 63, 1, UINT64_MAX, 0, 1ull << 62,
                                3ull << 62};
    uint64_t o[6];
    fs_rng *r = scripted_new();
    scripted_set(r, words, sizeof words);
    assert_int_equal(fs_spread_order(group, 6, o, r), FS_OK);
    assert_memory_equal(o, want, sizeof want);
    assert_int_equal(scripted_left(r), 0);
    scripted_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spread_reaches_the_minimum),
        cmocka_unit_test(plain_shuffle_matches_expectation_and_fails),
        cmocka_unit_test(seeds_differ_and_edges),
        cmocka_unit_test(draws_and_ties_as_specified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
