/* test_shuffle_sizes.c -- every algorithm, every element size.
 *
 * Users shuffle records of any size at any address, and the library has
 * typed fast paths (4 and 8 bytes, aligned) beside a generic byte path.
 * docs/stream.md: an algorithm's draws depend on n only, so for the same
 * seed the permutation is the same for 1-, 3-, 4-, 8-, 12-, 16-, 24- and
 * 100-byte elements, aligned or not (for auto and bucket: while n * size
 * stays within one plan, docs/stream.md §4).  Each size is also checked
 * exhaustively for small n: every draw sequence is fed through a scripted
 * generator and each of the n! orders must come out exactly equally often. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "support/scripted.h"

static const size_t sizes[] = {1, 3, 4, 8, 12, 16, 24, 100};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const size_t offsets[] = {0, 1, 3};
#define NOFFS (sizeof offsets / sizeof offsets[0])

/* Byte k of element i: its index in the first bytes, then a pattern. */
static unsigned char byte_of(size_t i, size_t k, size_t size)
{
    if (k == 0)
        return (unsigned char)i;
    if (k == 1 && size >= 4)
        return (unsigned char)(i >> 8);
    return (unsigned char)(i * 37 + k * 11 + 5);
}

static void fill(unsigned char *a, size_t n, size_t size)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < size; k++)
            a[i * size + k] = byte_of(i, k, size);
}

/* Reads the permutation back; fails unless every element is whole and
 * each index appears once. */
static void decode(const unsigned char *a, size_t n, size_t size, uint64_t *p)
{
    unsigned char *seen = calloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = a + i * size;
        size_t idx = e[0] | (size >= 4 ? (size_t)e[1] << 8 : 0);
        assert_true(idx < n);
        assert_false(seen[idx]);
        seen[idx] = 1;
        for (size_t k = 0; k < size; k++)
            assert_int_equal(e[k], byte_of(idx, k, size));
        p[i] = idx;
    }
    free(seen);
}

/* What to run: an algorithm of fs_shuffle_with, or one of the other entry
 * points (copy, partial, sattolo, the threaded one). */
enum { VIA_WITH, VIA_COPY, VIA_PARTIAL, VIA_SATTOLO, VIA_THREADS };

static void run(int via, fs_algorithm alg, unsigned char *a, size_t n,
                size_t size, fs_rng *rng)
{
    switch (via) {
    case VIA_WITH:
        assert_int_equal(fs_shuffle_with(alg, a, n, size, rng), FS_OK);
        break;
    case VIA_COPY: {
        unsigned char *src = malloc(n * size + 1);
        memcpy(src + 1, a, n * size);
        assert_int_equal(fs_shuffle_copy(a, src + 1, n, size, rng), FS_OK);
        free(src);
        break;
    }
    case VIA_PARTIAL:
        assert_int_equal(fs_shuffle_partial(a, n, size, n / 2, rng), FS_OK);
        break;
    case VIA_SATTOLO:
        assert_int_equal(fs_shuffle_sattolo(a, n, size, rng), FS_OK);
        break;
    default:
        assert_int_equal(fs_shuffle_threads(a, n, size, 2, rng), FS_OK);
    }
    assert_int_equal(fs_rng_error(rng), FS_OK);
}

/* The permutation made from seed for (n, size) at base + off. */
static void perm_for(int via, fs_algorithm alg, size_t n, size_t size,
                     size_t off, const char *seed, uint64_t *p)
{
    unsigned char *buf = malloc(n * size + 16);
    /* malloc is 16-aligned: base + off is misaligned for any off % 4 != 0 */
    unsigned char *a = buf + off;
    fill(a, n, size);
    fs_rng *rng = seeded("xoshiro256ss", seed);
    run(via, alg, a, n, size, rng);
    fs_rng_free(rng);
    decode(a, n, size, p);
    free(buf);
}

static void same_for_every_size(int via, fs_algorithm alg)
{
    static const size_t ns[] = {2, 3, 5, 17, 100, 256};
    static uint64_t ref[256], got[256];
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        size_t n = ns[ni];
        char seed[32];
        snprintf(seed, sizeof seed, "sizes-%zu", n);
        perm_for(via, alg, n, 8, 0, seed, ref);
        int moved = 0;
        for (size_t i = 0; i < n; i++)
            moved |= ref[i] != i;
        assert_true(moved || n < 17); /* small n may stay put */
        for (size_t s = 0; s < NSIZES; s++)
            for (size_t o = 0; o < NOFFS; o++) {
                perm_for(via, alg, n, sizes[s], offsets[o], seed, got);
                for (size_t i = 0; i < n; i++)
                    if (got[i] != ref[i])
                        fail_msg("n %zu, size %zu, offset %zu: position %zu "
                                 "holds %llu, the 8-byte run %llu",
                                 n, sizes[s], offsets[o], i,
                                 (unsigned long long)got[i],
                                 (unsigned long long)ref[i]);
            }
    }
}

