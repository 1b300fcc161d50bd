/* lines_out.c -- the output of `fairshuf lines`: standard output, or -o
 * FILE replaced only on success (see lines_out.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fairshuf/lines.h"
#include "io.h"
#include "lines_out.h"
#include "lines_quote.h"
#include "pending.h"

void lines_out_init(lines_out *o, const char *path, unsigned char delim)
{
    memset(o, 0, offsetof(lines_out, b));
    o->path = path;
    o->delim = delim;
    o->fd = -1;
}

_Noreturn static void die_path(const char *path, int err)
{
    cli_die(CLI_FAIL, "%s: %s", lines_quotef(path), strerror(err));
}

/* The folder of path (malloc'd): "." when it has no slash. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* A name for the new file beside target: .NAME.fairshuf-XXXXXX */
static char *temp_name(const char *target, const char *dir)
{
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t n = strlen(dir) + strlen(base) + 32;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%s/.%s.fairshuf-XXXXXX", dir, base);
    return t;
}

/* An unnamed file can be given a name at the end only with /proc or the
 * privilege AT_EMPTY_PATH needs. */
static int can_link_unnamed(void)
{
    return geteuid() == 0 || access("/proc/self/fd", X_OK) == 0;
}

static int open_direct(lines_out *o)
{
    int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        die_path(o->path, errno);
    return fd;
}

/* Puts a sink between the engine and fd when the output is compressed or
 * framed; returns the descriptor to write to. */
static int with_sink(lines_out *o, int fd)
{
    fs_lines_codec codec = fs_lines_codec_of_name(o->path);
    if (codec == FS_CODEC_PLAIN && !o->csv)
        return fd;
    fs_lines_part part = {fd, codec, UINT64_MAX};
    fs_lines_sink_config c = {o->delim, o->csv, 0, 1, &part, NULL, NULL};
    fs_lines_sink *sink;
    int wfd;
    if (fs_lines_sink_open(&c, &sink, &wfd) != FS_OK)
        cli_die(CLI_FAIL, "cannot start the output thread: %s",
                strerror(errno ? errno : ENOMEM));
    o->sink = sink;
    o->file_fd = fd;
    return wfd;
}

int lines_out_open(lines_out *o)
{
    if (o->fd >= 0)
        return o->fd;
    o->fd = lines_out_open_file(o);
    return o->fd = with_sink(o, o->fd);
}

int lines_out_open_file(lines_out *o)
{
    if (o->path == NULL)
        return o->fd = 1;
    struct stat st;
    int exists = stat(o->path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return o->fd = open_direct(o);
    if (exists && access(o->path, W_OK) != 0)
        die_path(o->path, errno); /* read-only FILE stays refused */
    char *real = exists ? realpath(o->path, NULL) : NULL;
    o->target = real ? real : strdup(o->path);
    char *dir = o->target ? dir_of(o->target) : NULL;
    if (dir == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    int fd = -1;
#ifdef O_TMPFILE
    if (can_link_unnamed())
        fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && errno == ENOENT)
        die_path(o->path, ENOENT); /* no such folder */
#endif
    if (fd < 0) {
        o->tmp = temp_name(o->target, dir);
        if (o->tmp == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        fd = mkstemp(o->tmp);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && exists) {
            free(o->tmp); /* a folder that refuses new files: in place */
            o->tmp = NULL;
            free(dir);
            return o->fd = open_direct(o);
        }
        if (fd < 0)
            die_path(o->path, errno);
        o->named = 1;
        pending_set(o->tmp);
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    free(dir);
    if (exists)
        (void)!fchown(fd, st.st_uid, st.st_gid);
    (void)fchmod(fd, mode);
    o->replace = 1;
    return o->fd = fd;
}

_Noreturn void lines_out_failed(lines_out *o, uint64_t bytes_so_far, int err)
{
    /* GNU shuf writes through a stdio buffer of st_blksize bytes: a
     * failure in mid-output is reported, and then close_stdout reports
     * "write error" again; a failure at the final flush only once. */
    struct stat st;
    uint64_t blk = 4096;
    if (fstat(o->fd, &st) == 0 && st.st_blksize > 0)
        blk = (uint64_t)st.st_blksize;
    cli_error("write error: %s", strerror(err));
    if (bytes_so_far > blk)
        cli_error("write error");
    exit(CLI_FAIL); /* the new file, if any, goes at exit (pending.h) */
}

void lines_out_flush(lines_out *o)
{
    o->total += o->len;
    if (fs__write_all(o->fd, o->b, o->len) != FS_OK)
        lines_out_failed(o, o->total, errno);
    o->len = 0;
}

void lines_out_put(lines_out *o, const void *p, size_t n)
{
    if (o->len + n > sizeof o->b) {
        lines_out_flush(o);
        if (n > sizeof o->b) {
            o->total += n;
            if (fs__write_all(o->fd, p, n) != FS_OK)
                lines_out_failed(o, o->total, errno);
            return;
        }
    }
    memcpy(o->b + o->len, p, n);
    o->len += n;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* Two digits per division. */
void lines_out_num(lines_out *o, uint64_t v)
{
    char tmp[24];
    int i = 24;
    tmp[--i] = (char)o->delim;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        tmp[--i] = digit_pairs[d + 1];
        tmp[--i] = digit_pairs[d];
    }
    if (v >= 10) {
        tmp[--i] = digit_pairs[v * 2 + 1];
        tmp[--i] = digit_pairs[v * 2];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    if (o->len + 24 > sizeof o->b)
        lines_out_flush(o);
    memcpy(o->b + o->len, tmp + i, (size_t)(24 - i));
    o->len += (size_t)(24 - i);
}

/* Gives the unnamed new file a name beside the target. */
static void link_unnamed(lines_out *o)
{
    char *dir = dir_of(o->target);
    char *name = dir ? temp_name(o->target, dir) : NULL;
    free(dir);
    if (name == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t n = strlen(name);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    for (unsigned k = 0;; k++) {
        snprintf(name + n - 6, 7, "%06u", (unsigned)(getpid() + k) % 1000000u);
        int r = linkat(o->fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
        if (r != 0 && errno != EEXIST)
            r = linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
        if (r == 0)
            break;
        if (errno != EEXIST || k > 1000)
            die_path(o->path, errno);
    }
    o->tmp = name;
    o->named = 1;
    pending_set(name);
}

void lines_out_commit(lines_out *o)
{
    if (o->fd < 0)
        return;
    lines_out_flush(o);
    if (o->sink) { /* the pipe ends; the sink writes what is left */
        int err = 0;
        int rc = fs_lines_sink_end(o->sink, &err, NULL);
        fs_lines_sink_free(o->sink);
        o->sink = NULL;
        o->fd = o->file_fd;
        if (rc != FS_OK)
            lines_out_failed(o, o->total, rc == FS_ENOMEM ? ENOMEM : err);
    }
    if (o->replace) {
        if (fsync(o->fd) != 0)
            lines_out_failed(o, o->total, errno);
        if (!o->named)
            link_unnamed(o);
    }
    if (o->fd > 1 && close(o->fd) != 0)
        cli_die(CLI_FAIL, "write error: %s", strerror(errno));
    if (o->replace) {
        if (rename(o->tmp, o->target) != 0)
            die_path(o->path, errno); /* pending: removed at exit */
        pending_done();
        char *dir = dir_of(o->target); /* make the rename durable */
        int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
        free(dir);
    }
    free(o->target);
    free(o->tmp);
    o->target = o->tmp = NULL;
    o->fd = -1;
}
