/* shm.c -- MPI-3 shared-memory windows (internal.h): when every rank of
 * the job runs on one node, a rank's share can live in memory that the
 * other ranks read directly, so that lines move by index entries, not by
 * copies of their bytes. */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

int fs_mpi__shm_node(MPI_Comm comm, int want)
{
    int P, local = 0, all = 0;
    MPI_Comm node;
    MPI_Comm_size(comm, &P);
    if (P < 2)
        return 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    /* my node holds all P ranks: then so does every rank's; the wish (an
     * environment variable) is agreed on */
    int mine = want && local == P;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

int fs_mpi__shm_alloc(fs_mpi__shm *w, MPI_Comm comm, size_t bytes)
{
    MPI_Errhandler old;
    MPI_Info info;
    int ok, all = 0;
    w->live = 0;
    w->base = NULL;
    w->comm = comm;
    /* a failure (no room in /dev/shm, say) returns here instead of
     * ending the job: the caller takes the path without windows */
    MPI_Comm_get_errhandler(comm, &old);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Info_create(&info);
    /* each rank's segment on its own pages */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    ok = bytes <= (size_t)PTRDIFF_MAX &&
         MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, comm, &w->base,
                                 &w->win) == MPI_SUCCESS;
    MPI_Info_free(&info);
    MPI_Comm_set_errhandler(comm, old);
    MPI_Errhandler_free(&old);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    if (!all) {
        /* a window that some rank lacks cannot be freed collectively: it
         * is left to MPI_Finalize */
        w->base = NULL;
        return FS_ENOMEM;
    }
    w->live = 1;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win);
    return FS_OK;
}

unsigned char *fs_mpi__shm_of(const fs_mpi__shm *w, int rank, size_t *bytes)
{
    MPI_Aint size = 0;
    int unit;
    void *p = NULL;
    MPI_Win_shared_query(w->win, rank, &size, &unit, &p);
    *bytes = (size_t)size;
    return size ? p : NULL;
}

void fs_mpi__shm_sync(fs_mpi__shm *w)
{
    /* the shared-memory idiom of MPI-3: what this rank stored is
     * visible, then everyone waits, then everyone sees the others' */
    MPI_Win_sync(w->win);
    MPI_Barrier(w->comm);
    MPI_Win_sync(w->win);
}

void fs_mpi__shm_free(fs_mpi__shm *w)
{
    if (!w->live)
        return;
    MPI_Win_unlock_all(w->win);
    MPI_Win_free(&w->win);
    w->live = 0;
    w->base = NULL;
}
