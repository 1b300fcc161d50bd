/* test_bucket.c -- the in-place bucket shuffle and fs_shuffle_threads():
 * uniform over the n! orders at small n with several chunks and buckets;
 * flat position matrix at a size where FS_ALG_AUTO takes the bucket path
 * (forced by the test-only threshold hook), with a negative control that
 * fails the same test; byte-identical output for 1, 2, 3 and "all"
 * threads; the same permutation for every element size (typed fast
 * paths against the generic one); errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_cdf.h>

#include "rng/child.h"
#include "shuffle/batch.h"
#include "shuffle/bucket.h"
#include "fairshuf.h"
#include "support/scripted.h"

static void hook(size_t min_bytes, size_t bucket_bytes, size_t chunk)
{
    fs__bucket_test_params.min_bytes = min_bytes;
    fs__bucket_test_params.bucket_bytes = bucket_bytes;
    fs__bucket_test_params.chunk = chunk;
    fs__bucket_test_params.max_log2 = 0;
}

static int unhook(void **s)
{
    (void)s;
    memset(&fs__bucket_test_params, 0, sizeof fs__bucket_test_params);
    return 0;
}


/* n = 5 in 3 chunks of 2 and 4 buckets (8-byte buckets of 40 bytes), and
 * with the production constants (1 chunk, 2 buckets). */
static void bucket_uniform_small(void **s)
{
    (void)s;
    double crit = gsl_cdf_chisq_Qinv(1e-4, 119);
    for (int h = 0; h < 2; h++) {
        if (h)
            hook(0, 8, 2);
        assert_true(perm_chi2(FS_ALG_BUCKET, 5, 60000, "xoshiro256ss", "bucket chi-square") < crit);
        assert_true(perm_chi2(FS_ALG_BUCKET, 5, 60000, "chacha20", "bucket chi-square") < crit);
        assert_true(perm_chi2(FS_ALG_SWAP_ANY, 5, 60000, "chacha20", "bucket chi-square") > crit);
    }
    unhook(NULL);
}

/* Position matrix: element i at position j over T shuffles of n = 64 by
 * fs_shuffle() with the bucket path forced (8 buckets of ~8, 4 chunks);
 * chi-square with (n-1)^2 degrees of freedom. */
static double position_chi2(fs_algorithm alg, size_t n, unsigned trials)
{
    uint64_t *count = calloc(n * n, sizeof *count);
    uint64_t *a = malloc(n * 8);
    fs_rng *rng = seeded("chacha20", "position");
    for (unsigned t = 0; t < trials; t++) {
        for (size_t i = 0; i < n; i++)
            a[i] = i;
        assert_int_equal(fs_shuffle_with(alg, a, n, 8, rng), FS_OK);
        for (size_t j = 0; j < n; j++)
            count[a[j] * n + j]++;
    }
    double e = (double)trials / (double)n, x2 = 0;
    for (size_t c = 0; c < n * n; c++)
        x2 += ((double)count[c] - e) * ((double)count[c] - e) / e;
    fs_rng_free(rng);
    free(a);
    free(count);
    return x2;
}

static void bucket_position_matrix(void **s)
{
    (void)s;
    const size_t n = 64;
    hook(n * 8, 64, 16);
    assert_true(fs__bucket_wanted(n, 8));      /* auto takes the bucket path */
    assert_false(fs__bucket_wanted(n - 1, 8));
    double crit = gsl_cdf_chisq_Qinv(1e-4, (double)((n - 1) * (n - 1)));
    assert_true(position_chi2(FS_ALG_AUTO, n, 20000) < crit);
    assert_true(position_chi2(FS_ALG_SWAP_ANY, n, 20000) > crit);
    unhook(NULL);
}

