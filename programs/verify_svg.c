/* verify_svg.c -- pictures: the position heat map as SVG (standalone, or
 * inline in the HTML report), in the spirit of Mike Bostock's "Will It
 * Shuffle?" matrix: red where an element lands more often than 1/n, blue
 * where less, neutral grey where the difference is within noise.
 * Files are written to a temporary name and renamed, so a failed run
 * leaves nothing half-written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "svg.h"
#include "verify.h"

#define PANEL_W 420
#define PANEL_H 490
#define GRID 300

/* One heat-map panel, PANEL_W x PANEL_H, drawn at the origin. */
static void panel(const vrun *r, FILE *f)
{
    unsigned s = r->side;
    double cell = (double)GRID / s, x0 = 70, y0 = 80;
    double scale = verify_scale(r);
    int binned = s != r->n;
    fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"16\" "
               "font-weight=\"bold\" text-anchor=\"middle\">",
            PANEL_W / 2);
    svg_esc(f, r->label);
    fprintf(f, ": %s</text>\n", r->biased ? "BIASED" : "fair");
    fprintf(f, "<text x=\"%d\" y=\"42\" font-size=\"12\" "
               "text-anchor=\"middle\">n=%u, %llu trials</text>\n",
            PANEL_W / 2, r->n, (unsigned long long)r->trials);
    fprintf(f, "<text x=\"%g\" y=\"66\" font-size=\"12\" "
               "text-anchor=\"middle\">%s</text>\n",
            x0 + GRID / 2.0, binned ? "position bin" : "position");
    fprintf(f, "<text x=\"18\" y=\"%g\" font-size=\"12\" "
               "text-anchor=\"middle\" transform=\"rotate(-90 18 %g)\">%s"
               "</text>\n",
            y0 + GRID / 2.0, y0 + GRID / 2.0,
            binned ? "element bin" : "element");
    unsigned step = s <= 16 ? 1 : s <= 32 ? 4 : 8;
    for (unsigned i = 0; i < s; i += step) {
        fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"10\" "
                   "text-anchor=\"middle\">%u</text>\n",
                x0 + (i + 0.5) * cell, y0 - 4, i);
        fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"10\" "
                   "text-anchor=\"end\">%u</text>\n",
                x0 - 4, y0 + (i + 0.5) * cell + 3, i);
    }
    for (unsigned row = 0; row < s; row++)
        for (unsigned c = 0; c < s; c++) {
            size_t i = (size_t)row * s + c;
            int rgb[3];
            if (r->cyclic && row == c) { /* impossible: no fixed points */
                fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                           "height=\"%.2f\" fill=\"#ffffff\"><title>cannot "
                           "occur in a single cycle</title></rect>\n",
                        x0 + c * cell, y0 + row * cell, cell, cell);
                continue;
            }
            verify_cell_rgb(r->dev[i], r->z[i], scale, rgb);
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                       "height=\"%.2f\" fill=\"#%02x%02x%02x\"><title>"
                       "%s %u at %s %u: %+.2f%% (z=%+.1f)</title></rect>\n",
                    x0 + c * cell, y0 + row * cell, cell + 0.02, cell + 0.02,
                    rgb[0], rgb[1], rgb[2], binned ? "element bin" : "element",
                    row, binned ? "position bin" : "position", c,
                    100 * r->dev[i], r->z[i]);
        }
    fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%d\" height=\"%d\" "
               "fill=\"none\" stroke=\"#555\"/>\n",
            x0, y0, GRID, GRID);
    /* Legend: five swatches from -scale to +scale, and the noise band. */
    double ly = y0 + GRID + 22;
    static const double steps[5] = {-1, -0.5, 0, 0.5, 1};
    for (int k = 0; k < 5; k++) {
        int rgb[3];
        double d = steps[k] * scale;
        verify_cell_rgb(d, d > 0 ? 99 : d < 0 ? -99 : 0, scale, rgb);
        fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"40\" height=\"14\" "
                   "fill=\"#%02x%02x%02x\" stroke=\"#999\"/>\n"
                   "<text x=\"%g\" y=\"%g\" font-size=\"10\" "
                   "text-anchor=\"middle\">%s%.0f%%</text>\n",
                x0 + k * 60, ly, rgb[0], rgb[1], rgb[2], x0 + k * 60 + 20,
                ly + 28, d > 0 ? "+" : "", 100 * d);
    }
    fprintf(f, "<text x=\"%g\" y=\"%g\" font-size=\"11\">legend: deviation "
               "from 1/%s; grey = within noise (|z| &lt; 3)</text>\n",
            x0 - 50, ly + 48, binned ? "uniform" : r->cyclic ? "(n-1)" : "n");
}

