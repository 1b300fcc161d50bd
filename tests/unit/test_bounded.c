/* test_bounded.c -- unbiased bounded integers, proved exhaustively.
 *
 * The library's Lemire step and batch step are templates (lib/internal.h);
 * here they are instantiated on 16-bit words.  Over all 2^16 words, for
 * every bound n in 1..65536, each result in [0, n) must be produced by
 * exactly floor(2^16 / n) accepted words: exactly unbiased, whatever n.
 * A biased method (x % n, and Lemire without the rejection) must fail. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "internal.h"
#include "support/scripted.h"

FS_DEFINE_LEMIRE_STEP(step16, uint32_t, uint64_t, 16)
FS_DEFINE_BATCH_STEP(batch16, uint32_t, uint64_t, 16)

#define W 65536u

typedef int (*step_fn)(uint32_t x, uint32_t n, uint32_t *res);

static int lemire16(uint32_t x, uint32_t n, uint32_t *res)
{
    return step16(x, n, (W % n), res);
}

/* Negative controls. */
static int modulo16(uint32_t x, uint32_t n, uint32_t *res)
{
    *res = x % n;
    return 1;
}

static int lemire16_no_reject(uint32_t x, uint32_t n, uint32_t *res)
{
    return step16(x, n, 0, res);
}

/* 1 if, over all words, every result of [0, n) is hit equally often:
 * exactly floor(2^16 / n) times.  Results come in increasing order of x
 * for the multiply methods, but not for x % n, so count in an array. */
static int exact_for(step_fn f, uint32_t n, uint32_t *counts)
{
    memset(counts, 0, n * sizeof *counts);
    for (uint32_t x = 0; x < W; x++) {
        uint32_t r;
        if (f(x, n, &r)) {
            if (r >= n)
                return 0;
            counts[r]++;
        }
    }
    for (uint32_t r = 0; r < n; r++)
        if (counts[r] != W / n)
            return 0;
    return 1;
}

/* The library's step, for every bound: a tight loop over all 2^32
 * (x, n) pairs.  hi(x*n) never decreases as x grows, so each result's
 * accepted words form one run: count runs instead of scattering. */
static void lemire_exact_every_bound(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= W; n++) {
        uint32_t t = W % n, q = W / n, cur = 0, run = 0, bad = 0;
        for (uint32_t x = 0; x < W; x++) {
            uint32_t r;
            uint32_t acc = (uint32_t)step16(x, n, t, &r);
            if (r != cur) {
                bad |= (run != q) | (r != cur + 1);
                cur = r;
                run = 0;
            }
            run += acc;
        }
        bad |= (run != q) | (cur != n - 1);
        if (bad)
            fail_msg("biased for n = %u", n);
    }
}

/* The same check must fail for x % n and for Lemire without rejection at
 * every bound that is not a power of two (sampled bounds, all kinds). */
static void controls_are_biased(void **state)
{
    (void)state;
    static const uint32_t ns[] = {3, 5, 6, 7, 10, 52, 54, 100, 1000, 4095,
                                  4097, 30000, 65535};
    static const uint32_t pow2[] = {1, 2, 64, 4096, 65536};
    uint32_t *counts = malloc(W * sizeof *counts);
    assert_non_null(counts);
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        assert_true(exact_for(lemire16, ns[i], counts));
        assert_false(exact_for(modulo16, ns[i], counts));
        assert_false(exact_for(lemire16_no_reject, ns[i], counts));
    }
    for (size_t i = 0; i < sizeof pow2 / sizeof pow2[0]; i++)
        assert_true(exact_for(modulo16, pow2[i], counts));
    free(counts);
}

/* Batches: every tuple of results equally often, for all pairs of bounds
 * up to 48 and all triples up to 16, over all 2^16 words. */
