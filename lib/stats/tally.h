/* tally.h -- the counters behind fs_tally, shared by tally.c (counting)
 * and result.c (statistics). */
#ifndef FS_STATS_TALLY_H
#define FS_STATS_TALLY_H

#include "fairshuf/stats.h"

struct fs_tally {
    unsigned n, tests, side;
    int cyclic;
    uint64_t trials;
    uint64_t noncyclic;   /* cyclic tally: permutations that were not */
    uint64_t *perm;       /* perm_cells Lehmer-rank counters, or NULL */
    size_t perm_cells;
    uint64_t *pos;        /* side x side, row = element (bin) */
    uint32_t *bin_of;     /* element or position -> bin, when binned */
    uint64_t *pairs;      /* n x n, row = a, column = the next b */
    uint64_t *cycles;     /* n + 1 histogram */
    uint64_t *fixed;      /* n + 1 histogram */
    uint64_t inv_sum;
    double inv_sumsq;
    uint32_t *mark;       /* validation stamps */
    uint32_t epoch;
    unsigned char *visited; /* cycle walk */
    uint64_t *bit;        /* Fenwick tree for inversions, n > 64 */
};

#endif
