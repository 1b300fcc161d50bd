/* shard.c -- output shards that appear only when whole: each rank writes
 * to SHARD.partial-XXXXXX and renames it to SHARD only after every rank
 * has finished (the callers agree in between). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lines.h"

int fs_mpi__shard_name(const char *pattern, int rank, char *out, size_t cap)
{
    size_t o = 0;
    int seen = 0;
    for (const char *p = pattern; *p; p++) {
        char num[16];
        const char *add = p;
        size_t n = 1;
        if (*p == '%') {
            p++;
            if (*p == '%') {
                add = p;
            } else if (*p == 'd' && !seen++) {
                n = (size_t)snprintf(num, sizeof num, "%d", rank);
                add = num;
            } else {
                return -1;
            }
        }
        if (o + n >= cap)
            return -1;
        memcpy(out + o, add, n);
        o += n;
    }
    out[o] = '\0';
    return seen == 1 ? 0 : -1;
}

int fs_mpi__shard_open(fs_mpi__shard *s, const char *pattern, int rank,
                       char *msg, size_t cap)
{
    struct stat st;
    s->fd = -1;
    s->committed = 0;
    s->tmp[0] = '\0';
    if (fs_mpi__shard_name(pattern, rank, s->name, sizeof s->name) != 0) {
        snprintf(msg, cap, "%s: bad shard name pattern", pattern);
        return FS_EINVAL;
    }
    if (stat(s->name, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(msg, cap, "%s: %s", s->name, strerror(EISDIR));
        return FS_EIO;
    }
    snprintf(s->tmp, sizeof s->tmp, "%s.partial-XXXXXX", s->name);
    if ((s->fd = mkostemp(s->tmp, O_CLOEXEC)) < 0) {
        snprintf(msg, cap, "%s: %s", s->tmp, strerror(errno));
        s->tmp[0] = '\0';
        return FS_EIO;
    }
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(s->fd, 0666 & ~um); /* what open(O_CREAT) would give */
    return FS_OK;
}

int fs_mpi__shard_close(fs_mpi__shard *s, char *msg, size_t cap)
{
    int fd = s->fd;
    s->fd = -1;
    if (fd >= 0 && close(fd) != 0) {
        snprintf(msg, cap, "%s: %s", s->tmp, strerror(errno));
        return FS_EIO;
    }
    return FS_OK;
}

int fs_mpi__shard_commit(fs_mpi__shard *s, char *msg, size_t cap)
{
    if (rename(s->tmp, s->name) != 0) {
        snprintf(msg, cap, "%s: %s", s->name, strerror(errno));
        return FS_EIO;
    }
    s->committed = 1;
    return FS_OK;
}

int fs_mpi__write_all(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void fs_mpi__shard_discard(fs_mpi__shard *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    if (s->committed)
        unlink(s->name); /* whole, but another rank's shard failed */
    else if (s->tmp[0])
        unlink(s->tmp);
    s->tmp[0] = '\0';
    s->committed = 0;
}
