/* test_fork.c -- the default generator is fork-safe and fails closed.
 *
 * Fork safety follows OpenBSD's arc4random-fork regress: after fork(), the
 * parent and two children each draw 4096 words, and no two of them may
 * share a single word -- forked straight after the generator is made (its
 * first buffer untouched), after one 32-bit draw (half a word left) and
 * after one 64-bit draw.  (Two of 3 x 4096 random 64-bit words are equal
 * with probability below 2^-37.)  Failing closed: re-run this binary with
 * getrandom() made to fail (LD_PRELOAD of tests/support/failrandom.c);
 * every OS-seeded path must then return FS_ERANDOM, never output.  The
 * fallback for kernels without MADV_WIPEONFORK (a pthread_atfork()
 * handler that empties the buffers of the generators on its list,
 * chacha20.c) is tested the same way: the fork tests re-run with madvise()
 * made to fail (tests/support/failmadvise.c, built next to this binary). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fairshuf.h"

#define WORDS 4096

static void draw(fs_rng *rng, uint64_t *w)
{
    for (int i = 0; i < WORDS; i++)
        w[i] = fs_rng_u64(rng);
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static size_t shared_words(const uint64_t *a, const uint64_t *b)
{
    uint64_t *x = malloc(WORDS * 8), *y = malloc(WORDS * 8);
    memcpy(x, a, WORDS * 8);
    memcpy(y, b, WORDS * 8);
    qsort(x, WORDS, 8, cmp);
    qsort(y, WORDS, 8, cmp);
    size_t i = 0, j = 0, same = 0;
    while (i < WORDS && j < WORDS) {
        if (x[i] == y[j])
            same++, i++, j++;
        else if (x[i] < y[j])
            i++;
        else
            j++;
    }
    free(x);
    free(y);
    return same;
}

/* Parent and two children draw from rng after a fork, after `pre` draws
 * (0: none, 1: one u32, 2: one u64) before it; returns the largest number
 * of words any pair shares. */
static size_t fork_after(fs_rng *rng, int pre)
{
    static uint64_t w[3][WORDS];
    if (pre == 1)
        (void)fs_rng_u32(rng); /* half a word left in the buffer */
    else if (pre == 2)
        (void)fs_rng_u64(rng); /* a half-used buffer */
    int fd[2][2];
    for (int c = 0; c < 2; c++) {
        assert_int_equal(pipe(fd[c]), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            draw(rng, w[0]);
            ssize_t put = write(fd[c][1], w[0], sizeof w[0]);
            _exit(put == (ssize_t)sizeof w[0] ? 0 : 1);
        }
        close(fd[c][1]);
    }
    draw(rng, w[0]);
    for (int c = 0; c < 2; c++) {
        size_t got = 0;
        while (got < sizeof w[c + 1]) {
            ssize_t r = read(fd[c][0], (char *)w[c + 1] + got,
                             sizeof w[c + 1] - got);
            assert_true(r > 0);
            got += (size_t)r;
        }
        close(fd[c][0]);
        int status;
        wait(&status);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    size_t most = 0;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++) {
            size_t s = shared_words(w[a], w[b]);
            most = s > most ? s : most;
        }
    return most;
}

/* The three forks, each on a generator fresh from make(); 0 if no pair
 * shares a word in any of them. */
static size_t fork_fresh(fs_rng *(*make)(void))
{
    size_t most = 0;
    for (int pre = 0; pre < 3; pre++) {
        fs_rng *rng = make();
        assert_non_null(rng);
        size_t s = fork_after(rng, pre);
        most = s > most ? s : most;
        assert_int_equal(fs_rng_error(rng), FS_OK);
        fs_rng_free(rng);
    }
    return most;
}

static fs_rng *make_os(void)
{
    fs_rng *rng = NULL;
    return fs_rng_new(&rng, "chacha20", NULL) == FS_OK ? rng : NULL;
}

static fs_rng *make_seeded(void)
{
    fs_rng *rng = NULL;
    return fs_rng_new(&rng, "chacha20", "fork") == FS_OK ? rng : NULL;
}

/* The thread's default generator, made in a fresh thread-less child so
 * that its first buffer is untouched: returns 0 if no words are shared. */
