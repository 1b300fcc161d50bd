/* verify_sweep_svg.c -- the --swaps sweep as a figure (posts 000 and
 * 001): against the number of random swaps N (log scale), how much more
 * often than 1/n an element stays in its own place -- observed per swap
 * count (red where the tests flag it), exact (1 - 1/n)(1 - 2/n)^N * n, and
 * the smallest excess the trials can see (3 standard deviations).  The
 * exact curve crosses below that line and goes on falling: it never
 * reaches zero. */
#include <math.h>
#include <stdio.h>

#include "svg.h"
#include "verify.h"

#define W 760.0
#define H 470.0
#define L 80.0
#define R 30.0
#define T 70.0
#define B 60.0

typedef struct axes {
    double x0, x1, y0, y1; /* log10 ranges */
} axes;

static double px(const axes *a, double n)
{
    return L + (log10(n) - a->x0) / (a->x1 - a->x0) * (W - L - R);
}

static double py(const axes *a, double v)
{
    return H - B - (log10(v) - a->y0) / (a->y1 - a->y0) * (H - T - B);
}

/* Mean relative excess of the diagonal (home) cells; NAN without them. */
static double observed(const vrun *r)
{
    if (r->side != r->n || r->dev == NULL)
        return NAN;
    double obs = 0;
    for (unsigned d = 0; d < r->n; d++)
        obs += r->dev[(size_t)d * r->side + d];
    return obs / r->n;
}

static double exact(unsigned n, double swaps)
{
    return (n - 1.0) * pow(1 - 2.0 / n, swaps);
}

static void grid(FILE *f, const axes *a)
{
    char s[32];
    for (double e = a->x0; e <= a->x1; e++) {
        double x = px(a, pow(10, e));
        svg_line(f, x, T, x, H - B, "#ddd", 1, NULL);
        snprintf(s, sizeof s, "%.0f", pow(10, e));
        svg_text(f, x, H - B + 16, 11, "middle", NULL, s);
    }
    for (double e = a->y0; e <= a->y1; e++) {
        double y = py(a, pow(10, e));
        svg_line(f, L, y, W - R, y, "#ddd", 1, NULL);
        snprintf(s, sizeof s, "%g%%", 100 * pow(10, e));
        svg_text(f, L - 6, y + 4, 11, "end", NULL, s);
    }
    svg_rect(f, L, T, W - L - R, H - T - B, "none", "#555");
    svg_text(f, (L + W - R) / 2, H - 20, 12, "middle", NULL,
             "random swaps N (log scale)");
    fprintf(f, "<g transform=\"rotate(-90 18 %.1f)\">\n", (T + H - B) / 2);
    svg_text(f, 18, (T + H - B) / 2, 12, "middle", NULL,
             "stays home: excess over 1/n (log scale)");
    fprintf(f, "</g>\n");
}

int verify_write_sweep_svg(const vreport *rep, const char *path)
{
    const vrun *r0 = &rep->runs[0];
    unsigned n = r0->n;
    double trials = (double)r0->trials;
    double noise = 3 * sqrt((1 - 1.0 / n) / trials);
    double nlo = 1e300, nhi = 1, vhi = noise;
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        double k = r->swaps ? (double)r->swaps : 1;
        nlo = fmin(nlo, k);
        nhi = fmax(nhi, k);
        vhi = fmax(vhi, exact(n, k));
        if (observed(r) > vhi)
            vhi = observed(r);
    }
    axes a = {floor(log10(nlo)), ceil(log10(nhi)),
              floor(log10(noise)) - 2, ceil(log10(vhi))};
    if (a.x1 <= a.x0)
        a.x1 = a.x0 + 1;
    double vlo = pow(10, a.y0);

    fs__outfile tmp;
    FILE *f = svg_open(path, &tmp);
    if (f == NULL)
        return -1;
    char s[256];
    svg_begin(f, W, H, "fairshuf verify --swaps: the bias against N", 1);
    snprintf(s, sizeof s, "Random swaps of n = %u: how often an element "
                          "stays in its own place", n);
    svg_text(f, L, 22, 15, "start", NULL, s);
    snprintf(s, sizeof s, "%.0f trials per N; a dot per N (red: the tests "
                          "flag it, Holm alpha %g; grey: not seen)",
             trials, rep->alpha);
    svg_text(f, L, 42, 12, "start", "#444", s);
    svg_text(f, L, 58, 12, "start", "#444",
             "exact: 1/n + (1 - 1/n)(1 - 2/n)^N, falling forever, never "
             "exactly 1/n");
    grid(f, &a);

    /* What the trials can see. */
    double yn = py(&a, noise);
    svg_line(f, L, yn, W - R, yn, "#2a7", 1.5, "6 4");
    snprintf(s, sizeof s, "smallest excess %.0f trials can see (3 sd): "
                          "%.1f%%", trials, 100 * noise);
    svg_text(f, W - R - 6, yn - 6, 11, "end", "#2a7", s);

    /* The exact excess, until it leaves the plot (it never reaches 0). */
    svg_poly_begin(f, "#1f77b4", 2);
    double kend = pow(10, a.x1), last = 0;
    for (int i = 0; i <= 400; i++) {
        double k = pow(10, a.x0 + (a.x1 - a.x0) * i / 400.0);
        double v = exact(n, k);
        if (v < vlo)
            break;
        svg_poly_point(f, px(&a, k), py(&a, v));
        last = k;
    }
    svg_poly_end(f);
    if (last < kend) {
        double e = exact(n, kend);
        if (e > 0)
            snprintf(s, sizeof s, "exact at N = %.0f: %.1e%%, never 0",
                     kend, 100 * e);
        else
            snprintf(s, sizeof s, "exact at N = %.0f: below 1e-300, "
                                  "never 0", kend);
        svg_text(f, px(&a, last) + 6, H - B - 8, 11, "start", "#1f77b4", s);
    }

    /* Observed, one dot per swap count. */
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        double k = r->swaps ? (double)r->swaps : 1, v = observed(r);
        if (isnan(v))
            continue;
        double y = v > vlo ? py(&a, v) : H - B; /* at or below 0: floor */
        fprintf(f, "<g><title>N = %llu: observed %+.2f%%, exact %+.3g%%, "
                   "%s</title>\n",
                (unsigned long long)r->swaps, 100 * v, 100 * exact(n, k),
                r->biased ? "BIASED" : "not seen");
        svg_circle(f, px(&a, k), y, 4.5, r->biased ? "#d62728" : "#888");
        fprintf(f, "</g>\n");
    }

    /* Legend. */
    double lx = W - R - 230, ly = T + 18;
    svg_line(f, lx, ly - 4, lx + 24, ly - 4, "#1f77b4", 2, NULL);
    svg_text(f, lx + 30, ly, 11, "start", NULL, "exact excess");
    svg_circle(f, lx + 12, ly + 14, 4.5, "#d62728");
    svg_text(f, lx + 30, ly + 18, 11, "start", NULL, "observed, BIASED");
    svg_circle(f, lx + 12, ly + 32, 4.5, "#888");
    svg_text(f, lx + 30, ly + 36, 11, "start", NULL,
             "observed, not seen");
    svg_text(f, lx + 30, ly + 52, 11, "start", "#666",
             "(at or below 0: on the bottom edge)");
    svg_end(f);
    return svg_close(f, &tmp);
}
