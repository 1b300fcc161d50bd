/* rounds.c -- the exchange in rounds of pieces (internal.h), so that the
 * packing of piece j + 1 overlaps the transfer of piece j: the ranks swap
 * the whole table of per-round byte counts once, then each round is a set
 * of Isend/Irecv of at most fs_mpi__chunk bytes each, progressed by
 * fs_mpi__rounds_test while the caller packs and completed by
 * fs_mpi__rounds_wait. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

size_t fs_mpi__piece = (size_t)4 << 20;

static uint64_t chunks_of(uint64_t bytes)
{
    return (bytes + fs_mpi__chunk - 1) / fs_mpi__chunk;
}

int fs_mpi__rounds_init(fs_mpi__rounds *x, MPI_Comm comm, size_t R)
{
    memset(x, 0, sizeof *x);
    x->comm = comm;
    MPI_Comm_size(comm, &x->P);
    MPI_Comm_rank(comm, &x->rank);
    x->R = R ? R : 1;
    size_t cells = (size_t)x->P * x->R;
    if (x->R > INT_MAX || cells / x->R != (size_t)x->P ||
        cells > SIZE_MAX / 8)
        return FS_ERANGE;
    x->out = calloc(cells, 8);
    x->in = calloc(cells, 8);
    return x->out && x->in ? FS_OK : FS_ENOMEM;
}

int fs_mpi__rounds_counts(fs_mpi__rounds *x)
{
    MPI_Alltoall(x->out, (int)x->R, MPI_UINT64_T, x->in, (int)x->R,
                 MPI_UINT64_T, x->comm);
    uint64_t most = 0; /* requests of the busiest round */
    x->in_max = x->out_max = x->in_total = 0;
    for (size_t j = 0; j < x->R; j++) {
        uint64_t nreq = 0, in = 0, out = 0;
        for (int s = 0; s < x->P; s++) {
            if (s == x->rank)
                continue;
            uint64_t a = x->in[(size_t)s * x->R + j], b = x->out[(size_t)s * x->R + j];
            nreq += chunks_of(a) + chunks_of(b);
            in += a;
            out += b;
        }
        most = nreq > most ? nreq : most;
        x->in_max = in > x->in_max ? in : x->in_max;
        x->out_max = out > x->out_max ? out : x->out_max;
        x->in_total += in;
    }
    if (most > SIZE_MAX / sizeof *x->req || most > INT_MAX)
        return FS_ERANGE;
    x->req = malloc((most ? (size_t)most : 1) * sizeof *x->req);
    return x->req ? FS_OK : FS_ENOMEM;
}

void fs_mpi__rounds_post(fs_mpi__rounds *x, size_t j,
                         const unsigned char *send, unsigned char *recv)
{
    size_t k = 0;
    for (int s = 0; s < x->P; s++) { /* receives first, then sends */
        uint64_t n = s == x->rank ? 0 : x->in[(size_t)s * x->R + j];
        for (uint64_t c = 0; c < n; c += fs_mpi__chunk) {
            uint64_t m = n - c < fs_mpi__chunk ? n - c : fs_mpi__chunk;
            MPI_Irecv(recv + c, (int)m, MPI_BYTE, s, 1, x->comm, &x->req[k++]);
        }
        recv += n;
    }
    for (int d = 0; d < x->P; d++) {
        uint64_t n = d == x->rank ? 0 : x->out[(size_t)d * x->R + j];
        /* one pair's messages arrive in posting order: one tag */
        for (uint64_t c = 0; c < n; c += fs_mpi__chunk) {
            uint64_t m = n - c < fs_mpi__chunk ? n - c : fs_mpi__chunk;
            MPI_Isend(send + c, (int)m, MPI_BYTE, d, 1, x->comm, &x->req[k++]);
        }
        send += n;
    }
    x->nreq = k;
}

void fs_mpi__rounds_test(fs_mpi__rounds *x)
{
    int done;
    if (x->nreq)
        MPI_Testall((int)x->nreq, x->req, &done, MPI_STATUSES_IGNORE);
}

void fs_mpi__rounds_wait(fs_mpi__rounds *x)
{
    if (x->nreq)
        MPI_Waitall((int)x->nreq, x->req, MPI_STATUSES_IGNORE);
    x->nreq = 0;
}

uint64_t fs_mpi__rounds_in(const fs_mpi__rounds *x, size_t j)
{
    uint64_t n = 0;
    for (int s = 0; s < x->P; s++)
        n += s == x->rank ? 0 : x->in[(size_t)s * x->R + j];
    return n;
}

void fs_mpi__rounds_free(fs_mpi__rounds *x)
{
    free(x->out);
    free(x->in);
    free(x->req);
    x->out = x->in = NULL;
    x->req = NULL;
}

int fs_mpi__test_fail_round(int rank, size_t j)
{
    /* test hook (tests/cli/mpi.bats): "R:J" fails rank R in round J */
    const char *e = getenv("FAIRSHUF_MPI_TEST_FAIL_ROUND");
    unsigned long r, k;
    char c;
    return e != NULL && sscanf(e, "%lu:%lu%c", &r, &k, &c) == 2 &&
           r == (unsigned long)rank && k == j;
}
