/* verify.h -- what the parts of `fairshuf verify` share: one "run" is one
 * source of permutations (an algorithm at one n, or an input file) with
 * its tally and test results; the renderers (text, JSON, terminal heat
 * map, SVG, HTML) only read runs. */
#ifndef FS_VERIFY_H
#define FS_VERIFY_H

#include <stdio.h>

#include "fairshuf/stats.h"

enum { EXPECT_UNKNOWN = -1, EXPECT_BIASED = 0, EXPECT_FAIR = 1 };

typedef struct vrun {
    char label[96];        /* algorithm name, or the input file's name */
    int expect;            /* EXPECT_* */
    int cyclic;
    int is_input;
    unsigned n;
    uint64_t trials;
    unsigned tests;        /* requested tests (fs_test bits) */
    char seed[160];        /* seed actually used (empty for input) */
    fs_tally *tally;
    fs_test_result res[FS_TEST_COUNT];
    double adj[FS_TEST_COUNT];  /* Holm-adjusted p, NaN if not run */
    int rejected[FS_TEST_COUNT];
    int biased;            /* any test rejected */
    int inconclusive;      /* no test could run (too few trials...) */
    unsigned side;         /* heat map side (0: none) */
    double *dev, *z;       /* heat map data, side * side */
    uint64_t *orders;      /* how often each order came up (by rank), or
                              NULL when there are more than VERIFY_ORDERS */
    uint64_t norders;
    int sweep;             /* a --swaps run: fs_shuffle_swaps(swaps) */
    uint64_t swaps;
} vrun;

#define VERIFY_ORDERS 720

/* verify_tally.c: counts one permutation in r's tally (and its order, when
 * counted); the status of fs_tally_add (FS_EINVAL: not a permutation). */
int verify_add(vrun *r, const uint32_t *perm);

typedef struct vreport {
    vrun *runs;
    size_t count;
    double alpha;
    size_t family;          /* p-values in the Holm family */
    const char *rng;        /* generator name (NULL for input) */
    const char *seed;       /* the base seed */
    int all_mode;           /* default run over every algorithm */
    int sweep_mode;         /* --swaps=LIST: one run per swap count */
    const fs_rng_info *rinfo; /* the generator (NULL for input) */
    unsigned reach_n;       /* the largest n of the runs */
    int unreachable;        /* a non-cryptographic generator whose seeds
                               reach fewer than reach_n! orders: fails */
    double bias;            /* --bias: the stated single-cell bias (0..1) */
    int ok;                 /* exit condition met (status 0) */
    int status;             /* the exit status: 0, 3 biased, 4 inconclusive */
} vreport;

/* verify_input.c: reads permutations (one per line, or one number per
 * line in runs of `group` -- 0: detect) into a new tally.  Dies with
 * "FILE:LINE: why" on malformed input. */
void verify_read_input(vrun *r, const char *path, unsigned group);

/* verify_text.c: the plain-language lines every view shows (text, JSON,
 * HTML).  verify_where: the strongest evidence of label's bias, "LABEL
 * n=N TEST: CELL: O, expected E (+X%)"; 0 (buf empty) if not biased.
 * verify_power: what the trial count can and cannot see.
 * verify_unreachable: why an unreachable generator fails (empty if not). */
int verify_where(const vreport *rep, const char *label, char *buf, size_t len);
void verify_power(const vreport *rep, char *buf, size_t len);
void verify_unreachable(const vreport *rep, char *buf, size_t len);

/* verify_text.c */
/* --verbose: every statistic and p-value, the worst cells, heat maps. */
void verify_print_text(const vreport *rep, FILE *f, int color);
/* The default view: one verdict per algorithm, one "where" line per
 * biased one, the heat map of a single run; fits 100 columns. */
void verify_print_summary(const vreport *rep, FILE *f, int color);
void verify_print_json(const vreport *rep, FILE *f);
/* The --swaps sweep: per swap count the tests' p-values, and how much more
 * often than 1/n an element stays home, observed and exact. */
void verify_print_sweep(const vreport *rep, FILE *f);
void verify_print_entropy(FILE *f, const fs_rng_info *info, unsigned n);

/* verify_svg.c: 0 on success. */
int verify_write_svg(const vreport *rep, const char *path);
int verify_write_html(const vreport *rep, const char *path);
/* verify_sweep_svg.c: the --swaps sweep as a plot against N; 0 on
 * success. */
int verify_write_sweep_svg(const vreport *rep, const char *path);

/* Colour of a heat-map cell as "#rrggbb": red above 1/n, blue below,
 * neutral grey within noise (|z| < 3). */
void verify_cell_rgb(double dev, double z, double scale, int rgb[3]);
/* The colour scale: the largest |dev| among significant cells (>= 0.05). */
double verify_scale(const vrun *r);

#endif
