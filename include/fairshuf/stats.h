/*
 * fairshuf/stats.h -- the fairness lab: statistical tests of shuffles.
 *
 * A tally (fs_tally) counts what a stream of permutations of 0..n-1 does:
 * which of the n! orders appear, where each element lands, which element
 * follows which, how many inversions, cycles and fixed points each has.
 * fs_tally_result() turns the counts into a statistic and a p-value under
 * the hypothesis "every permutation is equally likely" (or, for a cyclic
 * tally, "every one of the (n-1)! single-cycle permutations is equally
 * likely", which is what Sattolo's algorithm promises).  p-values come
 * from the library's own chi-square and normal tails below (checked
 * against GSL to 1e-10 relative in the tests).  fs_holm() applies the
 * multiple-testing correction that turns many p-values into one verdict.
 *
 * The library never prints: the CLI (`fairshuf verify`) renders tables,
 * heat maps, SVG and HTML from the numbers given here.
 * docs/verify.md explains each test, its power and the verdict rule.
 */
#ifndef FAIRSHUF_STATS_H
#define FAIRSHUF_STATS_H

#include <fairshuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Distributions (all pure functions, thread safe)
 * ---------------------------------------------------------------------- */

/* Regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 - P,
 * a > 0, x >= 0.  Series for x < a + 1, Lentz continued fraction
 * otherwise, with the prefactor x^a e^-x / Gamma(a) computed through
 * log1p(t) - t and Stirling's correction so that large a (up to ~1e7)
 * keep ~1e-13 relative accuracy.  NaN for arguments out of range.
 * Cost O(sqrt(a)) iterations at worst. */
FS_API double fs_gamma_p(double a, double x);
FS_API double fs_gamma_q(double a, double x);

/* Upper tail of the chi-square distribution with df > 0 degrees of
 * freedom (df need not be an integer): P(X >= x) = Q(df/2, x/2). */
FS_API double fs_chisq_q(double df, double x);

/* Upper tail of the standard normal, P(Z >= z), accurate in both tails. */
FS_API double fs_normal_q(double z);

/* Two-sided normal p-value P(|Z| >= |z|). */
FS_API double fs_normal_p2(double z);

/* log2(n!) (the bits needed to reach every order of n items). */
FS_API double fs_log2_factorial(uint64_t n);

/* n! for n <= 20; 0 when it does not fit in 64 bits. */
FS_API uint64_t fs_factorial(unsigned n);

/* ------------------------------------------------------------------------
 * Lehmer codes: a bijection between the n! permutations and 0..n!-1
 * ---------------------------------------------------------------------- */

/* The lexicographic rank of perm (a permutation of 0..n-1), 1 <= n <= 20.
 * O(n).  FS_EINVAL if perm is not a permutation of 0..n-1 or n is out of
 * range.  The identity has rank 0, the reversal n!-1. */
FS_API int fs_lehmer_rank(const uint32_t *perm, unsigned n, uint64_t *rank);

/* The inverse: writes the permutation of rank `rank` to perm.  FS_EINVAL
 * if n is out of 1..20 or rank >= n!. */
FS_API int fs_lehmer_unrank(uint64_t rank, unsigned n, uint32_t *perm);

/* Rank of a single-cycle permutation (perm[j] is the successor of j) among
 * the (n-1)! cycles, 2 <= n <= 21: the Lehmer rank of the order in which
 * the cycle visits 1..n-1 starting from 0.  FS_EINVAL if perm is not one
 * n-cycle.  fs_cycle_unrank() is its inverse. */
FS_API int fs_cycle_rank(const uint32_t *perm, unsigned n, uint64_t *rank);
FS_API int fs_cycle_unrank(uint64_t rank, unsigned n, uint32_t *perm);

/* ------------------------------------------------------------------------
 * Exact reference distributions of a uniform random permutation of n
 * ---------------------------------------------------------------------- */

/* prob[k] = P(exactly k cycles) = c(n,k)/n! (unsigned Stirling numbers
 * of the first kind), k = 0..n.  prob has n+1 entries.  O(n^2). */
FS_API int fs_dist_cycles(unsigned n, double *prob);

/* prob[k] = P(exactly k fixed points) = C(n,k) D(n-k)/n! (rencontres
 * numbers), k = 0..n.  prob has n+1 entries.  O(n). */
FS_API int fs_dist_fixed_points(unsigned n, double *prob);

/* Mean n(n-1)/4 and variance n(n-1)(2n+5)/72 of the inversion count. */
FS_API void fs_inversion_moments(uint64_t n, double *mean, double *var);

/* ------------------------------------------------------------------------
 * Tests
 * ---------------------------------------------------------------------- */
