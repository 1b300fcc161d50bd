/* node.c -- whether every rank of the job runs on one node (internal.h):
 * then the input file's pages are in one page cache, which every rank can
 * map, and lines need not be copied between ranks. */
#include "internal.h"

int fs_mpi__one_node(MPI_Comm comm, int want)
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
    /* my node holds all P ranks: then so does every rank's; the wish is
     * agreed on */
    int mine = want && local == P;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}
