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
 * at the same point.  This file: the entry and the paths where nothing
 * moves; the other steps are in lines_read.c,
 * lines_exchange.c, lines_write.c and lines_spill.c (lines_run.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lines/engine.h"
#include "lines_run.h"

/* ------------------------------------------- one FILE, or one rank */

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
        fs_mpi__fail(r, st, "%s: %s", tmp, why);
    else if (st == FS_EIO && lr->where == FS_LINES_TEMP)
        fs_mpi__fail(r, st, "temporary file in %s: %s",
                     r->c->tmpdir ? r->c->tmpdir : "/tmp", why);
    else if (st == FS_ENOMEM)
        fs_mpi__fail(r, st, "memory exhausted (sorting %llu lines)",
                     (unsigned long long)lr->lines);
    else if (st != FS_OK) /* the input, or a bad configuration */
        fs_mpi__fail(r, st, "%s: %s", name, why);
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
        fs_mpi__fail(r, FS_EIO, "%s: %s", name, strerror(errno));
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
            fs_mpi__fail(r, FS_EIO, "%s: %s", name, CHANGED_SLICES);
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
         len + fs__sort_overhead(n, 1) + fs_mpi__out_buf_size(r) > c->memory))
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
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    else
        r->rc = fs_mpi__shard_open(&sh, c->pattern, r->rank, msg, cap);
    if (fs_mpi__failed(r))
        goto out;

    double t0 = MPI_Wtime();
    uint64_t start, end, hend = 0;
    if (fs_mpi__measure(r, sizes) != 0 ||
        fs_mpi__share_bounds(r, &start, &end) != 0)
        goto out;
    /* every rank on one node, one FILE: each writes its key slice */
    int slices = fs_mpi__one_node(
        comm, c->shared && c->nfiles == 1 && !c->csv && !c->local_only &&
                  getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") == NULL);
    if (whole_file(r, slices, start, end, sh.fd, sh.tmp)) {
        if (fs_mpi__failed(r))
            goto out;
        goto close;
    }
    if (c->header > 0) {
        /* --header: rank 0 writes the first lines, which end at hend (a
         * line boundary); the lines before it leave every share, so the
         * numbers (keys) count from the first line after them */
        if (r->rank == 0)
            hend = fs_mpi__copy_header(r, sh.fd, sh.tmp);
        if (fs_mpi__failed(r))
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
        if (len > SIZE_MAX - 2 ||
            (buf = fs_mpi__share_buf((size_t)len + 1)) == NULL)
            ooc = 1;
        else if (!c->csv &&
                 (m = fs_mpi__read_counted(r, start, end, buf, &n)) >= 0) {
            len = (uint64_t)m;
            ooc = c->memory && 2 * len + 40 * n > c->memory;
        } else if (c->csv && (m = fs_mpi__read_lines_at(r, start, end, buf)) >= 0 &&
                   (m = fs_mpi__csv_frame(r, &buf, (size_t)m, end == r->total)) < 0)
            ooc = 1; /* no room for the framed copy */
        else if (m >= 0) {
            len = (uint64_t)m;
            n = fs_lines_count(buf, (size_t)len, r->d);
            ooc = c->memory && 2 * len + 40 * n > c->memory;
        }
    }
    if (fs_mpi__failed(r))
        goto out;
    MPI_Allreduce(&ooc, &any, 1, MPI_INT, MPI_LOR, comm);
    res->t_read = MPI_Wtime() - t0;
    if (any) {
        free(buf);
        buf = NULL;
        if (c->csv) /* the share framed to a temporary file, read from it */
            fs_mpi__csv_frame_share(r, &start, &end);
        if (fs_mpi__failed(r))
            goto out;
        fs_mpi__out_of_core(r, start, end, sh.fd, sh.tmp);
    } else {
        uint64_t first = 0;
        MPI_Exscan(&n, &first, 1, MPI_UINT64_T, MPI_SUM, comm);
        if (r->rank == 0)
            first = 0;
        if (one_rank(r, buf, (size_t)len, n, sh.fd, sh.tmp)) {
            if (fs_mpi__failed(r))
                goto out;
            goto close;
        }
        if (r->P > 1 && !c->local_only &&
            fs_mpi__in_rounds(r, buf, (size_t)len, n, first, sh.fd, sh.tmp)) {
            if (r->rc != FS_OK) /* agreed on already: not again */
                goto out;
            goto close;
        }
        if (fs_mpi__pack(r, buf, (size_t)len, n, first, &send, sc,
                         c->local_only ? UINT64_MAX : c->head, &own, &nown) != 0)
            goto out;
        t0 = MPI_Wtime();
        uint64_t total = 0;
        int st = fs_mpi__exchange(comm, send, sc, &recv, rc, &total);
        if (st != FS_OK) {
            fs_mpi__fail(r, st, "exchange: %s", fs_strerror(st));
            fs_mpi__failed(r);
            goto out;
        }
        free(send);
        send = NULL;
        res->t_exchange = MPI_Wtime() - t0;
        res->received = total - rc[r->rank];
        uint64_t mine = nown + fs_mpi__count_records(r, recv, total, NULL);
        uint64_t lim = fs_mpi__head_limit(r, mine);
        /* test hook (tests/cli/mpi.bats): take this path at any size */
        int force = getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") != NULL;
        if (c->memory && lim > 0 &&
            (len + total + 32 * mine + fs_mpi__out_buf_size(r) > c->memory ||
             force)) {
            /* more arrived than the budget holds (keys fall where they
             * will): bucketed to files and sorted bucket by bucket, as
             * out of core, instead of stopping the job */
            fs_mpi__spill_all(r, own, nown, &buf, (size_t)len, first, &recv,
                              total, sh.fd, sh.tmp, lim);
        } else {
            fs_mpi__sort_write(r, own, nown, buf, (size_t)len, first, recv,
                               total, sh.fd, sh.tmp,
                               "what this rank received", lim);
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
    if (fs_mpi__failed(r))
        goto out;
    /* every shard is whole: now they may take their names */
    r->rc = fs_mpi__shard_commit(&sh, msg, cap);
    fs_mpi__failed(r);

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
