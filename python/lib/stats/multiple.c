/* multiple.c -- Holm's step-down correction: many tests, one verdict. */
#include <math.h>
#include <stdlib.h>

#include "fairshuf/stats.h"

typedef struct {
    double p;
    size_t i;
} pidx;

static int by_p(const void *a, const void *b)
{
    const pidx *x = a, *y = b;
    /* NaN last, then ascending; ties by index for a stable order. */
    int xn = isnan(x->p), yn = isnan(y->p);
    if (xn != yn)
        return xn - yn;
    if (!xn && x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int fs_holm_adjust(const double *p, size_t k, double *adjusted)
{
    if (k == 0)
        return FS_OK;
    if (p == NULL || adjusted == NULL)
        return FS_EINVAL;
    pidx *s = malloc(k * sizeof *s);
    if (s == NULL)
        return FS_ENOMEM;
    for (size_t i = 0; i < k; i++)
        s[i] = (pidx){p[i], i};
    qsort(s, k, sizeof *s, by_p);
    /* adjusted_(j) = max_{i <= j} min(1, (m - i) p_(i)), m = the number
     * of real p-values (tests that did not run are not in the family) */
    size_t m = 0;
    while (m < k && !isnan(s[m].p))
        m++;
    double run = 0;
    for (size_t j = 0; j < k; j++) {
        double a = j >= m ? NAN : fmin(1, (double)(m - j) * s[j].p);
        if (!isnan(a) && a > run)
            run = a;
        adjusted[s[j].i] = isnan(a) ? NAN : run;
    }
    free(s);
    return FS_OK;
}

int fs_holm(const double *p, size_t k, double alpha, int *reject)
{
    if (!(alpha > 0 && alpha < 1))
        return FS_EINVAL;
    if (k == 0)
        return FS_OK;
    if (reject == NULL)
        return FS_EINVAL;
    double *adj = malloc(k * sizeof *adj);
    if (adj == NULL)
        return FS_ENOMEM;
    int rc = fs_holm_adjust(p, k, adj);
    for (size_t i = 0; rc == FS_OK && i < k; i++)
        reject[i] = !isnan(adj[i]) && adj[i] <= alpha;
    free(adj);
    return rc;
}
