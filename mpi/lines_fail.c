/* lines_fail.c -- how a step of `fairshuf-mpi lines` fails: a rank keeps
 * its first cause, and every phase ends in an agreement (fs_mpi__failed)
 * so a failure on one rank stops all of them at the same point. */
#include <stdarg.h>
#include <stdio.h>

#include "lines_run.h"

/* Records the first failure of this rank (local). */
void fs_mpi__fail(run *r, int rc, const char *fmt, ...)
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
int fs_mpi__failed(run *r)
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
