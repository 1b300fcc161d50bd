/* lines_write.c -- `fairshuf-mpi lines`, the local sort and the shard:
 * what a rank keeps and receives sorted into the keyed order and written
 * to its shard, cut to its part of -n.  The engine's overview is at the
 * top of lines.c. */
#include <errno.h>
#include <stdlib.h>
#include "lines_run.h"

/* ------------------------------------------------------ sort and write */

static int over_budget(run *r, uint64_t need, const char *what)
{
    if (r->c->memory == 0 || need <= r->c->memory)
        return 0;
    /* in KiB only when --memory is whole KiB ("--memory=0 KiB" for
     * --memory=1 misled) */
    int kib = r->c->memory >= 1024 && r->c->memory % 1024 == 0;
    fs_mpi__fail(r, FS_ENOMEM,
                 "%s needs about %llu %s, more than --memory=%llu %s: use more "
                 "ranks or a larger --memory",
                 what, (unsigned long long)(kib ? (need + 1023) >> 10 : need),
                 kib ? "KiB" : "bytes",
                 (unsigned long long)(kib ? r->c->memory >> 10 : r->c->memory),
                 kib ? "KiB" : "bytes");
    return 1;
}

/* The number of records in rec[0..total); with at != NULL also how many
 * fall in each of pack's own-item groups (at[digit]++). */
uint64_t fs_mpi__count_records(run *r, const unsigned char *rec, uint64_t total,
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

uint64_t fs_mpi__idx_of(const void *ctx, uintptr_t pos)
{
    const where *w = ctx;
    uintptr_t o = (uintptr_t)w->own;
    if (w->own && pos >= o && pos < o + w->own_len)
        return w->first + fs_lines_count(w->own, (size_t)(pos - o), w->d);
    return fs_mpi__get64((const unsigned char *)pos - 8);
}

/* The output buffer: 1 MiB, less in a small budget (at least 4 KiB). */
size_t fs_mpi__out_buf_size(const run *r)
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
            fs_mpi__fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
        *wl = 0;
    }
    if (l > WB) {
        if (r->rc == FS_OK && fs_mpi__write_all(fd, p, l) != 0)
            fs_mpi__fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
    } else {
        memcpy(wb + *wl, p, l);
        *wl += l;
    }
    r->res->bytes_out += l;
}

/* Writes the lines of the first `limit` of the sorted items it[0..n) to
 * fd through wb[0..WB); each line lies in own_buf[0..own_len) or in
 * rec[0..total).  Returns the number written. */
uint64_t fs_mpi__write_items(run *r, const fs_mpi__item *it, size_t n,
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
        fs_mpi__fail(r, FS_EIO, "%s: %s", tmp, strerror(errno));
    r->res->lines_out += n;
    r->res->t_write += MPI_Wtime() - t0;
    return n;
}

/* Sorts this rank's own items (own[0..nown), lines in own_buf[0..own_len),
 * the first numbered own_first; consumed: freed here) with the received
 * records rec[0..total), and
 * writes the lines of the first `limit` of them to fd (nothing, not even
 * the sort, for limit 0).  Returns the number written. */
uint64_t fs_mpi__sort_write(run *r, fs_mpi__item *own, size_t nown,
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
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
        return 0;
    }
    uint64_t nr = fs_mpi__count_records(r, rec, total, at), n = nown + nr;
    double t0 = MPI_Wtime();
    fs_mpi__item *it = own;
    unsigned char *wb = NULL;
    size_t WB = fs_mpi__out_buf_size(r);
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
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (%llu lines received)",
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
                                         r->own_bits, r->c->key, fs_mpi__idx_of, &w)
                  : fs_mpi__sort(it, (size_t)n, r->c->key, fs_mpi__idx_of, &w);
    free(at);
    free(end);
    if (st != FS_OK)
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (sorting %llu lines)",
                     (unsigned long long)n);
    r->res->t_sort += MPI_Wtime() - t0;
    n = fs_mpi__write_items(r, it, (size_t)n, own_buf, own_len, rec, total, wb, WB,
                            fd, tmp, limit);
    free(it);
    free(wb);
    return n;
}

/* Collective: how many of this rank's m lines (a slice of the order,
 * after those of lower ranks) are among the first c->head lines. */
uint64_t fs_mpi__head_limit(run *r, uint64_t m)
{
    uint64_t before = 0;
    MPI_Exscan(&m, &before, 1, MPI_UINT64_T, MPI_SUM, r->comm);
    if (r->rank == 0)
        before = 0;
    if (before >= r->c->head)
        return 0;
    return r->c->head - before < m ? r->c->head - before : m;
}
