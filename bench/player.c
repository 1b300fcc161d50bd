/* player.c -- the cost of fs_player (<fairshuf/playlist.h>) at N songs
 * (default 10^6): the median CPU time of one fs_player_next() with the
 * player in memory, the state's size (fs_player_save()), and the median
 * cost of one step as a program that keeps the state in a file pays it
 * (load + set_list + next + save; the CLI also reads and hashes the list),
 * at the start, the middle and the end of a cycle.  Run by
 * bench/player.sh; figures in docs/performance.md.
 * Usage: player [N]   (N >= 4000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fairshuf.h"
#include "fairshuf/playlist.h"

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

static void check(int rc, const char *what)
{
    if (rc != FS_OK) {
        fprintf(stderr, "player: %s: %s\n", what, fs_strerror(rc));
        exit(1);
    }
}

static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmp);
    return v[k / 2];
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    static const uint8_t key[32] = {42}, fp[32] = {7};
    uint64_t *ids = malloc(n * sizeof *ids);
    if (ids == NULL || n < 4000)
        return 1;
    for (size_t i = 0; i < n; i++) /* any distinct ids do */
        ids[i] = i * 0x9E3779B97F4A7C15ull;
    fs_player *p;
    check(fs_player_create(&p, key, FS_PLAYLIST_WINDOW_DEFAULT,
                           FS_PLAYER_PLAIN, 0, NULL), "create");
    check(fs_player_set_list(p, n, ids, fp, NULL, NULL, NULL), "set_list");
    printf("%zu songs, plain keyed order\n", n);
    printf("%-22s %14s %14s %22s\n", "where in the cycle", "next (ns)",
           "state (bytes)", "load+next+save (ms)");
    const uint64_t at[3] = {0, n / 2, n - 1100};
    const char *name[3] = {"start", "middle", "end (n - 1100)"};
    for (int w = 0; w < 3; w++) {
        size_t item;
        if (at[w] > 0)
            check(fs_player_seek(p, at[w], &item), "seek");
        double t[51]; /* 51 batches of 20 calls */
        for (int k = 0; k < 51; k++) {
            double t0 = now();
            for (int j = 0; j < 20; j++)
                check(fs_player_next(p, &item), "next");
            t[k] = (now() - t0) / 20;
        }
        double next_ns = median(t, 51) * 1e9;
        size_t len;
        check(fs_player_save(p, NULL, 0, &len), "save");
        char *text = malloc(len);
        check(fs_player_save(p, text, len, &len), "save");
        double s[5];
        for (int k = 0; k < 5; k++) {
            double t0 = now();
            fs_player *q;
            const char *why;
            size_t l2;
            check(fs_player_load(&q, text, len, &why), "load");
            check(fs_player_set_list(q, n, ids, fp, NULL, NULL, NULL),
                  "set_list");
            check(fs_player_next(q, &item), "next");
            check(fs_player_save(q, NULL, 0, &l2), "save");
            char *out = malloc(l2);
            check(fs_player_save(q, out, l2, &l2), "save");
            free(out);
            fs_player_free(q);
            s[k] = now() - t0;
        }
        printf("%-22s %14.0f %14zu %22.1f\n", name[w], next_ns, len,
               median(s, 5) * 1e3);
        free(text);
    }
    fs_player_free(p);
    free(ids);
    return 0;
}
