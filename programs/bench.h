/* bench.h -- what `fairshuf bench`'s measuring (bench.c) and reporting
 * (bench_report.c) share: the options, the rows to measure, the results. */
#ifndef FS_BENCH_H
#define FS_BENCH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "fairshuf.h"

#define BENCH_MAXS 128 /* rows */
#define BENCH_MAXN 32  /* sizes */
#define BENCH_MAXR 16  /* generators */

enum bench_kind { K_MEMCPY, K_STD, K_GSL, K_RIP, K_PLAIN, K_AUTO, K_ALG };

/* The rows every other row is divided by, round by round. */
enum { B_MEMCPY, B_STD, B_GSL, B_RIP, BENCH_NBASE };

typedef struct bench_series {
    enum bench_kind kind;
    char impl[40];
    char rng[24];
    unsigned threads;
    fs_algorithm alg;
    int quadratic;
} bench_series;

/* Median, min and max of a list of figures; ok = 0 if there were none. */
typedef struct bench_stat {
    int ok;
    double med, min, max;
} bench_stat;

typedef struct bench_cell {
    int done;
    bench_stat ns;                 /* ns per element over the runs */
    bench_stat ratio[BENCH_NBASE]; /* per-run ratio to each baseline */
    bench_stat cold;               /* first shuffle / later ones, per run */
    double peak_mib;
} bench_cell;

typedef struct bench_opts {
    size_t sizes[BENCH_MAXN], nsz;
    char *rngs[BENCH_MAXR];
    size_t nrng;
    const char *algs, *svg;
    unsigned threads;
    uint64_t runs, min_ms;
    int json;
    int progress; /* -1 on a terminal, 0 never, 1 always */
    /* external baseline programs (std, gsl, rip); "" when not found */
    char helper[BENCH_NBASE][PATH_MAX];
} bench_opts;

typedef struct bench {
    bench_opts o;
    bench_series s[BENCH_MAXS];
    size_t ns;
    bench_cell res[BENCH_MAXS][BENCH_MAXN];
    char helper_compiler[128];
} bench;

/* bench_report.c: the baselines' names (--baseline=NAME=..., reports). */
extern const char *const bench_base_name[BENCH_NBASE];

/* bench_report.c */
void bench_print_header(const bench *b);
void bench_print_notes(const bench *b, const char *const *notes, size_t k);
void bench_print_text_size(const bench *b, size_t ni);
void bench_print_json(const bench *b);
void bench_write_svg(const bench *b, const char *file);

/* bench_spawn.c: the baselines run from a process forked before any
 * measurement.  start: 0 or -1; run: path with nargs (<= 3) arguments, its
 * stdout in line and its ru_maxrss; 0 if it exited with status 0. */
int bench_spawner_start(void);
int bench_spawn_run(const char *path, const char *const *args, int nargs,
                    char *line, size_t linesz, long *maxrss_kib);
void bench_spawner_stop(void);

#endif
