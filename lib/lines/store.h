/* store.h -- bytes kept for a later write (internal): in memory up to a
 * limit, then in an unlinked temporary file (O_TMPFILE, or mkstemp and
 * unlink at once), at the same offsets.  Used by --weights (wsample.c)
 * and --group-by (groups.c). */
#ifndef FS_LINES_STORE_H
#define FS_LINES_STORE_H

#include <stddef.h>
#include <stdint.h>

typedef struct fs__store {
    size_t limit;          /* bytes in memory before going to disk */
    const char *tmpdir;    /* NULL: $TMPDIR, else /tmp */
    unsigned char *arena;
    size_t alen, acap;
    int fd;                /* >= 0 once on disk */
    uint64_t flen;         /* bytes in the file, buffered ones included */
    unsigned char *wbuf;
    size_t wlen;
    unsigned char *rbuf;   /* fs__store_get's copy from the file */
    size_t rcap;
    int err;               /* errno of the failed file operation */
} fs__store;

void fs__store_init(fs__store *s, size_t limit, const char *tmpdir);
void fs__store_free(fs__store *s);
/* Appends p[0..n); *off: where it is.  FS_ENOMEM, FS_EIO (s->err). */
int fs__store_put(fs__store *s, const void *p, size_t n, uint64_t *off);
/* The n bytes at off (valid until the next call).  FS_EIO, FS_ENOMEM. */
int fs__store_get(fs__store *s, uint64_t off, size_t n,
                  const unsigned char **p);
/* Bytes held (in memory or on disk). */
static inline uint64_t fs__store_size(const fs__store *s)
{
    return s->fd >= 0 ? s->flen : s->alen;
}

#endif
