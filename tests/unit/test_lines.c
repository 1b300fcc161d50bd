/* test_lines.c -- the line engine: GNU randint known answers and
 * exactness, forward Fisher-Yates (exhaustive for n <= 6, prefix property,
 * sparse == dense), the keyed order (the documented stream mapping, a
 * distribution band with a negative control), and the engine against the
 * reference order in memory and out of core.
 *
 * Band: 24,000 orders of 4 items, p = 1/24: the exact binomial two-sided
 * 1e-7 quantiles are [839, 1169] (mean 1000, sd 30.96); chi-square with 23
 * degrees of freedom, critical value at 1e-7: 76.9 (GSL chisq_Qinv). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "fairshuf/lines.h"
#include "support/scripted.h"

/* ------------------------------------------------------------ gnurand */

static void gnurand_known_answers(void **st)
{
    (void)st;
    fs_gnurand *g;
    uint64_t v;
    /* byte 5, draw in [0,3): 5 <= 254 accepted, 5 % 3 = 2; leftover
     * randnum 1 of range 85; then [0,2) from the leftover: 1, no byte */
    const unsigned char a[] = {5};
    assert_int_equal(fs_gnurand_new(&g, -1, a, sizeof a), FS_OK);
    assert_int_equal(fs_gnurand_below(g, 3, &v), FS_OK);
    assert_int_equal(v, 2);
    assert_int_equal(fs_gnurand_below(g, 2, &v), FS_OK);
    assert_int_equal(v, 1);
    assert_int_equal(fs_gnurand_used(g), 1);
    assert_int_equal(fs_gnurand_below(g, 1, &v), FS_OK); /* no byte */
    assert_int_equal(v, 0);
    fs_gnurand_free(g);

    /* 255 is rejected for n = 3 (255 > 254): the remainder 0 stays as
     * entropy of range 1, the next byte 7 makes randnum 7 of range 256 */
    const unsigned char b[] = {255, 7};
    assert_int_equal(fs_gnurand_new(&g, -1, b, sizeof b), FS_OK);
    assert_int_equal(fs_gnurand_below(g, 3, &v), FS_OK);
    assert_int_equal(v, 7 % 3);
    assert_int_equal(fs_gnurand_used(g), 2);
    fs_gnurand_free(g);

    /* big-endian: 0x01 0x02 -> 258 for a range needing two bytes */
    const unsigned char c[] = {1, 2};
    assert_int_equal(fs_gnurand_new(&g, -1, c, sizeof c), FS_OK);
    assert_int_equal(fs_gnurand_below(g, 65536, &v), FS_OK);
    assert_int_equal(v, 258);
    /* out of bytes: FS_EEOF, and it sticks */
    assert_int_equal(fs_gnurand_below(g, 2, &v), FS_EEOF);
    assert_int_equal(fs_gnurand_below(g, 1, &v), FS_EEOF);
    assert_int_equal(fs_gnurand_below(g, 0, &v), FS_EINVAL);
    fs_gnurand_free(g);
}

/* Every n in 2..256: over all 256 first bytes, the draws that use exactly
 * one byte hit each value exactly floor(256 / n) times (exact rejection). */
static void gnurand_exact(void **st)
{
    (void)st;
    for (uint64_t n = 2; n <= 256; n++) {
        uint64_t count[256] = {0};
        for (unsigned b = 0; b < 256; b++) {
            unsigned char src[8] = {(unsigned char)b, 1, 2, 3, 4, 5, 6, 7};
            fs_gnurand *g;
            uint64_t v;
            assert_int_equal(fs_gnurand_new(&g, -1, src, sizeof src), FS_OK);
            assert_int_equal(fs_gnurand_below(g, n, &v), FS_OK);
            assert_true(v < n);
            if (fs_gnurand_used(g) == 1)
                count[v]++;
            fs_gnurand_free(g);
        }
        for (uint64_t v = 0; v < n; v++)
            assert_int_equal(count[v], 256 / n);
    }
}

/* ------------------------------------------------------------- fyperm */

/* Every draw sequence of forward Fisher-Yates for n <= 6 gives every
 * permutation exactly once. */
