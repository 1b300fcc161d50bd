/* keyed.c -- the keyed permutation's speed, old path against new in one
 * run: ns per position through fs_keyed_at()/fs_keyed_inverse() one call
 * at a time (the per-call path, as before the batch call) and through
 * fs_keyed_batch_at()/_inverse() over an array of 2^20 positions, rounds
 * interleaved (A, B, A, B, ...), 5 rounds: medians and min-max of the
 * per-round ratio.  The batch's set-up (its round tables) is timed apart,
 * and the one-shot fs_keyed_at_many() over a whole array includes it.
 * "single" is one position per fs_keyed_batch_at() call through a kept
 * batch (what a caller asking positions one by one can do) against
 * fs_keyed_at().
 * CPU time, so that a loaded machine does not inflate it.  Run by
 * bench/keyed.sh. */
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

enum { CALLS = 1 << 20, RUNS = 5 };

static void show(const char *what, double *v)
{
    qsort(v, RUNS, sizeof v[0], cmp);
    printf(" %s %.1f (%.1f-%.1f)", what, v[RUNS / 2], v[0], v[RUNS - 1]);
}

int main(void)
{
    const uint64_t sizes[] = {1000, 1000000, 100000000ULL, 1000000000ULL,
                              UINT64_MAX};
    const char *names[] = {"1e3", "1e6", "1e8", "1e9", "2^64-1"};
    uint64_t *pos = malloc(CALLS * sizeof *pos), *out = malloc(CALLS * sizeof *out);
    if (pos == NULL || out == NULL)
        return 1;
    printf("ns per position, median (min-max) of %d interleaved rounds of "
           "2^20 positions\n", RUNS);
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        fs_keyed p;
        if (fs_keyed_from_seed(&p, sizes[z], "bench", 0) != FS_OK)
            return 1;
        uint64_t sink = 0, step = sizes[z] / CALLS + 1;
        for (uint64_t i = 0; i < CALLS; i++)
            pos[i] = (i * step) % sizes[z];
        double t0 = now();
        fs_keyed_batch *b;
        if (fs_keyed_batch_new(&b, &p, sizes[z]) != FS_OK)
            return 1;
        double setup = (now() - t0) * 1e3;
        double a_old[RUNS], a_new[RUNS], i_old[RUNS], i_new[RUNS],
            ratio[RUNS], ratio_inv[RUNS], once[RUNS], single[RUNS],
            ratio_single[RUNS];
        for (int r = 0; r < RUNS; r++) {
            double t1 = now();
            for (uint64_t i = 0; i < CALLS; i++)
                sink += fs_keyed_at(&p, pos[i]);
            double t2 = now();
            fs_keyed_batch_at(b, pos, out, CALLS);
            double t3 = now();
            sink += out[CALLS - 1];
            for (uint64_t i = 0; i < CALLS; i++)
                sink += fs_keyed_inverse(&p, pos[i]);
            double t4 = now();
            fs_keyed_batch_inverse(b, pos, out, CALLS);
            double t5 = now();
            sink += out[CALLS - 1];
            fs_keyed_at_many(&p, pos, out, CALLS);
            double t6 = now();
            sink += out[0];
            for (uint64_t i = 0; i < CALLS; i++) {
                uint64_t y;
                fs_keyed_batch_at(b, pos + i, &y, 1);
                sink += y;
            }
            double t7 = now();
            single[r] = (t7 - t6) / CALLS * 1e9;
            a_old[r] = (t2 - t1) / CALLS * 1e9;
            a_new[r] = (t3 - t2) / CALLS * 1e9;
            i_old[r] = (t4 - t3) / CALLS * 1e9;
            i_new[r] = (t5 - t4) / CALLS * 1e9;
            once[r] = (t6 - t5) / CALLS * 1e9;
            ratio[r] = a_old[r] / a_new[r];
            ratio_inv[r] = i_old[r] / i_new[r];
            ratio_single[r] = a_old[r] / single[r];
        }
        printf("n=%-7s rounds %2u, batch set-up %.2f ms:\n ", names[z],
               p.rounds, setup);
        show("at old", a_old);
        show("new", a_new);
        show("old/new", ratio);
        printf("\n ");
        show("inv old", i_old);
        show("new", i_new);
        show("old/new", ratio_inv);
        printf("\n ");
        show("at_many (set-up included)", once);
        printf("\n ");
        show("single via batch", single);
        show("at old/single", ratio_single);
        printf("%s\n", sink == 42 ? " " : "");
        fs_keyed_batch_free(b);
    }
    free(pos);
    free(out);
    return 0;
}
