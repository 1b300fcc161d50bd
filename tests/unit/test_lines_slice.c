/* test_lines_slice.c -- fs_lines_shuffle_slice: slices 0..s-1 written one
 * after the other are fs_lines_shuffle's output byte for byte, on every
 * path of the engine (in memory, the passes of a large file, out of core,
 * the -n streaming path), with -n cutting anywhere, a header, NUL ends,
 * one or two threads; each slice holds only its own lines; bad slices are
 * refused.  The test hooks fs__passes_min and fs__topk_max pick the path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "fairshuf/lines.h"
#include "support/lines_text.h"
#include "lines/engine.h" /* fs__passes_min, fs__topk_max */

typedef struct job {
    int in, out;
    off_t at_open; /* the input's position when the output was opened */
} job;

static int open_out(void *arg)
{
    job *j = arg;
    j->at_open = lseek(j->in, 0, SEEK_CUR);
    return j->out;
}

/* fs_lines_shuffle over the file (the reference), into *n bytes. */
static unsigned char *whole(int in, fs_lines_config c, size_t *n,
                            fs_lines_result *res)
{
    job j = {in, memfd_create("ref", 0), 0};
    assert_true(j.out >= 0);
    c.open_output = open_out;
    c.output_arg = &j;
    assert_int_equal(lseek(in, 0, SEEK_SET), 0);
    assert_int_equal(fs_lines_shuffle(in, &c, res), FS_OK);
    unsigned char *p = lines_slurp(j.out, 0, n);
    close(j.out);
    return p;
}

/* ONE_READ: a file below fs__passes_min, which a slice of 2 or more reads
 * in one window (and fs_lines_shuffle holds in memory) */
enum path { IN_MEMORY, PASSES, SPILL, TOPK, ONE_READ };
static int check_path = 1; /* tiny inputs take the paths they qualify for */
static int short_lines;    /* the passes only for slices of 2 or more */

/* Every slice of `slices` in turn, appended to one output; each slice's
 * run is checked to have taken `path`.  Returns the bytes; *lines and
 * *written: the sums of the slices' counts. */
static unsigned char *by_slices(int in, fs_lines_config c, unsigned slices,
                                enum path path, size_t *n, uint64_t *lines,
                                uint64_t *written)
{
    job j = {in, memfd_create("slices", 0), 0};
    assert_true(j.out >= 0);
    c.open_output = open_out;
    c.output_arg = &j;
    *lines = *written = 0;
    off_t size = lseek(in, 0, SEEK_END);
    for (unsigned s = 0; s < slices; s++) {
        fs_lines_result res;
        assert_int_equal(lseek(in, 0, SEEK_SET), 0);
        assert_int_equal(fs_lines_shuffle_slice(in, &c, s, slices, &res),
                         FS_OK);
        *lines += res.lines;
        *written += res.written;
        if (c.head == 0 || !check_path)
            continue; /* (-n 0: only the header is read) */
        if (path == ONE_READ || (path == PASSES && short_lines))
            path = slices > 1 ? PASSES : IN_MEMORY;
        if (path == PASSES) /* the output opened after the first pread */
            assert_int_equal(j.at_open, 0);
        else if (path == IN_MEMORY)
            assert_int_equal(j.at_open, size);
        if (path == SPILL)
            assert_true(res.depth > 0);
        else
            assert_int_equal(res.depth, 0);
    }
    unsigned char *p = lines_slurp(j.out, 0, n);
    close(j.out);
    return p;
}

static void check(const unsigned char *text, size_t len, fs_lines_config c,
                  enum path path)
{
    static const unsigned counts[] = {1, 2, 3, 4, 7};
    int in = memfd_create("in", 0);
    assert_true(in >= 0);
    assert_int_equal(write(in, text, len), (ssize_t)len);
    fs__passes_min = path == PASSES     ? 0
                     : path == ONE_READ ? 2 * len + 1
                                        : SIZE_MAX;
    fs__topk_max = path == TOPK ? (uint64_t)1 << 20 : 0;
    c.memory = path == SPILL ? (size_t)256 << 10 : (size_t)64 << 20;
    fs_lines_result ref;
    size_t rn;
    unsigned char *r = whole(in, c, &rn, &ref);
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        size_t sn;
        uint64_t lines, written;
        unsigned char *s =
            by_slices(in, c, counts[k], path, &sn, &lines, &written);
        assert_int_equal(sn, rn);
        assert_memory_equal(s, r, rn);
        assert_int_equal(written, ref.written);
        if (c.head > 0)
            assert_int_equal(lines, ref.lines);
        free(s);
    }
    free(r);
    close(in);
    fs__passes_min = (size_t)256 << 20;
    fs__topk_max = (uint64_t)1 << 20;
}

/* -n anywhere (none, the first line, inside the first slice, across
 * slices, all, more), a header, NUL ends, a last line without its end,
 * one or two threads, on one path. */