typedef enum fs_test {
    FS_TEST_PERM = 1,        /* chi-square over all n! orders (n <= 10) */
    FS_TEST_POSITION = 2,    /* element x position matrix */
    FS_TEST_PAIRS = 4,       /* successor pairs: a immediately before b */
    FS_TEST_INVERSIONS = 8,  /* inversion count: z against exact moments */
    FS_TEST_CYCLES = 16,     /* number of cycles: chi-square, exact dist. */
    FS_TEST_FIXED = 32,      /* number of fixed points: chi-square, exact */
    FS_TEST_MAXCELL = 64,    /* the one most extreme position cell, corrected */
    FS_TEST_ALL = 127
} fs_test;

#define FS_TEST_COUNT 7

/* Name of one test ("perm", "position", "pairs", "inversions", "cycles",
 * "fixed-points", "max-cell"); NULL for anything else.  fs_test_find() is the inverse
 * (0 if unknown); fs_test_at(i), i < FS_TEST_COUNT, lists them in order. */
FS_API const char *fs_test_name(fs_test t);
FS_API fs_test fs_test_find(const char *name);
FS_API fs_test fs_test_at(unsigned i);

/* Largest n for which the perm test runs (n! cells). */
#define FS_PERM_MAX_N 10
/* Beyond this n the position matrix is binned into FS_POSITION_BINS x
 * FS_POSITION_BINS groups of consecutive elements and positions, and the
 * pairs test does not run (its n(n-1) cells would be mostly empty). */
#define FS_MATRIX_MAX_N 64
#define FS_POSITION_BINS 16

typedef struct fs_tally fs_tally;

/* Creates a tally for permutations of 0..n-1 (n >= 2), counting what
 * `tests` (an OR of fs_test) need.  cyclic = 1: the permutations are
 * expected to be uniform single cycles (Sattolo); the perm test then runs
 * over the (n-1)! cycles (n <= FS_PERM_MAX_N + 1), position over the
 * n(n-1) off-diagonal cells, and cycles/fixed-points check that every
 * permutation has exactly one cycle and none; pairs and inversions do not
 * apply.  Errors: FS_EINVAL (n < 2, n > 2^31), FS_ENOMEM.
 * Memory: n! counters for perm, about 3 n^2 (or bins^2) otherwise. */
FS_API int fs_tally_new(fs_tally **out, unsigned n, unsigned tests, int cyclic);
FS_API void fs_tally_free(fs_tally *t);

/* Adds one permutation: perm[j] is the element at position j.  O(n) (O(n
 * log n) with the inversions test).  FS_EINVAL, and nothing counted, if
 * perm is not a permutation of 0..n-1 (or, for a cyclic tally with the
 * perm test, not a single cycle: that is counted as a failure instead,
 * see fs_tally_result()). */
FS_API int fs_tally_add(fs_tally *t, const uint32_t *perm);

/* Adds another tally with the same n, tests and cyclic flag (for threads).
 * FS_EINVAL if they differ. */
FS_API int fs_tally_merge(fs_tally *into, const fs_tally *from);

FS_API uint64_t fs_tally_trials(const fs_tally *t);
FS_API unsigned fs_tally_n(const fs_tally *t);

/* One cell of a test's table, for "where is the bias". */
typedef struct fs_cell {
    long long row, col;  /* perm: row = rank (col = -1); position: element
                            (or element bin), position (bin); pairs: a, b;
                            cycles/fixed-points: row = the count (col = -1) */
    double observed, expected;
    double z;            /* (observed - expected) / sqrt(expected) */
} fs_cell;

#define FS_WORST_CELLS 3

typedef struct fs_test_result {
    fs_test test;
    int applicable;      /* 0: not run; `why` says why */
    const char *why;     /* static text when applicable == 0 */
    int normal;          /* 1: statistic is a z score; 0: chi-square */
    double statistic;    /* chi-square (scaled, see df) or z */
    double df;           /* degrees of freedom (may be fractional) */
    double p;            /* p-value under uniformity */
    unsigned bins;       /* position: the matrix side (n, or bins) */
    unsigned nworst;     /* entries of worst[] filled, largest |z| first */
    fs_cell worst[FS_WORST_CELLS];
} fs_test_result;

/* Computes one test.  Never fails for a valid tally and one counted test:
 * a test that cannot run (n too large, too few trials, not counted) comes
 * back with applicable = 0 and a reason.  Chi-square tests need every
 * expected count >= 5 (sparse classes of the cycles and fixed-points
 * distributions are pooled first).  position and pairs cells are not
 * independent (each permutation fills every row); their Pearson sums are
 * matched on their exact first two moments to a scaled chi-square
 * (Satterthwaite): for the plain position matrix this is exact, stat x
 * (n-1)/n ~ chi-square with (n-1)^2 df.  docs/verify.md derives each. */
FS_API int fs_tally_result(const fs_tally *t, fs_test test, fs_test_result *out);

