/* keyed.c -- ns per fs_keyed_at() / fs_keyed_inverse() call for a few n
 * (median of 5 runs of 2^20 calls each, one core; CPU time, so that a
 * loaded machine does not inflate it).  Run by bench/keyed.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fairshuf/keyed.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    const uint64_t sizes[] = {1000, 1000000, 1000000000ULL, UINT64_MAX};
    const char *names[] = {"1e3", "1e6", "1e9", "2^64-1"};
    enum { CALLS = 1 << 20, RUNS = 5 };
    printf("%-8s %12s %12s %8s\n", "n", "at ns/call", "inv ns/call", "rounds");
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        fs_keyed p;
        if (fs_keyed_from_seed(&p, sizes[z], "bench", 0) != FS_OK)
            return 1;
        double t_at[RUNS], t_inv[RUNS];
        uint64_t sink = 0, step = sizes[z] / CALLS + 1;
        for (int r = 0; r < RUNS; r++) {
            double t0 = now();
            for (uint64_t i = 0; i < CALLS; i++)
                sink += fs_keyed_at(&p, (i * step) % sizes[z]);
            double t1 = now();
            for (uint64_t i = 0; i < CALLS; i++)
                sink += fs_keyed_inverse(&p, (i * step) % sizes[z]);
            double t2 = now();
            t_at[r] = (t1 - t0) / CALLS * 1e9;
            t_inv[r] = (t2 - t1) / CALLS * 1e9;
        }
        qsort(t_at, RUNS, sizeof t_at[0], cmp);
        qsort(t_inv, RUNS, sizeof t_inv[0], cmp);
        printf("%-8s %12.1f %12.1f %8u%s\n", names[z], t_at[RUNS / 2],
               t_inv[RUNS / 2], p.rounds, sink == 42 ? " " : "");
    }
    return 0;
}
