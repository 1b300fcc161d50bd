/* bench_report.c -- `fairshuf bench`'s reports: a text table per size,
 * one JSON array for the whole run, and an SVG of ns/element against n. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "json.h"
#include "svg.h"

const char *const bench_base_name[BENCH_NBASE] = {"memcpy", "std", "gsl",
                                                  "rip"};

#ifdef __clang__
#define BENCH_COMPILER "clang " __clang_version__
#else
#define BENCH_COMPILER "gcc " __VERSION__
#endif

void bench_print_header(const bench *b)
{
    printf("fairshuf bench: 8-byte elements, %" PRIu64
           " interleaved runs per cell, median ns/element; x NAME: median "
           "of per-run ratios to baseline NAME\n"
           "compiler: fairshuf built by %s\n",
           b->o.runs, BENCH_COMPILER);
    fflush(stdout);
}

/* Is baseline k measured at size index ni (so its ratio column shows)? */
static int base_present(const bench *b, size_t ni, int k)
{
    for (size_t i = 0; i < b->ns; i++)
        if (b->res[i][ni].ratio[k].ok)
            return 1;
    return 0;
}

void bench_print_text_size(const bench *b, size_t ni)
{
    static int said_helpers;
    size_t n = b->o.sizes[ni];
    if (!said_helpers && b->helper_compiler[0]) {
        printf("compiler: std and gsl baselines built by %s\n",
               b->helper_compiler);
        said_helpers = 1;
    }
    int show[BENCH_NBASE];
    printf("\nn = %zu\n%-18s %-12s %3s %8s %15s", n, "impl", "rng", "thr",
           "ns/elem", "min-max");
    for (int k = BENCH_NBASE - 1; k >= 0; k--) {
        show[k] = base_present(b, ni, k);
        if (show[k] && k == B_RIP)
            printf(" %5s %-13s", "x rip", "(min-max)");
        else if (show[k])
            printf(" %*s%s", k == B_MEMCPY ? 2 : 0, "x ",
                   bench_base_name[k]);
    }
    printf(" %8s %7s %5s\n", "peak MiB", "x array", "cold");
    double array_mib = (double)n * 8 / 1048576.0;
    for (size_t i = 0; i < b->ns; i++) {
        const bench_cell *c = &b->res[i][ni];
        if (!c->done)
            continue;
        char mm[40];
        snprintf(mm, sizeof mm, "%.3f-%.3f", c->ns.min, c->ns.max);
        printf("%-18s %-12s %3u %8.3f %15s", b->s[i].impl, b->s[i].rng,
               b->s[i].threads, c->ns.med, mm);
        for (int k = BENCH_NBASE - 1; k >= 0; k--) {
            if (!show[k])
                continue;
            int w = k == B_MEMCPY ? 8 : 5;
            if (!c->ratio[k].ok)
                printf(" %*s", w, "-");
            else
                printf(" %*.*f", w, k == B_MEMCPY ? 1 : 2, c->ratio[k].med);
            if (k == B_RIP) {
                char r[32] = "";
                if (c->ratio[k].ok)
                    snprintf(r, sizeof r, "(%.2f-%.2f)", c->ratio[k].min,
                             c->ratio[k].max);
                printf(" %-13s", r);
            }
        }
        printf(" %8.1f %7.3f", c->peak_mib,
               array_mib > 0 ? c->peak_mib / array_mib : 0);
        if (c->cold.ok)
            printf(" %5.2f\n", c->cold.med);
        else
            printf(" %5s\n", "-");
    }
    fflush(stdout);
}

static void json_stat(const char *name, const bench_stat *st)
{
    printf(", \"%s\": {\"median\": %.4f, \"min\": %.4f, \"max\": %.4f}", name,
           st->med, st->min, st->max);
}

void bench_print_json(const bench *b)
{
    fprintf(stderr, "%s: bench: fairshuf built by %s; std and gsl "
                    "baselines by %s\n", cli_prog, BENCH_COMPILER,
            b->helper_compiler[0] ? b->helper_compiler : "(not run)");
    int first = 1;
    printf("[");
    for (size_t ni = 0; ni < b->o.nsz; ni++)
        for (size_t i = 0; i < b->ns; i++) {
            const bench_cell *c = &b->res[i][ni];
            if (!c->done)
                continue;
            printf("%s\n  {\"impl\": ", first ? "" : ",");
            json_string(stdout, b->s[i].impl);
            printf(", \"rng\": ");
            json_string(stdout, b->s[i].rng);
            printf(", \"n\": %zu, \"threads\": %u, \"ns_per_element\": %.4f, "
                   "\"min\": %.4f, \"max\": %.4f, \"peak_rss_mib\": %.1f, "
                   "\"peak_over_array\": %.4f",
                   b->o.sizes[ni], b->s[i].threads, c->ns.med, c->ns.min,
                   c->ns.max, c->peak_mib,
                   c->peak_mib / ((double)b->o.sizes[ni] * 8 / 1048576.0));
            if (c->cold.ok)
                json_stat("first_over_later", &c->cold);
            printf(", \"ratios\": {");
            int any = 0;
            for (int k = 0; k < BENCH_NBASE; k++)
                if (c->ratio[k].ok) {
                    printf("%s\"%s\": {\"median\": %.4f, \"min\": %.4f, "
                           "\"max\": %.4f}", any ? ", " : "",
                           bench_base_name[k], c->ratio[k].med,
                           c->ratio[k].min, c->ratio[k].max);
                    any = 1;
                }
            printf("}}");
            first = 0;
        }
    printf("\n]\n");
}

