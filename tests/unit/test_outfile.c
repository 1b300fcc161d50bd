/* test_outfile.c -- lib/outfile.h, the one output helper of the CLI and
 * the Python extension: a regular file is replaced only at commit (never
 * half-written, kept on abort, no temporary file left); a device node, a
 * FIFO and a symbolic link stay what they were; refusals say why. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <dirent.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "outfile.h"

static char dir[64];

static int setup(void **s)
{
    (void)s;
    snprintf(dir, sizeof dir, "/tmp/fs-outfile-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **s)
{
    (void)s;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

static const char *at(const char *name)
{
    static char p[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *get(const char *path)
{
    static char b[256];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(b, 1, sizeof b - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

/* Entries of dir whose name holds "fairshuf-": temporary files. */
static int temps(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, "fairshuf-") != NULL;
    closedir(d);
    return n;
}

static int named_calls;
static void on_temp(const char *name, void *arg)
{
    (void)arg;
    named_calls += name != NULL ? 1 : -1;
}

static void regular_replaced_at_commit(void **s)
{
    (void)s;
    const char *p = at("f");
    put(p, "old\n");
    chmod(p, 0640);
    fs__outfile o;
    fs__outfile_init(&o, p, on_temp, NULL);
    assert_int_equal(fs__outfile_open(&o), FS_OK);
    assert_true(o.replace);
    assert_int_equal(write(o.fd, "new\n", 4), 4);
    assert_string_equal(get(p), "old\n"); /* untouched until commit */
    assert_int_equal(fs__outfile_commit(&o), FS_OK);
    assert_int_equal(o.fd, -1);
    assert_string_equal(get(p), "new\n");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640); /* the mode is kept */
    assert_int_equal(temps(), 0);
    assert_int_equal(named_calls, 0); /* every name announced was withdrawn */

    fs__outfile_init(&o, p, on_temp, NULL); /* abort: the file as it was */
    assert_int_equal(fs__outfile_open(&o), FS_OK);
    assert_int_equal(write(o.fd, "half", 4), 4);
    fs__outfile_abort(&o);
    assert_string_equal(get(p), "new\n");
    assert_int_equal(temps(), 0);
    assert_int_equal(named_calls, 0);

    const char *q = at("fresh"); /* a new file */
    fs__outfile_init(&o, q, NULL, NULL);
    assert_int_equal(fs__outfile_open(&o), FS_OK);
    assert_null(get(q));
    assert_int_equal(write(o.fd, "x", 1), 1);
    assert_int_equal(fs__outfile_commit(&o), FS_OK);
    assert_string_equal(get(q), "x");
}

static void symlink_followed(void **s)
{
    (void)s;
    const char *t = at("target"), *l = at("link");
    put(t, "old\n");
    assert_int_equal(symlink("target", l), 0);
    fs__outfile o;
    fs__outfile_init(&o, l, NULL, NULL);
    assert_int_equal(fs__outfile_open(&o), FS_OK);
    assert_int_equal(write(o.fd, "new\n", 4), 4);
    assert_int_equal(fs__outfile_commit(&o), FS_OK);
    struct stat st;
    assert_int_equal(lstat(l, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* still a link */
    assert_string_equal(get(t), "new\n");
    assert_int_equal(temps(), 0);
}

static void fifo_written_through(void **s)
{
    (void)s;
    const char *p = at("fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    int r = open(p, O_RDONLY | O_NONBLOCK); /* a reader, so open won't wait */
    assert_true(r >= 0);
    fs__outfile o;
    fs__outfile_init(&o, p, on_temp, NULL);
    assert_int_equal(fs__outfile_open(&o), FS_OK);
    assert_false(o.replace);
    assert_int_equal(write(o.fd, "abc", 3), 3);
    assert_int_equal(fs__outfile_commit(&o), FS_OK);
    char b[8];
    assert_int_equal(read(r, b, sizeof b), 3);
    close(r);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(named_calls, 0);
}

static void device_written_in_place(void **s)
{
    (void)s;
    const char *p = at("null");
    if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) != 0)
        p = "/dev/null"; /* not root: the system's own, written in place */
    fs__outfile o;
    fs__outfile_init(&o, p, NULL, NULL);
    assert_int_equal(fs__outfile_open(&o), FS_OK);
    assert_false(o.replace);
    assert_int_equal(write(o.fd, "abc", 3), 3);
    assert_int_equal(fs__outfile_commit(&o), FS_OK);
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(temps(), 0);
}

static void refusals(void **s)
{
    (void)s;
    fs__outfile o;
    fs__outfile_init(&o, at("no-such-dir/f"), NULL, NULL);
    errno = 0;
    assert_int_equal(fs__outfile_open(&o), FS_EIO);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(o.fd, -1);
    if (geteuid() != 0) { /* root may write a read-only file */
        const char *p = at("ro");
        put(p, "keep\n");
        chmod(p, 0444);
        fs__outfile_init(&o, p, NULL, NULL);
        assert_int_equal(fs__outfile_open(&o), FS_EIO);
        assert_int_equal(errno, EACCES);
        assert_string_equal(get(p), "keep\n");
    }
    fs__outfile_init(&o, at("x"), NULL, NULL); /* commit, abort unopened */
    assert_int_equal(fs__outfile_commit(&o), FS_OK);
    fs__outfile_abort(&o);
    assert_int_equal(temps(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regular_replaced_at_commit),
        cmocka_unit_test(symlink_followed),
        cmocka_unit_test(fifo_written_through),
        cmocka_unit_test(device_written_in_place),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
