/* result.c -- from counts to statistics and p-values (fs_tally_result),
 * and the heat-map data.  docs/verify.md derives the moment formulas. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

#define MIN_EXPECTED 5.0

static const char *const names[FS_TEST_COUNT] = {
    "perm", "position", "pairs", "inversions", "cycles", "fixed-points",
    "max-cell"};

fs_test fs_test_at(unsigned i)
{
    return i < FS_TEST_COUNT ? (fs_test)(1u << i) : 0;
}

const char *fs_test_name(fs_test t)
{
    for (unsigned i = 0; i < FS_TEST_COUNT; i++)
        if (t == fs_test_at(i))
            return names[i];
    return NULL;
}

fs_test fs_test_find(const char *name)
{
    for (unsigned i = 0; name && i < FS_TEST_COUNT; i++)
        if (strcmp(name, names[i]) == 0)
            return fs_test_at(i);
    return 0;
}

/* Keeps the FS_WORST_CELLS cells of largest |z|, largest first. */
static void note_cell(fs_test_result *r, long long row, long long col,
                      double o, double e)
{
    double z = (o - e) / sqrt(e);
    unsigned k = r->nworst;
    if (k == FS_WORST_CELLS) {
        if (fabs(z) <= fabs(r->worst[k - 1].z))
            return;
        k--;
    } else {
        r->nworst++;
    }
    while (k > 0 && fabs(r->worst[k - 1].z) < fabs(z)) {
        r->worst[k] = r->worst[k - 1];
        k--;
    }
    r->worst[k] = (fs_cell){row, col, o, e, z};
}

static int not_run(fs_test_result *r, const char *why)
{
    r->applicable = 0;
    r->why = why;
    r->p = NAN;
    r->statistic = NAN;
    return FS_OK;
}

/* A Pearson sum S whose null distribution has mean mu and variance
 * 2 * tr2 is reported as S / c ~ chi-square(nu), c = tr2 / mu,
 * nu = mu^2 / tr2 (Satterthwaite; exact when all weights are equal). */
static void scaled_chisq(fs_test_result *r, double s, double mu, double tr2)
{
    double c = tr2 / mu;
    r->statistic = s / c;
    r->df = mu * mu / tr2;
    r->p = fs_chisq_q(r->df, r->statistic);
}

static int perm_test(const fs_tally *t, fs_test_result *r)
{
    if (t->perm == NULL)
        return not_run(r, t->cyclic ? "n - 1 > 10: (n-1)! cells too many"
                                    : "n > 10: n! cells too many");
    double e = (double)(t->trials - t->noncyclic) / (double)t->perm_cells;
    if (t->noncyclic > 0) {
        /* Under the hypothesis no non-cycle can occur at all. */
        r->statistic = INFINITY;
        r->df = (double)t->perm_cells - 1;
        r->p = 0;
        note_cell(r, -1, -1, (double)t->noncyclic, 0.0 + 1e-300);
        return FS_OK;
    }
    if (e < MIN_EXPECTED)
        return not_run(r, "too few trials (need 5 per order)");
    double s = 0;
    for (size_t i = 0; i < t->perm_cells; i++) {
        double d = (double)t->perm[i] - e;
        s += d * d;
        note_cell(r, (long long)i, -1, (double)t->perm[i], e);
    }
    r->statistic = s / e;
    r->df = (double)t->perm_cells - 1;
    r->p = fs_chisq_q(r->df, r->statistic);
    return FS_OK;
}

/* Expected count of cell (row bin g, column bin h) of the position matrix. */
static double pos_expected(const fs_tally *t, unsigned g, unsigned h)
{
    double n = t->n, T = (double)t->trials;
    if (t->cyclic)
        return g == h ? 0 : T / (n - 1);
    double rg = fs_tally_bin_start(t, g + 1) - fs_tally_bin_start(t, g);
    double ch = fs_tally_bin_start(t, h + 1) - fs_tally_bin_start(t, h);
    return T * rg * ch / n;
}