static void fyperm_exhaustive(void **st)
{
    (void)st;
    fs_rng *rng = scripted_new();
    for (unsigned n = 1; n <= 6; n++) {
        uint64_t total = factorial(n);
        unsigned char *seen = calloc(total, 1);
        for (uint64_t code = 0; code < total; code++) {
            uint64_t words[8];
            size_t nw = 0;
            uint64_t c = code;
            for (unsigned i = 0; i + 1 < n; i++) { /* m = 1 draws nothing */
                uint64_t m = n - i;
                words[nw++] = word_for_below(c % m, m);
                c /= m;
            }
            scripted_set(rng, words, nw * 8);
            fs_fyperm *p;
            assert_int_equal(fs_fyperm_new(&p, n, n), FS_OK);
            fs_draws d = {NULL, rng};
            uint64_t out[8];
            assert_int_equal(fs_fyperm_next(p, &d, out, n), FS_OK);
            assert_int_equal(scripted_left(rng), 0);
            fs_fyperm_free(p);
            uint64_t r = perm_rank(out, n);
            assert_int_equal(seen[r], 0);
            seen[r] = 1;
        }
        free(seen);
    }
    scripted_free(rng);
}

static void fyperm_prefix_and_sparse(void **st)
{
    (void)st;
    const uint64_t n = 300000;
    uint64_t *full = malloc(n * sizeof *full);
    fs_rng *rng = seeded("chacha20", "fyperm");
    fs_fyperm *p;
    fs_draws d = {NULL, rng};
    assert_int_equal(fs_fyperm_new(&p, n, n), FS_OK); /* dense */
    assert_int_equal(fs_fyperm_next(p, &d, full, 1000), FS_OK);
    assert_int_equal(fs_fyperm_next(p, &d, full + 1000, n - 1000), FS_OK);
    assert_int_equal(fs_fyperm_next(p, &d, full, 1), FS_EINVAL); /* > h */
    fs_fyperm_free(p);
    fs_rng_free(rng);
    unsigned char *hit = calloc(n, 1);
    for (uint64_t i = 0; i < n; i++) {
        assert_true(full[i] < n);
        assert_int_equal(hit[full[i]]++, 0);
    }
    free(hit);
    /* sparse (n >= 128Ki, h <= n/64): the same first values */
    uint64_t few[100];
    rng = seeded("chacha20", "fyperm");
    d.rng = rng;
    assert_int_equal(fs_fyperm_new(&p, n, 100), FS_OK);
    assert_int_equal(fs_fyperm_next(p, &d, few, 100), FS_OK);
    fs_fyperm_free(p);
    fs_rng_free(rng);
    assert_memory_equal(few, full, sizeof few);
    /* huge n: O(h) */
    rng = seeded("chacha20", "huge");
    d.rng = rng;
    assert_int_equal(fs_fyperm_new(&p, UINT64_MAX, 3), FS_OK);
    assert_int_equal(fs_fyperm_next(p, &d, few, 3), FS_OK);
    assert_true(few[0] != few[1] && few[1] != few[2] && few[0] != few[2]);
    fs_fyperm_free(p);
    fs_rng_free(rng);
    assert_int_equal(fs_fyperm_new(&p, 3, 4), FS_EINVAL);
    free(full);
}

/* --------------------------------------------------------------- keys */

static void keys_are_the_seeded_stream(void **st)
{
    (void)st;
    uint8_t K[32];
    assert_int_equal(fs_seed_to_key("stream", K), FS_OK);
    fs_rng *rng = seeded("chacha20", "stream");
    uint64_t keys[3000];
    fs_lines_keys(K, 0, 0, keys, 3000);
    for (int i = 0; i < 3000; i++)
        assert_int_equal(keys[i], fs_rng_u64(rng));
    fs_rng_free(rng);
    /* any start, any length, single keys */
    uint64_t part[333];
    fs_lines_keys(K, 1237, 0, part, 333);
    assert_memory_equal(part, keys + 1237, sizeof part);
    assert_int_equal(fs_lines_key(K, 2999, 0), keys[2999]);
    /* other levels are other streams */
    assert_true(fs_lines_key(K, 5, 1) != keys[5]);
    assert_true(fs_lines_key(K, 5, 1) != fs_lines_key(K, 5, 2));
}

/* ------------------------------------------------------ distribution */

static uint64_t rank_of_order(const uint64_t *order)
{
    return perm_rank(order, 4);
}

/* Negative control: keys truncated to 2 bits, ties left in input order --
 * what a keyed shuffle without random tie-breaking does. */