static void same_for_threads(size_t n, size_t size, const char *rng_name)
{
    unsigned char *ref = malloc(n * size), *a = malloc(n * size);
    for (size_t i = 0; i < n * size; i++)
        ref[i] = (unsigned char)(i * 7 + i / size);
    unsigned char *orig = malloc(n * size);
    memcpy(orig, ref, n * size);
    fs_rng *r = seeded(rng_name, "threads");
    assert_int_equal(fs_shuffle_threads(ref, n, size, 1, r), FS_OK);
    uint64_t next = fs_rng_u64(r);
    fs_rng_free(r);
    assert_memory_not_equal(ref, orig, n * size);
    static const unsigned th[] = {2, 3, 0};
    for (size_t k = 0; k < 3; k++) {
        memcpy(a, orig, n * size);
        r = seeded(rng_name, "threads");
        assert_int_equal(fs_shuffle_threads(a, n, size, th[k], r), FS_OK);
        assert_memory_equal(a, ref, n * size);
        assert_true(fs_rng_u64(r) == next); /* same bytes consumed */
        fs_rng_free(r);
    }
    /* fs_shuffle() is the one-thread case */
    memcpy(a, orig, n * size);
    r = seeded(rng_name, "threads");
    assert_int_equal(fs_shuffle(a, n, size, r), FS_OK);
    assert_memory_equal(a, ref, n * size);
    fs_rng_free(r);
    free(ref);
    free(a);
    free(orig);
}

static void threads_identical(void **s)
{
    (void)s;
    /* production constants: 2^21 + 7 8-byte elements = 3 chunks */
    same_for_threads(((size_t)1 << 21) + 7, 8, "chacha20");
    /* small hooked plans, every element-size path */
    hook(1, 256, 1000);
    same_for_threads(10007, 8, "xoshiro256ss");
    same_for_threads(10007, 4, "chacha20");
    same_for_threads(3001, 12, "xoshiro256ss");
    /* 69 chunks, two buckets: one bucket per thread, or none */
    hook(1, 1 << 20, 1024);
    same_for_threads(70000, 8, "xoshiro256ss");
    same_for_threads(70000, 4, "chacha20");
    same_for_threads(70001, 12, "chacha20");
    unhook(NULL);
}

/* Given the plan, the permutation does not depend on the element size:
 * the typed 16-, 8- and 4-byte scatter loops (the element in hand kept in
 * a register) make exactly the moves of the generic one (12-byte and
 * misaligned 16- and 8-byte elements, swapped in place), so this pins the
 * fast paths to the byte-swap reference. */
static void same_for_sizes(void **s)
{
    (void)s;
    const size_t n = 20011;
    /* the typed paths (8, 4, 16 bytes on 8-byte boundaries), the generic
     * one (12 bytes; 16 and 8 bytes misaligned) */
    static const size_t sz[] = {8, 4, 12, 16, 16, 16, 8};
    static const size_t off[] = {0, 0, 0, 0, 8, 1, 1};
    /* chunks of 1000 (21 label streams) and of 8192 (3) */
    static const size_t chunks[] = {1000, 8192};
    uint32_t *ref = malloc(n * sizeof *ref);
    unsigned char *mem = malloc(n * 16 + 8);
    for (size_t c = 0; c < 2; c++) {
        hook(1, 1, chunks[c]);
        fs__bucket_test_params.max_log2 = 5; /* 32 buckets whatever the size */
        for (size_t k = 0; k < sizeof sz / sizeof *sz; k++) {
            size_t size = sz[k];
            unsigned char *a = mem + off[k];
            /* element i: i, then bytes that name i too (a torn element
             * shows) */
            for (size_t i = 0; i < n; i++) {
                uint32_t v = (uint32_t)i;
                memcpy(a + i * size, &v, 4);
                for (size_t j = 4; j < size; j++)
                    a[i * size + j] = (unsigned char)(i * 7 + j);
            }
            fs_rng *r = seeded("chacha20", "sizes");
            assert_int_equal(fs_shuffle_threads(a, n, size, 2, r), FS_OK);
            fs_rng_free(r);
            for (size_t i = 0; i < n; i++) {
                uint32_t v;
                memcpy(&v, a + i * size, 4);
                if (k == 0)
                    ref[i] = v;
                else
                    assert_int_equal(v, ref[i]);
                for (size_t j = 4; j < size; j++)
                    assert_int_equal(a[i * size + j], (unsigned char)(v * 7 + j));
            }
        }
    }
    unhook(NULL);
    free(ref);
    free(mem);
}

/* The bucket shuffle is a permutation of the input at awkward sizes. */
static void bucket_is_permutation(void **s)
{
    (void)s;
    hook(1, 64, 3);
    static const size_t sizes[] = {2, 3, 17, 100, 1000, 4099};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t n = sizes[z];
        uint32_t *a = malloc(n * 4);
        unsigned char *seen = calloc(n, 1);
        for (size_t i = 0; i < n; i++)
            a[i] = (uint32_t)i;
        fs_rng *r = seeded("pcg64", "perm");
        assert_int_equal(fs_shuffle_threads(a, n, 4, 2, r), FS_OK);
        for (size_t i = 0; i < n; i++) {
            assert_true(a[i] < n);
            assert_false(seen[a[i]]);
            seen[a[i]] = 1;
        }
        fs_rng_free(r);
        free(a);
        free(seen);
    }
    unhook(NULL);
}