static int batch_exact(const uint32_t *b, size_t k, uint32_t *counts)
{
    uint32_t p = 1;
    for (size_t i = 0; i < k; i++)
        p *= b[i];
    memset(counts, 0, p * sizeof *counts);
    uint32_t t = W % p;
    for (uint32_t x = 0; x < W; x++) {
        uint32_t out[3];
        if (batch16(x, b, out, k) < t)
            continue;
        uint32_t idx = 0;
        for (size_t i = 0; i < k; i++) {
            if (out[i] >= b[i])
                return 0;
            idx = idx * b[i] + out[i];
        }
        counts[idx]++;
    }
    for (uint32_t i = 0; i < p; i++)
        if (counts[i] != W / p)
            return 0;
    return 1;
}

static void batch_exact_small_bounds(void **state)
{
    (void)state;
    uint32_t *counts = malloc(W * sizeof *counts);
    assert_non_null(counts);
    for (uint32_t a = 1; a <= 48; a++)
        for (uint32_t b = 1; b <= 48; b++) {
            uint32_t bounds[2] = {a, b};
            if (!batch_exact(bounds, 2, counts))
                fail_msg("batch biased for (%u, %u)", a, b);
        }
    for (uint32_t a = 1; a <= 16; a++)
        for (uint32_t b = 1; b <= 16; b++)
            for (uint32_t c = 1; c <= 16; c++) {
                uint32_t bounds[3] = {a, b, c};
                if (!batch_exact(bounds, 3, counts))
                    fail_msg("batch biased for (%u, %u, %u)", a, b, c);
            }
    /* Negative control: accepting every word is biased for (3, 5). */
    uint32_t bounds[2] = {3, 5};
    uint32_t hits[15] = {0};
    for (uint32_t x = 0; x < W; x++) {
        uint32_t out[2];
        (void)batch16(x, bounds, out, 2);
        hits[out[0] * 5 + out[1]]++;
    }
    int uneven = 0;
    for (int i = 1; i < 15; i++)
        uneven |= hits[i] != hits[0];
    assert_true(uneven);
    free(counts);
}

/* The 64-bit functions: edge bounds and errors. */
static void edges_64(void **state)
{
    (void)state;
    fs_rng *r = seeded("xoshiro256ss", "1");
    uint64_t v;
    assert_int_equal(fs_uniform(r, 0, &v), FS_EINVAL);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(fs_below(r, 1), 0);
        assert_true(fs_below(r, 0xffffffffULL) < 0xffffffffULL);
        v = fs_below(r, UINT64_MAX);
        assert_true(v < UINT64_MAX);
    }
    /* 2^64-1: the top bit must be set about half the time. */
    unsigned top = 0;
    for (int i = 0; i < 4000; i++)
        top += fs_below(r, UINT64_MAX) >> 63;
    assert_in_range(top, 1800, 2200);
    assert_int_equal(fs_rng_error(r), FS_OK);
    assert_int_equal(fs_below(r, 0), 0);
    assert_int_equal(fs_rng_error(r), FS_EINVAL); /* sticky */
    uint64_t out[2], bounds[2] = {3, 0};
    assert_int_equal(fs_below_batch(r, bounds, out, 2), FS_EINVAL);
    fs_rng_free(r);
}

/* Rejection really redraws: feed a word in the rejection zone first. */
static void rejection_redraws(void **state)
{
    (void)state;
    fs_rng *r = scripted_new();
    uint64_t n = 3; /* 2^64 mod 3 = 1: only x = 0 is rejected */
    uint64_t words[2] = {0, word_for_below(2, 3)};
    scripted_set(r, words, sizeof words);
    assert_int_equal(fs_below(r, n), 2);
    assert_int_equal(scripted_left(r), 0);
    /* n = 1 consumes one word and always gives 0. */
    uint64_t one = 12345;
    scripted_set(r, &one, sizeof one);
    assert_int_equal(fs_below(r, 1), 0);
    assert_int_equal(scripted_left(r), 0);
    scripted_free(r);
}

/* The 64-bit batch agrees with the mixed-radix reading of one Lemire draw
 * on the product, and spans many groups when products overflow. */
