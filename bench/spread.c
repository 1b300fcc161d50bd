/* spread.c -- adjacent same-artist pairs on a Zipf-like library with one
 * dominant artist: plain shuffle, Spotify-style dithering (2014: each
 * artist's k songs at positions (j + offset)/k, offset uniform in [0, 1/k),
 * plus a jitter of up to +-10% of 1/k, merged by position), fairshuf's
 * balanced merge (fs_spread_order) and the minimum, 2 max - n - 1.  Also
 * how different two seeds' orders are.  Numbers in docs/playlist.md.
 * Usage: spread [TRIALS [DOMINANT]]   (defaults 2000, 120) */
#include <stdio.h>
#include <stdlib.h>

#include "fairshuf.h"
#include "fairshuf/playlist.h"

/* 300 songs: d by artist 0, the other 300 - d over artists 1..40 with
 * Zipf-like sizes (about (300 - d) / (H_40 k)), at least one each. */
static size_t library(uint64_t *artist, size_t *max, size_t d)
{
    size_t n = 0;
    for (size_t i = 0; i < d; i++)
        artist[n++] = 0;
    double h = 0;
    for (int k = 1; k <= 40; k++)
        h += 1.0 / k;
    size_t rest = 300 - d;
    for (int k = 1; k <= 40 && rest > 0; k++) {
        size_t c = (size_t)((300.0 - d) / (h * k) + 0.5);
        if (c == 0)
            c = 1;
        if (k == 40 || c > rest)
            c = rest;
        for (size_t j = 0; j < c; j++)
            artist[n++] = (uint64_t)k;
        rest -= c;
    }
    *max = d;
    return n;
}

static unsigned adjacent(const uint64_t *artist, const uint64_t *order, size_t n)
{
    unsigned a = 0;
    for (size_t i = 1; i < n; i++)
        a += artist[order[i]] == artist[order[i - 1]];
    return a;
}

static double unit(fs_rng *rng)
{
    return (double)(fs_rng_u64(rng) >> 11) * 0x1p-53;
}

typedef struct pos {
    double p;
    uint64_t item;
} pos;

static int by_p(const void *a, const void *b)
{
    const pos *x = a, *y = b;
    return (x->p > y->p) - (x->p < y->p);
}

static void dither(const uint64_t *artist, size_t n, uint64_t *order, fs_rng *rng)
{
    pos *ps = malloc(n * sizeof *ps);
    uint64_t *idx = malloc(n * sizeof *idx);
    for (uint64_t a = 0; a <= 40; a++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (artist[i] == a)
                idx[k++] = i;
        if (k == 0)
            continue;
        fs_shuffle(idx, k, sizeof *idx, rng);
        double off = unit(rng) / k;
        for (size_t j = 0; j < k; j++) {
            double jit = (unit(rng) - 0.5) * 0.2 / k;
            ps[idx[j]].p = (double)j / k + off + jit;
            ps[idx[j]].item = idx[j];
        }
    }
    qsort(ps, n, sizeof *ps, by_p);
    for (size_t i = 0; i < n; i++)
        order[i] = ps[i].item;
    free(ps);
    free(idx);
}

int main(int argc, char **argv)
{
    int trials = argc > 1 ? atoi(argv[1]) : 2000;
    size_t d = argc > 2 ? (size_t)atoi(argv[2]) : 120;
    if (trials < 1 || d < 1 || d > 260)
        return 2;
    uint64_t artist[300], order[300], other[300];
    size_t max, n = library(artist, &max, d);
    size_t count[41] = {0};
    for (size_t i = 0; i < n; i++)
        count[artist[i]]++;
    double expect = 0;
    for (int a = 0; a <= 40; a++)
        expect += (double)count[a] * (count[a] - 1) / n;
    fs_rng *rng;
    if (fs_rng_new(&rng, "chacha20", "bench spread") != FS_OK)
        return 1;
    double plain = 0, dith = 0, spread = 0, same = 0, same_plain = 0;
    for (int t = 0; t < trials; t++) {
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        fs_shuffle(order, n, sizeof *order, rng);
        plain += adjacent(artist, order, n);
        dither(artist, n, order, rng);
        dith += adjacent(artist, order, n);
        fs_spread_order(artist, n, order, rng);
        spread += adjacent(artist, order, n);
        fs_spread_order(artist, n, other, rng);
        for (size_t i = 0; i < n; i++)
            same += order[i] == other[i];
    }
    for (int t = 0; t < trials; t++) {
        for (size_t i = 0; i < n; i++)
            order[i] = other[i] = i;
        fs_shuffle(order, n, sizeof *order, rng);
        fs_shuffle(other, n, sizeof *other, rng);
        for (size_t i = 0; i < n; i++)
            same_plain += order[i] == other[i];
    }
    printf("library: %zu songs, %d artists, largest %zu; %d trials\n", n, 41, max,
           trials);
    printf("adjacent same-artist pairs (mean):\n");
    printf("  plain shuffle       %6.2f   (expectation sum c(c-1)/n = %.2f)\n",
           plain / trials, expect);
    printf("  dithering           %6.2f\n", dith / trials);
    printf("  balanced merge      %6.2f\n", spread / trials);
    printf("  minimum possible    %6d\n", (int)(2 * max > n + 1 ? 2 * max - n - 1 : 0));
    printf("same item at the same position, two seeds: spread %.2f%%, plain %.2f%%\n",
           100 * same / trials / n, 100 * same_plain / trials / n);
    fs_rng_free(rng);
    return 0;
}
