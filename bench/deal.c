/* deal.c -- dealing throughput through the library: deals per second per
 * game and generator on one core (median of 5 runs of ~0.3 s of CPU time
 * each; CPU time, so that other jobs on the machine do not count).
 * Built and run by bench/deal.sh.  Target (issue 4): at least 2,000,000
 * Dou Dizhu deals per second with the default chacha20. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fairshuf/cards.h"
#include "fairshuf/stats.h"

/* CPU time of this thread: "one core" even on a shared machine. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static const char *games[] = {"doudizhu", "holdem", "poker5", "bridge",
                                  "shengji", "mahjong", "blackjack"};
    static const char *rngs[] = {"chacha20", "xoshiro256ss"};
    const char *only = argc > 1 ? argv[1] : NULL;
    static fs_dealer d;
    static fs_deal deal;
    printf("%-10s %-13s %14s %10s\n", "game", "rng", "deals/s", "ns/deal");
    for (size_t g = 0; g < sizeof games / sizeof games[0]; g++) {
        if (only && strcmp(only, games[g]) != 0)
            continue;
        for (size_t r = 0; r < sizeof rngs / sizeof rngs[0]; r++) {
            if (fs_dealer_init(&d, fs_game_find(games[g]), 0, 0,
                               FS_ALG_AUTO) != FS_OK)
                return 1;
            fs_rng *rng;
            /* chacha20 keyed from the OS, as a server runs it. */
            if (fs_rng_new(&rng, rngs[r], r == 0 ? NULL : "bench") != FS_OK)
                return 1;
            double rate[5];
            for (int run = 0; run < 5; run++) {
                unsigned long n = 0;
                double t0 = now(), t;
                do {
                    for (int i = 0; i < 10000; i++)
                        if (fs_dealer_deal(&d, rng, &deal) != FS_OK)
                            return 1;
                    n += 10000;
                    t = now() - t0;
                } while (t < 0.3);
                rate[run] = (double)n / t;
            }
            qsort(rate, 5, sizeof rate[0], cmp);
            printf("%-10s %-13s %14.0f %10.1f\n", games[g], rngs[r], rate[2],
                   1e9 / rate[2]);
            fs_rng_free(rng);
        }
    }
    return 0;
}
