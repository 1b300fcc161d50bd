/* test_api.c -- contracts of the public API: errors, edge sizes, element
 * sizes, copies, partial shuffles, sampling and reservoirs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "support/scripted.h"

static void errors_and_names(void **s)
{
    (void)s;
    for (int e = 0; e >= -9; e--)
        assert_string_not_equal(fs_strerror(e), "unknown error");
    assert_string_equal(fs_strerror(-1000), "unknown error");
    assert_string_equal(fs_version(), FS_VERSION_STRING);
    assert_non_null(fs_algorithm_find("auto"));
    assert_null(fs_algorithm_find("bogus"));
    assert_null(fs_algorithm_find(NULL));
    size_t n;
    const fs_algorithm_info *a = fs_algorithm_list(&n);
    assert_int_equal(n, FS_ALG_COUNT - 1);
    for (size_t i = 0; i < n; i++) {
        assert_ptr_not_equal(fs_algorithm_find(a[i].name), NULL);
        assert_int_equal(fs_algorithm_find(a[i].name)->id, a[i].id);
        if (i > 0) /* fair ones first */
            assert_true(a[i].fair <= a[i - 1].fair);
    }
    fs_rng *r = seeded("splitmix64", "1");
    int x[3] = {1, 2, 3};
    assert_int_equal(fs_shuffle(NULL, 3, 4, r), FS_EINVAL);
    assert_int_equal(fs_shuffle(x, 3, 0, r), FS_EINVAL);
    assert_int_equal(fs_shuffle(NULL, 0, 4, r), FS_OK);
    assert_int_equal(fs_shuffle_with((fs_algorithm)99, x, 3, 4, r), FS_EINVAL);
    assert_int_equal(fs_shuffle(x, SIZE_MAX / 2, 4, r), FS_ERANGE);
    assert_int_equal(fs_shuffle_partial(x, 3, 4, 4, r), FS_EINVAL);
    fs_rng_free(r);
}

/* n = 0 and 1 must not draw: the stream is untouched afterwards. */
static void tiny_sizes_draw_nothing(void **s)
{
    (void)s;
    for (int alg = FS_ALG_AUTO; alg < FS_ALG_COUNT; alg++) {
        fs_rng *a = seeded("pcg64", "5"), *b = seeded("pcg64", "5");
        uint64_t one = 7;
        assert_int_equal(fs_shuffle_with((fs_algorithm)alg, &one, 1, 8, a), FS_OK);
        assert_int_equal(fs_shuffle_with((fs_algorithm)alg, &one, 0, 8, a), FS_OK);
        assert_int_equal(one, 7);
        assert_int_equal(fs_rng_u64(a), fs_rng_u64(b));
        fs_rng_free(a);
        fs_rng_free(b);
    }
}

/* Every algorithm returns a permutation of its input, for element sizes
 * with and without fast paths, aligned or not. */
static void always_a_permutation(void **s)
{
    (void)s;
    static const size_t sizes[] = {1, 3, 4, 8, 16, 24, 100};
    fs_rng *r = seeded("chacha20", "perm-check");
    unsigned char *buf = malloc(200 * 100 + 1), *seen = malloc(200);
    for (int alg = FS_ALG_AUTO; alg < FS_ALG_COUNT; alg++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (size_t n = 0; n <= 200; n += (n < 10 ? 1 : 37)) {
                size_t size = sizes[si];
                unsigned char *base = buf + (si & 1); /* misaligned too */
                for (size_t i = 0; i < n; i++)
                    memset(base + i * size, (int)i, size);
                assert_int_equal(fs_shuffle_with((fs_algorithm)alg, base, n,
                                                 size, r), FS_OK);
                memset(seen, 0, 200);
                for (size_t i = 0; i < n; i++) {
                    unsigned char v = base[i * size];
                    for (size_t k = 1; k < size; k++)
                        assert_int_equal(base[i * size + k], v);
                    assert_false(seen[v]);
                    seen[v] = 1;
                }
            }
    free(buf);
    free(seen);
    fs_rng_free(r);
}

static void copy_keeps_source(void **s)
{
    (void)s;
    fs_rng *r = seeded("chacha20", "copy");
    uint32_t src[100], dst[100];
    for (uint32_t i = 0; i < 100; i++)
        src[i] = i;
    assert_int_equal(fs_shuffle_copy(dst, src, 100, 4, r), FS_OK);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < 100; i++) {
        assert_int_equal(src[i], i);
        sum += dst[i];
    }
    assert_int_equal(sum, 4950);
    assert_int_equal(fs_shuffle_copy(src + 10, src, 50, 4, r), FS_EINVAL);
    assert_int_equal(fs_shuffle_copy(dst, NULL, 5, 4, r), FS_EINVAL);
    /* Same stream as the named inside-out algorithm on a copy. */
    fs_rng *a = seeded("chacha20", "same"), *b = seeded("chacha20", "same");
    uint32_t c[100];
    memcpy(c, src, sizeof c);
    assert_int_equal(fs_shuffle_copy(dst, src, 100, 4, a), FS_OK);
    assert_int_equal(fs_shuffle_with(FS_ALG_INSIDE_OUT, c, 100, 4, b), FS_OK);
    assert_memory_equal(dst, c, sizeof c);
    fs_rng_free(a);
    fs_rng_free(b);
    fs_rng_free(r);
}

/* Partial shuffle: the first k are uniform over ordered k-tuples; check
 * the ordered pairs of 5 (20 cells) with a band, and a control. */