/* ns/element against n on log axes, one line per implementation; written
 * through programs/svg.c, so a failure leaves no half-written FILE. */
void bench_write_svg(const bench *b, const char *file)
{
    static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c",
                                         "#9467bd", "#ff7f0e", "#8c564b",
                                         "#e377c2", "#7f7f7f", "#bcbd22",
                                         "#17becf"};
    double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0;
    for (size_t ni = 0; ni < b->o.nsz; ni++)
        for (size_t i = 0; i < b->ns; i++)
            if (b->res[i][ni].done && b->res[i][ni].ns.med > 0) {
                double x = (double)b->o.sizes[ni], y = b->res[i][ni].ns.med;
                xlo = x < xlo ? x : xlo;
                xhi = x > xhi ? x : xhi;
                ylo = y < ylo ? y : ylo;
                yhi = y > yhi ? y : yhi;
            }
    if (xhi == 0 || xlo <= 0 || ylo <= 0) {
        cli_die(CLI_FAIL, "%s: nothing measured to draw", file);
        return; /* not reached */
    }
    double lx0 = floor(log10(xlo)), lx1 = ceil(log10(xhi));
    double ly0 = floor(log10(ylo)), ly1 = ceil(log10(yhi));
    if (lx1 <= lx0)
        lx1 = lx0 + 1;
    if (ly1 <= ly0)
        ly1 = ly0 + 1;
    const double W = 760, H = 480, L = 70, R = 230, T = 40, B = 50;
    fs__outfile tmp;
    char s[160];
    FILE *f = svg_open(file, &tmp);
    if (f == NULL) {
        cli_die(CLI_FAIL, "%s: %s", file, strerror(errno));
        return; /* not reached */
    }
#define PX(x) (L + (log10(x) - lx0) / (lx1 - lx0) * (W - L - R))
#define PY(y) (H - B - (log10(y) - ly0) / (ly1 - ly0) * (H - T - B))
    svg_begin(f, W, H, "fairshuf bench: ns per element against n", 1);
    snprintf(s, sizeof s, "fairshuf bench: ns per 8-byte element (median), %s",
             BENCH_COMPILER);
    svg_text(f, L, 22, 15, "start", NULL, s);
    for (double e = lx0; e <= lx1; e++) {
        double x = L + (e - lx0) / (lx1 - lx0) * (W - L - R);
        svg_line(f, x, T, x, H - B, "#ddd", 1, NULL);
        snprintf(s, sizeof s, "1e%.0f", e);
        svg_text(f, x, H - B + 16, 12, "middle", NULL, s);
    }
    for (double e = ly0; e <= ly1; e++) {
        double y = H - B - (e - ly0) / (ly1 - ly0) * (H - T - B);
        svg_line(f, L, y, W - R, y, "#ddd", 1, NULL);
        snprintf(s, sizeof s, "%g", pow(10, e));
        svg_text(f, L - 6, y + 4, 12, "end", NULL, s);
    }
    svg_text(f, (L + W - R) / 2, H - 12, 12, "middle", NULL, "n (elements)");
    fprintf(f, "<g transform=\"rotate(-90 16 %.0f)\">\n", (T + H - B) / 2);
    svg_text(f, 16, (T + H - B) / 2, 12, "middle", NULL, "ns per element");
    fprintf(f, "</g>\n");
    size_t drawn = 0;
    for (size_t i = 0; i < b->ns; i++) {
        const char *c = colour[drawn % (sizeof colour / sizeof *colour)];
        int any = 0;
        for (size_t ni = 0; ni < b->o.nsz; ni++) {
            const bench_cell *ce = &b->res[i][ni];
            if (!ce->done || ce->ns.med <= 0)
                continue;
            if (!any)
                svg_poly_begin(f, c, 2);
            svg_poly_point(f, PX((double)b->o.sizes[ni]), PY(ce->ns.med));
            any = 1;
        }
        if (!any)
            continue;
        svg_poly_end(f);
        if (b->s[i].threads > 1)
            snprintf(s, sizeof s, "%s %s x%u threads", b->s[i].impl,
                     b->s[i].rng, b->s[i].threads);
        else
            snprintf(s, sizeof s, "%s %s", b->s[i].impl, b->s[i].rng);
        svg_text(f, W - R + 12, T + 16.0 * (double)drawn, 12, "start", c, s);
        drawn++;
    }
    svg_end(f);
#undef PX
#undef PY
    if (svg_close(f, &tmp) != 0)
        cli_die(CLI_FAIL, "%s: %s", file, strerror(errno));
}