static void svg_heatmap(const vrun *r, FILE *f, int standalone)
{
    char title[160];
    snprintf(title, sizeof title, "%s: position heat map", r->label);
    svg_begin(f, PANEL_W, PANEL_H, title, standalone);
    panel(r, f);
    svg_end(f);
}

int verify_write_svg(const vreport *rep, const char *path)
{
    fs__outfile tmp;
    FILE *f = svg_open(path, &tmp);
    if (f == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < rep->count; i++)
        k += rep->runs[i].side > 0;
    unsigned cols = k < 4 ? (unsigned)(k ? k : 1) : 4;
    unsigned rows = (unsigned)((k + cols - 1) / cols);
    unsigned w = cols * PANEL_W, h = (rows ? rows : 1) * PANEL_H + 30;
    svg_begin(f, w, h, "fairshuf verify: position heat maps", 1);
    svg_text(f, 10, 20, 13, "start", NULL,
             "fairshuf verify: where each element lands");
    if (k == 0)
        svg_text(f, 10, 50, 13, "start", NULL,
                 "no position test in this run");
    size_t j = 0;
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        if (!r->side)
            continue;
        fprintf(f, "<g transform=\"translate(%zu %zu)\">\n",
                (j % cols) * PANEL_W, 30 + (j / cols) * PANEL_H);
        panel(r, f);
        fprintf(f, "</g>\n");
        j++;
    }
    svg_end(f);
    return svg_close(f, &tmp);
}

/* Post 002's picture as SVG: a bar per order, the band a fair shuffle's
 * count stays in (3 sd) shaded; bars outside it red. */
static void orders_svg(const vrun *r, FILE *f)
{
    uint64_t k = r->norders, total = 0, max = 0;
    for (uint64_t i = 0; i < k; i++) {
        total += r->orders[i];
        if (r->orders[i] > max)
            max = r->orders[i];
    }
    double e = (double)total / (double)k;
    double sd = sqrt(e * (1 - 1.0 / (double)k));
    double lo = fmax(0, e - 3 * sd), hi = e + 3 * sd;
    double top = fmax((double)max, hi) * 1.05;
    const double W = 600, H = 160, x0 = 40, y0 = 30;
    double bw = W / (double)k;
    char s[256];
    snprintf(s, sizeof s, "%s n=%u: how often each order came up", r->label,
             r->n);
    svg_begin_class(f, W + x0 + 10, H + y0 + 30, s, 0, "orders");
    snprintf(s, sizeof s,
             "%s n=%u: each of the %llu orders, %llu trials (band: a fair "
             "shuffle, 3 sd)",
             r->label, r->n, (unsigned long long)k,
             (unsigned long long)total);
    svg_text(f, x0, 18, 13, "start", NULL, s);
    svg_rect(f, x0, y0 + H - hi / top * H, W, (hi - lo) / top * H, "#cde",
             NULL);
    for (uint64_t i = 0; i < k; i++) {
        double c = (double)r->orders[i];
        int out = c < lo || c > hi;
        snprintf(s, sizeof s, "order %llu: %llu", (unsigned long long)i,
                 (unsigned long long)r->orders[i]);
        svg_rect_tip(f, x0 + (double)i * bw, y0 + H - c / top * H,
                     bw > 2 ? bw - 1 : bw, c / top * H, out ? "#c33" : "#555",
                     s);
    }
    svg_line(f, x0, y0 + H, x0 + W, y0 + H, "#000", 1, NULL);
    snprintf(s, sizeof s, "orders by Lehmer rank; expected %.0f each", e);
    svg_text(f, x0, y0 + H + 18, 11, "start", NULL, s);
    svg_end(f);
}

static void html_p(FILE *f, double p)
{
    if (isnan(p))
        fprintf(f, "-");
    else if (p == 0)
        fprintf(f, "0");
    else if (p < 1e-4)
        fprintf(f, "%.1e", p);
    else
        fprintf(f, "%.4f", p);
}

