/* vrf.c -- the cost of scheme fairshuf-vrf-1 per hand through the library:
 * fs_vrf_prove, fs_vrf_verify (RFC 9381 TAI on libsodium), and a whole
 * hand (fs_vrf_hand: alpha, proof, deal) and its check (fs_vrf_hand_check:
 * alpha, verify, deal), holdem for 6.  Rounds of N operations; prints the
 * median and min-max microseconds per operation.  bench/vrf.sh runs it;
 * `vrf prove|verify COUNT` runs only that (for valgrind's counts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "fairshuf/vrf.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { ROUNDS = 9, N = 200 };

static void report(const char *what, double *us)
{
    qsort(us, ROUNDS, sizeof *us, cmp);
    printf("%-34s %8.1f us  (min %.1f, max %.1f; %d rounds of %d)\n", what,
           us[ROUNDS / 2], us[0], us[ROUNDS - 1], ROUNDS, N);
}

static fs_vrf_record rec[N];
static fs_dealer dealer;
static fs_deal deal;

int main(int argc, char **argv)
{
    uint8_t sk[32], pk[32], pi[80], beta[64], alpha[64];
    if (fs_vrf_keygen(sk, pk) != FS_OK)
        return 1;
    if (argc > 2) { /* `prove|verify COUNT`, for instruction counts */
        long n = atol(argv[2]);
        int prove = strcmp(argv[1], "prove") == 0;
        memset(alpha, 0, sizeof alpha);
        if (fs_vrf_prove(sk, alpha, 48, pi, NULL) != FS_OK)
            return 1;
        for (long i = 0; i < n; i++)
            if (prove ? fs_vrf_prove(sk, alpha, 48, pi, NULL) != FS_OK
                      : fs_vrf_verify(pk, alpha, 48, pi, beta) != FS_OK)
                return 1;
        return 0;
    }
    double p[ROUNDS], v[ROUNDS], h[ROUNDS], c[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = baseline_now_ns();
        for (int i = 0; i < N; i++) {
            alpha[0] = (uint8_t)i;
            alpha[1] = (uint8_t)r;
            if (fs_vrf_prove(sk, alpha, 48, pi, NULL) != FS_OK)
                return 1;
        }
        double t1 = baseline_now_ns();
        for (int i = 0; i < N; i++)
            if (fs_vrf_verify(pk, alpha, 48, pi, beta) != FS_OK)
                return 1;
        double t2 = baseline_now_ns();
        for (int i = 0; i < N; i++) {
            fs_vrf_record *x = &rec[i];
            memset(x, 0, sizeof *x);
            strcpy(x->table, "t1");
            strcpy(x->game, "holdem");
            x->hand = (uint64_t)(r * N + i);
            x->nseeds = 2;
            strcpy(x->client_seeds[0], "alice");
            strcpy(x->client_seeds[1], "bob");
            if (fs_vrf_hand(sk, x, &dealer, &deal) != FS_OK)
                return 1;
        }
        double t3 = baseline_now_ns();
        for (int i = 0; i < N; i++)
            if (fs_vrf_hand_check(pk, &rec[i], &dealer, &deal, NULL, NULL) !=
                FS_FAIR_HONEST)
                return 1;
        double t4 = baseline_now_ns();
        p[r] = (t1 - t0) / N / 1e3;
        v[r] = (t2 - t1) / N / 1e3;
        h[r] = (t3 - t2) / N / 1e3;
        c[r] = (t4 - t3) / N / 1e3;
    }
    report("fs_vrf_prove", p);
    report("fs_vrf_verify", v);
    report("fs_vrf_hand (prove + deal)", h);
    report("fs_vrf_hand_check (verify + deal)", c);
    return 0;
}
