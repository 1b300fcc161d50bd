/* io.h -- reading and writing whole buffers, with one policy for every
 * loop in the library (internal):
 *   - EINTR is retried;
 *   - a short read or write is continued where it stopped;
 *   - write() returning 0 for a non-empty buffer is a failure (ENOSPC):
 *     it never spins;
 *   - reading stops at end of file; fs__read_full reports how much it got.
 * Errors return FS_EIO with errno set; nothing is printed. */
#ifndef FS_IO_H
#define FS_IO_H

#include <stddef.h>
#include <sys/types.h>

/* Writes all n bytes of p to fd.  n == 0 writes nothing. */
int fs__write_all(int fd, const void *p, size_t n);

/* Writes all n bytes of p at file offset off (pwrite). */
int fs__pwrite_all(int fd, const void *p, size_t n, off_t off);

/* Reads until n bytes or end of file; *got receives the count (< n only at
 * end of file).  Bytes read before an error are counted in *got too. */
int fs__read_full(int fd, void *p, size_t n, size_t *got);

/* The same at file offset off (pread; the file position is unchanged). */
int fs__pread_full(int fd, void *p, size_t n, off_t off, size_t *got);

/* One read of at most n bytes (EINTR retried): what is there now, for
 * streaming from a pipe without waiting for a full buffer.  *got == 0
 * means end of file. */
int fs__read_some(int fd, void *p, size_t n, size_t *got);

#endif
