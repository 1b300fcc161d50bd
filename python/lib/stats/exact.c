/* exact.c -- exact distributions of statistics of a uniform permutation:
 * the reference the cycles, fixed-points and inversions tests compare to. */
#include <math.h>

#include "fairshuf/stats.h"

/* c(n,k)/n! by the recurrence c(m,k) = c(m-1,k-1) + (m-1) c(m-1,k),
 * divided by m at each step so every entry stays a probability (no
 * overflow for any n). */
int fs_dist_cycles(unsigned n, double *prob)
{
    if (prob == NULL)
        return FS_EINVAL;
    for (unsigned k = 0; k <= n; k++)
        prob[k] = 0;
    prob[0] = 1; /* m = 0: the empty permutation has 0 cycles */
    for (unsigned m = 1; m <= n; m++) {
        for (unsigned k = m; k >= 1; k--)
            prob[k] = (prob[k - 1] + (m - 1) * prob[k]) / m;
        prob[0] = 0;
    }
    return FS_OK;
}

/* P(k fixed points) = (1/k!) sum_{j=0}^{n-k} (-1)^j / j!  (rencontres
 * numbers D(n-k) C(n,k) / n!). */
int fs_dist_fixed_points(unsigned n, double *prob)
{
    if (prob == NULL)
        return FS_EINVAL;
    /* partial[m] = sum_{j=0}^{m} (-1)^j / j! */
    double partial = 1, term = 1;
    double inv_kfact;
    /* Fill prob[n-m] with partial sum up to m, then scale by 1/(n-m)!. */
    for (unsigned m = 0; m <= n; m++) {
        if (m > 0) {
            term = -term / m;
            partial += term;
        }
        prob[n - m] = partial;
    }
    inv_kfact = 1;
    for (unsigned k = 0; k <= n; k++) {
        if (k > 0)
            inv_kfact /= k;
        prob[k] *= inv_kfact;
    }
    return FS_OK;
}

void fs_inversion_moments(uint64_t n, double *mean, double *var)
{
    double d = (double)n;
    if (mean)
        *mean = d * (d - 1) / 4;
    if (var)
        *var = d * (d - 1) * (2 * d + 5) / 72;
}
