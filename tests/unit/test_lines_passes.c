/* test_lines_passes.c -- a large regular file read four times instead of held
 * (lib/lines/passes.c): the same bytes as in memory, whatever the header,
 * head, delimiter, threads, long lines or start position; a file that
 * changes between the reads is an error; output into the input file makes
 * it read once; short lines and a small budget keep the usual path.  The
 * 256 MiB threshold is lowered to 0 here (fs__passes_min). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>

#include "fairshuf/lines.h"
#include "support/lines_text.h"
#include "lines/engine.h" /* fs__sort_emit, FS__STORED_LEN */
#include "lines/lanes.h"  /* fs__lanes_counted */

extern size_t fs__passes_min; /* lib/lines/engine.h */

/* ThreadSanitizer starts a thread of its own, at a time of its choosing:
 * one more may be counted at open_output than before the run. */
#if defined(__SANITIZE_THREAD__)
#define TSAN_THREAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN_THREAD 1
#endif
#endif
#ifndef TSAN_THREAD
#define TSAN_THREAD 0
#endif

/* ------------------------------------------------------------ harness */
/* The input's times (access, modification): long ago, so that an edit
 * during the run surely moves them (file times tick coarsely: a write in
 * the same few ms as the file's last one could keep them). */
static const struct timespec long_ago[2] = {{1, 0}, {1, 0}};


typedef struct job {
    int in, out;      /* the input file, the output (memfd or the input) */
    off_t at_open;    /* the input's position when the output was opened */
    void (*meddle)(struct job *); /* called at the first progress report */
    int meddled;
    int threads_at_open; /* open_output may end the process: ours only */
    int threads_before;  /* this process's before the run (TSan has one) */
} job;

/* Threads of this process now (/proc/self/task). */
static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int open_out(void *arg)
{
    job *j = arg;
    j->at_open = lseek(j->in, 0, SEEK_CUR);
    j->threads_at_open = threads_now();
    return j->out;
}

static void progress(void *arg, fs_lines_phase ph, uint64_t done,
                     uint64_t total)
{
    (void)total;
    (void)done;
    job *j = arg;
    if (ph == FS_LINES_READING && j->meddle && !j->meddled) {
        j->meddled = 1;
        j->meddle(j);
    }
}

/* The reference: the in-memory engine on text (ending with delim). */
static unsigned char *reference(const unsigned char *text, size_t len,
                                fs_lines_config c, size_t *n)
{
    job j = {-1, memfd_create("ref", 0), 0, NULL, 0, 0, 0};
    assert_true(j.out >= 0);
    c.open_output = open_out;
    c.output_arg = &j;
    c.progress = NULL;
    fs_lines_result res;
    assert_int_equal(fs_lines_shuffle_buf(text, len, &c, &res), FS_OK);
    unsigned char *p = lines_slurp(j.out, 0, n);
    close(j.out);
    return p;
}

/* fs_lines_shuffle on a memfd holding prefix then text, read from after
 * the prefix; returns the engine's status, the output in *out. */
static int from_file(const unsigned char *text, size_t len, size_t prefix,
                     fs_lines_config c, job *j, unsigned char **out,
                     size_t *n, fs_lines_result *res)
{
    j->in = memfd_create("in", 0);
    assert_true(j->in >= 0);
    for (size_t i = 0; i < prefix; i++)
        assert_int_equal(write(j->in, "#", 1), 1);
    assert_int_equal(write(j->in, text, len), (ssize_t)len);
    assert_int_equal(futimens(j->in, long_ago), 0);
    assert_int_equal(lseek(j->in, (off_t)prefix, SEEK_SET), (off_t)prefix);
    if (j->out < 0)
        j->out = memfd_create("out", 0);
    c.open_output = open_out;
    c.output_arg = j;
    c.progress = progress;
    c.progress_arg = j;
    j->threads_before = threads_now();
    int rc = fs_lines_shuffle(j->in, &c, res);
    *out = lines_slurp(j->out, 0, n);
    return rc;
}

/* pread, failing (EIO) at call number fail_at (counted from 0) when it is
 * not negative: this binary's definition is the one the library calls. */
static int fail_at = -1;
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    if (fail_at >= 0 && fail_at-- == 0) {
        errno = EIO;
        return -1;
    }
    return syscall(SYS_pread64, fd, buf, n, off);
}