static void batch_64_matches_lemire(void **state)
{
    (void)state;
    fs_rng *a = seeded("splitmix64", "9"), *b = seeded("splitmix64", "9");
    uint64_t bounds[3] = {1000, 999, 998}, out[3];
    for (int i = 0; i < 10000; i++) {
        assert_int_equal(fs_below_batch(a, bounds, out, 3), FS_OK);
        uint64_t v = fs_below(b, 1000ULL * 999 * 998);
        assert_int_equal(out[0] * 999 * 998 + out[1] * 998 + out[2], v);
    }
    uint64_t big[4] = {UINT64_MAX, 7, UINT64_MAX / 2, 2}, o4[4];
    assert_int_equal(fs_below_batch(a, big, o4, 4), FS_OK);
    for (int i = 0; i < 4; i++)
        assert_true(o4[i] < big[i]);
    fs_rng_free(a);
    fs_rng_free(b);
}

/* 2^64 mod n by 128-bit arithmetic: the reference for the threshold. */
static uint64_t threshold_ref(uint64_t n)
{
    return (uint64_t)((((fs_u128)1) << 64) % n);
}

/* Some bounds: small ones, powers of two and their neighbours, the top of
 * the range, and pseudo-random ones of every magnitude. */
static size_t some_bounds(uint64_t *b, size_t cap)
{
    size_t k = 0;
    for (uint64_t n = 1; n <= 2000 && k < cap; n++)
        b[k++] = n;
    for (int e = 1; e < 64 && k + 3 <= cap; e++) {
        uint64_t p = (uint64_t)1 << e;
        b[k++] = p - 1, b[k++] = p, b[k++] = p + 1;
    }
    b[k++] = UINT64_MAX, b[k++] = UINT64_MAX - 1, b[k++] = UINT64_MAX / 3;
    uint64_t x = 0x243f6a8885a308d3ULL;
    while (k < cap) { /* splitmix64, shifted to every magnitude */
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        z >>= k % 64;
        b[k++] = z ? z : 1;
    }
    return k;
}

/* The 64-bit threshold (-n) % n equals 2^64 mod n computed in 128 bits. */
static void threshold_matches_128bit(void **state)
{
    (void)state;
    static uint64_t b[6000];
    size_t k = some_bounds(b, 6000);
    for (size_t i = 0; i < k; i++)
        assert_int_equal(fs__lemire_threshold64(b[i]), threshold_ref(b[i]));
}

/* The inverse of an odd a modulo 2^64 (Newton's iteration). */
static uint64_t inverse64(uint64_t a)
{
    uint64_t x = a; /* correct to 3 bits */
    for (int i = 0; i < 5; i++)
        x *= 2 - a * x;
    return x;
}

/* Feeds x then y (a word accepted for n); returns the number of words
 * fs_below(r, n) used, its result in *res. */
static unsigned words_used(fs_rng *r, uint64_t n, uint64_t x, uint64_t y,
                           uint64_t *res)
{
    uint64_t w[2] = {x, y};
    scripted_set(r, w, sizeof w);
    *res = fs_below(r, n);
    assert_int_equal(fs_rng_error(r), FS_OK);
    return 2 - (unsigned)(scripted_left(r) / 8);
}

static uint64_t hi_of(uint64_t x, uint64_t n)
{
    return (uint64_t)(((fs_u128)x * n) >> 64);
}

/* The exact boundary of the rejection zone: the word whose low product
 * equals the threshold t = 2^64 mod n is accepted, the one whose low
 * product is t - 1 is rejected and redrawn -- for fs_below and for a
 * one-bound batch, for many odd n (n = 3: t = 1, x = 0xaaaaaaaaaaaaaaab
 * accepted, x = 0 rejected). */