static void same_permutation_every_algorithm(void **s)
{
    (void)s;
    size_t count;
    const fs_algorithm_info *list = fs_algorithm_list(&count);
    unsigned fair = 0;
    for (size_t i = 0; i < count; i++)
        if (list[i].fair) {
            same_for_every_size(VIA_WITH, list[i].id);
            fair++;
        }
    assert_true(fair >= 7);
    same_for_every_size(VIA_WITH, FS_ALG_AUTO);
}

static void same_permutation_other_entry_points(void **s)
{
    (void)s;
    same_for_every_size(VIA_COPY, FS_ALG_AUTO);
    same_for_every_size(VIA_PARTIAL, FS_ALG_AUTO);
    same_for_every_size(VIA_SATTOLO, FS_ALG_AUTO);
    same_for_every_size(VIA_THREADS, FS_ALG_AUTO);
}

/* ---- exhaustive: every draw sequence, every size ---------------------- */

/* Words for one draw sequence, by algorithm.  digit[d] is the d-th draw's
 * value; returns the number of 64-bit words written. */
typedef struct drawing {
    const char *name;
    fs_algorithm alg;
    int via;
    unsigned (*ndigits)(unsigned n);
    uint64_t (*bound)(unsigned n, unsigned d);
    size_t (*words)(unsigned n, const unsigned *digit, uint64_t *w);
} drawing;

static unsigned d_n_minus_1(unsigned n) { return n - 1; }
static unsigned d_n(unsigned n) { return n; }
static unsigned d_one(unsigned n) { (void)n; return 1; }
static uint64_t b_down(unsigned n, unsigned d) { return n - d; }      /* i+1, i = n-1.. */
static uint64_t b_sattolo(unsigned n, unsigned d) { return n - 1 - d; }
static uint64_t b_up(unsigned n, unsigned d) { (void)n; return d + 2; } /* i+1, i = 1.. */
static uint64_t b_fact(unsigned n, unsigned d) { (void)d; return factorial(n); }

/* One word per draw: word_for_below(digit, bound). */
static const drawing *cur;
static size_t words_plain(unsigned n, const unsigned *digit, uint64_t *w)
{
    unsigned k = cur->ndigits(n);
    for (unsigned d = 0; d < k; d++)
        w[d] = word_for_below(digit[d], cur->bound(n, d));
    return k;
}

/* Auto below 16 MiB for n <= 7: one batch over n, n-1, ..., 2, whose
 * product is n!; the word for rank r of n! yields its mixed-radix digits. */
static size_t words_batch(unsigned n, const unsigned *digit, uint64_t *w)
{
    w[0] = word_for_below(digit[0], factorial(n));
    return 1;
}

/* Rejection: element i takes the digit[i]-th free slot (digit in
 * [0, n - i)); before it, a draw of an already taken slot, if any, which
 * must be redrawn. */
static size_t words_rejection(unsigned n, const unsigned *digit, uint64_t *w)
{
    unsigned taken = 0;
    size_t k = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned slot = 0, free_seen = 0;
        for (slot = 0; slot < n; slot++)
            if (!(taken >> slot & 1) && free_seen++ == digit[i])
                break;
        if (taken) /* the lowest taken slot first */
            w[k++] = word_for_below((uint64_t)__builtin_ctz(taken), n);
        w[k++] = word_for_below(slot, n);
        taken |= 1u << slot;
    }
    return k;
}

/* Sort-key: element i gets the key of rank digit-ordering: the digits
 * (bounds n, n-1, ...) pick each element's rank among the ranks left. */
static size_t words_sort_key(unsigned n, const unsigned *digit, uint64_t *w)
{
    unsigned used = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned r = 0, free_seen = 0;
        for (r = 0; r < n; r++)
            if (!(used >> r & 1) && free_seen++ == digit[i])
                break;
        used |= 1u << r;
        w[i] = ((uint64_t)r + 1) << 58 | 0x123456789ULL;
    }
    return n;
}

/* Sort-key with ties: all n first keys equal, so the whole run is keyed
 * again (one fresh word per element, in order), with distinct keys. */
static size_t words_sort_key_ties(unsigned n, const unsigned *digit,
                                  uint64_t *w)
{
    for (unsigned i = 0; i < n; i++)
        w[i] = (uint64_t)7 << 58;
    return n + words_sort_key(n, digit, w + n);
}

static const drawing drawings[] = {
    {"durstenfeld", FS_ALG_DURSTENFELD, VIA_WITH, d_n_minus_1, b_down, words_plain},
    {"sattolo", FS_ALG_SATTOLO, VIA_WITH, d_n_minus_1, b_sattolo, words_plain},
    {"inside-out", FS_ALG_INSIDE_OUT, VIA_WITH, d_n_minus_1, b_up, words_plain},
    {"copy", FS_ALG_AUTO, VIA_COPY, d_n_minus_1, b_up, words_plain},
    {"fisher-yates", FS_ALG_FISHER_YATES, VIA_WITH, d_n, b_down, words_plain},
    {"partial", FS_ALG_AUTO, VIA_PARTIAL, d_n_minus_1, b_down, words_plain},
    {"rejection", FS_ALG_REJECTION, VIA_WITH, d_n, b_down, words_rejection},
    {"sort-key", FS_ALG_SORT_KEY, VIA_WITH, d_n, b_down, words_sort_key},
    {"sort-key ties", FS_ALG_SORT_KEY, VIA_WITH, d_n, b_down, words_sort_key_ties},
    {"auto", FS_ALG_AUTO, VIA_WITH, d_one, b_fact, words_batch},
};

