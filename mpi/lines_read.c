/* lines_read.c -- `fairshuf-mpi lines`, read and cut: the input's size,
 * each rank's share of it (the lines, or --csv records, that start in its
 * byte range), reading it, the --header lines, and --csv framing.  The
 * engine's overview is at the top of lines.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lines/csv.h"
#include "lines_run.h"

/* Bytes [off, off + n) of the temporary file fd into dst. */
int fs_mpi__read_temp(run *r, int fd, uint64_t off, unsigned char *dst,
                      size_t n, const char *dir)
{
    size_t got = 0;
    while (got < n) {
        ssize_t m = pread(fd, dst + got, n - got, (off_t)(off + got));
        if (m < 0 && errno == EINTR)
            continue;
        if (m <= 0) {
            fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", dir,
                         m < 0 ? strerror(errno) : "short read");
            return -1;
        }
        got += (size_t)m;
    }
    return 0;
}

/* ------------------------------------------------------------- reading */

/* Bytes [off, off + len) of the concatenated input into dst. */

static int read_at(run *r, uint64_t off, unsigned char *dst, size_t len)
{
    if (r->srcfd >= 0)
        return fs_mpi__read_temp(r, r->srcfd, off, dst, len,
                                 r->c->tmpdir ? r->c->tmpdir : "/tmp");
    uint64_t base = 0;
    for (int f = 0; f < r->c->nfiles && len > 0; f++) {
        uint64_t size = r->sizes[f];
        if (off >= base + size) {
            base += size;
            continue;
        }
        const char *name = r->c->files[f];
        int fd = open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fs_mpi__fail(r, FS_EIO, "%s: %s", name, strerror(errno));
            return -1;
        }
        uint64_t at = off - base;
        while (len > 0 && at < size) {
            size_t want = size - at < len ? (size_t)(size - at) : len;
            if (want > ((size_t)1 << 30))
                want = (size_t)1 << 30;
            ssize_t got = pread(fd, dst, want, (off_t)at);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                if (got == 0)
                    fs_mpi__fail(r, FS_EIO, "%s: file shrank while being read",
                                 name);
                else
                    fs_mpi__fail(r, FS_EIO, "%s: %s", name, strerror(errno));
                close(fd);
                return -1;
            }
            dst += got;
            len -= (size_t)got;
            at += (uint64_t)got;
            off += (uint64_t)got;
        }
        close(fd);
        base += size;
    }
    return 0;
}

/* Where the first line starting at or after byte s begins: just after
 * the first delimiter at or after s - 1 (0 for s = 0; T if none). */
static uint64_t line_start(run *r, uint64_t s)
{
    if (s == 0)
        return 0;
    unsigned char blk[1 << 16];
    for (uint64_t p = s - 1; p < r->total;) {
        size_t n = r->total - p < sizeof blk ? (size_t)(r->total - p) : sizeof blk;
        if (read_at(r, p, blk, n) != 0)
            return r->total;
        unsigned char *q = memchr(blk, r->c->delim, n);
        if (q)
            return p + (uint64_t)(q - blk) + 1;
        p += n;
    }
    return r->total;
}

/* --csv: where the first record starting at or after byte s begins.  A
 * record ends at a LF outside double quotes, and every quote toggles
 * "inside" (a doubled quote toggles twice: lib/lines/csv.c), so the state
 * at a byte is the parity of the quotes before it: each rank counts the
 * quotes of its byte range [s - 1, next rank's s - 1), an exclusive scan
 * (XOR) gives the state where its range starts, and it scans from there
 * to the first LF outside quotes.  Collective. */
static uint64_t csv_record_start(run *r, uint64_t s)
{
    unsigned char blk[1 << 16];
    uint64_t s2 = (uint64_t)((unsigned __int128)r->total *
                             (unsigned)(r->rank + 1) / (unsigned)r->P);
    uint64_t a = s ? s - 1 : 0, b = r->rank + 1 < r->P ? (s2 ? s2 - 1 : 0)
                                                       : r->total;
    int q = 0, inq = 0;
    for (uint64_t p = a; p < b && r->rc == FS_OK;) {
        size_t n = b - p < sizeof blk ? (size_t)(b - p) : sizeof blk;
        if (read_at(r, p, blk, n) != 0)
            break;
        for (size_t i = 0; i < n; i++)
            q ^= blk[i] == '"';
        p += n;
    }
    MPI_Exscan(&q, &inq, 1, MPI_INT, MPI_BXOR, r->comm);
    if (s == 0 || r->rc != FS_OK)
        return 0;
    for (uint64_t p = a; p < r->total;) {
        size_t n = r->total - p < sizeof blk ? (size_t)(r->total - p) : sizeof blk;
        if (read_at(r, p, blk, n) != 0)
            return r->total;
        for (size_t i = 0; i < n; i++)
            if (blk[i] == '"')
                inq ^= 1;
            else if (blk[i] == '\n' && !inq)
                return p + i + 1;
        p += n;
    }
    return r->total;
}