static void errors(void **s)
{
    (void)s;
    fs_rng *r = seeded("xoshiro256ss", "1");
    uint64_t a[4] = {0, 1, 2, 3};
    assert_int_equal(fs_shuffle_threads(NULL, 4, 8, 1, r), FS_EINVAL);
    assert_int_equal(fs_shuffle_threads(a, 4, 0, 1, r), FS_EINVAL);
    assert_int_equal(fs_shuffle_threads(a, SIZE_MAX, 8, 1, r), FS_ERANGE);
    assert_int_equal(fs_shuffle_threads(NULL, 0, 8, 1, r), FS_OK);
    assert_int_equal(fs_shuffle_threads(a, 1, 8, 1, r), FS_OK);
    assert_int_equal(a[0], 0);
    fs_rng_free(r);
    /* a failed generator is reported, not hidden */
    fs_rng *sc = scripted_new();
    scripted_set(sc, "abc", 3);
    uint64_t b[100];
    for (int i = 0; i < 100; i++)
        b[i] = (uint64_t)i;
    hook(1, 64, 10);
    assert_int_equal(fs_shuffle_threads(b, 100, 8, 2, sc), FS_EEOF);
    for (int i = 0; i < 100; i++) /* no key: the array is left as it was */
        assert_int_equal(b[i], i);
    unhook(NULL);
    scripted_free(sc);
}

/* The labels, targeted.  The bucket labels must be uniform (a label
 * distribution skewed even slightly -- one label in 4096 moved to bucket 0
 * -- leaves the permutation uniform, since the elements' buckets are
 * still i.i.d., so no test of the output distribution can see it; it only
 * costs balance and breaks the specified stream).  So: recompute the label
 * sequence from the specification (docs/stream.md, the bucket shuffle:
 * key = the first 4 words of the caller's stream, label k = byte k of
 * chunk k / chunk's label stream, its top L bits), check the bucket sizes
 * against the multinomial, and rebuild the whole output from it. */
/* The spec's key (the first 4 words of a generator seeded rng_name /
 * seed) and the label sequence (chunk c's label stream for labels
 * [c * chunk, (c + 1) * chunk), one byte each, label = its top L bits) into
 * lab[0..n); bucket starts into start[0..B] (start[b+1] = the size of
 * bucket b, not yet summed). */
static void spec_labels(const char *rng_name, const char *seed, int crypto,
                        size_t n, size_t chunk, unsigned L,
                        unsigned char key[32], uint16_t *lab, size_t *start)
{
    fs_rng *k = seeded(rng_name, seed);
    for (int i = 0; i < 4; i++) {
        uint64_t w = fs_rng_u64(k);
        for (int b = 0; b < 8; b++)
            key[8 * i + b] = (unsigned char)(w >> (8 * b));
    }
    fs_rng_free(k);
    uint64_t k1;
    memcpy(&k1, key + 8, 8);
    for (size_t c = 0; c * chunk < n; c++) {
        size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
        /* chunk c's label stream: ChaCha20 (key, nonce 0^4 || c, counter
         * 0), or SplitMix64 started at K_1 XOR c * golden */
        fs__child ch;
        fs__rng_child(&ch, 1, key, c);
        uint64_t x = k1 ^ ((uint64_t)c * 0x9e3779b97f4a7c15ULL);
        for (size_t e = c * chunk; e < end;) {
            uint64_t w;
            if (crypto) {
                w = fs_rng_u64(&ch.rng);
            } else {
                uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
                z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
                w = z ^ (z >> 31);
            }
            /* bytes little-endian, one label each */
            for (unsigned j = 0; j < 8 && e < end; j++, e++) {
                lab[e] = (uint16_t)((w >> (8 * j) & 0xff) >> (8 - L));
                start[lab[e] + 1]++;
            }
        }
        fs__rng_child_wipe(&ch);
    }
}

/* 0, 1, ..., n - 1 shuffled by the bucket shuffle from rng_name / seed
 * (malloc'd). */