/* The max-cell test (FS_TEST_MAXCELL) looks at the position matrix's one
 * cell of largest |z|, z = (o - e) / sd with the cell's exact null
 * standard deviation (per permutation a cell's count is hypergeometric:
 * var = c (r/n) (1 - r/n) (n - c)/(n - 1) for a bin of r elements and c
 * positions; Bernoulli(1/n) unbinned).  Its p-value is that cell's
 * two-sided normal p times the number of cells m (Bonferroni, valid
 * whatever the dependence between cells), capped at 1.  The chi-square
 * position test spreads one bad cell over (n-1)^2 degrees of freedom;
 * this test does not: it sees a single extreme cell ~sqrt(df) times
 * sooner.  Needs 5 expected per cell, as position does.
 *
 * Its power, for verdicts to state (alpha: the family-wise rate; family:
 * the size of the Holm family the test is in, so the worst-case threshold
 * alpha / family is used; power 90%): the model is "one element is put
 * on one position in a fraction eps of the shuffles, fair otherwise" (a
 * cell of probability p = 1/n moves to p + eps (1 - p)).
 * fs_maxcell_detectable: the smallest eps that `trials` shuffles of n
 * detect; fs_maxcell_trials: the shuffles needed to detect eps.  NaN for
 * n < 2, n > FS_MATRIX_MAX_N (binned cells), trials == 0, eps outside
 * (0, 1], alpha outside (0, 1). */
FS_API double fs_maxcell_detectable(unsigned n, uint64_t trials, double alpha,
                                    size_t family);
FS_API double fs_maxcell_trials(unsigned n, double eps, double alpha,
                                size_t family);

/* Heat-map data: the position matrix as relative deviation from uniform,
 * dev[r * side + c] = observed / expected - 1 for element (bin) r at
 * position (bin) c, and z[r * side + c] its standardized residual (either
 * may be NULL).  *side receives n, or FS_POSITION_BINS when binned.  Both
 * arrays need side * side entries (at most FS_MATRIX_MAX_N^2).  Cells that
 * cannot occur (the diagonal of a cyclic tally) get dev = z = 0.
 * FS_EINVAL if the tally does not count positions or has no trials. */
FS_API int fs_tally_heatmap(const fs_tally *t, double *dev, double *z,
                     unsigned *side);

/* The first element of each position/element bin: bins are
 * [fs_tally_bin_start(t, b), fs_tally_bin_start(t, b + 1)). */
FS_API unsigned fs_tally_bin_start(const fs_tally *t, unsigned b);

/* ------------------------------------------------------------------------
 * Multiple testing
 * ---------------------------------------------------------------------- */

/* Holm's step-down procedure over k p-values at family-wise error rate
 * alpha: reject[i] = 1 for the rejected hypotheses.  Controls the chance
 * of any false "BIASED" at alpha whatever the dependence between the
 * tests; never rejects less than Bonferroni (p <= alpha/m).  NaN p-values
 * (tests that did not run) are never rejected and not counted in m, the
 * family size.  FS_EINVAL for alpha outside (0, 1) or NULL arrays
 * with k > 0; FS_ENOMEM. */
FS_API int fs_holm(const double *p, size_t k, double alpha, int *reject);

/* Holm-adjusted p-values (the smallest alpha at which each is rejected),
 * same errors. */
FS_API int fs_holm_adjust(const double *p, size_t k, double *adjusted);

/* ------------------------------------------------------------------------
 * Demonstration shuffles (biased on purpose; they show what each test sees)
 * ---------------------------------------------------------------------- */
typedef enum fs_demo_shuffle {
    /* Cut the deck at a uniform point (a rotation by a uniform offset):
     * every element is equally likely at every position -- the position
     * matrix is exactly flat -- but neighbours stay neighbours, so the
     * pairs test and the perm test see it at once. */
    FS_DEMO_CUT = 1,
    /* Deal every s-th card from a random start: out[j] = (s*j + b) mod n
     * with s uniform over 1..n-1 coprime to n (drawn by rejection) and b
     * uniform in 0..n-1.  The position matrix is flat for any n; for prime
     * n the successor-pair matrix is exactly flat too (this is "rotate by
     * a random offset" made harder to catch).  Only n phi(n) of the n!
     * orders occur, which the perm test sees. */
    FS_DEMO_STRIDE = 2
} fs_demo_shuffle;

/* Name ("cut", "stride-rotate") and inverse lookup (0 if unknown). */
FS_API const char *fs_demo_name(fs_demo_shuffle d);
FS_API fs_demo_shuffle fs_demo_find(const char *name);

/* Writes a permutation of 0..n-1 made by demo d to out (n >= 1), drawing
 * from rng (NULL: the thread default).  FS_EINVAL for an unknown d or
 * NULL out, else the generator's sticky error. */
FS_API int fs_demo_permutation(fs_demo_shuffle d, uint32_t *out, unsigned n,
                        fs_rng *rng);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_STATS_H */