/* Rank 0 measures the files; everyone gets the sizes. */
int fs_mpi__measure(run *r, uint64_t *sizes)
{
    r->sizes = sizes;
    if (r->rank == 0) {
        for (int f = 0; f < r->c->nfiles; f++) {
            struct stat st;
            const char *name = r->c->files[f];
            if (stat(name, &st) != 0) {
                fs_mpi__fail(r, FS_EIO, "%s: %s", name, strerror(errno));
                break;
            }
            if (!S_ISREG(st.st_mode)) {
                fs_mpi__fail(r, FS_EIO, "%s: %s", name,
                             S_ISDIR(st.st_mode) ? strerror(EISDIR)
                                         : "not a regular file (inputs are "
                                           "split by byte ranges)");
                break;
            }
            sizes[f] = (uint64_t)st.st_size;
        }
    }
    if (fs_mpi__failed(r))
        return -1;
    MPI_Bcast(sizes, r->c->nfiles, MPI_UINT64_T, 0, r->comm);
    r->total = 0;
    for (int f = 0; f < r->c->nfiles; f++)
        r->total += sizes[f];
    return 0;
}

/* This rank's share [*start, *end) of the input: the lines that start in
 * its byte range. */
int fs_mpi__share_bounds(run *r, uint64_t *start, uint64_t *end)
{
    uint64_t s = (uint64_t)((unsigned __int128)r->total * (unsigned)r->rank /
                            (unsigned)r->P);
    uint64_t st = r->c->csv ? csv_record_start(r, s) : line_start(r, s);
    if (r->rank == r->c->fail_rank)
        fs_mpi__fail(r, FS_EIO, "%s: %s (injected by --test-fail-read)",
                     r->c->nfiles ? r->c->files[0] : "-", strerror(EIO));
    uint64_t *starts = malloc((size_t)r->P * sizeof *starts);
    if (starts == NULL)
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    if (fs_mpi__failed(r)) {
        free(starts);
        return -1;
    }
    MPI_Allgather(&st, 1, MPI_UINT64_T, starts, 1, MPI_UINT64_T, r->comm);
    *start = st;
    *end = r->rank + 1 < r->P ? starts[r->rank + 1] : r->total;
    free(starts);
    return 0;
}

/* Bytes [from, to) into b (room for one more byte): the input's last line
 * gets its missing delimiter.  Local; returns the length or -1. */
int64_t fs_mpi__read_lines_at(run *r, uint64_t from, uint64_t to,
                              unsigned char *b)
{
    size_t n = (size_t)(to - from);
    if (read_at(r, from, b, n) != 0)
        return -1;
    /* (CSV: the framer ends the last record, lib/lines/csv.h) */
    if (!r->c->csv && n > 0 && to == r->total && b[n - 1] != r->c->delim)
        b[n++] = r->c->delim; /* only the input's last line lacks it */
    return (int64_t)n;
}

/* As fs_mpi__read_lines_at, in pieces of fs_mpi__piece bytes, each piece's
 * lines counted while it is still in cache (not a second pass over the
 * share); *n: the lines of b.  Not for --csv (framed before counting). */
int64_t fs_mpi__read_counted(run *r, uint64_t from, uint64_t to,
                             unsigned char *b, uint64_t *n)
{
    size_t off = 0;
    uint64_t lines = 0;
    for (uint64_t p = from; p < to;) {
        size_t k = to - p > fs_mpi__piece ? fs_mpi__piece : (size_t)(to - p);
        if (read_at(r, p, b + off, k) != 0)
            return -1;
        /* the delimiters of the piece */
        lines += fs_lines_count(b + off, k, r->d) - (b[off + k - 1] != r->d);
        off += k;
        p += k;
    }
    if (off > 0 && to == r->total && b[off - 1] != r->d) {
        b[off++] = r->d; /* only the input's last line lacks it */
        lines++;
    }
    *n = lines;
    return (int64_t)off;
}