static uint64_t *bucket_of_identity(const char *rng_name, const char *seed,
                                    size_t n)
{
    uint64_t *a = malloc(n * 8);
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    fs_rng *rng = seeded(rng_name, seed);
    assert_int_equal(fs_shuffle_with(FS_ALG_BUCKET, a, n, 8, rng), FS_OK);
    fs_rng_free(rng);
    return a;
}

/* Steps 5 and 6 rebuilt from their definition alone (docs/stream.md §4,
 * version 5): the scatter in its swap form (the library's typed loops keep
 * the element in hand in a register instead), then batched Durstenfeld
 * per bucket from child C + b, against the library's whole output.
 * stream_spec.py covers the same at production constants but only up to
 * two chunks; here the test hook makes many chunks (a label sequence
 * crossing 68 stream boundaries) and the 256-bucket cap, whose bucket
 * sizes are checked against the multinomial. */
static void arrangement(const char *rng_name, int crypto, size_t n,
                        size_t chunk, size_t bucket_bytes, unsigned L)
{
    hook(1, bucket_bytes, chunk);
    const size_t B = (size_t)1 << L, C = (n + chunk - 1) / chunk;
    unsigned char key[32];
    uint16_t *lab = malloc(n * sizeof *lab);
    size_t *start = calloc(B + 1, sizeof *start);
    spec_labels(rng_name, "arrangement", crypto, n, chunk, L, key, lab, start);
    if (B >= 64) { /* bucket sizes ~ multinomial(n, 1/B): B - 1 df */
        double e = (double)n / (double)B, x2 = 0;
        for (size_t b = 0; b < B; b++)
            x2 += ((double)start[b + 1] - e) * ((double)start[b + 1] - e) / e;
        assert_true(x2 < gsl_cdf_chisq_Qinv(1e-4, (double)(B - 1)));
    }
    for (size_t b = 0; b < B; b++)
        start[b + 1] += start[b];
    uint64_t *want = malloc(n * 8);
    size_t *head = malloc(B * sizeof *head);
    for (size_t i = 0; i < n; i++)
        want[i] = i;
    memcpy(head, start, B * sizeof *head);
    size_t k = 0;
    for (size_t b = 0; b < B; b++)
        while (head[b] < start[b + 1]) {
            size_t l = lab[k++];
            uint64_t t = want[head[b]];
            want[head[b]] = want[head[l]];
            want[head[l]++] = t;
        }
    assert_int_equal(k, n);
    for (size_t b = 0; b < B; b++) {
        fs__child ch;
        fs__rng_child(&ch, crypto, key, C + b);
        fs__durstenfeld_batched((unsigned char *)(want + start[b]),
                                start[b + 1] - start[b], 8, &ch.rng);
        fs__rng_child_wipe(&ch);
    }
    uint64_t *a = bucket_of_identity(rng_name, "arrangement", n);
    for (size_t i = 0; i < n; i++)
        if (a[i] != want[i])
            fail_msg("%s, n %zu, L %u: position %zu holds %llu, the "
                     "definition %llu", rng_name, n, L, i,
                     (unsigned long long)a[i], (unsigned long long)want[i]);
    free(a);
    free(want);
    free(head);
    free(lab);
    free(start);
    unhook(NULL);
}

static void bucket_arrangement_as_specified(void **s)
{
    (void)s;
    /* L = 2: 2 * 140000 < 70000 * 8 <= 4 * 140000; 69 chunks */
    arrangement("xoshiro256ss", 0, 70000, 1024, 140000, 2);
    arrangement("chacha20", 1, 70000, 1024, 140000, 2);
    /* L = 8 (the cap): 256 buckets, 16 chunks */
    arrangement("xoshiro256ss", 0, 65536, 4096, 8, 8);
    arrangement("chacha20", 1, 65536, 4096, 8, 8);
    /* one chunk, two buckets */
    arrangement("xoshiro256ss", 0, 9000, 16384, 1 << 20, 1);
    arrangement("chacha20", 1, 9000, 16384, 1 << 20, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(bucket_uniform_small, unhook),
        cmocka_unit_test_teardown(bucket_position_matrix, unhook),
        cmocka_unit_test_teardown(threads_identical, unhook),
        cmocka_unit_test_teardown(same_for_sizes, unhook),
        cmocka_unit_test_teardown(bucket_is_permutation, unhook),
        cmocka_unit_test_teardown(errors, unhook),
        cmocka_unit_test_teardown(bucket_arrangement_as_specified, unhook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