/* ------------------------------------------------------------- tests */

/* The same bytes as in memory, and the passes really ran (the input's
 * position was still at its start when the output was opened). */
static void same_bytes(void **st)
{
    (void)st;
    fs__passes_min = 0;
    static const struct {
        unsigned char d;
        int unterminated;
        uint64_t header;
        unsigned threads;
        size_t prefix;
    } cases[] = {
        {'\n', 0, 0, 1, 0},  {'\n', 1, 0, 2, 0}, {'\n', 0, 3, 1, 5},
        {'\0', 1, 1, 2, 0},  {'\n', 0, 0, 3, 1},
    };
    /* the last two: a line of 5 MiB too */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t len;
        unsigned char *text = lines_text(20000, 240, k >= 3 ? 2 : 1, cases[k].d,
                                        cases[k].unterminated, &len);
        fs_lines_config c = lines_config("passes");
        c.delim = cases[k].d;
        c.header = cases[k].header;
        c.threads = cases[k].threads;
        /* the reference reads a terminated text */
        unsigned char *full = malloc(len + 1);
        memcpy(full, text, len);
        size_t fl = len;
        if (cases[k].unterminated)
            full[fl++] = cases[k].d;
        size_t rn, on;
        unsigned char *ref = reference(full, fl, c, &rn), *out;
        job j = {-1, -1, -1, NULL, 0, 0, 0};
        fs_lines_result res;
        assert_int_equal(from_file(text, len, cases[k].prefix, c, &j, &out,
                                   &on, &res),
                         FS_OK);
        assert_int_equal(j.at_open, (off_t)cases[k].prefix); /* passes */
        assert_true(j.threads_at_open <= j.threads_before + TSAN_THREAD);
        assert_int_equal(on, rn);
        assert_memory_equal(out, ref, rn);
        assert_int_equal(res.lines, 20000 - cases[k].header);
        assert_int_equal(res.written, 20000 - cases[k].header);
        assert_int_equal(res.spilled, 0);
        /* the position is left at the end, as a read leaves it */
        assert_int_equal(lseek(j.in, 0, SEEK_CUR),
                         (off_t)(cases[k].prefix + len));
        close(j.in);
        close(j.out);
        free(text), free(full), free(ref), free(out);
    }
}

/* Two lanes: the first read's helper counts the lines before each cut,
 * the three later reads are given those counts (fs__lanes_counted: about
 * 55 % of the text once, not 2.2 times it), and the bytes are the same.
 * The text is three 4 MiB chunks; a chunk of another size (a 5 MiB line,
 * same_bytes) is counted again. */
static void later_reads_given_counts(void **st)
{
    (void)st;
    fs__passes_min = 0;
    size_t len, rn, on;
    unsigned char *text = lines_text(40000, 240, 1, '\n', 0, &len);
    fs_lines_config c = lines_config("passes");
    c.threads = 2;
    unsigned char *ref = reference(text, len, c, &rn), *out;
    job j = {-1, -1, -1, NULL, 0, 0, 0};
    fs_lines_result res;
    atomic_store(&fs__lanes_counted, 0);
    assert_int_equal(from_file(text, len, 0, c, &j, &out, &on, &res), FS_OK);
    assert_int_equal(j.at_open, 0); /* the passes ran */
    assert_int_equal(on, rn);
    assert_memory_equal(out, ref, rn);
    uint64_t counted = atomic_load(&fs__lanes_counted);
    assert_true(len > ((size_t)8 << 20)); /* at least three chunks */
    assert_true(counted > len / 2);       /* the first read's lanes ran */
    assert_true(counted < len / 10 * 6);  /* and only the first's counted */
    close(j.in);
    close(j.out);
    free(text), free(ref), free(out);
}

/* The keys: the first read keeps them when the budget has room for them
 * beside a window (the later reads then compute none), and not when it
 * has room for the window only (they compute them again); the same bytes
 * both ways, one lane and two.  The budget in between is found with the
 * plan itself. */
