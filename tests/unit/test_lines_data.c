/* test_lines_data.c -- the data formats around the line engine (issue 29):
 * weighted sampling of records against exact enumeration, the order of
 * groups, split sizes, fields and the value table, codecs.
 *
 * Bands (fixed seeds; critical values from GSL gsl_cdf_chisq_Qinv at
 * 1e-7): weighted sampling, 12 ordered pairs, 11 degrees of freedom:
 * 54.39; the order of 4 groups, 24 orders, 23 degrees of freedom: 76.90.
 * Each has a negative control that must fail the same test: "sort by
 * weight x U" for the weights, "a group goes where its first record's key
 * puts it" (bigger groups come first) for the groups. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "fairshuf/lines.h"
#include "fairshuf/weighted.h"

static void key_of(const char *fmt, int t, uint8_t K[32])
{
    char s[64];
    snprintf(s, sizeof s, fmt, t);
    assert_int_equal(fs_seed_to_key(s, K), FS_OK);
}

/* ------------------------------------------------------------ weights */

typedef struct capture {
    char order[16];
    size_t n;
} capture;

static int capture_rec(void *arg, const unsigned char *p, size_t n)
{
    capture *c = arg;
    assert_true(n == 2 && c->n < sizeof c->order);
    c->order[c->n++] = (char)p[0];
    return FS_OK;
}

static const double W4[4] = {1, 2, 3, 4};
#define TRIALS 24000

/* The chi-square of ordered pairs (first, second draw) against the exact
 * probabilities w_a / W * w_b / (W - w_a). */
static double pairs_chi2(const unsigned counts[4][4])
{
    double chi = 0, W = 10;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            if (a == b)
                continue;
            double e = TRIALS * W4[a] / W * W4[b] / (W - W4[a]);
            chi += (counts[a][b] - e) * (counts[a][b] - e) / e;
        }
    return chi;
}

static void wsample_pair(const uint8_t K[32], size_t memory, int *a, int *b)
{
    fs_lines_wsample *s;
    assert_int_equal(fs_lines_wsample_new(&s, K, 2, memory, NULL), FS_OK);
    for (int i = 0; i < 4; i++) {
        unsigned char rec[2] = {(unsigned char)('a' + i), '\n'};
        assert_int_equal(fs_lines_wsample_add(s, (uint64_t)i, W4[i], rec, 2),
                         FS_OK);
    }
    capture c = {{0}, 0};
    assert_int_equal(fs_lines_wsample_write(s, capture_rec, &c, NULL), FS_OK);
    assert_int_equal(c.n, 2);
    *a = c.order[0] - 'a';
    *b = c.order[1] - 'a';
    fs_lines_wsample_free(s);
}

static void weighted_frequencies(void **st)
{
    (void)st;
    unsigned good[4][4] = {{0}}, bad[4][4] = {{0}};
    for (int t = 0; t < TRIALS; t++) {
        uint8_t K[32];
        key_of("weights-%d", t, K);
        int a, b;
        wsample_pair(K, 1 << 20, &a, &b);
        good[a][b]++;
        /* negative control: the two largest w * U, same uniforms */
        double v[4];
        for (int i = 0; i < 4; i++)
            v[i] = W4[i] * (((double)(fs_lines_key(K, (uint64_t)i, 0) >> 11) +
                             0.5) * 0x1p-53);
        int x = 0;
        for (int i = 1; i < 4; i++)
            if (v[i] > v[x])
                x = i;
        int y = x == 0 ? 1 : 0;
        for (int i = 0; i < 4; i++)
            if (i != x && v[i] > v[y])
                y = i;
        bad[x][y]++;
    }
    double chi = pairs_chi2(good), chi_bad = pairs_chi2(bad);
    printf("# weighted pairs: chi2 %.2f (band < 54.39); w*U control %.2f\n",
           chi, chi_bad);
    assert_true(chi < 54.39);
    assert_true(chi_bad >= 54.39); /* the control must fail */
}

