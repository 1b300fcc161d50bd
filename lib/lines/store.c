/* store.c -- bytes kept for a later write: memory, then a temporary file
 * (store.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "io.h"
#include "store.h"

#define WBUF ((size_t)1 << 20)

void fs__store_init(fs__store *s, size_t limit, const char *tmpdir)
{
    memset(s, 0, sizeof *s);
    s->limit = limit;
    s->tmpdir = tmpdir;
    s->fd = -1;
}

void fs__store_free(fs__store *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->arena);
    free(s->wbuf);
    free(s->rbuf);
    s->fd = -1;
    s->arena = s->wbuf = s->rbuf = NULL;
}

static int io_fail(fs__store *s)
{
    s->err = errno;
    return FS_EIO;
}

static int flush(fs__store *s)
{
    if (s->wlen && fs__write_all(s->fd, s->wbuf, s->wlen) != FS_OK)
        return io_fail(s);
    s->wlen = 0;
    return FS_OK;
}

static int file_put(fs__store *s, const void *p, size_t n)
{
    s->flen += n;
    if (s->wlen + n > WBUF && flush(s) != FS_OK)
        return FS_EIO;
    if (n > WBUF)
        return fs__write_all(s->fd, p, n) == FS_OK ? FS_OK : io_fail(s);
    memcpy(s->wbuf + s->wlen, p, n);
    s->wlen += n;
    return FS_OK;
}

/* What is in memory moves to a new temporary file (same offsets). */
static int to_file(fs__store *s)
{
    const char *dir = s->tmpdir ? s->tmpdir : getenv("TMPDIR");
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    if ((s->wbuf = malloc(WBUF)) == NULL)
        return FS_ENOMEM;
#ifdef O_TMPFILE
    s->fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
#endif
    if (s->fd < 0) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/fairshuf-XXXXXX", dir) >=
            sizeof path) {
            errno = ENAMETOOLONG;
            return io_fail(s);
        }
        s->fd = mkstemp(path);
        if (s->fd < 0)
            return io_fail(s);
        unlink(path); /* nothing outlives the process */
    }
    int rc = s->alen ? file_put(s, s->arena, s->alen) : FS_OK;
    free(s->arena);
    s->arena = NULL;
    s->alen = s->acap = 0;
    return rc;
}

int fs__store_put(fs__store *s, const void *p, size_t n, uint64_t *off)
{
    int rc;
    if (s->fd < 0 && s->alen + n > s->limit && (rc = to_file(s)) != FS_OK)
        return rc; /* past the limit */
    if (s->fd < 0 && s->alen + n > s->acap) {
        size_t nc = s->acap ? s->acap * 2 : 65536;
        while (nc < s->alen + n)
            nc *= 2;
        unsigned char *na = realloc(s->arena, nc);
        if (na != NULL) {
            s->arena = na;
            s->acap = nc;
        } else if ((rc = to_file(s)) != FS_OK) { /* less memory: to disk */
            return rc;
        }
    }
    *off = fs__store_size(s);
    if (s->fd >= 0)
        return file_put(s, p, n);
    if (n)
        memcpy(s->arena + s->alen, p, n);
    s->alen += n;
    return FS_OK;
}

int fs__store_get(fs__store *s, uint64_t off, size_t n,
                  const unsigned char **p)
{
    if (s->fd < 0) {
        *p = s->arena + off;
        return FS_OK;
    }
    if (s->wlen && flush(s) != FS_OK)
        return FS_EIO;
    if (fs__reserve(&s->rbuf, &s->rcap, n ? n : 1) != FS_OK)
        return FS_ENOMEM;
    size_t got;
    int rc = fs__pread_full(s->fd, s->rbuf, n, (off_t)off, &got);
    if (rc != FS_OK || got != n) {
        if (rc == FS_OK)
            errno = EIO; /* the file is shorter than what was put */
        return io_fail(s);
    }
    *p = s->rbuf;
    return FS_OK;
}