static void partial_and_sample_uniform(void **s)
{
    (void)s;
    /* 200,000 draws, p = 1/20: exact binomial band, tail 1e-7: */
    const uint64_t lo = 9485, hi = 10523;
    uint64_t cp[25] = {0}, cs[25] = {0}, cbad[25] = {0};
    fs_rng *r = seeded("chacha20", "partial");
    for (int t = 0; t < 200000; t++) {
        uint64_t a[5] = {0, 1, 2, 3, 4}, out[2];
        assert_int_equal(fs_shuffle_partial(a, 5, 8, 2, r), FS_OK);
        cp[a[0] * 5 + a[1]]++;
        assert_int_equal(fs_sample(5, 2, out, r), FS_OK);
        cs[out[0] * 5 + out[1]]++;
        /* control: the first two of a swap-any shuffle */
        uint64_t b[5] = {0, 1, 2, 3, 4};
        assert_int_equal(fs_shuffle_with(FS_ALG_SWAP_ANY, b, 5, 8, r), FS_OK);
        cbad[b[0] * 5 + b[1]]++;
    }
    int bad_ok = 1;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            int c = i * 5 + j;
            if (i == j) {
                assert_int_equal(cp[c], 0);
                assert_int_equal(cs[c], 0);
                continue;
            }
            assert_in_range(cp[c], lo, hi);
            assert_in_range(cs[c], lo, hi);
            bad_ok &= cbad[c] >= lo && cbad[c] <= hi;
        }
    assert_false(bad_ok);
    fs_rng_free(r);
}

/* Floyd's path (k small against n): ordered pairs of 20 (380 cells). */
static void sample_floyd_uniform(void **s)
{
    (void)s;
    /* 380,000 draws, p = 1/380, band [836, 1173] (tail 1e-7). */
    static uint64_t c[400];
    memset(c, 0, sizeof c);
    fs_rng *r = seeded("chacha20", "floyd");
    for (int t = 0; t < 380000; t++) {
        uint64_t out[2];
        assert_int_equal(fs_sample(20, 2, out, r), FS_OK);
        assert_true(out[0] != out[1] && out[0] < 20 && out[1] < 20);
        c[out[0] * 20 + out[1]]++;
    }
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 20; j++)
            if (i != j)
                assert_in_range(c[i * 20 + j], 836, 1173);
    /* Huge n, small k: O(k) memory, distinct, in range. */
    uint64_t big[1000];
    assert_int_equal(fs_sample(UINT64_MAX, 1000, big, r), FS_OK);
    for (int i = 0; i < 1000; i++)
        for (int j = 0; j < i; j++)
            assert_true(big[i] != big[j]);
    assert_int_equal(fs_sample(3, 4, big, r), FS_EINVAL);
    assert_int_equal(fs_sample(3, 0, NULL, r), FS_OK);
    assert_int_equal(fs_sample(3, 3, big, r), FS_OK);
    assert_int_equal(big[0] + big[1] + big[2], 3);
    fs_rng_free(r);
}

/* Reservoir of 3 from 10: every item kept with probability 3/10; a
 * classic off-by-one (replace with probability k/t) must fail. */
static void reservoir_uniform(void **s)
{
    (void)s;
    /* 100,000 streams, p = 0.3: band [29230, 30774] (tail 1e-7). */
    uint64_t kept[10] = {0}, kept_bad[10] = {0};
    fs_rng *r = seeded("chacha20", "reservoir");
    for (int t = 0; t < 100000; t++) {
        fs_reservoir res;
        int slots[3] = {-1, -1, -1}, bad[3] = {-1, -1, -1};
        fs_reservoir_init(&res, 3, r);
        for (int item = 0; item < 10; item++) {
            int64_t slot = fs_reservoir_offer(&res);
            if (slot >= 0)
                slots[slot] = item;
            /* control: j uniform in [0, t) instead of [0, t] */
            int64_t j = item < 3 ? item : (int64_t)fs_below(r, (uint64_t)item);
            if (j < 3)
                bad[j] = item;
        }
        for (int k = 0; k < 3; k++) {
            kept[slots[k]]++;
            kept_bad[bad[k]]++;
        }
    }
    int bad_ok = 1;
    for (int i = 0; i < 10; i++) {
        assert_in_range(kept[i], 29230, 30774);
        bad_ok &= kept_bad[i] >= 29230 && kept_bad[i] <= 30774;
    }
    assert_false(bad_ok);
    fs_rng_free(r);
}

/* A generator that fails makes every shuffle fail: never FS_OK on junk. */
static void sticky_error_fails_closed(void **s)
{
    (void)s;
    fs_rng *r = scripted_new();
    uint64_t w = 1;
    scripted_set(r, &w, sizeof w); /* one word, then EOF */
    uint64_t a[10] = {0};
    assert_int_equal(fs_shuffle(a, 10, 8, r), FS_EEOF);
    assert_int_equal(fs_shuffle_with(FS_ALG_SORT_KEY, a, 10, 8, r), FS_EEOF);
    assert_int_equal(fs_shuffle_with(FS_ALG_REJECTION, a, 10, 8, r), FS_EEOF);
    scripted_set(r, &w, sizeof w);
    uint64_t out[5];
    assert_int_equal(fs_sample(100, 5, out, r), FS_EEOF);
    scripted_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(errors_and_names),
        cmocka_unit_test(tiny_sizes_draw_nothing),
        cmocka_unit_test(always_a_permutation),
        cmocka_unit_test(copy_keeps_source),
        cmocka_unit_test(partial_and_sample_uniform),
        cmocka_unit_test(sample_floyd_uniform),
        cmocka_unit_test(reservoir_uniform),
        cmocka_unit_test(sticky_error_fails_closed),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