static void threshold_boundary_words(void **state)
{
    (void)state;
    fs_rng *r = scripted_new();
    static uint64_t b[3000];
    size_t k = some_bounds(b, 3000);
    unsigned tried = 0;
    for (size_t i = 0; i < k; i++) {
        uint64_t n = b[i] | 1, t = threshold_ref(n), res;
        if (n < 3)
            continue;
        uint64_t inv = inverse64(n);
        uint64_t at = t * inv, below = (t - 1) * inv; /* lo(x*n) = t, t-1 */
        assert_int_equal(at * n, t);
        assert_int_equal(words_used(r, n, at, below, &res), 1);
        assert_int_equal(res, hi_of(at, n));
        assert_int_equal(words_used(r, n, below, at, &res), 2);
        assert_int_equal(res, hi_of(at, n));
        uint64_t out, w[2] = {below, at};
        scripted_set(r, w, sizeof w);
        assert_int_equal(fs_below_batch(r, &n, &out, 1), FS_OK);
        assert_int_equal(scripted_left(r), 0);
        assert_int_equal(out, hi_of(at, n));
        scripted_set(r, &at, sizeof at);
        assert_int_equal(fs_below_batch(r, &n, &out, 1), FS_OK);
        assert_int_equal(scripted_left(r), 0);
        tried++;
    }
    assert_true(tried > 2000);
    /* n = 3 spelled out. */
    uint64_t res, x3 = 0xaaaaaaaaaaaaaaabULL;
    assert_int_equal(words_used(r, 3, x3, 0, &res), 1);
    assert_int_equal(res, 2);
    assert_int_equal(words_used(r, 3, 0, word_for_below(1, 3), &res), 2);
    assert_int_equal(res, 1);
    /* A batch on the product 3 * 5: the boundary is that of P = 15. */
    uint64_t bounds[2] = {3, 5}, out[2], inv15 = inverse64(15);
    uint64_t t15 = threshold_ref(15), at15 = t15 * inv15;
    uint64_t w[2] = {(t15 - 1) * inv15, word_for_below(14, 15)};
    scripted_set(r, w, sizeof w);
    assert_int_equal(fs_below_batch(r, bounds, out, 2), FS_OK);
    assert_int_equal(scripted_left(r), 0);
    assert_int_equal(out[0] * 5 + out[1], 14);
    scripted_set(r, &at15, sizeof at15);
    assert_int_equal(fs_below_batch(r, bounds, out, 2), FS_OK);
    assert_int_equal(scripted_left(r), 0);
    assert_int_equal(out[0] * 5 + out[1], hi_of(at15, 15));
    scripted_free(r);
}

/* Rejection, statistically: for n = 0xaaaaaaaaaaaaaaab (about 2/3 of
 * 2^64) a third of all words lie in the rejection zone.  Without
 * rejection r = hi(x n) ~ 2x/3 gets two words when even and one when odd:
 * 2/3 of the results would be even.  With it each result has exactly one
 * word: half are even. */
static void rejection_zone_is_redrawn(void **state)
{
    (void)state;
    fs_rng *r = seeded("splitmix64", "zone");
    uint64_t n = 0xaaaaaaaaaaaaaaabULL;
    assert_int_equal(threshold_ref(n), UINT64_MAX - n + 1); /* 2^64 - n */
    unsigned even = 0, draws = 20000;
    for (unsigned i = 0; i < draws; i++)
        even += (fs_below(r, n) & 1) == 0;
    /* Binomial(20000, 1/2): sd 71; accept 10000 +- 500 (7 sd); the
     * biased 2/3 is 13333, 47 sd away. */
    assert_in_range(even, 9500, 10500);
    fs_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lemire_exact_every_bound),
        cmocka_unit_test(controls_are_biased),
        cmocka_unit_test(batch_exact_small_bounds),
        cmocka_unit_test(edges_64),
        cmocka_unit_test(rejection_redraws),
        cmocka_unit_test(batch_64_matches_lemire),
        cmocka_unit_test(threshold_matches_128bit),
        cmocka_unit_test(threshold_boundary_words),
        cmocka_unit_test(rejection_zone_is_redrawn),
    };
    return cmocka_run_group_tests_name("bounded", tests, NULL, NULL);
}