static void keys_kept_when_they_fit(void **st)
{
    (void)st;
    fs__passes_min = 0;
    size_t len, rn, on;
    unsigned char *text = lines_text(200000, 130, 0, '\n', 0, &len);
    fs_lines_config c = lines_config("passes");
    unsigned char *ref = reference(text, len, c, &rn), *out;
    /* the least limit the plan takes, and the least with the keys */
    int fd = memfd_create("plan", 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    size_t lo[2];
    for (int keys = 0; keys < 2; keys++) {
        size_t a = 0, b = (size_t)1 << 30; /* plan(a) fails, plan(b) holds */
        while (b - a > 1) {
            size_t m = a + (b - a) / 2;
            fs__passes_plan_t pl;
            assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
            if (fs__passes_plan(fd, &c, 1, m, &pl) && (!keys || pl.keys))
                b = m;
            else
                a = m;
        }
        lo[keys] = b;
    }
    close(fd);
    assert_true(lo[1] > lo[0] + 8 * 200000); /* 8 bytes a line and more */
    for (int k = 0; k < 4; k++) {
        c.threads = k % 2 ? 2 : 1;
        /* limit = memory / 4 * 3: room for the keys, or for a window only */
        size_t limit = k < 2 ? lo[1] + ((size_t)1 << 20) : lo[0] + 4096;
        c.memory = limit / 3 * 4 + 8;
        job j = {-1, -1, -1, NULL, 0, 0, 0};
        fs_lines_result res;
        atomic_store(&fs__passes_rekeyed, 0);
        assert_int_equal(from_file(text, len, 0, c, &j, &out, &on, &res),
                         FS_OK);
        assert_int_equal(j.at_open, 0); /* the passes ran */
        assert_int_equal(on, rn);
        assert_memory_equal(out, ref, rn);
        uint64_t rekeyed = atomic_load(&fs__passes_rekeyed);
        if (k < 2)
            assert_int_equal(rekeyed, 0);
        else /* three later reads, every line */
            assert_true(rekeyed >= 3 * 200000);
        close(j.in), close(j.out);
        free(out);
    }
    free(text), free(ref);
}

/* More lines than the first MiB promised (long lines there, short ones
 * after): past the keys' room the first read stops keeping them, and the
 * later reads compute them all again.  The same bytes. */
static void more_lines_than_expected(void **st)
{
    (void)st;
    fs__passes_min = 0;
    size_t cap = 64 << 20, len = 0;
    unsigned char *text = malloc(cap);
    for (uint64_t i = 0; len < ((size_t)40 << 20); i++) {
        size_t l = len < ((size_t)2 << 20) ? 1000 : 70;
        len += (size_t)sprintf((char *)text + len, "%llu:",
                               (unsigned long long)i);
        memset(text + len, 'y', l);
        len += l;
        text[len++] = '\n';
    }
    fs_lines_config c = lines_config("passes");
    c.threads = 2;
    size_t rn, on;
    unsigned char *ref = reference(text, len, c, &rn), *out;
    job j = {-1, -1, -1, NULL, 0, 0, 0};
    fs_lines_result res;
    atomic_store(&fs__passes_rekeyed, 0);
    assert_int_equal(from_file(text, len, 0, c, &j, &out, &on, &res), FS_OK);
    assert_int_equal(j.at_open, 0);
    assert_int_equal(on, rn);
    assert_memory_equal(out, ref, rn);
    assert_true(atomic_load(&fs__passes_rekeyed) > 0);
    close(j.in), close(j.out);
    free(text), free(ref), free(out);
}

/* -n K with K >= 2^20 (below, the top-K path streams): the head of the
 * same order, cut inside the first window. */
static void head_of_order(void **st)
{
    (void)st;
    fs__passes_min = 0;
    size_t len;
    unsigned char *text = lines_text(1100000, 130, 0, '\n', 0, &len);
    fs_lines_config c = lines_config("passes");
    c.head = (1u << 20) + 17;
    size_t rn, on;
    unsigned char *ref = reference(text, len, c, &rn), *out;
    job j = {-1, -1, -1, NULL, 0, 0, 0};
    fs_lines_result res;
    assert_int_equal(from_file(text, len, 0, c, &j, &out, &on, &res), FS_OK);
    assert_int_equal(j.at_open, 0);
    assert_int_equal(on, rn);
    assert_memory_equal(out, ref, rn);
    assert_int_equal(res.written, c.head);
    close(j.in), close(j.out);
    free(text), free(ref), free(out);
}

static void shrink(job *j)
{
    off_t end = lseek(j->in, 0, SEEK_END);
    assert_int_equal(ftruncate(j->in, end - 10), 0);
}

static void move_a_line_end(job *j)
{
    /* "0:aaa\n1:..." -> the first delimiter one byte later */
    static unsigned char b[1 << 20];
    assert_int_equal(pread(j->in, b, sizeof b, 0), (ssize_t)sizeof b);
    unsigned char *nl = memchr(b, '\n', sizeof b);
    assert_non_null(nl);
    nl[0] = nl[1];
    nl[1] = '\n';
    assert_int_equal(pwrite(j->in, b, sizeof b, 0), (ssize_t)sizeof b);
    /* as if in the same tick of the file clock as the file's last write:
     * the reads' check of the line ends alone must see it */
    assert_int_equal(futimens(j->in, long_ago), 0);
}

/* A byte of the first line rewritten in place: the size and every line
 * end stay, only the file's modification time tells. */
static void edit_in_place(job *j)
{
    unsigned char b;
    assert_int_equal(pread(j->in, &b, 1, 0), 1);
    b = b == 'x' ? 'y' : 'x';
    assert_int_equal(pwrite(j->in, &b, 1, 0), 1);
}

static void grow(job *j)
{
    off_t end = lseek(j->in, 0, SEEK_END);
    assert_int_equal(pwrite(j->in, "more\nlines\n", 11, end), 11);
}

/* Between the reads: a file that shrinks, whose lines move or that is
 * edited in place fails with FS_LINES_INPUT_CHANGED; what is appended is
 * not read. */
static void changed_between_reads(void **st)
{
    (void)st;
    fs__passes_min = 0;
    void (*how[])(job *) = {shrink, move_a_line_end, edit_in_place, grow};
    enum { HOW = sizeof how / sizeof *how };
    for (int k = 0; k < 2 * HOW; k++) { /* one lane, then two */
        size_t len, rn, on;
        unsigned char *text = lines_text(5000, 200, 1, '\n', 0, &len), *out;
        fs_lines_config c = lines_config("passes");
        c.threads = k < HOW ? 1 : 2;
        unsigned char *ref = reference(text, len, c, &rn);
        job j = {-1, -1, -1, how[k % HOW], 0, 0, 0};
        fs_lines_result res;
        int rc = from_file(text, len, 0, c, &j, &out, &on, &res);
        assert_true(j.meddled);
        if (how[k % HOW] == grow) {
            assert_int_equal(rc, FS_OK);
            assert_int_equal(on, rn);
            assert_memory_equal(out, ref, rn);
        } else {
            assert_int_equal(rc, FS_EIO);
            assert_int_equal(res.where, FS_LINES_INPUT_CHANGED);
        }
        close(j.in), close(j.out);
        free(text), free(ref), free(out);
    }
}

/* A read error in either read: FS_EIO at FS_LINES_INPUT with the errno;
 * in the first the output is not even opened, in the second the first
 * half has been written.  (pread call 0 is the plan's look at the first
 * MiB; the file is one read each time.) */
static void read_error(void **st)
{
    (void)st;
    fs__passes_min = 0;
    for (int at = 1; at <= 2; at++) {
        size_t len, on;
        unsigned char *text = lines_text(5000, 200, 1, '\n', 0, &len), *out;
        fs_lines_config c = lines_config("passes");
        job j = {-1, -1, -1, NULL, 0, 0, 0};
        fs_lines_result res;
        j.at_open = -1;
        fail_at = at;
        int rc = from_file(text, len, 0, c, &j, &out, &on, &res);
        fail_at = -1;
        assert_int_equal(rc, FS_EIO);
        assert_int_equal(res.where, FS_LINES_INPUT);
        assert_int_equal(res.err, EIO);
        if (at == 1) {
            assert_int_equal(j.at_open, -1); /* never opened */
            assert_int_equal(on, 0);
        } else {
            assert_int_equal(j.at_open, 0);
            assert_true(on > 0 && on < len);
        }
        close(j.in), close(j.out);
        free(text), free(out);
    }
}

/* Output into the input file itself, from its start and not truncated
 * (`fairshuf lines f 1<> f`): the first half of the output would overwrite
 * what the second read needs, so the file is read once, the usual way,
 * and ends up as its shuffle (the same length).  Appended output (`>>`)
 * lies past the size measured at the start: the two reads go on. */
static void output_into_input(void **st)
{
    (void)st;
    fs__passes_min = 0;
    for (int append = 0; append < 2; append++) {
        size_t len, rn, on;
        unsigned char *text = lines_text(5000, 200, 1, '\n', 0, &len), *out;
        fs_lines_config c = lines_config("passes");
        unsigned char *ref = reference(text, len, c, &rn);
        job j = {-1, -1, -1, NULL, 0, 0, 0};
        j.in = memfd_create("in", 0);
        assert_int_equal(write(j.in, text, len), (ssize_t)len);
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", j.in);
        j.out = open(path, O_WRONLY | (append ? O_APPEND : 0));
        assert_true(j.out >= 0);
        assert_int_equal(lseek(j.in, 0, SEEK_SET), 0);
        c.open_output = open_out;
        c.output_arg = &j;
        fs_lines_result res;
        assert_int_equal(fs_lines_shuffle(j.in, &c, &res), FS_OK);
        /* appended: the two reads went on (the output was opened with
         * the position still at 0, and it is left at the end) */
        if (append)
            assert_int_equal(j.at_open, 0);
        assert_int_equal(lseek(j.in, 0, SEEK_CUR), (off_t)len);
        out = lines_slurp(j.in, 0, &on);
        assert_int_equal(on, append ? len + rn : rn);
        if (append)
            assert_memory_equal(out, text, len);
        assert_memory_equal(out + (append ? len : 0), ref, rn);
        close(j.in), close(j.out);
        free(text), free(ref), free(out);
    }
}

/* Short lines, or a budget a window does not fit: the usual path (the
 * input was read to its end before the output was opened). */
static void usual_path_kept(void **st)
{
    (void)st;
    for (int k = 0; k < 3; k++) {
        /* short lines; a budget a window does not fit; below 256 MiB */
        fs__passes_min = k < 2 ? 0 : (size_t)256 << 20;
        size_t len, rn, on;
        unsigned char *text = lines_text(30000, k == 0 ? 40 : 200, 0, '\n', 0,
                                        &len),
                      *out;
        fs_lines_config c = lines_config("passes");
        if (k == 1)
            c.memory = len; /* a window is half the text: needs more */
        unsigned char *ref = reference(text, len, c, &rn);
        job j = {-1, -1, -1, NULL, 0, 0, 0};
        fs_lines_result res;
        assert_int_equal(from_file(text, len, 0, c, &j, &out, &on, &res),
                         FS_OK);
        assert_int_equal(j.at_open, (off_t)len);
        assert_int_equal(on, rn);
        assert_memory_equal(out, ref, rn);
        close(j.in), close(j.out);
        free(text), free(ref), free(out);
    }
}

/* Lines of one window (a quarter of the key space) long (12000 bytes), of
 * the others short (40): the plan, from the first MiB, expects four
 * windows of about 10 MB (well within the budget) and the budget is 37
 * MB.  With the long lines in the last window, the first read finds it too
 * large (about 39 MB of records); in the first, the arena outgrows the
 * budget while the first read keeps them.  Either way the file is then
 * read the usual way (here: on disk), before any output. */
static void window_over_budget(void **st)
{
    (void)st;
    fs__passes_min = 0;
    for (unsigned big = 0; big < 2; big++) {
        fs_lines_config c = lines_config("passes");
        size_t cap = 48 << 20, len = 0;
        unsigned char *text = malloc(cap);
        for (uint64_t i = 0; i < 13000; i++) {
            size_t l =
                fs_lines_key(c.key, i, 0) >> 62 == (big ? 3 : 0) ? 12000 : 40;
            len += (size_t)sprintf((char *)text + len, "%llu:",
                                   (unsigned long long)i);
            memset(text + len, 'x', l);
            len += l;
            text[len++] = '\n';
        }
        c.memory = (size_t)(37u << 20) / 3 * 4;
        size_t rn, on;
        unsigned char *ref = reference(text, len, c, &rn), *out;
        job j = {-1, -1, -1, NULL, 0, 0, 0};
        fs_lines_result res;
        assert_int_equal(from_file(text, len, 0, c, &j, &out, &on, &res),
                         FS_OK);
        assert_int_equal(j.at_open, (off_t)len); /* read once */
        assert_true(res.spilled > 0);
        assert_int_equal(on, rn);
        assert_memory_equal(out, ref, rn);
        close(j.in), close(j.out);
        free(text), free(ref), free(out);
    }
}


/* ------------------------------------------- the sorter's stored lengths */

static int out_fd = -1;
static int open_tmp_out(void *arg)
{
    (void)arg;
    return out_fd;
}

/* fs__sort_emit on records in format `stored` to a temporary file; the
 * bytes written are returned (*olen). */
static unsigned char *sort_records(const unsigned char *buf, size_t len,
                                   uint64_t n, int stored, unsigned threads,
                                   size_t *olen)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    out_fd = fileno(f);
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    c.delim = '\n';
    c.head = UINT64_MAX;
    c.threads = threads;
    c.open_output = open_tmp_out;
    assert_int_equal(fs_seed_to_key("stored-len", c.key), FS_OK);
    fs_lines_result res;
    memset(&res, 0, sizeof res);
    fs__writer w = {.c = &c, .res = &res, .fd = -1, .left = UINT64_MAX,
                    .total = n, .hi = UINT64_MAX, .slices = 1};
    assert_int_equal(fs__writer_open(&w), FS_OK);
    assert_int_equal(fs__sort_emit(buf, len, n, stored, 0, 0, NULL, &w),
                     FS_OK);
    assert_int_equal(fs__writer_flush(&w), FS_OK);
    free(w.buf);
    long end = lseek(out_fd, 0, SEEK_END);
    assert_true(end >= 0);
    unsigned char *out = malloc((size_t)end + 1);
    assert_int_equal(pread(out_fd, out, (size_t)end, 0), end);
    fclose(f);
    *olen = (size_t)end;
    return out;
}

