/* perm_lazy.h -- `fairshuf perm N --lazy`: the keyed permutation
 * (<fairshuf/keyed.h>) one position at a time, in O(1) memory. */
#ifndef FS_PERM_LAZY_H
#define FS_PERM_LAZY_H

#include <stdint.h>

typedef struct perm_lazy_opts {
    int lazy;              /* --lazy, or implied by at/inverse/range */
    const char *at;        /* --at=I: the item at position I */
    const char *inverse;   /* --inverse=J: the position of item J */
    const char *range;     /* --range=A-B: positions A..B */
} perm_lazy_opts;

/* Runs the lazy mode for the operand n_text, `count` permutations (epochs
 * 0..count-1 of the seed; NULL seed: a key from the OS).  Exits on error
 * with the CLI's statuses; returns CLI_OK. */
int perm_lazy_run(const perm_lazy_opts *o, const char *n_text, uint64_t count,
                  const char *seed, int one_based);

#endif
