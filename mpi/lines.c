/* lines.c -- the engine of `fairshuf-mpi lines`.  The input is the
 * concatenation of the files (what `cat FILE...` gives); rank r takes the
 * lines that start in bytes [T r/P, T (r+1)/P) of it, numbers them by a
 * prefix sum, sends each line with its key and global number to the rank
 * owning its key's slice (one exchange), sorts what it received and
 * writes its shard.  --header=N: rank 0 copies the first N lines and
 * the shares start after them; -n K: each rank writes its part of the
 * first K (an Exscan of what the ranks received), and in memory lines that
 * cannot be among them are not sent.  With one FILE, at P = 1 or with
 * every rank on one node, nothing moves: rank r writes key slice r of
 * `fairshuf lines`'s own output (whole_file).  Every phase ends in an
 * agreement, so a failure on one rank stops all of them
 * at the same point. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise.h"
#include "fairshuf/lines.h"
#include "lines/csv.h"
#include "lines/engine.h"
#include "lines.h"

typedef struct run {
    const fs_mpi_lines_config *c;
    MPI_Comm comm;
    int P, rank;
    const uint64_t *sizes;
    uint64_t total;
    fs_mpi_lines_result *res;
    int rc;
    unsigned char d; /* the engine's delimiter: NUL after --csv framing */
    int srcfd;       /* >= 0: the input is this file (a framed CSV share) */
    /* in memory, set by pack: the lines of the share that stay here are
     * those with dest == rank (any, for the negative control) and key <=
     * own_top, if own_keep; their items are grouped by fs_mpi__digit(key,
     * own_P, own_bits), group d ending at own_end[d] */
    int own_keep;
    uint64_t own_top;
    unsigned own_P, own_bits;
    size_t *own_end;
} run;

static void fail(run *r, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(run *r, int rc, const char *fmt, ...)
{
    if (r->rc != FS_OK)
        return; /* the first cause is the one to report */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->res->msg, sizeof r->res->msg, fmt, ap);
    va_end(ap);
    r->rc = rc;
}

/* Collective: 1 if any rank failed; res->msg is then the lowest failing
 * rank's message on every rank. */
static int failed(run *r)
{
    int st;
    int bad = fs_mpi__agree(r->comm, r->rc, &st);
    if (bad < 0)
        return 0;
    MPI_Bcast(r->res->msg, (int)sizeof r->res->msg, MPI_CHAR, bad, r->comm);
    r->res->bad_rank = bad;
    if (r->rc == FS_OK)
        r->rc = st;
    return 1;
}

/* ------------------------------------------------------------- reading */

/* Bytes [off, off + len) of the concatenated input into dst. */
static int read_temp(run *r, int fd, uint64_t off, unsigned char *dst,
                     size_t n, const char *dir);