/* FS__STORED_LEN (the arena of passes.c: the line's length beside the
 * index) sorts and writes exactly as the spill format: with keys equal in
 * all 64 bits (their order then comes from the indexes' level-1 keys),
 * lines of 65535 bytes and more (their length searched for), one thread
 * and two. */
static void stored_len_as_spill_format(void **st)
{
    (void)st;
    const uint64_t n = 70000;
    size_t cap = (size_t)n * 40 + 4 * 140000, l1 = 0, l2 = 0;
    unsigned char *a = malloc(cap), *b = malloc(cap);
    for (uint64_t i = 0; i < n; i++) {
        /* 5000 distinct keys: every key shared by 14 records */
        uint64_t key = ((i * 7919) % 5000) * 0x9e3779b97f4a7c15ull;
        uint64_t idx = 3 * i + 1;
        char line[40];
        size_t l = (size_t)sprintf(line, "%llu\n", (unsigned long long)i);
        size_t big = i % 20000 == 7 ? 65534 + (size_t)(i % 3) * 40000 : 0;
        size_t len = big ? big + 1 : l;
        uint64_t il = idx << 16 | (len < FS__LEN_LOOK ? len : FS__LEN_LOOK);
        memcpy(a + l1, &key, 8);
        memcpy(a + l1 + 8, &idx, 8);
        memcpy(b + l2, &key, 8);
        memcpy(b + l2 + 8, &il, 8);
        l1 += 16;
        l2 += 16;
        if (big) {
            memset(a + l1, 'x', big);
            memset(b + l2, 'x', big);
            memcpy(a + l1, line, l - 1);
            memcpy(b + l2, line, l - 1);
            a[l1 + big] = b[l2 + big] = '\n';
        } else {
            memcpy(a + l1, line, l);
            memcpy(b + l2, line, l);
        }
        l1 += len;
        l2 += len;
        assert_true(l1 + 140000 < cap);
    }
    for (unsigned t = 1; t <= 2; t++) {
        size_t ra, rb;
        unsigned char *x = sort_records(a, l1, n, 1, t, &ra);
        unsigned char *y = sort_records(b, l2, n, FS__STORED_LEN, t, &rb);
        assert_int_equal(ra, rb);
        assert_memory_equal(x, y, ra);
        free(x);
        free(y);
    }
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_bytes),
        cmocka_unit_test(later_reads_given_counts),
        cmocka_unit_test(keys_kept_when_they_fit),
        cmocka_unit_test(more_lines_than_expected),
        cmocka_unit_test(stored_len_as_spill_format),
        cmocka_unit_test(head_of_order),
        cmocka_unit_test(changed_between_reads),
        cmocka_unit_test(read_error),
        cmocka_unit_test(output_into_input),
        cmocka_unit_test(usual_path_kept),
        cmocka_unit_test(window_over_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
