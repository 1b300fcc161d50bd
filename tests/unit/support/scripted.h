/* scripted.h -- a test generator that replays given words, so that tests
 * can feed a shuffle every possible draw sequence. */
#ifndef FS_TEST_SCRIPTED_H
#define FS_TEST_SCRIPTED_H

#include <stddef.h>
#include <stdint.h>

#include "fairshuf.h"

/* A generator whose stream is the bytes given by scripted_set(); once they
 * run out it yields zeros and sets the sticky error FS_EEOF. */
fs_rng *scripted_new(void);
void scripted_free(fs_rng *rng);
/* Replaces the stream with `len` bytes; resets the error. */
void scripted_set(fs_rng *rng, const void *bytes, size_t len);
/* Bytes not yet consumed. */
size_t scripted_left(const fs_rng *rng);

/* A 64-bit word that fs_below(rng, n) maps to j on the first try (the
 * midpoint of j's interval, far from the rejection zone). */
uint64_t word_for_below(uint64_t j, uint64_t n);
/* A 32-bit word w with (w * n) >> 32 == j (Delphi-style scaling). */
uint32_t word_for_scaled32(uint32_t j, uint32_t n);

/* Lehmer rank of a permutation of 0..n-1 (n <= 12), in [0, n!). */
uint64_t perm_rank(const uint64_t *p, size_t n);
uint64_t factorial(unsigned n);

/* Pearson chi-square of the n! orders (n <= 8) over `trials` shuffles of
 * 0..n-1 by alg, with a generator seeded (rng_name, seed). */
double perm_chi2(fs_algorithm alg, unsigned n, unsigned trials,
                 const char *rng_name, const char *seed);

/* Fixed-seed generator by name; fails the test on error. */
fs_rng *seeded(const char *name, const char *seed);

#endif
