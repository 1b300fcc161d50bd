/* special.c -- regularized incomplete gamma, chi-square and normal tails.
 *
 * Numerical Recipes' split (series below a+1, Lentz continued fraction
 * above), with one change that matters for the large degrees of freedom of
 * the perm test (10! - 1 cells): the prefactor D = x^a e^-x / Gamma(a) is
 * computed as exp(a * (log1p(t) - t)) * sqrt(a / 2pi) * exp(-stirling(a)),
 * t = (x - a) / a, instead of exp(a log x - x - lgamma(a)), whose three
 * terms of size ~a cancel and cost log10(a) digits. */
#include <math.h>

#include "fairshuf/stats.h"

#define EPS 1e-16
#define MAX_ITER 100000000L

/* log(1 + t) - t without cancellation for small t: with y = t / (2 + t),
 * log(1+t) = 2 atanh(y) and 2y - t = -2y^2 / (1 - y). */
static double log1pmx(double t)
{
    if (fabs(t) > 0.5)
        return log1p(t) - t;
    double y = t / (2 + t), y2 = y * y, term = y * y2, sum = 0;
    for (int k = 3; k < 200; k += 2) {
        double add = term / k;
        sum += add;
        if (fabs(add) <= EPS * fabs(sum))
            break;
        term *= y2;
    }
    return -2 * y2 / (1 - y) + 2 * sum;
}

/* Stirling's correction: lgamma(a) - ((a - 1/2) log a - a + log(2pi)/2). */
static double stirling(double a)
{
    if (a < 15)
        return lgamma(a) - ((a - 0.5) * log(a) - a + 0.91893853320467274178);
    double r = 1 / a, r2 = r * r;
    return r * (1.0 / 12 -
                r2 * (1.0 / 360 -
                      r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
}

/* log of x^a e^-x / Gamma(a). */
static double log_prefactor(double a, double x)
{
    if (a < 1)
        return a * log(x) - x - lgamma(a);
    return a * log1pmx((x - a) / a) + 0.5 * log(a / (2 * M_PI)) -
           stirling(a);
}

/* P(a, x) by the series sum x^n / ((a+1)...(a+n)), for x < a + 1. */
static double series_p(double a, double x)
{
    double term = 1 / a, sum = term;
    for (long n = 1; n < MAX_ITER; n++) {
        term *= x / (a + n);
        sum += term;
        if (term < sum * EPS)
            break;
    }
    return sum * exp(log_prefactor(a, x));
}

/* Q(a, x) by the continued fraction (modified Lentz), for x >= a + 1. */
static double cf_q(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (long i = 1; i < MAX_ITER; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < EPS)
            break;
    }
    return exp(log_prefactor(a, x)) * h;
}

double fs_gamma_p(double a, double x)
{
    if (!(a > 0) || !(x >= 0) || isinf(a))
        return NAN;
    if (x == 0)
        return 0;
    if (isinf(x))
        return 1;
    return x < a + 1 ? series_p(a, x) : 1 - cf_q(a, x);
}

double fs_gamma_q(double a, double x)
{
    if (!(a > 0) || !(x >= 0) || isinf(a))
        return NAN;
    if (x == 0)
        return 1;
    if (isinf(x))
        return 0;
    return x < a + 1 ? 1 - series_p(a, x) : cf_q(a, x);
}

double fs_chisq_q(double df, double x)
{
    if (!(df > 0) || isnan(x))
        return NAN;
    if (x <= 0)
        return 1;
    return fs_gamma_q(df / 2, x / 2);
}

double fs_normal_q(double z)
{
    return 0.5 * erfc(z / M_SQRT2);
}

double fs_normal_p2(double z)
{
    return erfc(fabs(z) / M_SQRT2);
}

double fs_log2_factorial(uint64_t n)
{
    return lgamma((double)n + 1) / M_LN2;
}

uint64_t fs_factorial(unsigned n)
{
    if (n > 20)
        return 0;
    uint64_t f = 1;
    for (unsigned i = 2; i <= n; i++)
        f *= i;
    return f;
}
