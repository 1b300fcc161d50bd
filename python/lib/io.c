/* io.c -- read-all / write-all (see io.h for the policy). */
#include <errno.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

/* At most this much per system call (Linux caps one call below 2 GiB). */
#define IO_CHUNK ((size_t)1 << 30)

int fs__write_all(int fd, const void *p, size_t n)
{
    const unsigned char *q = p;
    while (n > 0) {
        ssize_t r = write(fd, q, n < IO_CHUNK ? n : IO_CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return FS_EIO;
        if (r == 0) { /* no progress and no reason: do not spin */
            errno = ENOSPC;
            return FS_EIO;
        }
        q += r;
        n -= (size_t)r;
    }
    return FS_OK;
}

int fs__pwrite_all(int fd, const void *p, size_t n, off_t off)
{
    const unsigned char *q = p;
    while (n > 0) {
        ssize_t r = pwrite(fd, q, n < IO_CHUNK ? n : IO_CHUNK, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return FS_EIO;
        if (r == 0) {
            errno = ENOSPC;
            return FS_EIO;
        }
        q += r;
        n -= (size_t)r;
        off += r;
    }
    return FS_OK;
}

static int read_loop(int fd, void *p, size_t n, off_t off, int positioned,
                     size_t *got)
{
    unsigned char *q = p;
    size_t done = 0;
    int rc = FS_OK;
    while (done < n) {
        size_t want = n - done < IO_CHUNK ? n - done : IO_CHUNK;
        ssize_t r = positioned ? pread(fd, q + done, want, off + (off_t)done)
                               : read(fd, q + done, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = FS_EIO;
            break;
        }
        if (r == 0)
            break;
        done += (size_t)r;
    }
    *got = done;
    return rc;
}

int fs__read_full(int fd, void *p, size_t n, size_t *got)
{
    return read_loop(fd, p, n, 0, 0, got);
}

int fs__pread_full(int fd, void *p, size_t n, off_t off, size_t *got)
{
    return read_loop(fd, p, n, off, 1, got);
}

int fs__read_some(int fd, void *p, size_t n, size_t *got)
{
    ssize_t r;
    do
        r = read(fd, p, n < IO_CHUNK ? n : IO_CHUNK);
    while (r < 0 && errno == EINTR);
    *got = r > 0 ? (size_t)r : 0;
    return r < 0 ? FS_EIO : FS_OK;
}