int verify_write_html(const vreport *rep, const char *path)
{
    fs__outfile tmp;
    FILE *f = svg_open(path, &tmp);
    if (f == NULL)
        return -1;
    /* XHTML-compatible markup, so an XML parser can check it. */
    fprintf(f,
            "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
            "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
            "<title>fairshuf verify report</title>\n<style>\n"
            "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
            "table{border-collapse:collapse;font-size:13px}\n"
            "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}\n"
            "td.l,th.l{text-align:left}\n.rej{color:#b00;font-weight:bold}\n"
            ".biased{background:#fdd}.fair{background:#dfd}\n"
            ".grid{display:flex;flex-wrap:wrap;gap:12px}\n"
            ".panel{border:1px solid #ddd;padding:6px}\n"
            "</style>\n</head>\n<body>\n<h1>fairshuf verify</h1>\n");
    fprintf(f, "<p>Generator: %s; seed: ", rep->rng ? rep->rng : "(input)");
    svg_esc(f, rep->seed ? rep->seed : "-");
    fprintf(f, ". Multiple testing: Holm's step-down over %zu p-values, "
               "family-wise alpha %g. Overall: <b>%s</b>.</p>\n",
            rep->family, rep->alpha,
            rep->all_mode ? (rep->ok ? "every fair algorithm passed and "
                                       "every negative control was flagged"
                                     : "UNEXPECTED results")
                          : (rep->unreachable ? "FAILS: unreachable orders"
                             : rep->runs[0].biased ? "BIASED" : "fair"));
    char line[400];
    verify_unreachable(rep, line, sizeof line);
    if (line[0]) {
        fprintf(f, "<p class=\"rej\">FAILS: ");
        svg_esc(f, line);
        fprintf(f, "</p>\n");
    }
    int any_where = 0;
    for (size_t i = 0; i < rep->count; i++) {
        int first = 1;
        for (size_t j = 0; j < i; j++)
            first &= strcmp(rep->runs[j].label, rep->runs[i].label) != 0;
        if (!first || !verify_where(rep, rep->runs[i].label, line,
                                    sizeof line))
            continue;
        if (!any_where++)
            fprintf(f, "<h2>Where the bias is</h2>\n<ul class=\"where\">\n");
        fprintf(f, "<li>");
        svg_esc(f, line);
        fprintf(f, "</li>\n");
    }
    if (any_where)
        fprintf(f, "</ul>\n");
    verify_power(rep, line, sizeof line);
    if (line[0]) {
        fprintf(f, "<p class=\"power\">");
        svg_esc(f, line);
        fprintf(f, "</p>\n");
    }
    fprintf(f, "<h2>Tests</h2>\n<table>\n<tr><th class=\"l\">algorithm"
               "</th><th>expected</th><th>n</th><th>trials</th>");
    for (unsigned k = 0; k < FS_TEST_COUNT; k++)
        fprintf(f, "<th>%s<br/>stat / p</th>", fs_test_name(fs_test_at(k)));
    fprintf(f, "<th>verdict</th></tr>\n");
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        fprintf(f, "<tr><td class=\"l\">");
        svg_esc(f, r->label);
        fprintf(f, "</td><td>%s</td><td>%u</td><td>%llu</td>",
                r->expect == EXPECT_FAIR     ? "fair"
                : r->expect == EXPECT_BIASED ? "biased"
                                             : "?",
                r->n, (unsigned long long)r->trials);
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            const fs_test_result *t = &r->res[k];
            if (!t->applicable) {
                fprintf(f, "<td title=\"");
                svg_esc(f, t->why);
                fprintf(f, "\">-</td>");
                continue;
            }
            fprintf(f, "<td%s>", r->rejected[k] ? " class=\"rej\"" : "");
            if (isinf(t->statistic))
                fprintf(f, "inf");
            else
                fprintf(f, t->normal ? "z=%+.2f" : "%.1f", t->statistic);
            fprintf(f, " / ");
            html_p(f, t->p);
            fprintf(f, "</td>");
        }
        fprintf(f, "<td class=\"%s\">%s</td></tr>\n",
                r->biased ? "biased" : "fair", r->biased ? "BIASED" : "fair");
    }
    fprintf(f, "</table>\n<h2>Where each element lands</h2>\n<p>Red: more "
               "often than uniform; blue: less often; grey: within noise "
               "(|z| &lt; 3). Hover a cell for its numbers.</p>\n"
               "<div class=\"grid\">\n");
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        if (!r->side)
            continue;
        fprintf(f, "<div class=\"panel\">\n");
        svg_heatmap(r, f, 0);
        fprintf(f, "</div>\n");
    }
    fprintf(f, "</div>\n");
    int header = 0;
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        if (r->orders == NULL)
            continue;
        if (!header++)
            fprintf(f, "<h2>How often each order came up</h2>\n<p>One bar "
                       "per order (post 002's picture); the blue band is "
                       "where a fair shuffle's count stays (3 standard "
                       "deviations); red bars are outside it.</p>\n");
        fprintf(f, "<div class=\"panel\">\n");
        orders_svg(r, f);
        fprintf(f, "</div>\n");
    }
    fprintf(f, "</body>\n</html>\n");
    return svg_close(f, &tmp);
}