static int position_test(const fs_tally *t, fs_test_result *r)
{
    double n = t->n;
    unsigned s = t->side;
    r->bins = s;
    if (t->cyclic && (s != t->n || t->n < 3))
        return not_run(r, t->n < 3 ? "n < 3: only one cycle"
                                   : "cyclic and n > 64");
    double emin = INFINITY;
    for (unsigned g = 0; g < s; g++)
        for (unsigned h = 0; h < s; h++) {
            double e = pos_expected(t, g, h);
            if (e > 0 && e < emin)
                emin = e;
        }
    if (emin < MIN_EXPECTED)
        return not_run(r, "too few trials (need 5 per cell)");
    double sum = 0;
    uint64_t impossible = 0;
    for (unsigned g = 0; g < s; g++)
        for (unsigned h = 0; h < s; h++) {
            double o = (double)t->pos[(size_t)g * s + h];
            double e = pos_expected(t, g, h);
            if (e == 0) {
                impossible += (uint64_t)o;
                continue;
            }
            sum += (o - e) * (o - e) / e;
            note_cell(r, g, h, o, e);
        }
    if (impossible) {
        r->statistic = INFINITY;
        r->df = n * (n - 2);
        r->p = 0;
        return FS_OK;
    }
    if (!t->cyclic) {
        /* Each permutation is a contingency table with fixed margins:
         * E[S] = n/(n-1) (B-1)^2 and S (n-1)/n ~ chi-square((B-1)^2). */
        double b = s - 1;
        scaled_chisq(r, sum, n / (n - 1) * b * b, n * n / ((n - 1) * (n - 1)) * b * b);
    } else {
        double mu = n * (n - 2);
        double tr2 = n / (n - 1) *
                     ((n - 2) * (n - 2) + 2 * n - 3 + (n - 1) / (n - 2));
        scaled_chisq(r, sum, mu, tr2);
    }
    return FS_OK;
}

/* The null standard deviation of cell (g, h)'s count over T trials. */
static double pos_sd(const fs_tally *t, unsigned g, unsigned h)
{
    double n = t->n, T = (double)t->trials;
    if (t->cyclic) {
        double p = 1 / (n - 1);
        return sqrt(T * p * (1 - p));
    }
    double rg = fs_tally_bin_start(t, g + 1) - fs_tally_bin_start(t, g);
    double ch = fs_tally_bin_start(t, h + 1) - fs_tally_bin_start(t, h);
    return sqrt(T * ch * (rg / n) * (1 - rg / n) * (n - ch) / (n - 1));
}

static int maxcell_test(const fs_tally *t, fs_test_result *r)
{
    unsigned s = t->side;
    r->bins = s;
    if (t->pos == NULL)
        return not_run(r, "not requested");
    if (t->cyclic && (s != t->n || t->n < 3))
        return not_run(r, t->n < 3 ? "n < 3: only one cycle"
                                   : "cyclic and n > 64");
    double zmax = 0, m = 0;
    for (unsigned g = 0; g < s; g++)
        for (unsigned h = 0; h < s; h++) {
            double e = pos_expected(t, g, h);
            if (e == 0)
                continue;
            if (e < MIN_EXPECTED)
                return not_run(r, "too few trials (need 5 per cell)");
            double o = (double)t->pos[(size_t)g * s + h];
            double sd = pos_sd(t, g, h);
            double z = sd > 0 ? (o - e) / sd : 0;
            m++;
            if (fabs(z) > fabs(zmax))
                zmax = z;
            note_cell(r, g, h, o, e);
        }
    for (unsigned k = 0; k < r->nworst; k++) /* report the exact z */
        r->worst[k].z = (r->worst[k].observed - r->worst[k].expected) /
                        pos_sd(t, (unsigned)r->worst[k].row,
                               (unsigned)r->worst[k].col);
    r->normal = 1;
    r->statistic = zmax;
    r->df = m; /* the number of cells the maximum is over */
    double p = m * fs_normal_p2(zmax);
    r->p = p < 1 ? p : 1;
    return FS_OK;
}