/* Collects the written records as text. */
typedef struct text {
    char buf[65536];
    size_t len;
} text;

static int append(void *arg, const unsigned char *p, size_t n)
{
    text *t = arg;
    assert_true(t->len + n < sizeof t->buf);
    memcpy(t->buf + t->len, p, n);
    t->len += n;
    t->buf[t->len] = '\0';
    return FS_OK;
}

/* The same selection as fs_weighted_sample with the seeded chacha20, with
 * the kept bytes in memory or on disk. */
static void weighted_matches_library(void **st)
{
    (void)st;
    enum { N = 300, KEEP = 40 };
    double w[N];
    for (int i = 0; i < N; i++)
        w[i] = 1 + (i * 37) % 11;
    static text want, got;
    for (int t = 0; t < 5; t++) {
        char seed[32];
        snprintf(seed, sizeof seed, "match-%d", t);
        uint8_t K[32];
        assert_int_equal(fs_seed_to_key(seed, K), FS_OK);
        fs_rng *rng;
        assert_int_equal(fs_rng_new(&rng, "chacha20", seed), FS_OK);
        uint64_t idx[KEEP];
        assert_int_equal(fs_weighted_sample(w, N, KEEP, idx, NULL, rng), FS_OK);
        fs_rng_free(rng);
        want.len = 0;
        for (int j = 0; j < KEEP; j++)
            want.len += (size_t)snprintf(want.buf + want.len,
                                         sizeof want.buf - want.len, "%llu\n",
                                         (unsigned long long)idx[j]);
        for (int disk = 0; disk < 2; disk++) {
            fs_lines_wsample *s;
            assert_int_equal(fs_lines_wsample_new(&s, K, KEEP, disk ? 64 : 1 << 20,
                                                  NULL), FS_OK);
            for (int i = 0; i < N; i++) {
                char rec[16];
                int l = snprintf(rec, sizeof rec, "%d\n", i);
                assert_int_equal(fs_lines_wsample_add(s, (uint64_t)i, w[i],
                                                      (unsigned char *)rec,
                                                      (size_t)l), FS_OK);
            }
            assert_int_equal(fs_lines_wsample_on_disk(s), disk);
            got.len = 0;
            assert_int_equal(fs_lines_wsample_write(s, append, &got, NULL),
                             FS_OK);
            assert_int_equal(got.len, want.len);
            assert_memory_equal(got.buf, want.buf, want.len);
            fs_lines_wsample_free(s);
        }
    }
    /* a weight that is not >= 0 and finite is refused; 0 is never drawn */
    fs_lines_wsample *s;
    uint8_t K[32] = {0};
    assert_int_equal(fs_lines_wsample_new(&s, K, 3, 1 << 20, NULL), FS_OK);
    assert_int_equal(fs_lines_wsample_add(s, 0, -1, (const unsigned char *)"a\n", 2), FS_EINVAL);
    assert_int_equal(fs_lines_wsample_add(s, 0, NAN, (const unsigned char *)"a\n", 2), FS_EINVAL);
    assert_int_equal(fs_lines_wsample_add(s, 0, INFINITY, (const unsigned char *)"a\n", 2), FS_EINVAL);
    assert_int_equal(fs_lines_wsample_add(s, 0, 0, (const unsigned char *)"a\n", 2), FS_OK);
    assert_int_equal(fs_lines_wsample_add(s, 1, 2, (const unsigned char *)"b\n", 2), FS_OK);
    assert_int_equal(fs_lines_wsample_kept(s), 1);
    fs_lines_wsample_free(s);
}

/* ------------------------------------------------------------- groups */

static int perm_index(const int *p) /* 0..23 for a permutation of 0..3 */
{
    int idx = 0, used[4] = {0};
    for (int i = 0; i < 4; i++) {
        int smaller = 0;
        for (int v = 0; v < p[i]; v++)
            smaller += !used[v];
        used[p[i]] = 1;
        idx = idx * (4 - i) + smaller;
    }
    return idx;
}