static int default_fresh_ok(int pre)
{
    pid_t pid = fork();
    if (pid == 0) {
        fs_rng *rng = fs_rng_default();
        _exit(rng != NULL && fork_after(rng, pre) == 0 &&
                      fs_rng_error(rng) == FS_OK
                  ? 0
                  : 3);
    }
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

static void default_generator_fork_safe(void **s)
{
    (void)s;
    fs_rng *rng = fs_rng_default();
    assert_non_null(rng);
    assert_int_equal(fork_after(rng, 2), 0);
    assert_int_equal(fs_rng_error(rng), FS_OK);
    for (int pre = 0; pre < 3; pre++)
        assert_true(default_fresh_ok(pre));
}

static void os_keyed_generator_fork_safe(void **s)
{
    (void)s;
    assert_int_equal(fork_fresh(make_os), 0);
}

/* The control: a seeded generator is meant to repeat after fork, and the
 * comparison must see it (the test can fail). */
static void seeded_generator_repeats(void **s)
{
    (void)s;
    fs_rng *rng = make_seeded();
    assert_true(fork_after(rng, 2) > 1000);
    fs_rng_free(rng);
}

/* Long streams cross re-key and re-seed boundaries without repeating. */
static void os_stream_has_no_repeats(void **s)
{
    (void)s;
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, NULL, NULL), FS_OK);
    static uint64_t a[WORDS], b[WORDS];
    draw(rng, a);
    for (int i = 0; i < 300; i++) /* 300 * 32 KiB: past a 1 MiB re-seed */
        draw(rng, b);
    assert_true(shared_words(a, b) <= 1);
    assert_int_equal(fs_rng_error(rng), FS_OK);
    fs_rng_free(rng);
}

/* Runs in a child with getrandom() failing. */
static int failing_os_checks(void)
{
    fs_rng *rng = (fs_rng *)1;
    int ok = 1;
    ok &= fs_rng_new(&rng, "chacha20", NULL) == FS_ERANDOM && rng == NULL;
    ok &= fs_rng_new(&rng, "xoshiro256ss", NULL) == FS_ERANDOM;
    ok &= fs_rng_default() == NULL;
    uint64_t a[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    ok &= fs_shuffle(a, 10, 8, NULL) == FS_ERANDOM;
    ok &= a[9] == 9; /* untouched */
    unsigned char key[32];
    ok &= fs_os_random(key, sizeof key) == FS_ERANDOM;
    /* A seeded generator needs no OS entropy and still works. */
    ok &= fs_rng_new(&rng, "chacha20", "seeded") == FS_OK;
    ok &= fs_shuffle(a, 10, 8, rng) == FS_OK;
    fs_rng_free(rng);
    return ok ? 0 : 3;
}

static const char *self_path;

/* Runs in a child with madvise() failing: the fork tests, on the fallback. */
static int no_wipeonfork_checks(void)
{
    /* The shim is in place: madvise fails for us as for the library. */
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED || madvise(page, 4096, MADV_DONTNEED) == 0)
        return 4;
    munmap(page, 4096);
    int ok = 1;
    for (int pre = 0; pre < 3; pre++)
        ok &= default_fresh_ok(pre);
    fs_rng *rng = fs_rng_default();
    ok &= rng != NULL && fork_after(rng, 2) == 0;
    ok &= fs_rng_error(rng) == FS_OK;
    ok &= fork_fresh(make_os) == 0;
    /* The comparison still sees a generator that repeats after fork. */
    rng = make_seeded();
    ok &= fork_after(rng, 2) > 1000;
    fs_rng_free(rng);
    return ok ? 0 : 3;
}

/* Re-runs this binary under LD_PRELOAD=shim with `mode` set; returns its
 * exit status. */
static int rerun_with(const char *shim, const char *mode)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("LD_PRELOAD", shim, 1);
        setenv(mode, "1", 1);
        execl(self_path, self_path, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void fork_safe_without_wipeonfork(void **s)
{
    (void)s;
    static char shim[4096];
    const char *slash = strrchr(self_path, '/');
    int dir = slash ? (int)(slash - self_path) : 1;
    snprintf(shim, sizeof shim, "%.*s/failmadvise.so", dir,
             slash ? self_path : ".");
    if (access(shim, R_OK) != 0)
        fail_msg("%s missing (make builds it next to the test binaries)", shim);
    assert_int_equal(rerun_with(shim, "FS_TEST_NO_WIPEONFORK"), 0);
}

static void fails_closed_without_os_randomness(void **s)
{
    (void)s;
    const char *shim = getenv("FS_FAILRANDOM");
    if (shim == NULL || access(shim, R_OK) != 0)
        fail_msg("FS_FAILRANDOM must name the failrandom.so shim (tests/run.sh sets it)");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("LD_PRELOAD", shim, 1);
        setenv("FS_TEST_FAILING_OS", "1", 1);
        execl(self_path, self_path, (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    self_path = argv[0];
    if (getenv("FS_TEST_FAILING_OS"))
        return failing_os_checks();
    if (getenv("FS_TEST_NO_WIPEONFORK"))
        return no_wipeonfork_checks();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_generator_fork_safe),
        cmocka_unit_test(os_keyed_generator_fork_safe),
        cmocka_unit_test(seeded_generator_repeats),
        cmocka_unit_test(os_stream_has_no_repeats),
        cmocka_unit_test(fails_closed_without_os_randomness),
        cmocka_unit_test(fork_safe_without_wipeonfork),
    };
    return cmocka_run_group_tests_name("fork", tests, NULL, NULL);
}
