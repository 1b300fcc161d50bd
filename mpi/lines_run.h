/* lines_run.h -- what the pieces of `fairshuf-mpi lines` share: one run's
 * state and the steps lines.c calls in turn.  The files, by purpose:
 *   lines.c           the entry (fs_mpi__lines), one FILE or one rank
 *   lines_fail.c      a rank's failure, and the agreement on it
 *   lines_read.c      read and cut: sizes, shares, reading, --header, --csv
 *   lines_exchange.c  keys and records, the exchange (once, or in rounds)
 *   lines_write.c     the local sort and the shard's lines, -n
 *   lines_spill.c     out of core: buckets on temporary files
 * Each function's contract is above its definition.  "Collective": every
 * rank calls it; "local": no communication. */
#ifndef FS_MPI_LINES_RUN_H
#define FS_MPI_LINES_RUN_H

#include <stdint.h>
#include <string.h>

#include "fairshuf/lines.h"
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

/* Where the sort finds a tied line's global index: an own line's by
 * counting the lines before it in the share (ties are rare: about
 * n^2/2^65), a received one's in its record's head. */
typedef struct where {
    const unsigned char *own;
    size_t own_len;
    uint64_t first;
    unsigned char d;
} where;

/* lines_fail.c: failing.  fail keeps this rank's first cause (local); failed
 * (collective) is 1 when any rank failed, with the lowest failing rank's
 * message on every rank. */
void fs_mpi__fail(run *r, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int fs_mpi__failed(run *r);

/* lines_read.c */
int fs_mpi__measure(run *r, uint64_t *sizes);
int fs_mpi__share_bounds(run *r, uint64_t *start, uint64_t *end);
int64_t fs_mpi__read_lines_at(run *r, uint64_t from, uint64_t to,
                              unsigned char *b);
int64_t fs_mpi__read_counted(run *r, uint64_t from, uint64_t to,
                             unsigned char *b, uint64_t *n);
uint64_t fs_mpi__copy_header(run *r, int fd, const char *tmp);
int fs_mpi__temp_fd(const char *dir);
int fs_mpi__read_temp(run *r, int fd, uint64_t off, unsigned char *dst,
                      size_t n, const char *dir);
int64_t fs_mpi__csv_frame(run *r, unsigned char **b, size_t n, int fin);
void fs_mpi__csv_frame_share(run *r, uint64_t *start, uint64_t *end);

/* lines_exchange.c */
int fs_mpi__pack(run *r, const unsigned char *buf, size_t len, uint64_t n,
                 uint64_t first, unsigned char **send, uint64_t *scount,
                 uint64_t head, fs_mpi__item **own, size_t *nown);
unsigned char *fs_mpi__share_buf(size_t n);
int fs_mpi__in_rounds(run *r, const unsigned char *buf, size_t len,
                      uint64_t n, uint64_t first, int fd, const char *tmp);

/* lines_write.c */
uint64_t fs_mpi__count_records(run *r, const unsigned char *rec,
                               uint64_t total, size_t *at);
uint64_t fs_mpi__idx_of(const void *ctx, uintptr_t pos);
size_t fs_mpi__out_buf_size(const run *r);
uint64_t fs_mpi__write_items(run *r, const fs_mpi__item *it, size_t n,
                             const unsigned char *own_buf, size_t own_len,
                             const unsigned char *rec, uint64_t total,
                             unsigned char *wb, size_t WB, int fd,
                             const char *tmp, uint64_t limit);
uint64_t fs_mpi__sort_write(run *r, fs_mpi__item *own, size_t nown,
                            const unsigned char *own_buf, size_t own_len,
                            uint64_t own_first, const unsigned char *rec,
                            uint64_t total, int fd, const char *tmp,
                            const char *what, uint64_t limit);
uint64_t fs_mpi__head_limit(run *r, uint64_t m);

/* lines_spill.c */
void fs_mpi__out_of_core(run *r, uint64_t start, uint64_t end, int fd,
                         const char *tmp);
void fs_mpi__spill_all(run *r, fs_mpi__item *own, size_t nown,
                       unsigned char **bufp, size_t own_len, uint64_t first,
                       unsigned char **recv, uint64_t total, int fd,
                       const char *tmp, uint64_t limit);

#endif /* FS_MPI_LINES_RUN_H */