static int read_at(run *r, uint64_t off, unsigned char *dst, size_t len)
{
    if (r->srcfd >= 0)
        return read_temp(r, r->srcfd, off, dst, len,
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
            fail(r, FS_EIO, "%s: %s", name, strerror(errno));
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
                    fail(r, FS_EIO, "%s: file shrank while being read", name);
                else
                    fail(r, FS_EIO, "%s: %s", name, strerror(errno));
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
static int measure(run *r, uint64_t *sizes)
{
    r->sizes = sizes;
    if (r->rank == 0) {
        for (int f = 0; f < r->c->nfiles; f++) {
            struct stat st;
            const char *name = r->c->files[f];
            if (stat(name, &st) != 0) {
                fail(r, FS_EIO, "%s: %s", name, strerror(errno));
                break;
            }
            if (!S_ISREG(st.st_mode)) {
                fail(r, FS_EIO, "%s: %s", name,
                     S_ISDIR(st.st_mode) ? strerror(EISDIR)
                                         : "not a regular file (inputs are "
                                           "split by byte ranges)");
                break;
            }
            sizes[f] = (uint64_t)st.st_size;
        }
    }
    if (failed(r))
        return -1;
    MPI_Bcast(sizes, r->c->nfiles, MPI_UINT64_T, 0, r->comm);
    r->total = 0;
    for (int f = 0; f < r->c->nfiles; f++)
        r->total += sizes[f];
    return 0;
}

/* This rank's share [*start, *end) of the input: the lines that start in
 * its byte range. */
static int share_bounds(run *r, uint64_t *start, uint64_t *end)
{
    uint64_t s = (uint64_t)((unsigned __int128)r->total * (unsigned)r->rank /
                            (unsigned)r->P);
    uint64_t st = r->c->csv ? csv_record_start(r, s) : line_start(r, s);
    if (r->rank == r->c->fail_rank)
        fail(r, FS_EIO, "%s: %s (injected by --test-fail-read)",
             r->c->nfiles ? r->c->files[0] : "-", strerror(EIO));
    uint64_t *starts = malloc((size_t)r->P * sizeof *starts);
    if (starts == NULL)
        fail(r, FS_ENOMEM, "memory exhausted");
    if (failed(r)) {
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
static int64_t read_lines_at(run *r, uint64_t from, uint64_t to,
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

/* As read_lines_at, in pieces of fs_mpi__piece bytes, each piece's
 * lines counted while it is still in cache (not a second pass over the
 * share); *n: the lines of b.  Not for --csv (framed before counting). */
static int64_t read_counted(run *r, uint64_t from, uint64_t to,
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
static uint64_t copy_header(run *r, int fd, const char *tmp)
{
    enum { HB = 1 << 16 };
    unsigned char *b = malloc(HB + 1);
    uint64_t left = r->c->header, p = 0;
    int inq = 0; /* --csv: inside quotes */
    if (b == NULL) {
        fail(r, FS_ENOMEM, "memory exhausted");
        return 0;
    }
    while (left > 0 && p < r->total && r->rc == FS_OK) {
        uint64_t e = r->total - p < HB ? r->total : p + HB;
        int64_t m = read_lines_at(r, p, e, b);
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
            fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
        r->res->bytes_out += take;
        p += take;
    }
    free(b);
    return p < r->total ? p : r->total; /* past T: the added delimiter */
}

/* ------------------------------------------------------------ packing */

static int over_budget(run *r, uint64_t need, const char *what)
{
    if (r->c->memory == 0 || need <= r->c->memory)
        return 0;
    /* in KiB only when --memory is whole KiB ("--memory=0 KiB" for
     * --memory=1 misled) */
    int kib = r->c->memory >= 1024 && r->c->memory % 1024 == 0;
    fail(r, FS_ENOMEM,
         "%s needs about %llu %s, more than --memory=%llu %s: use more "
         "ranks or a larger --memory",
         what, (unsigned long long)(kib ? (need + 1023) >> 10 : need),
         kib ? "KiB" : "bytes",
         (unsigned long long)(kib ? r->c->memory >> 10 : r->c->memory),
         kib ? "KiB" : "bytes");
    return 1;
}

/* The k-th smallest (0-based, k < n) of a[0..n); a is reordered
 * (Hoare's selection; the keys are random, so O(n) expected). */
static uint64_t kth_smallest(uint64_t *a, size_t n, size_t k)
{
    int64_t lo = 0, hi = (int64_t)n - 1, kk = (int64_t)k;
    while (lo < hi) {
        uint64_t piv = a[lo + (hi - lo) / 2], t;
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv)
                i++;
            while (a[j] > piv)
                j--;
            if (i <= j) {
                t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            return a[kk]; /* between j and i: equal to the pivot */
    }
    return a[kk];
}

/* The keys of the share's n lines (numbered from first) into keys; with
 * head < n also the head-th smallest of them into *top (0 for head 0), on
 * a copy, since the selection reorders. */
static void share_keys(run *r, uint64_t first, uint64_t n, uint64_t head,
                       uint64_t *keys, uint64_t *top)
{
    fs_lines_keys(r->c->key, first, 0, keys, (size_t)n);
    if (head >= n)
        return;
    uint64_t *cp = malloc((size_t)n * 8);
    if (cp == NULL) {
        fail(r, FS_ENOMEM, "memory exhausted (%llu lines)",
             (unsigned long long)n);
        return;
    }
    memcpy(cp, keys, (size_t)n * 8);
    *top = head ? kth_smallest(cp, (size_t)n, (size_t)head - 1) : 0;
    free(cp);
}

/* Records key | global number | line, grouped by destination rank; with
 * own != NULL the lines that stay here become items instead, grouped by
 * digit for fs_mpi__sort_grouped (r->own_*).
 * head < UINT64_MAX (the whole share, in memory, -n) cuts what cannot be
 * among the first `head` lines of the whole order: lines whose key is
 * above this rank's head-th smallest (ties kept: the tie rule decides
 * later), and lines for ranks whose slices hold, after earlier slices,
 * at least `head` such lines in all (one MPI_Allreduce of P counts; the
 * same `head` on every rank, so every rank takes part or none). */
static int pack(run *r, const unsigned char *buf, size_t len, uint64_t n,
                uint64_t first, unsigned char **send, uint64_t *scount,
                uint64_t head, fs_mpi__item **own, size_t *nown)
{
    r->res->lines_in += n;
    r->res->bytes_in += len;
    double t0 = MPI_Wtime();
    int P = r->P, cut = head != UINT64_MAX;
    uint64_t *keys = NULL, *pos = calloc((size_t)P, sizeof *pos);
    uint64_t *dl = calloc((size_t)P, sizeof *dl); /* lines per rank */
    uint64_t *gl = calloc((size_t)P, sizeof *gl), top = UINT64_MAX;
    unsigned char *s = NULL;
    fs_mpi__item *it = NULL; /* this rank's own lines (own != NULL) */
    size_t k = 0, *oend = NULL;
    unsigned bits = fs_mpi__bits(n), Pk = r->c->local_only ? 1 : (unsigned)P;
    memset(scount, 0, (size_t)P * sizeof *scount);
    if (own != NULL && (oend = calloc((size_t)1 << bits, sizeof *oend)) == NULL)
        fail(r, FS_ENOMEM, "memory exhausted");
    if (pos == NULL || dl == NULL || gl == NULL || n > SIZE_MAX / 16 ||
        (keys = malloc((size_t)n * 8 + 8)) == NULL)
        fail(r, FS_ENOMEM, "memory exhausted (%llu lines, %zu bytes)",
             (unsigned long long)n, len);
    if (r->rc == FS_OK)
        share_keys(r, first, n, head, keys, &top);
    /* every line stays here and none is packed (P = 1, the negative
     * control): only the count matters, no line end is looked for */
    int stay = own != NULL && (P == 1 || r->c->local_only);
    if (r->rc == FS_OK && stay) {
        for (size_t i = 0; i < n; i++)
            if (keys[i] <= top && head > 0) {
                dl[r->rank]++;
                oend[fs_mpi__digit(keys[i], Pk, bits)]++;
            }
        scount[r->rank] = dl[r->rank]; /* not bytes: only "any" is used */
    } else if (r->rc == FS_OK) { /* bytes and lines per destination */
        const unsigned char *p = buf, *e = buf + len;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *q = memchr(p, r->d, (size_t)(e - p));
            int d = r->c->local_only ? r->rank : fs_mpi__dest(keys[i], P);
            if (keys[i] <= top && head > 0) {
                scount[d] += 16 + (size_t)(q - p) + 1;
                dl[d]++;
                if (d == r->rank && oend != NULL)
                    oend[fs_mpi__digit(keys[i], Pk, bits)]++;
            }
            p = q + 1;
        }
    }
    if (cut) {
        if (failed(r))
            goto out;
        MPI_Allreduce(dl, gl, P, MPI_UINT64_T, MPI_SUM, r->comm);
        uint64_t before = 0; /* candidate lines in earlier slices */
        for (int d = 0; d < P; d++) {
            if (before >= head) /* none of slice d's lines is needed */
                scount[d] = 0;
            before += gl[d];
        }
    }
    /* own != NULL: the lines this rank keeps are not copied into
     * records but become items of its sort, pointing into buf */
    int me = r->rank, keep = own != NULL && scount[me] > 0;
    if (own != NULL) {
        if (r->rc == FS_OK && keep &&
            (it = malloc((size_t)dl[me] * sizeof *it)) == NULL)
            fail(r, FS_ENOMEM, "memory exhausted (%llu lines)",
                 (unsigned long long)dl[me]);
        fs__huge(it, (size_t)dl[me] * sizeof *it); /* thousands of streams */
        scount[me] = 0;
        for (size_t d = 0, sum = 0; keep && d < ((size_t)1 << bits); d++) {
            size_t c = oend[d]; /* group starts; the scatter makes them ends */
            oend[d] = sum;
            sum += c;
        }
        r->own_keep = keep && head > 0;
        r->own_top = top;
        r->own_P = Pk;
        r->own_bits = bits;
    }
    uint64_t bytes = 0;
    for (int d = 0; d < P; d++)
        bytes += scount[d];
    if (r->rc == FS_OK && (s = malloc((size_t)bytes + 1)) == NULL)
        fail(r, FS_ENOMEM, "memory exhausted (%llu lines, %zu bytes)",
             (unsigned long long)n, len);
    if (r->rc == FS_OK) {
        for (int d = 1; d < P; d++)
            pos[d] = pos[d - 1] + scount[d - 1];
        const unsigned char *p = buf, *e = buf + len;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *q = memchr(p, r->d, (size_t)(e - p));
            size_t l = (size_t)(q - p) + 1;
            int d = r->c->local_only ? r->rank : fs_mpi__dest(keys[i], P);
            if (d == me && keep && keys[i] <= top && head > 0) {
                size_t j = oend[fs_mpi__digit(keys[i], Pk, bits)]++;
                it[j].key = keys[i];
                it[j].pos = (uintptr_t)p;
                k++;
            } else if (keys[i] <= top && head > 0 && scount[d] > 0) {
                unsigned char *o = s + pos[d];
                fs_mpi__put64(o, keys[i]);
                fs_mpi__put64(o + 8, first + i);
                memcpy(o + 16, p, l);
                pos[d] += 16 + l;
            }
            p = q + 1;
        }
        for (int d = 0; d < P; d++)
            r->res->sent += d == r->rank ? 0 : scount[d];
    }
out:
    free(keys);
    free(pos);
    free(dl);
    free(gl);
    r->res->t_keys += MPI_Wtime() - t0;
    if (failed(r)) {
        free(s);
        free(it);
        free(oend);
        return -1;
    }
    *send = s;
    if (own != NULL) {
        *own = it;
        *nown = k;
        r->own_end = oend;
    }
    return 0;
}

/* The in-memory share's buffer, its pages mapped in one call before the
 * share is read into it (not a page fault per 4 KiB inside pread). */
static unsigned char *share_buf(size_t n)
{
    unsigned char *b = malloc(n);
    fs__huge(b, n); /* fresh pages are costly on a VM (as fairshuf lines) */
    fs__prefault(b, n);
    return b;
}

/* ------------------------------------------------------ sort and write */

/* The number of records in rec[0..total); with at != NULL also how many
 * fall in each of pack's own-item groups (at[digit]++). */
static uint64_t count_records(run *r, const unsigned char *rec, uint64_t total,
                              size_t *at)
{
    uint64_t n = 0;
    for (uint64_t off = 0; off < total; n++) {
        const unsigned char *q = memchr(rec + off + 16, r->d,
                                        (size_t)(total - off - 16));
        if (at != NULL)
            at[fs_mpi__digit(fs_mpi__get64(rec + off), r->own_P, r->own_bits)]++;
        off = (uint64_t)(q - rec) + 1;
    }
    return n;
}

/* Where the sort finds a tied line's global index: an own line's by
 * counting the lines before it in the share (ties are rare: about
 * n^2/2^65), a received one's in its record's head. */
typedef struct where {
    const unsigned char *own;
    size_t own_len;
    uint64_t first;
    unsigned char d;
} where;

static uint64_t idx_of(const void *ctx, uintptr_t pos)
{
    const where *w = ctx;
    uintptr_t o = (uintptr_t)w->own;
    if (w->own && pos >= o && pos < o + w->own_len)
        return w->first + fs_lines_count(w->own, (size_t)(pos - o), w->d);
    return fs_mpi__get64((const unsigned char *)pos - 8);
}

/* The output buffer: 1 MiB, less in a small budget (at least 4 KiB). */
static size_t out_buf_size(const run *r)
{
    size_t WB = r->c->memory && r->c->memory / 8 < ((size_t)1 << 20)
                    ? (size_t)(r->c->memory / 8) : (size_t)1 << 20;
    return WB < 4096 ? 4096 : WB;
}

/* Line p[0..l) to fd through the write buffer wb[0..WB) (*wl bytes in
 * it; a line longer than the buffer goes straight out), counted in
 * bytes_out; a write error fails the rank (shard tmp). */
static void put_line(run *r, int fd, const char *tmp, unsigned char *wb,
                     size_t WB, size_t *wl, const unsigned char *p, size_t l)
{
    if (*wl + l > WB) {
        if (fs_mpi__write_all(fd, wb, *wl) != 0)
            fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
        *wl = 0;
    }
    if (l > WB) {
        if (r->rc == FS_OK && fs_mpi__write_all(fd, p, l) != 0)
            fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
    } else {
        memcpy(wb + *wl, p, l);
        *wl += l;
    }
    r->res->bytes_out += l;
}

/* Writes the lines of the first `limit` of the sorted items it[0..n) to
 * fd through wb[0..WB); each line lies in own_buf[0..own_len) or in
 * rec[0..total).  Returns the number written. */
static uint64_t write_items(run *r, const fs_mpi__item *it, size_t n,
                            const unsigned char *own_buf, size_t own_len,
                            const unsigned char *rec, uint64_t total,
                            unsigned char *wb, size_t WB, int fd,
                            const char *tmp, uint64_t limit)
{
    unsigned char d = r->d;
    double t0 = MPI_Wtime();
    size_t wl = 0;
    if (limit < n)
        n = limit;
    for (size_t i = 0; i < n && r->rc == FS_OK; i++) {
        if (i + 16 < n) /* the lines are read in random order */
            __builtin_prefetch((const void *)it[i + 16].pos);
        const unsigned char *p = (const unsigned char *)it[i].pos;
        /* the line ends before the end of the buffer it is in */
        uintptr_t ob = (uintptr_t)own_buf;
        size_t room = it[i].pos - ob < own_len
                          ? own_len - (size_t)(it[i].pos - ob)
                          : (size_t)((uintptr_t)(rec + total) - it[i].pos);
        size_t l = (size_t)((const unsigned char *)memchr(p, d, room) - p) + 1;
        if (r->c->csv)
            l--; /* the NUL the framer put after the record's end */
        put_line(r, fd, tmp, wb, WB, &wl, p, l);
    }
    if (r->rc == FS_OK && wl && fs_mpi__write_all(fd, wb, wl) != 0)
        fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
    r->res->lines_out += n;
    r->res->t_write += MPI_Wtime() - t0;
    return n;
}

/* Sorts this rank's own items (own[0..nown), lines in own_buf[0..own_len),
 * the first numbered own_first; consumed: freed here) with the received
 * records rec[0..total), and
 * writes the lines of the first `limit` of them to fd (nothing, not even
 * the sort, for limit 0).  Returns the number written. */
static uint64_t sort_write(run *r, fs_mpi__item *own, size_t nown,
                           const unsigned char *own_buf, size_t own_len,
                           uint64_t own_first,
                           const unsigned char *rec, uint64_t total,
                           int fd, const char *tmp, const char *what,
                           uint64_t limit)
{
    where w = {own_buf, own_len, own_first, r->d};
    unsigned char d = r->d;
    if (limit == 0) {
        free(own);
        return 0;
    }
    /* own items come grouped by pack (the received are put in their
     * groups, no copy); the out-of-core buckets' are not */
    size_t D = (size_t)1 << r->own_bits, *at = NULL, *end = NULL;
    if (nown && ((at = calloc(D, sizeof *at)) == NULL ||
                 (end = malloc(D * sizeof *end)) == NULL)) {
        free(at);
        free(own);
        fail(r, FS_ENOMEM, "memory exhausted");
        return 0;
    }
    uint64_t nr = count_records(r, rec, total, at), n = nown + nr;
    double t0 = MPI_Wtime();
    fs_mpi__item *it = own;
    unsigned char *wb = NULL;
    size_t WB = out_buf_size(r);
    if (over_budget(r, own_len + total + 32 * n + WB, what)) {
        free(own);
        free(at);
        free(end);
        return 0;
    }
    if ((nr && (it = realloc(own, (size_t)n * sizeof *it)) == NULL) ||
        (wb = malloc(WB)) == NULL) {
        free(it ? it : own);
        free(at);
        free(end);
        fail(r, FS_ENOMEM, "memory exhausted (%llu lines received)",
             (unsigned long long)n);
        return 0;
    }
    if (nown && nr)
        fs_mpi__make_room(it, r->own_end, at, end, r->own_bits);
    size_t off = 0;
    for (size_t i = nown; i < n; i++) {
        uint64_t key = fs_mpi__get64(rec + off);
        size_t j = nown ? at[fs_mpi__digit(key, r->own_P, r->own_bits)]++ : i;
        it[j].key = key;
        it[j].pos = (uintptr_t)(rec + off + 16);
        const unsigned char *q = memchr(rec + off + 16, d, (size_t)total - off - 16);
        off = (size_t)(q - rec) + 1;
    }
    int st = nown ? fs_mpi__sort_grouped(it, (size_t)n, nr ? end : r->own_end,
                                         r->own_bits, r->c->key, idx_of, &w)
                  : fs_mpi__sort(it, (size_t)n, r->c->key, idx_of, &w);
    free(at);
    free(end);
    if (st != FS_OK)
        fail(r, FS_ENOMEM, "memory exhausted (sorting %llu lines)",
             (unsigned long long)n);
    r->res->t_sort += MPI_Wtime() - t0;
    n = write_items(r, it, (size_t)n, own_buf, own_len, rec, total, wb, WB,
                    fd, tmp, limit);
    free(it);
    free(wb);
    return n;
}

/* Collective: how many of this rank's m lines (a slice of the order,
 * after those of lower ranks) are among the first c->head lines. */
static uint64_t head_limit(run *r, uint64_t m)
{
    uint64_t before = 0;
    MPI_Exscan(&m, &before, 1, MPI_UINT64_T, MPI_SUM, r->comm);
    if (r->rank == 0)
        before = 0;
    if (before >= r->c->head)
        return 0;
    return r->c->head - before < m ? r->c->head - before : m;
}

/* ---------------------------------------------------------- out of core */

/* What this rank receives goes to NB bucket files by the next bits of the
 * key below the rank's slice (key * P mod 2^64 grows with the key inside
 * a slice), so bucket b holds keys below those of bucket b + 1, and the
 * buckets sorted one by one in order give the shard.  A bucket over the
 * budget is split the same way by the following 6 bits (level L uses
 * bits 6L.. of key * P from the top), recursively. */
#define NB 64
#define BB (1 << 16)

typedef struct buckets {
    int fd[NB];
    uint64_t size[NB], count[NB]; /* bytes and records */
    size_t len[NB];
    unsigned char *buf[NB];
    char dir[4096];
} buckets;

static void buckets_close(buckets *k)
{
    for (int b = 0; b < NB; b++) {
        if (k->fd[b] >= 0)
            close(k->fd[b]);
        free(k->buf[b]);
        k->fd[b] = -1;
        k->buf[b] = NULL;
    }
}

/* A temporary file that is gone from the directory at once. */
static int temp_fd(const char *dir)
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

static void buckets_open(run *r, buckets *k)
{
    /* cppcheck-suppress ctuuninitvar
     * k is filled here, not read: cppcheck takes snprintf's target for a
     * read of the caller's uninitialised k. */
    snprintf(k->dir, sizeof k->dir, "%s", r->c->tmpdir ? r->c->tmpdir : "/tmp");
    for (int b = 0; b < NB; b++) {
        k->fd[b] = -1;
        k->size[b] = 0;
        k->count[b] = 0;
        k->len[b] = 0;
        k->buf[b] = NULL;
    }
    for (int b = 0; b < NB && r->rc == FS_OK; b++) {
        if ((k->buf[b] = malloc(BB)) == NULL)
            fail(r, FS_ENOMEM, "memory exhausted");
        else if ((k->fd[b] = temp_fd(k->dir)) < 0)
            fail(r, FS_EIO, "temporary file in '%s': %s", k->dir, strerror(errno));
    }
}

static void bucket_flush(run *r, buckets *k, int b)
{
    if (r->rc == FS_OK && k->len[b] &&
        fs_mpi__write_all(k->fd[b], k->buf[b], k->len[b]) != 0)
        fail(r, FS_EIO, "temporary file in '%s': %s", k->dir, strerror(errno));
    k->size[b] += k->len[b];
    k->len[b] = 0;
}

/* Appends one record (its 16-byte head, then l bytes of line) to its
 * bucket of level `level` (0: the top). */
static void spill_one(run *r, buckets *k, const unsigned char head[16],
                      const unsigned char *line, size_t l, unsigned level)
{
    uint64_t kp = fs_mpi__get64(head) * (uint64_t)r->P;
    int b = (int)((kp << (6 * level)) >> 58);
    k->count[b]++;
    if (k->len[b] + 16 + l > BB)
        bucket_flush(r, k, b);
    if (16 + l > BB) {
        if (r->rc == FS_OK && (fs_mpi__write_all(k->fd[b], head, 16) != 0 ||
                               fs_mpi__write_all(k->fd[b], line, l) != 0))
            fail(r, FS_EIO, "temporary file in '%s': %s", k->dir,
                 strerror(errno));
        k->size[b] += 16 + l;
    } else {
        memcpy(k->buf[b] + k->len[b], head, 16);
        memcpy(k->buf[b] + k->len[b] + 16, line, l);
        k->len[b] += 16 + l;
    }
}

/* Appends the records of rec[0..total) to their buckets of level `level`
 * (0: the top); returns how many there were. */
static uint64_t spill(run *r, buckets *k, const unsigned char *rec,
                      uint64_t total, unsigned level)
{
    uint64_t n = 0;
    for (size_t off = 0; off < total && r->rc == FS_OK; n++) {
        const unsigned char *q = memchr(rec + off + 16, r->d,
                                        (size_t)total - off - 16);
        size_t l = (size_t)(q - rec) + 1 - off;
        spill_one(r, k, rec + off, rec + off + 16, l - 16, level);
        off += l;
    }
    return n;
}

/* Lines in bytes [from, to) of the input, read in blocks. */
static uint64_t count_lines(run *r, uint64_t from, uint64_t to)
{
    enum { CB = 1 << 20 };
    unsigned char *b = malloc(CB + 1);
    uint64_t n = 0;
    if (b == NULL) {
        fail(r, FS_ENOMEM, "memory exhausted");
        return 0;
    }
    for (uint64_t p = from; p < to && r->rc == FS_OK;) {
        uint64_t e = to - p < CB ? to : p + CB;
        int64_t m = read_lines_at(r, p, e, b);
        if (m < 0)
            break;
        n += fs_lines_count(b, (size_t)m, r->d);
        /* a block boundary inside a line counts its head as a line */
        if (m > 0 && b[m - 1] != r->d)
            n--;
        p = e;
    }
    free(b);
    return n;
}

/* Bytes [off, off + n) of the temporary file fd into dst. */
static int read_temp(run *r, int fd, uint64_t off, unsigned char *dst,
                     size_t n, const char *dir)
{
    size_t got = 0;
    while (got < n) {
        ssize_t m = pread(fd, dst + got, n - got, (off_t)(off + got));
        if (m < 0 && errno == EINTR)
            continue;
        if (m <= 0) {
            fail(r, FS_EIO, "temporary file in '%s': %s", dir,
                 m < 0 ? strerror(errno) : "short read");
            return -1;
        }
        got += (size_t)m;
    }
    return 0;
}

/* Splits the bucket in bfd (size bytes of whole records) by the key bits
 * of `level` into k (opened here), reading it in blocks; the bucket's
 * file is then emptied.  Local. */
static void split(run *r, int bfd, uint64_t size, unsigned level, buckets *k)
{
    size_t cap = r->c->memory / 4 > ((size_t)1 << 16)
                     ? (size_t)(r->c->memory / 4) : (size_t)1 << 16;
    unsigned char *b = NULL;
    buckets_open(r, k);
    if (r->rc == FS_OK && (b = malloc(cap)) == NULL)
        fail(r, FS_ENOMEM, "memory exhausted");
    size_t have = 0; /* bytes in b: whole records, then a partial one */
    for (uint64_t off = 0; r->rc == FS_OK && (off < size || have > 0);) {
        size_t want = size - off < cap - have ? (size_t)(size - off) : cap - have;
        if (read_temp(r, bfd, off, b + have, want, k->dir) != 0)
            break;
        off += want;
        have += want;
        size_t whole = 0; /* the whole records at the start of b */
        for (;;) {
            const unsigned char *q = have - whole > 16
                ? memchr(b + whole + 16, r->d, have - whole - 16) : NULL;
            if (q == NULL)
                break;
            whole = (size_t)(q - b) + 1;
        }
        if (whole == 0 && have == cap) { /* a record longer than b */
            unsigned char *nb = realloc(b, cap * 2);
            if (nb == NULL) {
                fail(r, FS_ENOMEM, "memory exhausted (a line of over %zu "
                     "bytes)", cap);
                break;
            }
            b = nb;
            cap *= 2;
            continue;
        }
        if (whole == 0 && off == size) { /* cannot happen: whole records */
            fail(r, FS_EIO, "temporary file in '%s': %s", k->dir,
                 "a partial record");
            break;
        }
        spill(r, k, b, whole, level);
        memmove(b, b + whole, have - whole);
        have -= whole;
    }
    free(b);
    for (int i = 0; i < NB; i++) { /* only the files are needed now */
        bucket_flush(r, k, i);
        free(k->buf[i]);
        k->buf[i] = NULL;
        r->res->spilled += k->size[i];
    }
    if (r->rc == FS_OK && ftruncate(bfd, 0) != 0)
        fail(r, FS_EIO, "temporary file in '%s': %s", k->dir, strerror(errno));
}

/* Writes the first `limit` lines (in key order) of the bucket in bfd, of
 * size bytes and n records at split level `level`: loaded and sorted if it
 * fits the budget, else split by the next 6 key bits and each part written
 * in order (a single record, or keys equal to the last bit, that does not
 * fit is the error of sort_write).  Returns the lines written.  Local. */
static uint64_t drain(run *r, int bfd, uint64_t size, uint64_t n,
                      unsigned level, int fd, const char *tmp, uint64_t limit)
{
    if (size == 0 || limit == 0 || r->rc != FS_OK)
        return 0;
    uint64_t written = 0;
    if (r->c->memory && size + 32 * n + out_buf_size(r) > r->c->memory &&
        n > 1 && level < 11) {
        buckets k;
        split(r, bfd, size, level, &k);
        for (int i = 0; i < NB && r->rc == FS_OK && written < limit; i++)
            written += drain(r, k.fd[i], k.size[i], k.count[i], level + 1,
                             fd, tmp, limit - written);
        buckets_close(&k);
        return written;
    }
    unsigned char *rec = malloc((size_t)size);
    if (rec == NULL)
        fail(r, FS_ENOMEM, "memory exhausted");
    else if (read_temp(r, bfd, 0, rec, (size_t)size,
                       r->c->tmpdir ? r->c->tmpdir : "/tmp") == 0)
        written = sort_write(r, NULL, 0, NULL, 0, 0, rec, size, fd, tmp,
                             n == 1 ? "a line this rank received"
                                    : "a bucket of what this rank received",
                             limit);
    free(rec);
    return written;
}

/* The share [start, end) in pieces of about a quarter of the budget
 * (bytes + 16 per line), one exchange per piece, received records
 * spilled to buckets; then each bucket sorted and written in order
 * (with -n, only until this rank's part of the first c->head lines is
 * written: later buckets are not loaded).  Rounds continue while any
 * rank has input left. */
static void out_of_core(run *r, uint64_t start, uint64_t end, int fd,
                        const char *tmp)
{
    buckets k;
    uint64_t piece = r->c->memory / 8, first = 0;
    if (piece < ((uint64_t)1 << 16))
        piece = (uint64_t)1 << 16;
    uint64_t n = count_lines(r, start, end);
    MPI_Exscan(&n, &first, 1, MPI_UINT64_T, MPI_SUM, r->comm);
    if (r->rank == 0)
        first = 0;
    buckets_open(r, &k);
    size_t cap = (size_t)piece + 1;
    unsigned char *b = malloc(cap);
    uint64_t *sc = calloc((size_t)r->P, sizeof *sc);
    uint64_t *rc = calloc((size_t)r->P, sizeof *rc);
    if (b == NULL || sc == NULL || rc == NULL)
        fail(r, FS_ENOMEM, "memory exhausted");
    uint64_t pos = start, nrec = 0; /* records received */
    int more = 1;
    while (!failed(r) && more) {
        size_t len = 0, lines = 0;
        if (pos < end) { /* the next piece: whole lines only */
            uint64_t e = end - pos < piece ? end : pos + piece;
            int64_t m;
            for (;;) {
                if ((m = read_lines_at(r, pos, e, b)) < 0)
                    break;
                const unsigned char *q = memrchr(b, r->d, (size_t)m);
                if (q != NULL || e == end) {
                    len = q ? (size_t)(q - b) + 1 : (size_t)m;
                    break;
                }
                /* one line longer than the piece: take it whole */
                uint64_t grow = (uint64_t)cap * 2;
                unsigned char *nb = realloc(b, (size_t)grow);
                if (nb == NULL) {
                    fail(r, FS_ENOMEM, "memory exhausted (a line of over %zu bytes)", cap);
                    break;
                }
                b = nb;
                cap = (size_t)grow;
                e = end - pos < grow - 1 ? end : pos + grow - 1;
            }
            if (r->rc == FS_OK) {
                /* at most a quarter of the budget with 16 bytes per line */
                const unsigned char *p = b, *q;
                size_t keep = 0;
                while (keep < len &&
                       (q = memchr(p, r->d, len - keep)) != NULL) {
                    size_t l = (size_t)(q - p) + 1;
                    if (lines > 0 && keep + l + 16 * (lines + 1) > piece * 2)
                        break;
                    keep += l;
                    lines++;
                    p = q + 1;
                }
                len = keep;
                pos += len;
                if (pos > end) /* the added final delimiter */
                    pos = end;
            }
        }
        unsigned char *send = NULL, *recv = NULL;
        if (failed(r) ||
            pack(r, b, len, lines, first, &send, sc, UINT64_MAX, NULL,
                 NULL) != 0)
            break;
        first += lines;
        double t0 = MPI_Wtime();
        uint64_t total = 0;
        int st = fs_mpi__exchange(r->comm, send, sc, &recv, rc, &total);
        free(send);
        if (st != FS_OK) {
            fail(r, st, "exchange: %s", fs_strerror(st));
            free(recv);
            failed(r);
            break;
        }
        r->res->t_exchange += MPI_Wtime() - t0;
        r->res->received += total - rc[r->rank];
        t0 = MPI_Wtime();
        nrec += spill(r, &k, recv, total, 0);
        r->res->t_spill += MPI_Wtime() - t0;
        free(recv);
        int mine = pos < end;
        MPI_Allreduce(&mine, &more, 1, MPI_INT, MPI_LOR, r->comm);
    }
    free(b);
    free(sc);
    free(rc);
    /* every rank gets here (the loop ends on every rank at once) */
    uint64_t limit = head_limit(r, nrec);
    for (int i = 0; i < NB; i++)
        bucket_flush(r, &k, i);
    for (int i = 0; i < NB; i++) {
        free(k.buf[i]); /* only the files are needed now */
        k.buf[i] = NULL;
        r->res->spilled += k.size[i];
    }
    for (int i = 0; i < NB && r->rc == FS_OK && limit > 0; i++) {
        /* in key order */
        limit -= drain(r, k.fd[i], k.size[i], k.count[i], 1, fd, tmp, limit);
        close(k.fd[i]);
        k.fd[i] = -1;
    }
    buckets_close(&k);
}

/* In memory, what this rank keeps (own[0..nown), lines in own_buf) and
 * what it received (*recv[0..total); both freed here) do not fit the budget
 * together: every record goes to the 64 buckets of level 0, which are then
 * written in key order by drain() (split again while over the budget);
 * the first `limit` lines in all.  own is consumed.  Local. */
static void spill_all(run *r, fs_mpi__item *own, size_t nown,
                      unsigned char **bufp, size_t own_len, uint64_t first,
                      unsigned char **recv, uint64_t total, int fd,
                      const char *tmp, uint64_t limit)
{
    buckets k;
    const unsigned char *own_buf = *bufp, *p = own_buf, *e = own_buf + own_len;
    uint64_t keys[512];
    double t0 = MPI_Wtime();
    buckets_open(r, &k);
    /* the own items are grouped by key, not in input order: the share is
     * walked again and each line that pack kept here is spilled with its
     * number, by pack's rule, until all nown are */
    size_t done = 0;
    for (uint64_t i = 0; done < nown && r->rc == FS_OK; i++) {
        if (i % 512 == 0)
            fs_lines_keys(r->c->key, first + i, 0, keys, 512);
        uint64_t key = keys[i % 512];
        const unsigned char *q = memchr(p, r->d, (size_t)(e - p));
        size_t l = (size_t)(q - p) + 1;
        if (r->own_keep && key <= r->own_top &&
            (r->c->local_only || fs_mpi__dest(key, r->P) == r->rank)) {
            unsigned char head[16];
            fs_mpi__put64(head, key);
            fs_mpi__put64(head + 8, first + i);
            spill_one(r, &k, head, p, l, 0);
            done++;
        }
        p = q + 1;
    }
    free(own);
    free(*bufp);
    *bufp = NULL;
    if (r->rc == FS_OK)
        spill(r, &k, *recv, total, 0);
    free(*recv);
    *recv = NULL;
    for (int i = 0; i < NB; i++) {
        bucket_flush(r, &k, i);
        free(k.buf[i]); /* only the files are needed now */
        k.buf[i] = NULL;
        r->res->spilled += k.size[i];
    }
    r->res->t_spill += MPI_Wtime() - t0;
    for (int i = 0; i < NB && r->rc == FS_OK && limit > 0; i++)
        limit -= drain(r, k.fd[i], k.size[i], k.count[i], 1, fd, tmp, limit);
    buckets_close(&k);
}

/* ----------------------------------------------------------- in rounds */

/* In memory on P > 1 ranks, the exchange in rounds (rounds.c): piece j
 * of the share (its lines starting in bytes [j PB, (j + 1) PB)) is packed
 * into one of two reused send buffers while piece j - 1 is in flight,
 * and the records of each round received are put into their sort groups
 * while the next round moves.  The groups' sizes are known before
 * anything moves: a first pass counts what goes to each rank by digit
 * (and by round), MPI_Reduce_scatter_block sums the counts for each rank,
 * and the count tables are swapped once.  The own lines become items in
 * their groups as their piece is packed.  Same cuts for -n as pack(). */
/* A record of the rounds: key (8) | the line's length (4, RL_LONG from
 * 4 GiB - 1 on: its end is looked for) | global number (8) | line, so the
 * receiver steps from record to record without a look for the end. */
#define RL_HEAD 20
#define RL_LONG UINT32_MAX

typedef struct rounds_lines {
    fs_mpi__rounds x;
    const unsigned char *buf;
    size_t len;
    uint64_t *keys, top, first;
    size_t *pline, *poff;  /* piece j: lines from pline[j], at poff[j] */
    uint32_t *llen;        /* line lengths (RL_LONG: look for its end) */
    size_t *at;            /* next slot of each group */
    uint64_t *pos;         /* per rank: next record in the piece */
    unsigned char *dead;   /* per rank: nothing is sent to it (-n) */
    fs_mpi__item *it;
    unsigned bits;
    int keep;              /* this rank keeps its own lines */
} rounds_lines;

static void rl_pack(run *r, rounds_lines *z, size_t j, unsigned char *sb)
{
    double t0 = MPI_Wtime();
    size_t R = z->x.R;
    uint64_t off = 0;
    for (int d = 0; d < r->P; d++) {
        z->pos[d] = off;
        off += d == r->rank ? 0 : z->x.out[(size_t)d * R + j];
    }
    const unsigned char *p = z->buf + z->poff[j];
    for (size_t i = z->pline[j]; i < z->pline[j + 1]; i++) {
        size_t l = z->llen[i] != RL_LONG
                       ? z->llen[i]
                       : (size_t)((const unsigned char *)memchr(
                                      p, r->d, z->len - (size_t)(p - z->buf)) -
                                  p) + 1;
        uint64_t key = z->keys[i];
        int d = fs_mpi__dest(key, r->P);
        if (key <= z->top && !z->dead[d]) {
            if (d == r->rank) {
                size_t k = z->at[fs_mpi__digit(key, (unsigned)r->P, z->bits)]++;
                z->it[k].key = key;
                z->it[k].pos = (uintptr_t)p;
            } else {
                unsigned char *o = sb + z->pos[d];
                uint32_t l32 = z->llen[i];
                fs_mpi__put64(o, key);
                memcpy(o + 8, &l32, 4);
                fs_mpi__put64(o + 12, z->first + i);
                memcpy(o + RL_HEAD, p, l);
                z->pos[d] += RL_HEAD + l;
            }
        }
        if ((i & 16383) == 0)
            fs_mpi__rounds_test(&z->x); /* the round in flight moves on */
        p += l;
    }
    r->res->t_keys += MPI_Wtime() - t0;
}

static void rl_place(run *r, rounds_lines *z, const unsigned char *rec,
                     uint64_t total)
{
    double t0 = MPI_Wtime();
    size_t n = 0;
    for (uint64_t off = 0; off < total; n++) {
        uint64_t key = fs_mpi__get64(rec + off);
        size_t k = z->at[fs_mpi__digit(key, (unsigned)r->P, z->bits)]++;
        z->it[k].key = key;
        z->it[k].pos = (uintptr_t)(rec + off + RL_HEAD);
        uint32_t l;
        memcpy(&l, rec + off + 8, 4);
        if (l == RL_LONG) /* a line of 4 GiB or more: its end looked for */
            l = 0, off = (uint64_t)((const unsigned char *)memchr(
                             rec + off + RL_HEAD, r->d,
                             (size_t)(total - off - RL_HEAD)) - rec) + 1;
        off += l ? RL_HEAD + l : 0;
        if ((n & 16383) == 0)
            fs_mpi__rounds_test(&z->x);
    }
    r->res->t_sort += MPI_Wtime() - t0;
}

/* The share buf[0..len) (n lines, the first numbered `first`) shuffled
 * and this rank's part written to fd.  Returns 0 when some rank's part
 * would not fit its budget (or the test hook forces the spill path):
 * nothing was sent and the caller takes the one-exchange path, which
 * spills; else 1 (done, or failed on every rank). */
static int in_rounds(run *r, const unsigned char *buf, size_t len,
                     uint64_t n, uint64_t first, int fd, const char *tmp)
{
    double t0 = MPI_Wtime();
    int P = r->P, me = r->rank, done = 1;
    uint64_t head = r->c->head, most[2] = {n, len};
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_UINT64_T, MPI_MAX, r->comm);
    rounds_lines z = {.buf = buf, .len = len, .first = first, .top = UINT64_MAX};
    z.bits = fs_mpi__bits(most[0]);
    uint64_t PB = fs_mpi__piece;
    if (most[1] / PB >= 1024) /* at most 1024 rounds: small count tables */
        PB = most[1] / 1024 + 1;
    size_t R = most[1] ? (size_t)((most[1] + PB - 1) / PB) : 1, D = (size_t)1 << z.bits;
    size_t *end = NULL, WB = out_buf_size(r);
    uint64_t *hist = NULL, *rh = NULL, *dl = NULL, *gl = NULL, mine = 0;
    unsigned char *sb[2] = {NULL, NULL}, *rec = NULL, *wb = NULL;
    r->res->lines_in += n;
    r->res->bytes_in += len;
    int st = fs_mpi__rounds_init(&z.x, r->comm, R);
    if (st != FS_OK)
        fail(r, st, "exchange: %s", fs_strerror(st));
    else if ((size_t)P > SIZE_MAX / 8 / D || n > SIZE_MAX / 16 ||
             (hist = calloc((size_t)P * D, 8)) == NULL ||
             (rh = malloc(D * 8)) == NULL ||
             (z.at = malloc(D * sizeof *z.at)) == NULL ||
             (end = malloc(D * sizeof *end)) == NULL ||
             (z.pos = malloc((size_t)P * 8)) == NULL ||
             (dl = calloc((size_t)P, 8)) == NULL ||
             (gl = calloc((size_t)P, 8)) == NULL ||
             (z.dead = calloc((size_t)P, 1)) == NULL ||
             (z.pline = malloc((R + 1) * sizeof *z.pline)) == NULL ||
             (z.poff = malloc((R + 1) * sizeof *z.poff)) == NULL ||
             (z.llen = malloc((size_t)n * 4 + 4)) == NULL ||
             (z.keys = malloc((size_t)n * 8 + 8)) == NULL)
        fail(r, FS_ENOMEM, "memory exhausted (%llu lines, %zu bytes)",
             (unsigned long long)n, len);
    if (r->rc == FS_OK) {
        fs__huge(z.keys, (size_t)n * 8 + 8); /* fresh pages: costly on a VM */
        fs__huge(z.llen, (size_t)n * 4 + 4);
        share_keys(r, first, n, head, z.keys, &z.top);
    }
    if (failed(r))
        goto out;
    /* counts: per rank and digit (hist), per rank and round (bytes) */
    const unsigned char *p = buf;
    size_t j = 0;
    z.pline[0] = z.poff[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t o = (size_t)(p - buf);
        while (o >= (j + 1) * PB) { /* pieces j + 1 .. start here */
            z.pline[++j] = i;
            z.poff[j] = o;
        }
        const unsigned char *q = memchr(p, r->d, len - o);
        size_t l = (size_t)(q - p) + 1;
        uint64_t key = z.keys[i];
        int d = fs_mpi__dest(key, P);
        z.llen[i] = l < RL_LONG ? (uint32_t)l : RL_LONG;
        if (key <= z.top && head > 0) {
            dl[d]++;
            hist[(size_t)d * D + fs_mpi__digit(key, (unsigned)P, z.bits)]++;
            if (d != me)
                z.x.out[(size_t)d * R + j] += RL_HEAD + l;
        }
        p = q + 1;
    }
    while (j < R) {
        z.pline[++j] = (size_t)n;
        z.poff[j] = len;
    }
    if (head != UINT64_MAX) { /* slices wholly past the head-th line */
        MPI_Allreduce(dl, gl, P, MPI_UINT64_T, MPI_SUM, r->comm);
        uint64_t before = 0;
        for (int d = 0; d < P; d++) {
            if (before >= head) {
                z.dead[d] = 1;
                memset(hist + (size_t)d * D, 0, D * 8);
                memset(z.x.out + (size_t)d * R, 0, R * 8);
            }
            before += gl[d];
        }
    }
    for (int d = 0; d < P; d++)
        for (size_t k = 0; d != me && k < R; k++)
            r->res->sent += z.x.out[(size_t)d * R + k];
    /* rh[g]: the items of this rank's group g, its own and received */
    MPI_Reduce_scatter_block(hist, rh, (int)D, MPI_UINT64_T, MPI_SUM, r->comm);
    st = fs_mpi__rounds_counts(&z.x);
    if (st != FS_OK)
        fail(r, st, "exchange: %s", fs_strerror(st));
    for (size_t g = 0; g < D; g++) {
        z.at[g] = (size_t)mine;
        mine += rh[g];
        end[g] = (size_t)mine;
    }
    uint64_t lim = head_limit(r, mine), total = z.x.in_total;
    r->res->received = total;
    /* the budget as the one-exchange path counts it: over it, every
     * rank takes that path (it spills what does not fit) */
    int over = (r->c->memory && lim > 0 &&
                len + total + 32 * mine + WB > r->c->memory) ||
               getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") != NULL, any;
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_LOR, r->comm);
    if (any) {
        r->res->lines_in -= n;
        r->res->bytes_in -= len;
        r->res->sent = r->res->received = 0;
        done = 0;
        goto out;
    }
    for (int b = 0; b < 2 && r->rc == FS_OK; b++)
        if ((sb[b] = malloc(z.x.out_max ? (size_t)z.x.out_max : 1)) == NULL)
            fail(r, FS_ENOMEM, "memory exhausted");
    if (r->rc == FS_OK &&
        ((rec = share_buf(total ? (size_t)total : 1)) == NULL ||
         (z.it = malloc(mine ? (size_t)mine * sizeof *z.it : 1)) == NULL ||
         (wb = malloc(WB)) == NULL))
        fail(r, FS_ENOMEM, "memory exhausted (%llu lines received)",
             (unsigned long long)mine);
    r->res->t_keys += MPI_Wtime() - t0;
    if (failed(r))
        goto out;
    fs__huge(z.it, (size_t)mine * sizeof *z.it); /* 2^bits streams */
    r->res->rounds = R;
    rl_pack(r, &z, 0, sb[0]);
    uint64_t roff = 0;
    for (j = 0;; j++) {
        /* round j is packed; nothing is in flight: a failure stops
         * every rank before any more is sent */
        if (fs_mpi__test_fail_round(me, j))
            fail(r, FS_EIO, "exchange: %s (injected in round %zu)",
                 strerror(EIO), j);
        t0 = MPI_Wtime();
        if (failed(r))
            goto out;
        fs_mpi__rounds_post(&z.x, j, sb[j & 1], rec + roff);
        r->res->t_exchange += MPI_Wtime() - t0;
        if (j > 0) { /* round j - 1 into the groups while j moves */
            uint64_t in = fs_mpi__rounds_in(&z.x, j - 1);
            rl_place(r, &z, rec + roff - in, in);
        }
        if (j + 1 < R)
            rl_pack(r, &z, j + 1, sb[(j + 1) & 1]);
        t0 = MPI_Wtime(); /* the transfer not hidden behind the work */
        fs_mpi__rounds_wait(&z.x);
        r->res->t_exchange += MPI_Wtime() - t0;
        roff += fs_mpi__rounds_in(&z.x, j);
        if (j + 1 == R)
            break;
    }
    rl_place(r, &z, rec + roff - fs_mpi__rounds_in(&z.x, R - 1),
             fs_mpi__rounds_in(&z.x, R - 1));
    if (lim > 0) {
        where w = {buf, len, first, r->d};
        t0 = MPI_Wtime();
        if (fs_mpi__sort_grouped(z.it, (size_t)mine, end, z.bits, r->c->key,
                                 idx_of, &w) != FS_OK)
            fail(r, FS_ENOMEM, "memory exhausted (sorting %llu lines)",
                 (unsigned long long)mine);
        r->res->t_sort += MPI_Wtime() - t0;
        if (r->rc == FS_OK)
            write_items(r, z.it, (size_t)mine, buf, len, rec, total, wb, WB,
                        fd, tmp, lim);
    }
    failed(r); /* a write error: every rank stops here */
out:
    fs_mpi__rounds_free(&z.x);
    free(hist);
    free(rh);
    free(end);
    free(dl);
    free(gl);
    free(z.at);
    free(z.pos);
    free(z.dead);
    free(z.pline);
    free(z.poff);
    free(z.llen);
    free(z.keys);
    free(z.it);
    free(sb[0]);
    free(sb[1]);
    free(rec);
    free(wb);
    return done;
}

/* ---------------------------------------------------------------- CSV */

/* --csv: the records of b[0..n) (whole records; fin: the input's end)
 * framed by lib/lines/csv.h -- a NUL after each record's end -- in a new
 * buffer that replaces *b.  Returns the framed length, -1 on a bad input
 * (failed) or no memory (*b kept: the caller goes out of core). */
static int64_t csv_frame(run *r, unsigned char **b, size_t n, int fin)
{
    fs__csv_framer f = {0};
    size_t m = 0;
    unsigned char *o = n < (SIZE_MAX - 3) / 2 ? malloc(2 * n + 3) : NULL;
    if (o == NULL)
        return -1;
    if (fs__csv_frame(&f, *b, n, fin, o, &m) != FS_OK) {
        fail(r, FS_EIO, "%s: %s", r->c->nfiles > 1 ? "input" : r->c->files[0],
             f.why);
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
static void csv_frame_share(run *r, uint64_t *start, uint64_t *end)
{
    enum { FB = 1 << 20 };
    fs__csv_framer f = {0};
    const char *dir = r->c->tmpdir ? r->c->tmpdir : "/tmp";
    unsigned char *b = malloc(FB), *o = malloc(2 * FB + 3);
    int fd = temp_fd(dir);
    uint64_t w = 0;
    if (b == NULL || o == NULL)
        fail(r, FS_ENOMEM, "memory exhausted");
    else if (fd < 0)
        fail(r, FS_EIO, "temporary file in '%s': %s", dir, strerror(errno));
    for (uint64_t p = *start; p < *end && r->rc == FS_OK;) {
        size_t n = *end - p < FB ? (size_t)(*end - p) : FB, m = 0;
        if (read_at(r, p, b, n) != 0)
            break;
        p += n;
        if (fs__csv_frame(&f, b, n, p == *end && *end == r->total, o, &m) != FS_OK)
            fail(r, FS_EIO, "%s: %s",
                 r->c->nfiles > 1 ? "input" : r->c->files[0], f.why);
        else if (fs_mpi__write_all(fd, o, m) != 0)
            fail(r, FS_EIO, "temporary file in '%s': %s", dir, strerror(errno));
        w += m;
    }
    free(b);
    free(o);
    r->res->spilled += w;
    r->srcfd = fd;
    *start = 0;
    *end = w;
}

/* ---------------------------------------------------------------- run */

/* ------------------------------------------------- one rank (P = 1) */

static int shard_fd(void *arg)
{
    return *(const int *)arg;
}

/* The config of `fairshuf lines` for this rank's job, written to *fd. */
static void lib_config(const run *r, fs_lines_config *lc, int *fd)
{
    const fs_mpi_lines_config *c = r->c;
    memset(lc, 0, sizeof *lc);
    lc->delim = r->d;
    lc->head = c->head;
    lc->memory = (size_t)c->memory;
    lc->tmpdir = c->tmpdir;
    lc->threads = 1; /* a rank is one process of the job */
    memcpy(lc->key, c->key, sizeof lc->key);
    lc->open_output = shard_fd;
    lc->output_arg = fd;
}

/* The library's result lr (status st, begun at t0) into the rank's: the
 * counts, the time (all of it counted as sort: reading, sorting and
 * writing are one call) and the failure, if any ("name": the input). */
static void lib_result(run *r, int st, const fs_lines_result *lr,
                       const char *name, const char *tmp, double t0)
{
    r->res->lines_out += lr->written;
    r->res->bytes_out += lr->out_bytes;
    r->res->spilled += lr->spilled;
    r->res->t_sort += MPI_Wtime() - t0;
    const char *why = fs_lines_strerror(st, lr);
    if (st == FS_EIO && lr->where == FS_LINES_OUTPUT)
        fail(r, st, "%s: %s", tmp, why);
    else if (st == FS_EIO && lr->where == FS_LINES_TEMP)
        fail(r, st, "temporary file in %s: %s",
             r->c->tmpdir ? r->c->tmpdir : "/tmp", why);
    else if (st == FS_ENOMEM)
        fail(r, st, "memory exhausted (sorting %llu lines)",
             (unsigned long long)lr->lines);
    else if (st != FS_OK) /* the input, or a bad configuration */
        fail(r, st, "%s: %s", name, why);
}

/* Each rank reads the FILE on its own, so a file changed meanwhile can
 * give the ranks different lines: they compare what they saw. */
#define CHANGED_SLICES "file changed as we read it (each rank reads it)"

/* A file's modification time in ns (what the ranks compare). */
static uint64_t mtime_ns(const struct stat *st)
{
    return (uint64_t)st->st_mtim.tv_sec * 1000000000u +
           (uint64_t)st->st_mtim.tv_nsec;
}

/* Test hook (tests/cli/mpi_fast.bats): rank 0 writes its slice, then
 * changes the FILE -- FAIRSHUF_MPI_TEST_CHANGE_SLICES=cut cuts it to half
 * its size, =edit rewrites the byte before the first delimiter in its
 * second half (every line end stays), any other value overwrites that
 * delimiter (two lines become one); after any change but the edit, the
 * file's times are put back -- and only then do the other ranks read
 * it. */
static void test_change_slices(run *r, int after)
{
    const char *ch = getenv("FAIRSHUF_MPI_TEST_CHANGE_SLICES");
    if (ch == NULL || r->P < 2 || (r->rank == 0) != after)
        return;
    int fd = r->rank == 0 ? open(r->c->files[0], O_RDWR | O_CLOEXEC) : -1;
    if (fd >= 0) {
        unsigned char b[4096], x = r->d == 'x' ? 'y' : 'x';
        off_t at = (off_t)(r->total / 2);
        ssize_t got = pread(fd, b, sizeof b, at);
        const unsigned char *q = got > 0 ? memchr(b, r->d, (size_t)got) : NULL;
        off_t off = q == NULL ? 0 : at + (q - b);
        if (strcmp(ch, "edit") == 0 && q != NULL) { /* the byte before */
            off--;
            x = q > b && q[-1] == 'x' ? 'y' : 'x';
        }
        struct stat was;
        int bad = fstat(fd, &was) != 0;
        bad = bad || (strcmp(ch, "cut") == 0
                          ? ftruncate(fd, at)
                          : q == NULL || q == b || pwrite(fd, &x, 1, off) != 1);
        /* but the edit: as if in the same tick of the file clock as the
         * file's last write, so the count and size checks alone see it */
        if (!bad && strcmp(ch, "edit") != 0) {
            const struct timespec t[2] = {was.st_atim, was.st_mtim};
            bad = futimens(fd, t);
        }
        (void)bad;
        close(fd);
    }
    MPI_Barrier(r->comm);
}

/* One FILE, and either P = 1 or every rank on one node (slices): then the
 * job is `fairshuf lines --seed FILE` itself, rank r writing key slice r
 * of P of its output (fs_lines_shuffle_slice: the keyed order, header and
 * -n of the whole file, hence the same bytes once the shards are put
 * together), with the library's memory plan: a large file of long lines
 * read a few times, a quarter of the key space held at a time, or its
 * spill path if its own budget says so.  Nothing moves between ranks: on
 * one node each reads the file from the page cache.  The ranks then
 * compare the lines they keyed, the file's modification time, and its
 * size with the one measured at the start: a change seen by some ranks
 * fails the job, an edit that keeps every line end in place too (unless
 * it falls in the same tick of the file clock, a few ms, as the file's
 * last write before the run).
 * [start, end): the rank's share of the bytes, for --stats.  Returns 0,
 * having done nothing, where it does not apply (--csv, at P = 1 a file
 * that a --memory budget sends out of core, the spill test hook); the
 * general path then runs. */
static int whole_file(run *r, int slices, uint64_t start, uint64_t end,
                      int fd, const char *tmp)
{
    const fs_mpi_lines_config *c = r->c;
    if ((r->P != 1 && !slices) || c->nfiles != 1 || c->csv ||
        (r->P == 1 && c->memory && 3 * r->total > c->memory) ||
        getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") != NULL)
        return 0;
    double t0 = MPI_Wtime();
    fs_lines_config lc;
    fs_lines_result lr;
    lib_config(r, &lc, &fd);
    lc.header = c->header;
    const char *name = c->files[0];
    /* the file's modification times before and after this rank's read */
    uint64_t seen = 0, before = 0, after = 0;
    int in = open(name, O_RDONLY | O_CLOEXEC), st = FS_EIO, moved = 0;
    struct stat fst;
    if (in < 0) {
        fail(r, FS_EIO, "%s: %s", name, strerror(errno));
    } else {
        test_change_slices(r, 0);
        moved = fstat(in, &fst) != 0;
        before = moved ? 0 : mtime_ns(&fst);
        st = fs__lines_shuffle_slice(in, &lc, (unsigned)r->rank,
                                     (unsigned)r->P, &lr, &seen);
        int seen_after = fstat(in, &fst) == 0;
        moved = moved || !seen_after || (uint64_t)fst.st_size != r->total;
        after = seen_after ? mtime_ns(&fst) : 0;
        close(in);
        test_change_slices(r, 1);
        r->res->lines_in += lr.lines;
        r->res->bytes_in += end - start;
        lib_result(r, st, &lr, name, tmp, t0);
    }
    if (r->P > 1) { /* what every rank that succeeded saw, least and most:
                     * the lines keyed, and the file's modification times
                     * (one, before and after each rank's read) */
        int ok = st == FS_OK;
        uint64_t tmin = before < after ? before : after,
                 tmax = before < after ? after : before;
        uint64_t mine[4] = {ok ? seen : UINT64_MAX,
                            ok ? UINT64_MAX - seen : UINT64_MAX,
                            ok ? tmin : UINT64_MAX,
                            ok ? UINT64_MAX - tmax : UINT64_MAX};
        uint64_t all[4];
        MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_MIN, r->comm);
        if (ok && (moved || all[0] != UINT64_MAX - all[1] ||
                   all[2] != UINT64_MAX - all[3]))
            fail(r, FS_EIO, "%s: %s", name, CHANGED_SLICES);
    }
    return 1;
}

/* P = 1 in memory: nothing moves, so the share (buf[0..len), n lines, all
 * ending with the delimiter, the header already written) is shuffled by
 * the in-memory path of `fairshuf lines` itself (lib/lines/shuffle.c):
 * the same keyed order, hence the same bytes, without the keys array,
 * the items and the pack that exist for the exchange.  Returns 0, having
 * done nothing, where it does not apply (--csv, a share of 4 GiB or
 * more, a --memory budget the library's sort would not fit in, the
 * spill test hook): the general path then runs. */
static int one_rank(run *r, const unsigned char *buf, size_t len,
                    uint64_t n, int fd, const char *tmp)
{
    const fs_mpi_lines_config *c = r->c;
    if (r->P != 1 || c->csv || len >= 0xfffffff0u ||
        getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") != NULL ||
        (c->memory &&
         len + fs__sort_overhead(n, 1) + out_buf_size(r) > c->memory))
        return 0;
    double t0 = MPI_Wtime();
    fs_lines_config lc;
    fs_lines_result lr;
    lib_config(r, &lc, &fd);
    int st = fs__lines_shuffle_counted(buf, len, n, &lc, &lr);
    r->res->lines_in += n;
    r->res->bytes_in += len;
    lib_result(r, st, &lr, c->nfiles ? c->files[0] : "-", tmp, t0);
    return 1;
}

int fs_mpi__lines(const fs_mpi_lines_config *c, MPI_Comm comm,
                  fs_mpi_lines_result *res)
{
    double start_time = MPI_Wtime();
    memset(res, 0, sizeof *res);
    res->bad_rank = -1;
    run R = {c, comm, 0, 0, NULL, 0, res, FS_OK, c->csv ? '\0' : c->delim, -1,
             0, 0, 0, 0, NULL};
    run *r = &R;
    MPI_Comm_size(comm, &r->P);
    MPI_Comm_rank(comm, &r->rank);
    fs_mpi__shard sh = {.fd = -1};
    unsigned char *buf = NULL, *send = NULL, *recv = NULL;
    fs_mpi__item *own = NULL; /* the lines that stay on this rank */
    size_t nown = 0;
    uint64_t *sizes = calloc((size_t)c->nfiles + 1, sizeof *sizes);
    uint64_t *sc = calloc((size_t)r->P, sizeof *sc);
    uint64_t *rc = calloc((size_t)r->P, sizeof *rc);
    char *msg = res->msg;
    size_t cap = sizeof res->msg;

    /* the output first: a shard that cannot be written stops the job
     * before any work */
    if (sizes == NULL || sc == NULL || rc == NULL)
        fail(r, FS_ENOMEM, "memory exhausted");
    else
        r->rc = fs_mpi__shard_open(&sh, c->pattern, r->rank, msg, cap);
    if (failed(r))
        goto out;

    double t0 = MPI_Wtime();
    uint64_t start, end, hend = 0;
    if (measure(r, sizes) != 0 || share_bounds(r, &start, &end) != 0)
        goto out;
    /* every rank on one node, one FILE: each writes its key slice */
    int slices = fs_mpi__one_node(
        comm, c->shared && c->nfiles == 1 && !c->csv && !c->local_only &&
                  getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") == NULL);
    if (whole_file(r, slices, start, end, sh.fd, sh.tmp)) {
        if (failed(r))
            goto out;
        goto close;
    }
    if (c->header > 0) {
        /* --header: rank 0 writes the first lines, which end at hend (a
         * line boundary); the lines before it leave every share, so the
         * numbers (keys) count from the first line after them */
        if (r->rank == 0)
            hend = copy_header(r, sh.fd, sh.tmp);
        if (failed(r))
            goto out;
        MPI_Bcast(&hend, 1, MPI_UINT64_T, 0, comm);
        start = start > hend ? start : hend;
        end = end > hend ? end : hend;
    }
    if (c->head == 0) /* -n 0: only the header (every shard exists) */
        goto close;
    /* in memory when the share, its records and what comes back fit:
     * about 2 x (bytes + 16 per line) + 8 per line at the peak */
    uint64_t len = end - start, n = 0;
    int ooc = c->memory && 3 * len > c->memory, any;
    if (!ooc) {
        int64_t m = -1;
        if (len > SIZE_MAX - 2 || (buf = share_buf((size_t)len + 1)) == NULL)
            ooc = 1;
        else if (!c->csv && (m = read_counted(r, start, end, buf, &n)) >= 0) {
            len = (uint64_t)m;
            ooc = c->memory && 2 * len + 40 * n > c->memory;
        } else if (c->csv && (m = read_lines_at(r, start, end, buf)) >= 0 &&
                   (m = csv_frame(r, &buf, (size_t)m, end == r->total)) < 0)
            ooc = 1; /* no room for the framed copy */
        else if (m >= 0) {
            len = (uint64_t)m;
            n = fs_lines_count(buf, (size_t)len, r->d);
            ooc = c->memory && 2 * len + 40 * n > c->memory;
        }
    }
    if (failed(r))
        goto out;
    MPI_Allreduce(&ooc, &any, 1, MPI_INT, MPI_LOR, comm);
    res->t_read = MPI_Wtime() - t0;
    if (any) {
        free(buf);
        buf = NULL;
        if (c->csv) /* the share framed to a temporary file, read from it */
            csv_frame_share(r, &start, &end);
        if (failed(r))
            goto out;
        out_of_core(r, start, end, sh.fd, sh.tmp);
    } else {
        uint64_t first = 0;
        MPI_Exscan(&n, &first, 1, MPI_UINT64_T, MPI_SUM, comm);
        if (r->rank == 0)
            first = 0;
        if (one_rank(r, buf, (size_t)len, n, sh.fd, sh.tmp)) {
            if (failed(r))
                goto out;
            goto close;
        }
        if (r->P > 1 && !c->local_only &&
            in_rounds(r, buf, (size_t)len, n, first, sh.fd, sh.tmp)) {
            if (r->rc != FS_OK) /* agreed on already: not again */
                goto out;
            goto close;
        }
        if (pack(r, buf, (size_t)len, n, first, &send, sc,
                 c->local_only ? UINT64_MAX : c->head, &own, &nown) != 0)
            goto out;
        t0 = MPI_Wtime();
        uint64_t total = 0;
        int st = fs_mpi__exchange(comm, send, sc, &recv, rc, &total);
        if (st != FS_OK) {
            fail(r, st, "exchange: %s", fs_strerror(st));
            failed(r);
            goto out;
        }
        free(send);
        send = NULL;
        res->t_exchange = MPI_Wtime() - t0;
        res->received = total - rc[r->rank];
        uint64_t mine = nown + count_records(r, recv, total, NULL);
        uint64_t lim = head_limit(r, mine);
        /* test hook (tests/cli/mpi.bats): take this path at any size */
        int force = getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") != NULL;
        if (c->memory && lim > 0 &&
            (len + total + 32 * mine + out_buf_size(r) > c->memory || force)) {
            /* more arrived than the budget holds (keys fall where they
             * will): bucketed to files and sorted bucket by bucket, as
             * out of core, instead of stopping the job */
            spill_all(r, own, nown, &buf, (size_t)len, first, &recv, total, sh.fd,
                      sh.tmp, lim);
        } else {
            sort_write(r, own, nown, buf, (size_t)len, first, recv, total, sh.fd,
                       sh.tmp, "what this rank received", lim);
        }
        own = NULL;
    }
close:
    /* test hook (tests/cli/mpi.bats): this rank dies here, shard written */
    if (getenv("FAIRSHUF_MPI_TEST_DIE_RANK") != NULL &&
        atoi(getenv("FAIRSHUF_MPI_TEST_DIE_RANK")) == r->rank)
        raise(getenv("FAIRSHUF_MPI_TEST_DIE_TERM") ? SIGTERM : SIGKILL);
    if (r->rc == FS_OK)
        r->rc = fs_mpi__shard_close(&sh, msg, cap);
    if (failed(r))
        goto out;
    /* every shard is whole: now they may take their names */
    r->rc = fs_mpi__shard_commit(&sh, msg, cap);
    failed(r);

out:
    if (r->rc != FS_OK)
        fs_mpi__shard_discard(&sh);
    res->t_total = MPI_Wtime() - start_time;
    free(sizes);
    free(sc);
    free(rc);
    free(buf);
    free(send);
    free(recv);
    free(own);
    free(R.own_end);
    if (R.srcfd >= 0)
        close(R.srcfd);
    return r->rc;
}
