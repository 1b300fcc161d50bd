/* counts.c -- one shuffle of n 8-byte elements (the array filled with
 * 0..n-1 first), for bench/counts.sh to run under cachegrind: the counts
 * it gets (instructions, simulated cache misses) do not move with the
 * machine's load, unlike wall time (docs/performance.md "Counts").
 *   counts N RNG REPS [SEED]   REPS shuffles of the array; RNG: default
 *                         (fs_shuffle(..., NULL)), or a generator name
 *                         seeded with SEED
 * counts.sh subtracts the counts of REPS = 1 from REPS = 2: one shuffle,
 * without the process's start, the fill and the exit.
 * Prints the page faults of the run (getrusage) on stderr. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fairshuf.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: counts N default|RNG REPS [SEED]\n");
        return 2;
    }
    size_t n = (size_t)strtod(argv[1], NULL);
    uint64_t *a = malloc(n * sizeof *a);
    if (a == NULL || n == 0)
        return 1;
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    int rc = FS_OK, reps = atoi(argv[3]);
    fs_rng *rng = NULL;
    if (strcmp(argv[2], "default") != 0)
        rc = fs_rng_new(&rng, argv[2], argc > 4 ? argv[4] : "counts");
    for (int r = 0; r < reps && rc == FS_OK; r++)
        rc = fs_shuffle(a, n, sizeof *a, rng);
    fs_rng_free(rng);
    uint64_t sum = 0; /* the shuffle's result is used */
    for (size_t i = 0; i < n; i += 4096)
        sum += a[i];
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr, "faults %ld %ld check %llu\n", ru.ru_minflt, ru.ru_majflt,
            (unsigned long long)(sum & 1));
    free(a);
    return rc == FS_OK ? 0 : 1;
}
