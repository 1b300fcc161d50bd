/* test_lines_fuzz.c -- runs the fuzz target tests/fuzz/fuzz_lines.c in the
 * suite: a seed corpus of tricky inputs, then deterministic mutations
 * (xorshift, fixed seed) for at most FUZZ_SECONDS or FUZZ_CASES cases.
 * Under the sanitizer build every case runs with ASan and UBSan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <cmocka.h>

#include "../fuzz/fuzz_lines.c"

#define FUZZ_SECONDS 3.0
#define FUZZ_CASES 15000

/* Seed inputs (may hold NULs, so each carries its length). */
#define C(lit) {lit, sizeof lit - 1}
static const struct {
    const char *s;
    size_t len;
} corpus[] = {
    C("-n\x01" "5\x02" "a\nb\nc\n"),
    C("-i\x01" "1-18446744073709551615\x02"),
    C("-i\x01" " +1-3 \x01-e\x02" "x"),
    C("--rep\x01--head=3\x01-z\x02" "\0a\0b"),
    C("--input-range=0-0\x01--hea=1\x01" "a\x01" "b\x02" "\n\n\n\n"),
    C("--memory=4K\x01--threads=256\x01--header=99999999999999999999\x02"
      "l"),
    C("--bogus\x01-/\x01--he\x02" "only one line without end"),
    C("-o\x01" "a\x01-o\x01" "b\x01--random-source=x\x02"),
    C("--seed=\x01--memory=0x\x01--threads=-1\x02" "\xff\xfe\n\xff"),
    C("-n\x01" "99999999999999999999999\x01-n\x01+1\x02"
      "0123456789abcdef0123456789abcdef\n"),
};

static uint64_t xs = 0x9E3779B97F4A7C15u;
static uint64_t next(void)
{
    xs ^= xs << 13;
    xs ^= xs >> 7;
    xs ^= xs << 17;
    return xs;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char tokens[][24] = {
    "-n", "-i", "-e", "-r", "-z", "-o", "--rep", "--head-count=", "--hea",
    "--input-range=", "--random-source=", "--seed=", "--memory=", "-T",
    "--threads=", "--header=", "--progress", "--no-progress", "1-", "-",
    "18446744073709551615", "0", "+", " ", "K", "M", "\n", "\x01", "\x02",
    "--csv", "-t", "--split=", "80,10,10", ",", "--stratify=", "--weights=",
    "--group-by=", "--shuffle-within", "%d"};

static void fuzz_bounded(void **st)
{
    (void)st;
    size_t ncorpus = sizeof corpus / sizeof corpus[0];
    for (size_t i = 0; i < ncorpus; i++)
        fuzz_lines_one((const uint8_t *)corpus[i].s, corpus[i].len);
    double start = now();
    uint8_t buf[4096];
    int cases = 0;
    for (; cases < FUZZ_CASES && now() - start < FUZZ_SECONDS; cases++) {
        size_t len = 0;
        /* splice corpus pieces, tokens and random bytes */
        int parts = 1 + (int)(next() % 12);
        for (int p = 0; p < parts && len < sizeof buf - 64; p++) {
            uint64_t r = next();
            switch (r % 4) {
            case 0: {
                const char *t = tokens[(r >> 8) % (sizeof tokens /
                                                   sizeof tokens[0])];
                size_t tl = strlen(t);
                memcpy(buf + len, t, tl);
                len += tl;
                break;
            }
            case 1: {
                size_t k = (r >> 8) % 48;
                for (size_t i = 0; i < k && len < sizeof buf; i++)
                    buf[len++] = (uint8_t)next();
                break;
            }
            case 2: { /* many short lines */
                size_t k = (r >> 8) % 200;
                for (size_t i = 0; i < k && len + 3 < sizeof buf; i++) {
                    buf[len++] = (uint8_t)('a' + next() % 26);
                    if (next() % 3 == 0)
                        buf[len++] = '\n';
                }
                break;
            }
            default: {
                size_t c = (r >> 8) % ncorpus;
                size_t k = corpus[c].len < sizeof buf - len ? corpus[c].len
                                                            : 0;
                memcpy(buf + len, corpus[c].s, k);
                len += k;
            }
            }
        }
        fuzz_lines_one(buf, len);
    }
    print_message("fuzz: %d cases in %.1f s\n", cases, now() - start);
    assert_true(cases > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(fuzz_bounded)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