static double orders_chi2(const unsigned *counts)
{
    double chi = 0, e = TRIALS / 24.0;
    for (int i = 0; i < 24; i++)
        chi += (counts[i] - e) * (counts[i] - e) / e;
    return chi;
}

/* Groups a, b, c, d of 1, 2, 3, 4 records, interleaved in the input. */
static const char GROUPS_IN[] = "dcbdacdbdc";

static void group_order_uniform(void **st)
{
    (void)st;
    static unsigned good[24], bad[24];
    for (int t = 0; t < TRIALS; t++) {
        uint8_t K[32];
        key_of("groups-%d", t, K);
        fs_lines_groups *g;
        assert_int_equal(fs_lines_groups_new(&g, K, t & 1, 1 << 20, NULL), FS_OK);
        for (int i = 0; GROUPS_IN[i]; i++) {
            unsigned char rec[2] = {(unsigned char)GROUPS_IN[i], '\n'};
            assert_int_equal(fs_lines_groups_add(g, rec, 1, rec, 2), FS_OK);
        }
        assert_int_equal(fs_lines_groups_count(g), 4);
        text out;
        out.len = 0;
        assert_int_equal(fs_lines_groups_write(g, append, &out, NULL), FS_OK);
        fs_lines_groups_free(g);
        /* every group contiguous: 4 runs */
        int order[4], runs = 0;
        for (size_t i = 0; i < out.len; i += 2)
            if (i == 0 || out.buf[i] != out.buf[i - 2]) {
                assert_true(runs < 4);
                order[runs++] = out.buf[i] - 'a';
            }
        assert_int_equal(runs, 4);
        good[perm_index(order)]++;
        /* negative control: a group goes where the smallest key of its
         * records puts it (so bigger groups tend to come first) */
        uint64_t best[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
        for (int i = 0; GROUPS_IN[i]; i++) {
            uint64_t k = fs_lines_key(K, (uint64_t)i, 0);
            int gi = GROUPS_IN[i] - 'a';
            if (k < best[gi])
                best[gi] = k;
        }
        int p[4] = {0, 1, 2, 3};
        for (int i = 1; i < 4; i++)
            for (int j = i; j > 0 && best[p[j]] < best[p[j - 1]]; j--) {
                int x = p[j];
                p[j] = p[j - 1];
                p[j - 1] = x;
            }
        bad[perm_index(p)]++;
    }
    double chi = orders_chi2(good), chi_bad = orders_chi2(bad);
    printf("# group orders: chi2 %.2f (band < 76.90); min-key control %.2f\n",
           chi, chi_bad);
    assert_true(chi < 76.90);
    assert_true(chi_bad >= 76.90); /* the control must fail */
}

/* Within a group: input order, or the records' keyed order. */
static void group_within(void **st)
{
    (void)st;
    uint8_t K[32];
    key_of("within-%d", 1, K);
    for (int within = 0; within < 2; within++) {
        fs_lines_groups *g;
        assert_int_equal(fs_lines_groups_new(&g, K, within, within ? 1 : 1 << 20,
                                             NULL), FS_OK);
        const char *in[] = {"x1", "y1", "x2", "x3", "y2", "x4"};
        for (int i = 0; i < 6; i++) {
            char rec[4];
            snprintf(rec, sizeof rec, "%s\n", in[i]);
            assert_int_equal(fs_lines_groups_add(g, in[i], 1,
                                                 (unsigned char *)rec, 3), FS_OK);
        }
        assert_int_equal(fs_lines_groups_on_disk(g), within);
        text out;
        out.len = 0;
        assert_int_equal(fs_lines_groups_write(g, append, &out, NULL), FS_OK);
        fs_lines_groups_free(g);
        /* the x records: in input order, or by fs_lines_key(K, i, 0) */
        int xs[4] = {0, 2, 3, 5}, want[4] = {0, 2, 3, 5};
        if (within)
            for (int i = 1; i < 4; i++)
                for (int j = i; j > 0 && fs_lines_key(K, (uint64_t)want[j], 0) <
                                             fs_lines_key(K, (uint64_t)want[j - 1], 0); j--) {
                    int x = want[j];
                    want[j] = want[j - 1];
                    want[j - 1] = x;
                }
        char expect[32] = "";
        for (int i = 0; i < 4; i++)
            strcat(expect, in[want[i]]), strcat(expect, "\n");
        (void)xs;
        assert_non_null(strstr(out.buf, expect));
    }
}

/* -------------------------------------------------- split, fields, values */

/* The group-aware split: whole groups, G cut by largest remainder, the
 * same order as fs_lines_groups_write; and the empty input. */
typedef struct parts_capture {
    char order[256];
    size_t part[256];
    size_t n;
} parts_capture;

static int capture_part(void *arg, size_t part, const unsigned char *p,
                        size_t n)
{
    parts_capture *c = arg;
    (void)n;
    c->part[c->n] = part;
    c->order[c->n++] = (char)p[0];
    return FS_OK;
}

static int capture_plain(void *arg, const unsigned char *p, size_t n)
{
    return capture_part(arg, 0, p, n);
}

static fs_lines_groups *ten_groups(const uint8_t K[32])
{
    fs_lines_groups *g;
    assert_int_equal(fs_lines_groups_new(&g, K, 0, 1 << 20, NULL), FS_OK);
    /* group v has v + 1 records, interleaved in the input */
    for (int round = 0; round < 10; round++)
        for (int v = round; v < 10; v++) {
            unsigned char rec[2] = {(unsigned char)('0' + v), '\n'};
            assert_int_equal(fs_lines_groups_add(g, rec, 1, rec, 2), FS_OK);
        }
    return g;
}

static void group_split_parts(void **st)
{
    (void)st;
    uint8_t K[32];
    const uint64_t w[2] = {3, 1}, zero[2] = {0, 0};
    for (int t = 0; t < 20; t++) {
        key_of("group-split-%d", t, K);
        fs_lines_groups *g = ten_groups(K), *h = ten_groups(K);
        parts_capture a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        assert_int_equal(fs_lines_groups_write_parts(g, NULL, 2, capture_part,
                                                     &a, NULL), FS_EINVAL);
        assert_int_equal(fs_lines_groups_write_parts(g, zero, 2, capture_part,
                                                     &a, NULL), FS_EINVAL);
        assert_int_equal(fs_lines_groups_write_parts(g, w, 0, capture_part,
                                                     &a, NULL), FS_EINVAL);
        assert_int_equal(fs_lines_groups_write_parts(g, w, 2, capture_part,
                                                     &a, NULL), FS_OK);
        assert_int_equal(fs_lines_groups_write(h, capture_plain, &b, NULL),
                         FS_OK);
        assert_int_equal(a.n, 55);
        assert_memory_equal(a.order, b.order, 55); /* the same order */
        /* 10 groups as 3:1 -> 7.5, 2.5: 7 and 2, the one left to the
         * lower part on the tie -> 8 groups, then 2 */
        int part_of[10], groups[2] = {0, 0};
        for (int v = 0; v < 10; v++)
            part_of[v] = -1;
        for (size_t i = 0; i < a.n; i++) {
            int v = a.order[i] - '0';
            if (part_of[v] < 0) {
                part_of[v] = (int)a.part[i];
                groups[a.part[i]]++;
                if (i > 0)
                    assert_true(a.part[i] >= a.part[i - 1]); /* in order */
            }
            assert_int_equal(part_of[v], (int)a.part[i]); /* whole groups */
        }
        assert_int_equal(groups[0], 8);
        assert_int_equal(groups[1], 2);
        fs_lines_groups_free(g);
        fs_lines_groups_free(h);
    }
    /* no records at all (a header-only input): nothing, no error */
    fs_lines_groups *g;
    parts_capture c;
    memset(&c, 0, sizeof c);
    assert_int_equal(fs_lines_groups_new(&g, K, 1, 1 << 20, NULL), FS_OK);
    assert_int_equal(fs_lines_groups_write_parts(g, w, 2, capture_part, &c,
                                                 NULL), FS_OK);
    assert_int_equal(c.n, 0);
    fs_lines_groups_free(g);
    assert_int_equal(fs_lines_groups_new(&g, K, 0, 1 << 20, NULL), FS_OK);
    assert_int_equal(fs_lines_groups_write(g, capture_plain, &c, NULL), FS_OK);
    assert_int_equal(c.n, 0);
    fs_lines_groups_free(g);
}

static void split_sizes_exact(void **st)
{
    (void)st;
    uint64_t w[3] = {80, 10, 10}, sz[3], scratch[3];
    for (uint64_t n = 0; n < 500; n++) {
        assert_int_equal(fs_lines_split_sizes(n, w, 3, sz), FS_OK);
        assert_int_equal(sz[0] + sz[1] + sz[2], n);
        for (int k = 0; k < 3; k++) {
            double exact = (double)n * (double)w[k] / 100.0;
            assert_true(fabs((double)sz[k] - exact) < 1.0);
        }
        uint64_t seen[3] = {0};
        for (uint64_t j = 0; j < n; j++)
            seen[fs_lines_split_part(n, j, w, 3, scratch)]++;
        assert_memory_equal(seen, sz, sizeof sz);
    }
    uint64_t w2[2] = {1, 1};
    assert_int_equal(fs_lines_split_sizes(3, w2, 2, sz), FS_OK);
    assert_int_equal(sz[0], 2); /* a tie: the lower part */
    uint64_t zero[2] = {0, 0};
    assert_int_equal(fs_lines_split_sizes(3, zero, 2, sz), FS_EINVAL);
}

static void fields_and_values(void **st)
{
    (void)st;
    fs_lines_field f;
    unsigned char out[64];
    int found;
    const unsigned char *csv = (const unsigned char *)"1,\"a,\"\"b\"\"\",c\r\n";
    assert_int_equal(fs_lines_field_parse("2", 1, ',', &f), FS_OK);
    size_t l = fs_lines_field_get(&f, csv, strlen((const char *)csv), out,
                                  sizeof out, &found);
    assert_true(found);
    assert_int_equal(l, 5);
    assert_memory_equal(out, "a,\"b\"", 5);
    assert_int_equal(fs_lines_field_parse("3", 1, ',', &f), FS_OK);
    l = fs_lines_field_get(&f, csv, strlen((const char *)csv), out, sizeof out,
                           &found);
    assert_true(found && l == 1 && out[0] == 'c'); /* CRLF not in it */
    assert_int_equal(fs_lines_field_parse("4", 1, ',', &f), FS_OK);
    (void)fs_lines_field_get(&f, csv, strlen((const char *)csv), out,
                             sizeof out, &found);
    assert_false(found);
    assert_int_equal(fs_lines_field_parse("0", 0, '\t', &f), FS_EINVAL);
    assert_int_equal(fs_lines_field_parse("", 0, '\t', &f), FS_EINVAL);
    assert_int_equal(fs_lines_field_parse("name", 0, '\t', &f), FS_OK);
    const unsigned char *hdr = (const unsigned char *)"id\tname\tw\n";
    assert_int_equal(fs_lines_field_resolve(&f, hdr, strlen((const char *)hdr)), FS_OK);
    assert_int_equal(f.col, 1);
    assert_int_equal(fs_lines_field_parse("nope", 0, '\t', &f), FS_OK);
    assert_int_equal(fs_lines_field_resolve(&f, hdr, strlen((const char *)hdr)),
                     FS_ENOTFOUND);

    fs_lines_values *v;
    assert_int_equal(fs_lines_values_new(&v), FS_OK);
    uint64_t id;
    for (int i = 0; i < 5000; i++) {
        char s[16];
        int n = snprintf(s, sizeof s, "v%d", i % 1000);
        assert_int_equal(fs_lines_values_add(v, s, (size_t)n, &id), FS_OK);
        assert_int_equal(id, (uint64_t)(i % 1000));
    }
    assert_int_equal(fs_lines_values_size(v), 1000);
    assert_int_equal(fs_lines_values_count(v, 7), 5);
    assert_int_equal(fs_lines_values_find(v, "v999", 4, &id), FS_OK);
    assert_int_equal(id, 999);
    assert_int_equal(fs_lines_values_find(v, "v1000", 5, &id), FS_ENOTFOUND);
    assert_int_equal(fs_lines_values_add(v, "", 0, &id), FS_OK);
    assert_int_equal(id, 1000);
    fs_lines_values_free(v);
}

static void codec_sniff_and_names(void **st)
{
    (void)st;
    const unsigned char gz[] = {0x1f, 0x8b, 8, 0}, zs[] = {0x28, 0xb5, 0x2f, 0xfd};
    assert_int_equal(fs_lines_codec_sniff(gz, 2), FS_CODEC_GZIP);
    assert_int_equal(fs_lines_codec_sniff(zs, 4), FS_CODEC_ZSTD);
    assert_int_equal(fs_lines_codec_sniff(zs, 3), FS_CODEC_PLAIN);
    assert_int_equal(fs_lines_codec_sniff("ab", 2), FS_CODEC_PLAIN);
    assert_int_equal(fs_lines_codec_of_name("x.gz"), FS_CODEC_GZIP);
    assert_int_equal(fs_lines_codec_of_name("x.zst"), FS_CODEC_ZSTD);
    assert_int_equal(fs_lines_codec_of_name(".gz"), FS_CODEC_PLAIN);
    assert_int_equal(fs_lines_codec_of_name("x.gzip"), FS_CODEC_PLAIN);
}

/* ------------------------------------------------------- default budget */

/* Pages of the address space (field 1) or data segment (field 6) in use. */
static uint64_t statm_bytes(int field)
{
    unsigned long long v[6] = {0};
    FILE *f = fopen("/proc/self/statm", "re");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                            &v[2], &v[3], &v[4], &v[5]), 6);
    fclose(f);
    return (uint64_t)v[field - 1] * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The default budget under a soft RLIMIT_AS / RLIMIT_DATA of 300 MiB more
 * than in use: at most half of that room (the old default, half the
 * machine's free memory, ignored both). */
static void default_budget_fits_rlimits(void **st)
{
    (void)st;
    const uint64_t extra = (uint64_t)300 << 20;
    const int which[2] = {RLIMIT_AS, RLIMIT_DATA}, field[2] = {1, 6};
    for (int k = 0; k < 2; k++) {
        struct rlimit old, lim;
        assert_int_equal(getrlimit(which[k], &old), 0);
        uint64_t want = statm_bytes(field[k]) + extra;
        if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < want)
            continue; /* already tighter than the test's limit */
        lim = old;
        lim.rlim_cur = (rlim_t)want;
        if (setrlimit(which[k], &lim) != 0)
            continue;
        size_t m = fs_lines_default_memory();
        assert_int_equal(setrlimit(which[k], &old), 0);
        assert_true(m >= ((size_t)1 << 20));
        assert_true(m <= extra / 2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weighted_frequencies),
        cmocka_unit_test(weighted_matches_library),
        cmocka_unit_test(group_order_uniform),
        cmocka_unit_test(group_within),
        cmocka_unit_test(group_split_parts),
        cmocka_unit_test(split_sizes_exact),
        cmocka_unit_test(fields_and_values),
        cmocka_unit_test(codec_sniff_and_names),
        cmocka_unit_test(default_budget_fits_rlimits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
