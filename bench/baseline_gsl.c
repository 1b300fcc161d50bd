/* baseline_gsl -- GSL's gsl_ran_shuffle with gsl_rng_mt19937 over 8-byte
 * elements, a baseline of `fairshuf bench` (protocol in baseline.h). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>

#include "baseline.h"

int main(int argc, char **argv)
{
    size_t n;
    double min_ns;
    if (!baseline_args(argc, argv, &n, &min_ns))
        return 2;
    uint64_t *a = malloc(n * sizeof *a);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (a == NULL || r == NULL)
        return 1;
    gsl_rng_set(r, 42);
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    double t0 = baseline_now_ns(), t;
    size_t reps = 0;
    do {
        gsl_ran_shuffle(r, a, n, sizeof *a);
        reps++;
    } while ((t = baseline_now_ns()) - t0 < min_ns);
    volatile uint64_t sink = a[n / 2];
    (void)sink;
    printf("%.6f %ld %s\n", (t - t0) / ((double)reps * (double)n),
           baseline_peak_kib(), BASELINE_COMPILER);
    gsl_rng_free(r);
    free(a);
    return 0;
}