static void every_cut(enum path path)
{
    const uint64_t lines = 4000;
    const uint64_t heads[] = {UINT64_MAX, 0, 1, 7, lines / 2, lines,
                              lines + 5};
    for (int v = 0; v < 4; v++) {
        unsigned char d = v == 1 ? '\0' : '\n';
        size_t len;
        unsigned char *text = lines_text(lines, 130, 0, d, v == 2, &len);
        for (size_t h = 0; h < sizeof heads / sizeof *heads; h++) {
            if (path == TOPK && heads[h] == UINT64_MAX)
                continue; /* that is not this path */
            fs_lines_config c = lines_config("slices");
            c.delim = d;
            c.head = heads[h];
            c.header = v == 3 ? 2 : 0;
            c.threads = v == 2 ? 2 : 1;
            check(text, len, c, path);
        }
        free(text);
    }
}

/* every_cut on the path the test's state names */
static void cuts(void **st)
{
    every_cut(*(const enum path *)*st);
}

/* Two lanes really run in the passes and out of core (chunks past
 * FS__LANES_MIN); -n over two lanes' lines; short lines, which only a
 * slice of 2 or more reads in passes. */
static void larger(void **st)
{
    (void)st;
    size_t len;
    unsigned char *text = lines_text(90000, 130, 0, '\n', 0, &len);
    fs_lines_config c = lines_config("slices");
    c.threads = 2;
    check(text, len, c, PASSES);
    check(text, len, c, SPILL);
    check(text, len, c, ONE_READ);
    c.head = 40000;
    c.header = 1;
    check(text, len, c, PASSES);
    free(text);
    text = lines_text(90000, 20, 0, '\n', 0, &len);
    short_lines = 1;
    check(text, len, c, PASSES);
    c.head = UINT64_MAX;
    check(text, len, c, ONE_READ);
    short_lines = 0;
    free(text);
}

/* Empty input, a header only, and one line: every slice but one empty. */
static void small_inputs(void **st)
{
    (void)st;
    static const char *texts[] = {"", "h\n", "only\n", "h\nx\n"};
    check_path = 0;
    for (size_t t = 0; t < 4; t++) {
        for (int p = IN_MEMORY; p <= TOPK; p++) {
            fs_lines_config c = lines_config("slices");
            c.header = t == 3;
            if (p == TOPK)
                c.head = 5;
            check((const unsigned char *)texts[t], strlen(texts[t]), c,
                  (enum path)p);
        }
    }
    check_path = 1;
}

/* A slice holds its own lines only: each of 4 gets about a quarter. */
static void own_lines_only(void **st)
{
    (void)st;
    size_t len;
    unsigned char *text = lines_text(20000, 130, 0, '\n', 0, &len);
    int in = memfd_create("in", 0);
    assert_int_equal(write(in, text, len), (ssize_t)len);
    for (int p = IN_MEMORY; p <= SPILL; p++) {
        fs__passes_min = p == PASSES ? 0 : SIZE_MAX;
        for (unsigned s = 0; s < 4; s++) {
            job j = {in, memfd_create("out", 0), 0};
            fs_lines_config c = lines_config("slices");
            c.memory = p == SPILL ? (size_t)256 << 10 : (size_t)64 << 20;
            c.open_output = open_out;
            c.output_arg = &j;
            fs_lines_result res;
            assert_int_equal(lseek(in, 0, SEEK_SET), 0);
            assert_int_equal(fs_lines_shuffle_slice(in, &c, s, 4, &res),
                             FS_OK);
            assert_true(res.lines > 4500 && res.lines < 5500);
            assert_int_equal(res.written, res.lines);
            close(j.out);
        }
    }
    fs__passes_min = (size_t)256 << 20;
    close(in);
    free(text);
}

static void bad_slices(void **st)
{
    (void)st;
    fs_lines_config c = lines_config("slices");
    fs_lines_result res;
    assert_int_equal(fs_lines_shuffle_slice(0, &c, 0, 0, &res), FS_EINVAL);
    assert_int_equal(fs_lines_shuffle_slice(0, &c, 2, 2, &res), FS_EINVAL);
    assert_int_equal(fs_lines_shuffle_slice(0, &c, 7, 3, &res), FS_EINVAL);
    assert_int_equal(fs_lines_shuffle_slice(0, NULL, 0, 1, &res), FS_EINVAL);
    assert_int_equal(fs_lines_shuffle_slice(0, &c, 0, 1, NULL), FS_EINVAL);
}

int main(void)
{
    static enum path paths[] = {IN_MEMORY, PASSES, ONE_READ, SPILL, TOPK};
    const struct CMUnitTest tests[] = {
        {"in_memory", cuts, NULL, NULL, &paths[0]},
        {"passes", cuts, NULL, NULL, &paths[1]},
        {"one_read", cuts, NULL, NULL, &paths[2]},
        {"spill", cuts, NULL, NULL, &paths[3]},
        {"topk", cuts, NULL, NULL, &paths[4]},
        cmocka_unit_test(larger),        cmocka_unit_test(small_inputs),
        cmocka_unit_test(own_lines_only), cmocka_unit_test(bad_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