static void truncated_order(const uint8_t K[32], uint64_t order[4])
{
    uint64_t k[4];
    for (int i = 0; i < 4; i++) {
        k[i] = fs_lines_key(K, (uint64_t)i, 0) >> 62;
        order[i] = (uint64_t)i;
    }
    for (int i = 1; i < 4; i++) /* stable insertion sort by key */
        for (int j = i; j > 0 && k[order[j - 1]] > k[order[j]]; j--) {
            uint64_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

static int in_band(int control)
{
    uint64_t count[24] = {0};
    for (int t = 0; t < 24000; t++) {
        char seed[32];
        snprintf(seed, sizeof seed, "band-%d", t);
        uint8_t K[32];
        assert_int_equal(fs_seed_to_key(seed, K), FS_OK);
        uint64_t order[4];
        if (control)
            truncated_order(K, order);
        else
            assert_int_equal(fs_lines_order(K, 4, order), FS_OK);
        count[rank_of_order(order)]++;
    }
    double chi = 0;
    int ok = 1;
    for (int i = 0; i < 24; i++) {
        if (count[i] < 839 || count[i] > 1169)
            ok = 0;
        chi += ((double)count[i] - 1000.0) * ((double)count[i] - 1000.0) /
               1000.0;
    }
    return ok && chi < 76.9;
}

static void keyed_order_uniform(void **st)
{
    (void)st;
    assert_true(in_band(0));
    assert_false(in_band(1)); /* the negative control must fail */
}

/* ------------------------------------------------------------ engine */

static int out_fd = -1;
static int give_fd(void *arg)
{
    (void)arg;
    return out_fd;
}

/* Runs the engine on text with config c; returns the output (malloc). */
static unsigned char *run_engine(const unsigned char *text, size_t len,
                                 fs_lines_config *c, int from_fd,
                                 size_t *outlen, fs_lines_result *res)
{
    out_fd = memfd_create("out", 0);
    assert_true(out_fd >= 0);
    c->open_output = give_fd;
    int rc;
    if (from_fd) {
        int in = memfd_create("in", 0);
        assert_int_equal(write(in, text, len), (ssize_t)len);
        lseek(in, 0, SEEK_SET);
        rc = fs_lines_shuffle(in, c, res);
        close(in);
    } else {
        rc = fs_lines_shuffle_buf(text, len, c, res);
    }
    assert_int_equal(rc, FS_OK);
    off_t size = lseek(out_fd, 0, SEEK_END);
    unsigned char *out = malloc((size_t)size + 1);
    assert_int_equal(pread(out_fd, out, (size_t)size, 0), size);
    close(out_fd);
    *outlen = (size_t)size;
    return out;
}

/* Lines "i\n" for i < n, in order; the reference output from
 * fs_lines_order; both in memory and with a small budget (on disk). */
static void engine_matches_reference(void **st)
{
    (void)st;
    const uint64_t n = 300000; /* ~10 ties of the 32 stored key bits */
    size_t cap = n * 8, len = 0;
    unsigned char *text = malloc(cap);
    size_t *starts = malloc((n + 1) * sizeof *starts);
    for (uint64_t i = 0; i < n; i++) {
        starts[i] = len;
        len += (size_t)sprintf((char *)text + len, "%llu\n",
                               (unsigned long long)i);
    }
    starts[n] = len;
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    c.delim = '\n';
    c.head = UINT64_MAX;
    assert_int_equal(fs_seed_to_key("engine", c.key), FS_OK);
    uint64_t *order = malloc(n * sizeof *order);
    assert_int_equal(fs_lines_order(c.key, n, order), FS_OK);
    unsigned char *expect = malloc(len);
    size_t el = 0;
    int ties = 0;
    for (uint64_t r = 0; r < n; r++) {
        uint64_t i = order[r];
        memcpy(expect + el, text + starts[i], starts[i + 1] - starts[i]);
        el += starts[i + 1] - starts[i];
        if (r > 0 && fs_lines_key(c.key, i, 0) >> 32 ==
                         fs_lines_key(c.key, order[r - 1], 0) >> 32)
            ties++;
    }
    assert_true(ties > 0); /* the tie-resolution path is exercised */

    fs_lines_result res;
    size_t ol;
    unsigned char *out = run_engine(text, len, &c, 0, &ol, &res);
    assert_int_equal(ol, len);
    assert_memory_equal(out, expect, len);
    assert_int_equal(res.lines, n);
    assert_int_equal(res.depth, 0);
    free(out);

    c.memory = 256 * 1024; /* several levels of buckets on disk */
    c.threads = 2;
    out = run_engine(text, len, &c, 1, &ol, &res);
    assert_int_equal(ol, len);
    assert_memory_equal(out, expect, len);
    assert_true(res.spilled > len);
    free(out);

    c.head = 0; /* reads nothing, writes nothing */
    out = run_engine(text, len, &c, 1, &ol, &res);
    assert_int_equal(ol, 0);
    free(out);

    c.head = 777; /* the head of the same order */
    out = run_engine(text, len, &c, 1, &ol, &res);
    size_t hl = 0;
    for (int r = 0; r < 777; r++)
        hl += starts[order[r] + 1] - starts[order[r]];
    assert_int_equal(ol, hl);
    assert_memory_equal(out, expect, hl);
    free(out);

    free(text);
    free(starts);
    free(order);
    free(expect);
}

/* fs_lines_count on long buffers against a plain count: every length
 * up to 300 at every alignment, and 64 KiB of delimiters only (byte
 * counters summed before they can wrap), of random bytes and of runs. */
static void split_count_long(void **st)
{
    (void)st;
    enum { N = 65536 + 77 };
    unsigned char *b = malloc(N + 64);
    assert_non_null(b);
    uint64_t x = 88172645463325252ull;
    for (int kind = 0; kind < 3; kind++) {
        for (size_t i = 0; i < N + 64; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            b[i] = kind == 0 ? '\n'
                   : kind == 1 ? (unsigned char)(x % 3 ? 'a' + x % 7 : '\n')
                               : (unsigned char)((i / 5000) % 2 ? '\n' : 'z');
        }
        size_t lens[] = {N, N - 1, 4064, 4065, 4096, 8160, 31, 32, 33};
        for (size_t k = 0; k < sizeof lens / sizeof *lens; k++)
            for (size_t off = 0; off < 3; off++) {
                uint64_t want = 0;
                for (size_t i = 0; i < lens[k]; i++)
                    want += b[off + i] == '\n';
                want += b[off + lens[k] - 1] != '\n';
                assert_int_equal(fs_lines_count(b + off, lens[k], '\n'), want);
            }
        for (size_t len = 1; len <= 300; len++)
            for (size_t off = 0; off < 17; off++) {
                uint64_t want = 0;
                for (size_t i = 0; i < len; i++)
                    want += b[off + i] == '\n';
                want += b[off + len - 1] != '\n';
                assert_int_equal(fs_lines_count(b + off, len, '\n'), want);
            }
    }
    free(b);
}

static void split_edges(void **st)
{
    (void)st;
    assert_int_equal(fs_lines_count("", 0, '\n'), 0);
    assert_int_equal(fs_lines_count("a", 1, '\n'), 1);
    assert_int_equal(fs_lines_count("a\n", 2, '\n'), 1);
    assert_int_equal(fs_lines_count("\n\n", 2, '\n'), 2);
    assert_int_equal(fs_lines_count("a\0b", 3, '\0'), 2);
    assert_int_equal(fs_lines_count("0123456789abcdef\n0123456789\n", 28,
                                    '\n'),
                     2);
    size_t starts[4];
    fs_lines_index((const unsigned char *)"ab\n\nc\n", 6, '\n', starts);
    assert_int_equal(starts[0], 0);
    assert_int_equal(starts[1], 3);
    assert_int_equal(starts[2], 4);
    assert_int_equal(starts[3], 6);
    int fd = memfd_create("r", 0);
    assert_int_equal(write(fd, "x\ny", 3), 3);
    lseek(fd, 0, SEEK_SET);
    unsigned char *buf;
    size_t len;
    assert_int_equal(fs_lines_read_all(fd, '\n', &buf, &len), FS_OK);
    assert_int_equal(len, 4);
    assert_memory_equal(buf, "x\ny\n", 4);
    free(buf);
    close(fd);
    assert_int_equal(fs_lines_read_all(-1, '\n', &buf, &len), FS_EIO);
    assert_int_equal(errno, EBADF);
    /* shuffle_buf wants a delimiter at the end */
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    fs_lines_result res;
    c.delim = '\n';
    assert_int_equal(fs_lines_shuffle_buf((const unsigned char *)"a", 1, &c,
                                          &res),
                     FS_EINVAL);
    /* every line of the buffer is counted and written, the last one too */
    c.head = UINT64_MAX;
    const unsigned char *abc = (const unsigned char *)"a\nb\nc\n";
    size_t olen;
    unsigned char *out = run_engine(abc, 6, &c, 0, &olen, &res);
    assert_int_equal(res.lines, 3);
    assert_int_equal(olen, 6);
    free(out);
}

/* fs_lines_reservoir: GNU's draws (one per line from K on, plus one at end
 * of input), none when n < K or K == 0; the slots hold distinct lines. */
/* fs_lines_strerror: the words every door uses after the failed name. */
static void strerror_words(void **st)
{
    (void)st;
    fs_lines_result r;
    memset(&r, 0, sizeof r);
    r.where = FS_LINES_INPUT_CHANGED;
    assert_string_equal(fs_lines_strerror(FS_EIO, &r),
                        "file changed as we read it (a large file is read "
                        "more than once, not held in memory)");
    r.where = FS_LINES_OUTPUT;
    r.err = ENOSPC;
    assert_string_equal(fs_lines_strerror(FS_EIO, &r), strerror(ENOSPC));
    r.where = FS_LINES_TEMP;
    r.err = EMFILE;
    assert_string_equal(fs_lines_strerror(FS_EIO, &r), strerror(EMFILE));
    r.err = 0;
    assert_string_equal(fs_lines_strerror(FS_EIO, &r), fs_strerror(FS_EIO));
    assert_string_equal(fs_lines_strerror(FS_ENOMEM, &r),
                        fs_strerror(FS_ENOMEM));
    assert_string_equal(fs_lines_strerror(FS_EIO, NULL), fs_strerror(FS_EIO));
    assert_string_equal(fs_lines_strerror(FS_EINVAL, NULL),
                        fs_strerror(FS_EINVAL));
}

static void reservoir_replay(void **st)
{
    (void)st;
    unsigned char bytes[4096];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 131 + 7);
    uint64_t map[8], kept;
    fs_gnurand *g;
    assert_int_equal(fs_gnurand_new(&g, -1, bytes, sizeof bytes), FS_OK);
    fs_draws d = {g, NULL};
    assert_int_equal(fs_lines_reservoir(&d, 5, 8, map, &kept), FS_OK);
    assert_int_equal(kept, 5);
    assert_int_equal(fs_gnurand_used(g), 0); /* n < K: no draw */
    assert_int_equal(fs_lines_reservoir(&d, 5, 0, NULL, &kept), FS_OK);
    assert_int_equal(kept, 0);
    assert_int_equal(fs_gnurand_used(g), 0);
    /* n = 100, K = 8: draws for t = 8..100, each in [0, t] (one byte) */
    assert_int_equal(fs_lines_reservoir(&d, 100, 8, map, &kept), FS_OK);
    assert_int_equal(kept, 8);
    /* the same bytes drawn by hand as GNU's loop does */
    fs_gnurand *h;
    uint64_t want[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    assert_int_equal(fs_gnurand_new(&h, -1, bytes, sizeof bytes), FS_OK);
    for (uint64_t t = 8; t <= 100; t++) {
        uint64_t j;
        assert_int_equal(fs_gnurand_below(h, t + 1, &j), FS_OK);
        if (t < 100 && j < 8)
            want[j] = t;
    }
    assert_int_equal(fs_gnurand_used(g), fs_gnurand_used(h));
    assert_memory_equal(map, want, sizeof want);
    fs_gnurand_free(h);
    for (int a = 0; a < 8; a++) {
        assert_true(map[a] < 100);
        for (int b = 0; b < a; b++)
            assert_true(map[a] != map[b]);
    }
    fs_gnurand_free(g);
    /* a source that runs dry: its error */
    assert_int_equal(fs_gnurand_new(&g, -1, bytes, 10), FS_OK);
    d.gnu = g;
    assert_int_equal(fs_lines_reservoir(&d, 100, 8, map, &kept), FS_EEOF);
    fs_gnurand_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gnurand_known_answers),
        cmocka_unit_test(gnurand_exact),
        cmocka_unit_test(fyperm_exhaustive),
        cmocka_unit_test(fyperm_prefix_and_sparse),
        cmocka_unit_test(keys_are_the_seeded_stream),
        cmocka_unit_test(keyed_order_uniform),
        cmocka_unit_test(engine_matches_reference),
        cmocka_unit_test(split_edges),
        cmocka_unit_test(split_count_long),
        cmocka_unit_test(reservoir_replay),
        cmocka_unit_test(strerror_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
