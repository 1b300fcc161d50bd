/* outfile.c -- see outfile.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_TMPFILE, linkat AT_EMPTY_PATH */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fairshuf.h"
#include "outfile.h"

void fs__outfile_init(fs__outfile *o, const char *path,
                      void (*on_temp)(const char *name, void *arg), void *arg)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = -1;
    o->on_temp = on_temp;
    o->arg = arg;
}

static void tell(fs__outfile *o, const char *name)
{
    if (o->on_temp)
        o->on_temp(name, o->arg);
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

/* A name for the new file beside target: DIR/.NAME.fairshuf-XXXXXX */
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

static void release(fs__outfile *o)
{
    free(o->target);
    free(o->tmp);
    o->target = o->tmp = NULL;
    o->replace = o->named = 0;
    o->fd = -1;
}

static int open_direct(fs__outfile *o)
{
    int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return FS_EIO;
    o->fd = fd;
    return FS_OK;
}

static int fail_open(fs__outfile *o, char *dir, int fd, int code)
{
    int e = errno;
    if (fd >= 0)
        close(fd);
    free(dir);
    release(o);
    errno = e;
    return code;
}

int fs__outfile_open(fs__outfile *o)
{
    if (o->fd >= 0)
        return FS_OK;
    struct stat st;
    int exists = stat(o->path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return open_direct(o); /* a device, FIFO, socket: in place */
    if (!exists && errno != ENOENT)
        return FS_EIO; /* ELOOP, EACCES on the way, ENOTDIR ... */
    if (exists && access(o->path, W_OK) != 0)
        return FS_EIO; /* a read-only file stays refused */
    char *real = exists ? realpath(o->path, NULL) : NULL;
    o->target = real ? real : strdup(o->path);
    char *dir = o->target ? dir_of(o->target) : NULL;
    if (dir == NULL)
        return fail_open(o, dir, -1, FS_ENOMEM);
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
        return fail_open(o, dir, -1, FS_EIO); /* no such folder */
#endif
    if (fd < 0) {
        o->tmp = temp_name(o->target, dir);
        if (o->tmp == NULL)
            return fail_open(o, dir, -1, FS_ENOMEM);
        fd = mkstemp(o->tmp);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && exists) {
            free(dir); /* a folder that refuses new files: in place */
            free(o->target);
            free(o->tmp);
            o->target = o->tmp = NULL;
            return open_direct(o);
        }
        if (fd < 0)
            return fail_open(o, dir, -1, FS_EIO);
        o->named = 1;
        (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
        tell(o, o->tmp);
    }
    free(dir);
    if (exists)
        (void)!fchown(fd, st.st_uid, st.st_gid);
    (void)fchmod(fd, mode);
    o->replace = 1;
    o->fd = fd;
    return FS_OK;
}

void fs__outfile_abort(fs__outfile *o)
{
    int e = errno;
    if (o->fd >= 0)
        close(o->fd);
    if (o->named && o->tmp) {
        unlink(o->tmp);
        tell(o, NULL);
    }
    release(o);
    errno = e;
}

/* Gives the unnamed new file a name beside the target. */
static int link_unnamed(fs__outfile *o)
{
    char *dir = dir_of(o->target);
    char *name = dir ? temp_name(o->target, dir) : NULL;
    free(dir);
    if (name == NULL) {
        errno = ENOMEM;
        return -1;
    }
    size_t n = strlen(name);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    for (unsigned k = 0;; k++) {
        snprintf(name + n - 6, 7, "%06u",
                 (unsigned)(getpid() + k) % 1000000u); /* a name, not a secret */
        int r = linkat(o->fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
        if (r != 0 && errno != EEXIST)
            r = linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
        if (r == 0)
            break;
        if (errno != EEXIST || k > 1000) {
            free(name);
            return -1;
        }
    }
    o->tmp = name;
    o->named = 1;
    tell(o, name);
    return 0;
}

int fs__outfile_commit(fs__outfile *o)
{
    if (o->fd < 0)
        return FS_OK;
    if (!o->replace) {
        int r = o->fd > 2 ? close(o->fd) : 0;
        release(o);
        return r == 0 ? FS_OK : FS_EIO;
    }
    if (fsync(o->fd) != 0 || (!o->named && link_unnamed(o) != 0)) {
        fs__outfile_abort(o);
        return FS_EIO;
    }
    int r = close(o->fd);
    o->fd = -1;
    if (r != 0 || rename(o->tmp, o->target) != 0) {
        fs__outfile_abort(o);
        return FS_EIO;
    }
    tell(o, NULL);
    char *dir = dir_of(o->target); /* make the rename durable */
    int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
    release(o);
    return FS_OK;
}