/* Rank 0: copies the input's first c->header lines to fd (the input's
 * last line gets its missing delimiter, as everywhere) in blocks, and
 * returns the offset where they end: T when the input has fewer lines.
 * One pass over the header bytes, which are written anyway. */
uint64_t fs_mpi__copy_header(run *r, int fd, const char *tmp)
{
    enum { HB = 1 << 16 };
    unsigned char *b = malloc(HB + 1);
    uint64_t left = r->c->header, p = 0;
    int inq = 0; /* --csv: inside quotes */
    if (b == NULL) {
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
        return 0;
    }
    while (left > 0 && p < r->total && r->rc == FS_OK) {
        uint64_t e = r->total - p < HB ? r->total : p + HB;
        int64_t m = fs_mpi__read_lines_at(r, p, e, b);
        if (m < 0)
            break;
        size_t take = (size_t)m;
        const unsigned char *q = b, *d;
        if (r->c->csv) { /* records: a LF outside quotes ends one */
            for (d = b; d < b + m && left > 0; d++)
                if (*d == '"')
                    inq ^= 1;
                else if (*d == '\n' && !inq)
                    left--, q = d + 1;
        } else {
            while (left > 0 &&
                   (d = memchr(q, r->c->delim, (size_t)(b + m - q))) != NULL) {
                q = d + 1;
                left--;
            }
        }
        if (left == 0)
            take = (size_t)(q - b);
        else if (r->c->csv && p + take == r->total && take > 0 &&
                 b[take - 1] != '\n' && !inq)
            b[take++] = '\n'; /* the input's last record, ended */
        if (fs_mpi__write_all(fd, b, take) != 0)
            fs_mpi__fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
        r->res->bytes_out += take;
        p += take;
    }
    free(b);
    return p < r->total ? p : r->total; /* past T: the added delimiter */
}

/* A temporary file that is gone from the directory at once. */
int fs_mpi__temp_fd(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    char path[4200];
    snprintf(path, sizeof path, "%s/fairshuf-mpi-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* ---------------------------------------------------------------- CSV */

/* --csv: the records of b[0..n) (whole records; fin: the input's end)
 * framed by lib/lines/csv.h -- a NUL after each record's end -- in a new
 * buffer that replaces *b.  Returns the framed length, -1 on a bad input
 * (fs_mpi__failed) or no memory (*b kept: the caller goes out of core). */
int64_t fs_mpi__csv_frame(run *r, unsigned char **b, size_t n, int fin)
{
    fs__csv_framer f = {0};
    size_t m = 0;
    unsigned char *o = n < (SIZE_MAX - 3) / 2 ? malloc(2 * n + 3) : NULL;
    if (o == NULL)
        return -1;
    if (fs__csv_frame(&f, *b, n, fin, o, &m) != FS_OK) {
        fs_mpi__fail(r, FS_EIO, "%s: %s",
                     r->c->nfiles > 1 ? "input" : r->c->files[0], f.why);
        free(o);
        return -1;
    }
    free(*b);
    *b = o;
    return (int64_t)m;
}

/* --csv out of core: the share [*start, *end) framed, in blocks, to a
 * temporary file that becomes the input (r->srcfd); *start and *end are
 * then its bounds.  Local. */
void fs_mpi__csv_frame_share(run *r, uint64_t *start, uint64_t *end)
{
    enum { FB = 1 << 20 };
    fs__csv_framer f = {0};
    const char *dir = r->c->tmpdir ? r->c->tmpdir : "/tmp";
    unsigned char *b = malloc(FB), *o = malloc(2 * FB + 3);
    int fd = fs_mpi__temp_fd(dir);
    uint64_t w = 0;
    if (b == NULL || o == NULL)
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    else if (fd < 0)
        fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", dir,
                     strerror(errno));
    for (uint64_t p = *start; p < *end && r->rc == FS_OK;) {
        size_t n = *end - p < FB ? (size_t)(*end - p) : FB, m = 0;
        if (read_at(r, p, b, n) != 0)
            break;
        p += n;
        if (fs__csv_frame(&f, b, n, p == *end && *end == r->total, o, &m) != FS_OK)
            fs_mpi__fail(r, FS_EIO, "%s: %s",
                         r->c->nfiles > 1 ? "input" : r->c->files[0], f.why);
        else if (fs_mpi__write_all(fd, o, m) != 0)
            fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", dir,
                         strerror(errno));
        w += m;
    }
    free(b);
    free(o);
    r->res->spilled += w;
    r->srcfd = fd;
    *start = 0;
    *end = w;
}