/* Partial with k = n - 1 is a full shuffle: for i = 0 .. n-2, bound n-i. */
static void run_exhaustive(const drawing *dr, unsigned n, size_t size,
                           size_t off, unsigned char *buf, fs_rng *rng)
{
    unsigned char *a = buf + off;
    fill(a, n, size);
    switch (dr->via) {
    case VIA_COPY: {
        unsigned char src[8 * 100 + 8];
        memcpy(src + off, a, n * size);
        assert_int_equal(fs_shuffle_copy(a, src + off, n, size, rng), FS_OK);
        break;
    }
    case VIA_PARTIAL:
        assert_int_equal(fs_shuffle_partial(a, n, size, n - 1, rng), FS_OK);
        break;
    default:
        assert_int_equal(fs_shuffle_with(dr->alg, a, n, size, rng), FS_OK);
    }
}

static void exhaustive(const drawing *dr, unsigned nmax)
{
    cur = dr;
    fs_rng *rng = scripted_new();
    static unsigned char buf[8 * 100 + 16];
    for (size_t s = 0; s < NSIZES; s++)
        for (size_t o = 0; o < 2; o++)
            for (unsigned n = 2; n <= nmax; n++) {
                size_t size = sizes[s], off = offsets[o];
                uint64_t f = factorial(n), paths = 0;
                uint64_t *count = calloc(f, sizeof *count);
                unsigned k = dr->ndigits(n), digit[8] = {0};
                uint64_t w[32], p[8];
                for (;;) {
                    size_t nw = dr->words(n, digit, w);
                    scripted_set(rng, w, nw * 8);
                    run_exhaustive(dr, n, size, off, buf, rng);
                    assert_int_equal(fs_rng_error(rng), FS_OK);
                    if (scripted_left(rng) != 0)
                        fail_msg("%s n %u size %zu: %zu bytes of draws unused",
                                 dr->name, n, size, scripted_left(rng));
                    decode(buf + off, n, size, p);
                    count[perm_rank(p, n)]++;
                    paths++;
                    unsigned d = 0;
                    while (d < k && ++digit[d] == dr->bound(n, d))
                        digit[d++] = 0;
                    if (d == k)
                        break;
                }
                /* Sattolo: (n-1)! paths onto the cycles, each once. */
                uint64_t each = dr->alg == FS_ALG_SATTOLO && dr->via == VIA_WITH
                                    ? 0 : paths / f;
                uint64_t hit = 0;
                for (uint64_t r = 0; r < f; r++) {
                    if (each && count[r] != each)
                        fail_msg("%s n %u size %zu offset %zu: order %llu "
                                 "made %llu times, not %llu",
                                 dr->name, n, size, off, (unsigned long long)r,
                                 (unsigned long long)count[r],
                                 (unsigned long long)each);
                    assert_true(count[r] <= 1 || each);
                    hit += count[r] > 0;
                }
                assert_int_equal(hit, each ? f : factorial(n - 1));
                free(count);
            }
    scripted_free(rng);
}

static void exhaustive_every_size(void **s)
{
    (void)s;
    for (size_t i = 0; i < sizeof drawings / sizeof drawings[0]; i++)
        exhaustive(&drawings[i], 6);
}

/* The negative control: the exhaustive count sees Sattolo's draws passed
 * off as Durstenfeld's (bounds i instead of i+1) at every size. */
static void exhaustive_catches_sattolo(void **s)
{
    (void)s;
    drawing d = drawings[1];
    d.alg = FS_ALG_SATTOLO;
    cur = &d;
    fs_rng *rng = scripted_new();
    static unsigned char buf[8 * 100 + 16];
    for (size_t si = 0; si < NSIZES; si++) {
        unsigned n = 4, digit[8] = {0};
        uint64_t f = factorial(n), *count = calloc(f, sizeof *count), w[8], p[8];
        for (;;) {
            size_t nw = d.words(n, digit, w);
            scripted_set(rng, w, nw * 8);
            run_exhaustive(&d, n, sizes[si], 1, buf, rng);
            decode(buf + 1, n, sizes[si], p);
            count[perm_rank(p, n)]++;
            unsigned k = 0;
            while (k < n - 1 && ++digit[k] == d.bound(n, k))
                digit[k++] = 0;
            if (k == n - 1)
                break;
        }
        uint64_t zero = 0;
        for (uint64_t r = 0; r < f; r++)
            zero += count[r] == 0;
        assert_int_equal(zero, f - factorial(n - 1)); /* not uniform */
        free(count);
    }
    scripted_free(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_permutation_every_algorithm),
        cmocka_unit_test(same_permutation_other_entry_points),
        cmocka_unit_test(exhaustive_every_size),
        cmocka_unit_test(exhaustive_catches_sattolo),
    };
    return cmocka_run_group_tests_name("shuffle_sizes", tests, NULL, NULL);
}