/* The two-sided critical z at level a: P(|Z| >= z) = a (bisection). */
static double z_two_sided(double a)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (fs_normal_p2(mid) > a)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

#define MAXCELL_POWER_Z 1.2815515655446004 /* 90% power: Q(z) = 0.1 */

/* z_crit + z_power for the max-cell test of n at (alpha, family). */
static double maxcell_zsum(unsigned n, double alpha, size_t family)
{
    double m = (double)n * n;
    return z_two_sided(alpha / (double)(family ? family : 1) / m) +
           MAXCELL_POWER_Z;
}

double fs_maxcell_detectable(unsigned n, uint64_t trials, double alpha,
                             size_t family)
{
    if (n < 2 || n > FS_MATRIX_MAX_N || trials == 0 ||
        !(alpha > 0 && alpha < 1))
        return NAN;
    double p = 1.0 / n;
    double eps = maxcell_zsum(n, alpha, family) *
                 sqrt(p * (1 - p) / (double)trials) / (1 - p);
    return eps < 1 ? eps : 1;
}

double fs_maxcell_trials(unsigned n, double eps, double alpha, size_t family)
{
    if (n < 2 || n > FS_MATRIX_MAX_N || !(eps > 0 && eps <= 1) ||
        !(alpha > 0 && alpha < 1))
        return NAN;
    double p = 1.0 / n, zs = maxcell_zsum(n, alpha, family);
    return ceil(zs * zs * p / (1 - p) / (eps * eps));
}

static int pairs_test(const fs_tally *t, fs_test_result *r)
{
    if (t->cyclic)
        return not_run(r, "not defined for cyclic permutations");
    if (t->pairs == NULL)
        return not_run(r, "n > 64: n(n-1) cells too many");
    double n = t->n, e = (double)t->trials / n;
    if (e < MIN_EXPECTED)
        return not_run(r, "too few trials (need 5 per pair)");
    double sum = 0;
    for (unsigned a = 0; a < t->n; a++)
        for (unsigned b = 0; b < t->n; b++) {
            if (a == b)
                continue;
            double o = (double)t->pairs[(size_t)a * t->n + b];
            sum += (o - e) * (o - e) / e;
            note_cell(r, a, b, o, e);
        }
    /* Exact moments of the Pearson sum over the n(n-1) pair cells:
     * mean (n-1)^2, variance 2 (n^2 - n - 1). */
    scaled_chisq(r, sum, (n - 1) * (n - 1), n * n - n - 1);
    return FS_OK;
}

static int inversions_test(const fs_tally *t, fs_test_result *r)
{
    if (t->cyclic)
        return not_run(r, "not defined for cyclic permutations");
    if (t->trials < 30)
        return not_run(r, "too few trials (need 30)");
    double mean, var, T = (double)t->trials;
    fs_inversion_moments(t->n, &mean, &var);
    r->normal = 1;
    r->statistic = ((double)t->inv_sum - T * mean) / sqrt(T * var);
    r->df = 0;
    r->p = fs_normal_p2(r->statistic);
    return FS_OK;
}

/* Chi-square of a histogram h[0..n] against probabilities prob[0..n],
 * classes pooled left to right until each expects >= 5 (a short last
 * class joins the one before). */
