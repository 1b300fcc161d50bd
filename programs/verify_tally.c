/* verify_tally.c -- counting one permutation into a run of `fairshuf
 * verify`: what verify.c (the library's shuffles) and verify_input.c
 * (permutations read from a file) both feed, so neither calls the other. */
#include <stdlib.h>

#include "cli.h"
#include "verify.h"

int verify_add(vrun *r, const uint32_t *perm)
{
    int rc = fs_tally_add(r->tally, perm);
    if (rc != FS_OK)
        return rc;
    if (r->norders == 0 && r->orders == NULL) { /* first call: decide */
        unsigned pn = r->cyclic ? r->n - 1 : r->n;
        if (pn <= 6) {
            r->norders = fs_factorial(pn);
            r->orders = calloc(r->norders, sizeof *r->orders);
            if (r->orders == NULL)
                cli_die(CLI_FAIL, "memory exhausted");
        } else {
            r->norders = 1; /* decided: not counted */
        }
    }
    if (r->orders) {
        uint64_t rank;
        rc = r->cyclic ? fs_cycle_rank(perm, r->n, &rank)
                       : fs_lehmer_rank(perm, r->n, &rank);
        if (rc == FS_OK && rank < r->norders)
            r->orders[rank]++;
    }
    return FS_OK;
}
