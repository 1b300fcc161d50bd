/* shard.c -- output shards that appear only when whole: each rank writes
 * a new file (lib/outfile.h: unnamed where the system allows) that takes
 * the name SHARD only after every rank has finished (the callers agree in
 * between). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
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

void (*fs_mpi__shard_on_temp)(const char *name, void *arg);

int fs_mpi__shard_open(fs_mpi__shard *s, const char *pattern, int rank,
                       char *msg, size_t cap)
{
    struct stat st;
    s->fd = -1;
    s->committed = 0;
    s->tmp[0] = '\0';
    memset(&s->out, 0, sizeof s->out);
    if (fs_mpi__shard_name(pattern, rank, s->name, sizeof s->name) != 0) {
        snprintf(msg, cap, "%s: bad shard name pattern", pattern);
        return FS_EINVAL;
    }
    if (stat(s->name, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(msg, cap, "%s: %s", s->name, strerror(EISDIR));
        return FS_EIO;
    }
    snprintf(s->tmp, sizeof s->tmp, "%s", s->name);
    fs__outfile_init(&s->out, s->name, fs_mpi__shard_on_temp, NULL);
    int rc = fs__outfile_open(&s->out);
    if (rc != FS_OK) {
        snprintf(msg, cap, "%s: %s", s->name,
                 rc == FS_ENOMEM ? "memory exhausted" : strerror(errno));
        memset(&s->out, 0, sizeof s->out);
        return rc;
    }
    s->fd = s->out.fd;
    return FS_OK;
}

int fs_mpi__shard_close(fs_mpi__shard *s, char *msg, size_t cap)
{
    if (s->fd >= 0 && s->out.replace && fsync(s->fd) != 0) {
        snprintf(msg, cap, "%s: %s", s->name, strerror(errno));
        return FS_EIO;
    }
    return FS_OK;
}

int fs_mpi__shard_commit(fs_mpi__shard *s, char *msg, size_t cap)
{
    s->fd = -1;
    if (fs__outfile_commit(&s->out) != FS_OK) {
        snprintf(msg, cap, "%s: %s", s->name, strerror(errno));
        memset(&s->out, 0, sizeof s->out);
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
    if (s->committed)
        unlink(s->name); /* whole, but another rank's shard failed */
    else if (s->out.path != NULL)
        fs__outfile_abort(&s->out); /* the new file goes */
    memset(&s->out, 0, sizeof s->out);
    s->fd = -1;
    s->tmp[0] = '\0';
    s->committed = 0;
}