static int histogram_test(const fs_tally *t, const uint64_t *h,
                          const double *prob, fs_test_result *r)
{
    double T = (double)t->trials;
    unsigned n = t->n;
    double sum = 0;
    unsigned groups = 0;
    unsigned k = 0;
    double last_o = 0, last_e = 0;
    unsigned last_lo = 0, last_hi = 0;
    int have_last = 0;
    while (k <= n) {
        double o = 0, e = 0;
        unsigned lo = k;
        while (k <= n && e < MIN_EXPECTED) {
            o += (double)h[k];
            e += T * prob[k];
            k++;
        }
        if (e < MIN_EXPECTED && have_last) {
            /* short tail: merge with the previous class */
            o += last_o;
            e += last_e;
            lo = last_lo;
            have_last = 0;
            groups--;
        }
        if (have_last) {
            sum += (last_o - last_e) * (last_o - last_e) / last_e;
            note_cell(r, last_lo, last_hi, last_o, last_e);
        }
        last_o = o, last_e = e, last_lo = lo, last_hi = k - 1;
        have_last = 1;
        groups++;
    }
    if (have_last && last_e > 0) {
        sum += (last_o - last_e) * (last_o - last_e) / last_e;
        note_cell(r, last_lo, last_hi, last_o, last_e);
    }
    if (groups < 2)
        return not_run(r, "too few trials (fewer than 2 classes)");
    /* Observations where the exact probability is 0 are impossible. */
    for (unsigned i = 0; i <= n; i++)
        if (h[i] && prob[i] == 0) {
            r->statistic = INFINITY;
            r->df = groups - 1;
            r->p = 0;
            return FS_OK;
        }
    r->statistic = sum;
    r->df = groups - 1;
    r->p = fs_chisq_q(r->df, sum);
    return FS_OK;
}

/* Cyclic tallies: exactly one cycle and no fixed point, always. */
static int degenerate_test(const fs_tally *t, const uint64_t *h,
                           unsigned expect, fs_test_result *r)
{
    uint64_t bad = t->trials - h[expect];
    r->statistic = (double)bad;
    r->df = 0;
    r->p = bad ? 0 : 1;
    if (bad)
        for (unsigned i = 0; i <= t->n; i++)
            if (i != expect && h[i])
                note_cell(r, i, i, (double)h[i], 1e-300);
    return FS_OK;
}

static int cycles_fixed(const fs_tally *t, fs_test test, fs_test_result *r)
{
    const uint64_t *h = test == FS_TEST_CYCLES ? t->cycles : t->fixed;
    if (t->trials == 0)
        return not_run(r, "no trials");
    if (t->cyclic)
        return degenerate_test(t, h, test == FS_TEST_CYCLES ? 1 : 0, r);
    double prob_small[FS_MATRIX_MAX_N + 1];
    double *prob = prob_small;
    if (t->n > FS_MATRIX_MAX_N) {
        prob = malloc(((size_t)t->n + 1) * sizeof *prob);
        if (prob == NULL)
            return FS_ENOMEM;
    }
    if (test == FS_TEST_CYCLES)
        fs_dist_cycles(t->n, prob);
    else
        fs_dist_fixed_points(t->n, prob);
    int rc = histogram_test(t, h, prob, r);
    if (prob != prob_small)
        free(prob);
    return rc;
}

int fs_tally_result(const fs_tally *t, fs_test test, fs_test_result *r)
{
    if (t == NULL || r == NULL || fs_test_name(test) == NULL)
        return FS_EINVAL;
    memset(r, 0, sizeof *r);
    r->test = test;
    r->applicable = 1;
    if (!(t->tests & test))
        return not_run(r, "not requested");
    switch (test) {
    case FS_TEST_PERM: return perm_test(t, r);
    case FS_TEST_POSITION: return position_test(t, r);
    case FS_TEST_PAIRS: return pairs_test(t, r);
    case FS_TEST_INVERSIONS: return inversions_test(t, r);
    case FS_TEST_MAXCELL: return maxcell_test(t, r);
    default: return cycles_fixed(t, test, r);
    }
}

int fs_tally_heatmap(const fs_tally *t, double *dev, double *z,
                     unsigned *side)
{
    if (t == NULL || t->pos == NULL || t->trials == 0)
        return FS_EINVAL;
    unsigned s = t->side;
    if (side)
        *side = s;
    for (unsigned g = 0; g < s; g++)
        for (unsigned h = 0; h < s; h++) {
            size_t i = (size_t)g * s + h;
            double e = pos_expected(t, g, h), o = (double)t->pos[i];
            if (dev)
                dev[i] = e > 0 ? o / e - 1 : 0;
            if (z)
                z[i] = e > 0 ? (o - e) / sqrt(e) : 0;
        }
    return FS_OK;
}
