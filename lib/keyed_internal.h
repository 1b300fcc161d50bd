/* keyed_internal.h -- what the tests need of keyed.c beyond the API. */
#ifndef FS_KEYED_INTERNAL_H
#define FS_KEYED_INTERNAL_H

#include "fairshuf/keyed.h"

/* fs_keyed_init() with a chosen number of rounds, 1..FS_KEYED_ROUNDS_MAX
 * (0: the library's choice, as fs_keyed_init()).  Fewer than that is a deliberately weakened negative control
 * for the statistical tests; never for real use. */
int fs__keyed_init_rounds(fs_keyed *p, uint64_t n, const uint8_t key[32],
                          unsigned rounds);

/* Round function r of p at x < 2^half (docs/keyed.md §2.4): what
 * keyed_batch.c tabulates. */
uint64_t fs__keyed_round(const fs_keyed *p, unsigned r, uint64_t x);

#endif
