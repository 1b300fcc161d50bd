/* lines_spill.c -- `fairshuf-mpi lines` out of core: a share streamed in
 * pieces and what arrives bucketed to temporary files by key, each bucket
 * then sorted and written in key order (split again while over the
 * budget).  The engine's overview is at the top of lines.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "lines_run.h"

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
            fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
        else if ((k->fd[b] = fs_mpi__temp_fd(k->dir)) < 0)
            fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", k->dir,
                         strerror(errno));
    }
}

static void bucket_flush(run *r, buckets *k, int b)
{
    if (r->rc == FS_OK && k->len[b] &&
        fs_mpi__write_all(k->fd[b], k->buf[b], k->len[b]) != 0)
        fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", k->dir,
                     strerror(errno));
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
            fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", k->dir,
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
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
        return 0;
    }
    for (uint64_t p = from; p < to && r->rc == FS_OK;) {
        uint64_t e = to - p < CB ? to : p + CB;
        int64_t m = fs_mpi__read_lines_at(r, p, e, b);
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
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    size_t have = 0; /* bytes in b: whole records, then a partial one */
    for (uint64_t off = 0; r->rc == FS_OK && (off < size || have > 0);) {
        size_t want = size - off < cap - have ? (size_t)(size - off) : cap - have;
        if (fs_mpi__read_temp(r, bfd, off, b + have, want, k->dir) != 0)
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
                fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (a line of over %zu "
                             "bytes)", cap);
                break;
            }
            b = nb;
            cap *= 2;
            continue;
        }
        if (whole == 0 && off == size) { /* cannot happen: whole records */
            fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", k->dir,
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
        fs_mpi__fail(r, FS_EIO, "temporary file in '%s': %s", k->dir,
                     strerror(errno));
}

/* Writes the first `limit` lines (in key order) of the bucket in bfd, of
 * size bytes and n records at split level `level`: loaded and sorted if it
 * fits the budget, else split by the next 6 key bits and each part written
 * in order (a single record, or keys equal to the last bit, that does not
 * fit is the error of fs_mpi__sort_write).  Returns the lines written.  Local. */
static uint64_t drain(run *r, int bfd, uint64_t size, uint64_t n,
                      unsigned level, int fd, const char *tmp, uint64_t limit)
{
    if (size == 0 || limit == 0 || r->rc != FS_OK)
        return 0;
    uint64_t written = 0;
    if (r->c->memory && size + 32 * n + fs_mpi__out_buf_size(r) > r->c->memory &&
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
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    else if (fs_mpi__read_temp(r, bfd, 0, rec, (size_t)size,
                               r->c->tmpdir ? r->c->tmpdir : "/tmp") == 0)
        written = fs_mpi__sort_write(r, NULL, 0, NULL, 0, 0, rec, size, fd, tmp,
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
void fs_mpi__out_of_core(run *r, uint64_t start, uint64_t end, int fd,
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
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    uint64_t pos = start, nrec = 0; /* records received */
    int more = 1;
    while (!fs_mpi__failed(r) && more) {
        size_t len = 0, lines = 0;
        if (pos < end) { /* the next piece: whole lines only */
            uint64_t e = end - pos < piece ? end : pos + piece;
            int64_t m;
            for (;;) {
                if ((m = fs_mpi__read_lines_at(r, pos, e, b)) < 0)
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
                    fs_mpi__fail(r, FS_ENOMEM,
                                 "memory exhausted (a line of over %zu "
                                 "bytes)", cap);
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
        if (fs_mpi__failed(r) ||
            fs_mpi__pack(r, b, len, lines, first, &send, sc, UINT64_MAX, NULL,
                         NULL) != 0)
            break;
        first += lines;
        double t0 = MPI_Wtime();
        uint64_t total = 0;
        int st = fs_mpi__exchange(r->comm, send, sc, &recv, rc, &total);
        free(send);
        if (st != FS_OK) {
            fs_mpi__fail(r, st, "exchange: %s", fs_strerror(st));
            free(recv);
            fs_mpi__failed(r);
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
    uint64_t limit = fs_mpi__head_limit(r, nrec);
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
void fs_mpi__spill_all(run *r, fs_mpi__item *own, size_t nown,
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
