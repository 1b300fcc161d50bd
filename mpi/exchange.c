/* exchange.c -- agreement on failures and the one all-to-all exchange of
 * the distributed shuffle, as point-to-point messages of at most
 * fs_mpi__chunk bytes: MPI counts and displacements are int, so a single
 * MPI_Alltoallv cannot move 2^31 bytes or address past them. */
#include <limits.h>
#include <stdlib.h>

#include "internal.h"

size_t fs_mpi__chunk = (size_t)1 << 30;

int fs_mpi__agree(MPI_Comm comm, int local, int *status)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    /* rank * 64 + code: the minimum names the lowest failing rank */
    int mine = local == FS_OK ? INT_MAX : rank * 64 + (-local & 63), all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all == INT_MAX) {
        *status = FS_OK;
        return -1;
    }
    *status = -(all % 64);
    return all / 64;
}

static uint64_t chunks_of(uint64_t bytes)
{
    return (bytes + fs_mpi__chunk - 1) / fs_mpi__chunk;
}

int fs_mpi__exchange(MPI_Comm comm, const unsigned char *send,
                     const uint64_t *scount, unsigned char **recv,
                     uint64_t *rcount, uint64_t *rtotal)
{
    int P, rank, st;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    MPI_Alltoall(scount, 1, MPI_UINT64_T, rcount, 1, MPI_UINT64_T, comm);
    uint64_t total = 0, nreq = 0;
    for (int s = 0; s < P; s++) {
        total += rcount[s];
        if (s != rank)
            nreq += chunks_of(rcount[s]) + chunks_of(scount[s]);
    }
    unsigned char *r = NULL;
    MPI_Request *req = NULL;
    int rc = FS_OK;
    if (total > SIZE_MAX - 1 || nreq > SIZE_MAX / sizeof *req)
        rc = FS_ERANGE;
    else if ((total && (r = malloc((size_t)total)) == NULL) ||
             (nreq && (req = malloc((size_t)nreq * sizeof *req)) == NULL))
        rc = FS_ENOMEM;
    if (fs_mpi__agree(comm, rc, &st) >= 0) {
        free(r);
        free(req);
        return rc != FS_OK ? rc : st;
    }
    size_t k = 0;
    uint64_t roff = 0, soff = 0;
    for (int s = 0; s < P; s++) { /* receives first, then sends */
        for (uint64_t c = 0; s != rank && c < rcount[s]; c += fs_mpi__chunk) {
            uint64_t m = rcount[s] - c < fs_mpi__chunk ? rcount[s] - c
                                                        : fs_mpi__chunk;
            MPI_Irecv(r + roff + c, (int)m, MPI_BYTE, s, 0, comm, &req[k++]);
        }
        roff += rcount[s];
    }
    roff = 0;
    for (int d = 0; d < P; d++) {
        if (d == rank) {
            uint64_t at = 0;
            for (int s = 0; s < rank; s++)
                at += rcount[s];
            if (scount[d])
                memcpy(r + at, send + soff, (size_t)scount[d]);
        }
        for (uint64_t c = 0; d != rank && c < scount[d]; c += fs_mpi__chunk) {
            uint64_t m = scount[d] - c < fs_mpi__chunk ? scount[d] - c
                                                        : fs_mpi__chunk;
            /* messages of one pair arrive in posting order (MPI's
             * non-overtaking rule), so one tag suffices */
            MPI_Isend(send + soff + c, (int)m, MPI_BYTE, d, 0, comm, &req[k++]);
        }
        soff += scount[d];
    }
    MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE);
    free(req);
    *recv = r;
    *rtotal = total;
    return FS_OK;
}
