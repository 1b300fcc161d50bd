/* verify_text.c -- `fairshuf verify` output for people (a table, the
 * worst cells, a coloured heat map) and for programs (JSON). */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "verify.h"

/* Post 002's picture: a bar per order (n! of them, (n-1)! for a cyclic
 * run) with the band where 99.7% of a fair shuffle's counts fall. */
static void print_orders(const vrun *r, FILE *f);
/* The position heat map: coloured cells (24-bit) when color, else
 * shading characters and signs. */
static void print_heatmap(const vrun *r, FILE *f, int color);

void verify_cell_rgb(double dev, double z, double scale, int rgb[3])
{
    if (fabs(z) < 3 || dev == 0) { /* within noise: neutral */
        rgb[0] = rgb[1] = rgb[2] = 236;
        return;
    }
    double t = fmin(1, fabs(dev) / scale);
    t = 0.25 + 0.75 * t; /* significant cells are never near-neutral */
    /* above 1/n: towards red (200, 30, 30); below: towards blue (30, 80, 200) */
    const int *to = dev > 0 ? (const int[]){200, 30, 30}
                            : (const int[]){30, 80, 200};
    for (int i = 0; i < 3; i++)
        rgb[i] = (int)lround(236 + (to[i] - 236) * t);
}

double verify_scale(const vrun *r)
{
    double m = 0.05;
    for (unsigned i = 0; i < r->side * r->side; i++)
        if (fabs(r->z[i]) >= 3 && fabs(r->dev[i]) > m)
            m = fabs(r->dev[i]);
    return m;
}

/* A cell's meaning in words: "element 3 at position 0", "3 then 4"... */
static void describe_cell(const vrun *r, const fs_test_result *res,
                          const fs_cell *c, char *buf, size_t len)
{
    switch (res->test) {
    case FS_TEST_PERM: {
        if (c->row < 0) {
            snprintf(buf, len, "permutations that are not one n-cycle");
            return;
        }
        uint32_t p[FS_PERM_MAX_N + 1];
        int rc = r->cyclic ? fs_cycle_unrank((uint64_t)c->row, r->n, p)
                           : fs_lehmer_unrank((uint64_t)c->row, r->n, p);
        size_t k = (size_t)snprintf(buf, len, "order");
        for (unsigned i = 0; rc == FS_OK && i < r->n && k < len; i++)
            k += (size_t)snprintf(buf + k, len - k, " %u", p[i]);
        return;
    }
    case FS_TEST_POSITION:
    case FS_TEST_MAXCELL:
        if (r->side != r->n && r->tally) {
            unsigned e0 = fs_tally_bin_start(r->tally, (unsigned)c->row);
            unsigned e1 = fs_tally_bin_start(r->tally, (unsigned)c->row + 1);
            unsigned p0 = fs_tally_bin_start(r->tally, (unsigned)c->col);
            unsigned p1 = fs_tally_bin_start(r->tally, (unsigned)c->col + 1);
            snprintf(buf, len, "elements %u-%u at positions %u-%u", e0,
                     e1 - 1, p0, p1 - 1);
        } else {
            snprintf(buf, len, "element %lld at position %lld", c->row,
                     c->col);
        }
        return;
    case FS_TEST_PAIRS:
        snprintf(buf, len, "%lld followed by %lld", c->row, c->col);
        return;
    case FS_TEST_CYCLES:
    case FS_TEST_FIXED: {
        const char *what = res->test == FS_TEST_CYCLES ? "cycles"
                                                       : "fixed points";
        if (c->row == c->col)
            snprintf(buf, len, "%lld %s", c->row, what);
        else
            snprintf(buf, len, "%lld-%lld %s", c->row, c->col, what);
        return;
    }
    default: snprintf(buf, len, "-");
    }
}

void verify_print_entropy(FILE *f, const fs_rng_info *info, unsigned n)
{
    double need = fs_log2_factorial(n);
    fprintf(f,
            "entropy: log2(%u!) = %.1f bits; %s: %u-bit seed, %u-bit state\n",
            n, need, info->name, info->seed_bits, info->state_bits);
    if (info->seed_bits < need) {
        fprintf(f,
                "  MOST ORDERS ARE UNREACHABLE: from a seed, %s reaches at "
                "most 2^%u of the 2^%.1f orders of %u items (a fraction "
                "2^-%.1f)\n",
                info->name, info->seed_bits, need, n, need - info->seed_bits);
    } else if (info->state_bits < need) {
        fprintf(f, "  the state is too small to reach every order\n");
    } else {
        fprintf(f, "  every order is reachable in principle (seed >= "
                   "log2(n!))\n");
    }
}

static void fmt_stat(const fs_test_result *t, char *buf, size_t len)
{
    if (!t->applicable)
        snprintf(buf, len, "-");
    else if (isinf(t->statistic))
        snprintf(buf, len, "inf");
    else if (t->normal)
        snprintf(buf, len, "z=%+.2f", t->statistic);
    else
        snprintf(buf, len, "%.1f", t->statistic);
}

static void fmt_p(double p, char *buf, size_t len)
{
    if (isnan(p))
        snprintf(buf, len, "-");
    else if (p == 0)
        snprintf(buf, len, "0");
    else if (p < 1e-4)
        snprintf(buf, len, "%.1e", p);
    else
        snprintf(buf, len, "%.4f", p);
}

static const char *verdict_word(const vrun *r)
{
    return r->biased ? "BIASED" : r->inconclusive ? "inconclusive" : "fair";
}

static const char *expect_word(int e)
{
    return e == EXPECT_FAIR ? "fair" : e == EXPECT_BIASED ? "control" : "?";
}

/* The runs of one algorithm (all mode has up to two: n and n=2000). */
static void combine(const vreport *rep, const char *label, int *biased,
                    int *ran)
{
    *biased = *ran = 0;
    for (size_t j = 0; j < rep->count; j++)
        if (strcmp(rep->runs[j].label, label) == 0) {
            *biased |= rep->runs[j].biased;
            *ran |= !rep->runs[j].inconclusive;
        }
}

static int first_of(const vreport *rep, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(rep->runs[j].label, rep->runs[i].label) == 0)
            return 0;
    return 1;
}

/* The last line(s): the verdict and how it was reached. */
static void print_verdict(const vreport *rep, FILE *f)
{
    if (rep->all_mode) {
        size_t fair = 0, fair_ok = 0, ctl = 0, ctl_ok = 0, unknown = 0;
        for (size_t i = 0; i < rep->count; i++) {
            const vrun *r = &rep->runs[i];
            int biased, ran;
            if (!first_of(rep, i))
                continue;
            combine(rep, r->label, &biased, &ran);
            unknown += !ran;
            if (r->expect == EXPECT_FAIR)
                fair++, fair_ok += ran && !biased;
            else
                ctl++, ctl_ok += biased;
        }
        fprintf(f,
                "verdict: %s: %zu of %zu fair algorithms passed, %zu of %zu "
                "negative controls flagged BIASED\n",
                rep->status == 0   ? "OK"
                : rep->status == 4 ? "INCONCLUSIVE"
                : rep->unreachable ? "FAILS (unreachable orders)"
                                   : "UNEXPECTED",
                fair_ok, fair, ctl_ok, ctl);
        if (unknown)
            fprintf(f, "  %zu algorithm%s had no test that could run: "
                       "more --trials\n",
                    unknown, unknown == 1 ? "" : "s");
    } else {
        const vrun *r = &rep->runs[0];
        fprintf(f, "verdict: %s: %s%s\n", r->label,
                rep->unreachable ? "FAILS (unreachable orders); the tests "
                                   "alone say "
                                 : "",
                r->biased         ? "BIASED"
                : r->inconclusive ? "inconclusive: no test could run (too "
                                    "few trials or n too large)"
                                  : "fair");
    }
    char line[400];
    verify_unreachable(rep, line, sizeof line);
    if (line[0]) /* at most 100 columns a line */
        fprintf(f, "  UNREACHABLE ORDERS: %s (%u-bit seed) can produce at "
                   "most 2^%u of the 2^%.1f\n    orders of %u items: most "
                   "orders can never come up, whatever the tests say\n",
                rep->rinfo->name, rep->rinfo->seed_bits,
                rep->rinfo->seed_bits, fs_log2_factorial(rep->reach_n),
                rep->reach_n);
    fprintf(f, "  (Holm's correction, family-wise alpha %g over %zu "
               "p-value%s)\n",
            rep->alpha, rep->family, rep->family == 1 ? "" : "s");
    verify_power(rep, line, sizeof line);
    char *semi = strstr(line, "; ");
    if (semi) { /* two lines of at most 100 columns */
        *semi = '\0';
        fprintf(f, "  %s;\n    %s\n", line, semi + 2);
    }
}

/* The strongest evidence of one algorithm's bias: its rejected test with
 * the smallest Holm-adjusted p over all its runs. */
int verify_where(const vreport *rep, const char *label, char *buf, size_t len)
{
    const vrun *best = NULL;
    unsigned bk = 0;
    buf[0] = '\0';
    for (size_t j = 0; j < rep->count; j++) {
        const vrun *r = &rep->runs[j];
        if (strcmp(r->label, label) != 0)
            continue;
        for (unsigned k = 0; k < FS_TEST_COUNT; k++)
            if (r->rejected[k] &&
                (best == NULL || r->res[k].p < best->res[bk].p))
                best = r, bk = k;
    }
    if (best == NULL)
        return 0;
    const fs_test_result *t = &best->res[bk];
    char p[32];
    fmt_p(t->p, p, sizeof p);
    if (t->nworst == 0) {
        snprintf(buf, len, "%s n=%u %s: mean inversions %s than uniform "
                           "(p=%s)",
                 label, best->n, fs_test_name(t->test),
                 t->statistic > 0 ? "higher" : "lower", p);
        return 1;
    }
    char d[128];
    describe_cell(best, t, &t->worst[0], d, sizeof d);
    const fs_cell *w = &t->worst[0];
    snprintf(buf, len, "%s n=%u %s: %s: %.0f, expected %.0f (%+.0f%%)",
             label, best->n, fs_test_name(t->test), d, w->observed,
             w->expected,
             w->expected > 1e-200 ? 100 * (w->observed / w->expected - 1)
                                  : INFINITY);
    return 1;
}

static void print_where(const vreport *rep, const char *label, FILE *f)
{
    char line[400];
    if (!verify_where(rep, label, line + 2, sizeof line - 2))
        return;
    line[0] = line[1] = ' ';
    line[99] = '\0'; /* one line of at most 99 columns (ASCII) */
    fprintf(f, "%s\n", line);
}

/* The run the power line is about: the first that ran max-cell. */
static const vrun *power_run(const vreport *rep)
{
    for (size_t i = 0; i < rep->count; i++)
        for (unsigned k = 0; k < FS_TEST_COUNT; k++)
            if (rep->runs[i].res[k].test == FS_TEST_MAXCELL &&
                rep->runs[i].res[k].applicable)
                return &rep->runs[i];
    return NULL;
}

void verify_power(const vreport *rep, char *buf, size_t len)
{
    const vrun *r = power_run(rep);
    buf[0] = '\0';
    if (r == NULL)
        return;
    double d = fs_maxcell_detectable(r->n, r->trials, rep->alpha,
                                     rep->family);
    double need = fs_maxcell_trials(r->n, rep->bias, rep->alpha, rep->family);
    if (isnan(d) || isnan(need))
        return;
    snprintf(buf, len,
             "power: at %llu trials (n=%u) a one-cell bias under %.2g%% "
             "passes unseen; %.3g%% needs %.0f trials (one element on one "
             "position that often; max-cell, 90%% power)",
             (unsigned long long)r->trials, r->n, 100 * d, 100 * rep->bias,
             need);
}

void verify_unreachable(const vreport *rep, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!rep->unreachable)
        return;
    double need = fs_log2_factorial(rep->reach_n);
    snprintf(buf, len,
             "UNREACHABLE ORDERS: %s (%u-bit seed) can produce at most 2^%u "
             "of the 2^%.1f orders of %u items: most orders can never come "
             "up, whatever the tests say (a gaming lab fails it)",
             rep->rinfo->name, rep->rinfo->seed_bits, rep->rinfo->seed_bits,
             need, rep->reach_n);
}

void verify_print_summary(const vreport *rep, FILE *f, int color)
{
    /* the sizes, in order of first appearance: one column each */
    unsigned sizes[4];
    size_t ns = 0;
    for (size_t i = 0; i < rep->count; i++) {
        size_t k = 0;
        while (k < ns && sizes[k] != rep->runs[i].n)
            k++;
        if (k == ns && ns < 4)
            sizes[ns++] = rep->runs[i].n;
    }
    fprintf(f, "%-18s %-7s", "algorithm", "expect");
    for (size_t k = 0; k < ns; k++) {
        char h[32];
        snprintf(h, sizeof h, "n=%u", sizes[k]);
        fprintf(f, " %-12s", h);
    }
    fprintf(f, " verdict\n");
    size_t nbiased = 0;
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        if (!first_of(rep, i))
            continue;
        int biased, ran;
        combine(rep, r->label, &biased, &ran);
        nbiased += biased;
        fprintf(f, "%-18s %-7s", r->label, expect_word(r->expect));
        int small_fair = 0, caught = 0;
        unsigned caught_n = 0;
        for (size_t k = 0; k < ns; k++) {
            const vrun *at = NULL;
            for (size_t j = 0; j < rep->count; j++)
                if (rep->runs[j].n == sizes[k] &&
                    strcmp(rep->runs[j].label, r->label) == 0)
                    at = &rep->runs[j];
            fprintf(f, " %-12s", at ? verdict_word(at) : "-");
            if (at && !at->biased && !at->inconclusive && !caught)
                small_fair = 1;
            if (at && at->biased && !caught)
                caught = 1, caught_n = at->n;
        }
        const char *word = biased ? "BIASED" : ran ? "fair" : "inconclusive";
        int unexpected = ran && ((r->expect == EXPECT_FAIR && biased) ||
                                 (r->expect == EXPECT_BIASED && !biased));
        fprintf(f, " %s", word);
        if (unexpected)
            fprintf(f, " (UNEXPECTED)");
        else if (biased && small_fair && caught)
            fprintf(f, " (fair at small n; n=%u caught it)",
                    caught_n);
        fputc('\n', f);
    }
    if (nbiased) {
        fprintf(f, "\nwhere the bias is (the strongest evidence; --verbose "
                   "shows every test):\n");
        for (size_t i = 0; i < rep->count; i++) {
            int biased, ran;
            combine(rep, rep->runs[i].label, &biased, &ran);
            if (biased && first_of(rep, i))
                print_where(rep, rep->runs[i].label, f);
        }
    }
    /* one source: its pictures, when they fit one screen */
    if (!rep->all_mode && rep->runs[0].norders <= 24)
        print_orders(&rep->runs[0], f);
    if (!rep->all_mode && rep->runs[0].side && !rep->runs[0].inconclusive) {
        if (rep->runs[0].side * 2 + 5 <= 100)
            print_heatmap(&rep->runs[0], f, color);
        else
            fprintf(f, "\nheat map: --svg=FILE (%u columns do not fit "
                       "here)\n",
                    rep->runs[0].side);
    }
    fprintf(f, "\n");
    print_verdict(rep, f);
}

void verify_print_text(const vreport *rep, FILE *f, int color)
{
    fprintf(f, "tests: statistic and p-value per test (* = rejected); "
               "verdict after Holm's correction over %zu p-values, "
               "family-wise alpha %g\n\n",
            rep->family, rep->alpha);
    fprintf(f, "%-18s %-7s %5s %9s", "algorithm", "expect", "n", "trials");
    for (unsigned k = 0; k < FS_TEST_COUNT; k++)
        fprintf(f, " %-19s", fs_test_name(fs_test_at(k)));
    fprintf(f, " verdict\n");
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        fprintf(f, "%-18s %-7s %5u %9llu", r->label, expect_word(r->expect),
                r->n, (unsigned long long)r->trials);
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            char s[32], p[32], cell[80];
            fmt_stat(&r->res[k], s, sizeof s);
            fmt_p(r->res[k].p, p, sizeof p);
            if (r->res[k].applicable)
                snprintf(cell, sizeof cell, "%s p=%s%s", s, p,
                         r->rejected[k] ? "*" : "");
            else
                snprintf(cell, sizeof cell, "-");
            fprintf(f, " %-19s", cell);
        }
        fprintf(f, " %s\n", verdict_word(r));
    }
    /* Where the bias is. */
    int header = 0;
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        if (!r->biased)
            continue;
        if (!header++)
            fprintf(f, "\nwhere the bias is (worst cells of the rejected "
                       "tests):\n");
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            const fs_test_result *t = &r->res[k];
            if (!r->rejected[k])
                continue;
            if (t->nworst == 0) {
                fprintf(f, "  %s n=%u %s: mean inversions %s than uniform "
                           "(z=%+.1f)\n",
                        r->label, r->n, fs_test_name(t->test),
                        t->statistic > 0 ? "higher" : "lower", t->statistic);
                continue;
            }
            for (unsigned w = 0; w < t->nworst && w < 2; w++) {
                char d[128];
                describe_cell(r, t, &t->worst[w], d, sizeof d);
                fprintf(f, "  %s n=%u %s: %s: %.0f times, %.1f expected "
                           "(%+.1f%%)\n",
                        r->label, r->n, fs_test_name(t->test), d,
                        t->worst[w].observed, t->worst[w].expected,
                        t->worst[w].expected > 1e-200
                            ? 100 * (t->worst[w].observed /
                                         t->worst[w].expected -
                                     1)
                            : INFINITY);
            }
        }
    }
    if (rep->count == 1)
        print_orders(&rep->runs[0], f);
    /* Terminal heat maps: a single run, or the flagged runs of many. */
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        if (r->side && (rep->count == 1 || r->biased))
            print_heatmap(r, f, color);
    }
    fprintf(f, "\n");
    print_verdict(rep, f);
}

/* A cell without colour: its shade says how far from uniform (within
 * noise: a dot), its sign whether more (+) or less (-) often. */
static void shade_cell(FILE *f, double dev, double z, double scale)
{
    static const char *const shades[] = {"\u2591", "\u2592", "\u2593",
                                         "\u2588"};
    if (fabs(z) < 3 || dev == 0) {
        fputs("\u00b7 ", f);
        return;
    }
    double t = fmin(1, fabs(dev) / scale);
    int k = t < 0.25 ? 0 : t < 0.5 ? 1 : t < 0.75 ? 2 : 3;
    fprintf(f, "%s%c", shades[k], dev > 0 ? '+' : '-');
}

static void print_heatmap(const vrun *r, FILE *f, int color)
{
    unsigned s = r->side;
    double scale = verify_scale(r);
    int binned = s != r->n;
    fprintf(f, "\n%s n=%u: where each element lands (rows: %s, columns: "
               "%s)\n",
            r->label, r->n, binned ? "element bins" : "elements",
            binned ? "position bins" : "positions");
    fprintf(f, "     ");
    for (unsigned c = 0; c < s; c++)
        fprintf(f, "%2u", c % 100);
    fprintf(f, "\n");
    for (unsigned row = 0; row < s; row++) {
        fprintf(f, "%4u ", row);
        for (unsigned c = 0; c < s; c++) {
            int rgb[3];
            size_t i = (size_t)row * s + c;
            if (r->cyclic && row == c) { /* cannot occur: blank */
                fprintf(f, color ? "\033[0m  " : "  ");
                continue;
            }
            if (!color) {
                shade_cell(f, r->dev[i], r->z[i], scale);
                continue;
            }
            verify_cell_rgb(r->dev[i], r->z[i], scale, rgb);
            fprintf(f, "\033[48;2;%d;%d;%dm  ", rgb[0], rgb[1], rgb[2]);
        }
        fprintf(f, color ? "\033[0m\n" : "\n");
    }
    const char *base = binned ? "uniform" : r->cyclic ? "(n-1)" : "n";
    if (!color) {
        fprintf(f,
                "legend: \u00b7 within noise (|z| < 3); \u2591 \u2592 \u2593 "
                "\u2588 up to %.0f%% away from 1/%s, + more often, - less\n",
                100 * scale, base);
        return;
    }
    int lo[3], hi[3], mid[3];
    verify_cell_rgb(-scale, -99, scale, lo);
    verify_cell_rgb(scale, 99, scale, hi);
    verify_cell_rgb(0, 0, scale, mid);
    fprintf(f,
            "legend: \033[48;2;%d;%d;%dm  \033[0m less often than 1/%s "
            "(down to -%.0f%%)  \033[48;2;%d;%d;%dm  \033[0m within noise "
            "(|z| < 3)  \033[48;2;%d;%d;%dm  \033[0m more often (up to "
            "+%.0f%%)\n",
            lo[0], lo[1], lo[2], base, 100 * scale, mid[0], mid[1], mid[2],
            hi[0], hi[1], hi[2], 100 * scale);
}

void verify_print_sweep(const vreport *rep, FILE *f)
{
    const vrun *r0 = &rep->runs[0];
    fprintf(f, "\nswap shuffle of n=%u, %llu trials per count: an element "
               "stays home with\nprobability 1/n + (1 - 1/n)(1 - 2/n)^N "
               "after N swaps -- never exactly 1/n\n\n",
            r0->n, (unsigned long long)r0->trials);
    fprintf(f, "%9s  %-12s %-12s %12s %12s  %s\n", "swaps N", "position p",
            "fixed-pts p", "home excess", "exact", "verdict");
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        char pp[32] = "-", pf[32] = "-";
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            if (!r->res[k].applicable)
                continue;
            if (r->res[k].test == FS_TEST_POSITION)
                fmt_p(r->adj[k], pp, sizeof pp);
            if (r->res[k].test == FS_TEST_FIXED)
                fmt_p(r->adj[k], pf, sizeof pf);
        }
        /* observed: mean relative excess of the diagonal (home) cells */
        double obs = NAN;
        if (r->side == r->n && r->dev) {
            obs = 0;
            for (unsigned d = 0; d < r->n; d++)
                obs += r->dev[(size_t)d * r->side + d];
            obs /= r->n;
        }
        double exact = (r->n - 1.0) * pow(1 - 2.0 / r->n, (double)r->swaps);
        fprintf(f, "%9llu  %-12s %-12s %+11.2f%% %+11.2g%%  %s\n",
                (unsigned long long)r->swaps, pp, pf, 100 * obs, 100 * exact,
                verdict_word(r));
    }
    fprintf(f, "\np: Holm-adjusted over the %zu p-values, family-wise alpha "
               "%g.  Past the last BIASED row\nthe bias is still there "
               "(exact column), just smaller than %llu trials can see.\n",
            rep->family, rep->alpha, (unsigned long long)r0->trials);
}

static void print_orders(const vrun *r, FILE *f)
{
    if (r->orders == NULL)
        return;
    uint64_t k = r->norders, total = 0, max = 0;
    for (uint64_t i = 0; i < k; i++) {
        total += r->orders[i];
        if (r->orders[i] > max)
            max = r->orders[i];
    }
    if (total == 0)
        return;
    /* a fair shuffle: each count ~ Binomial(T, 1/k); 3 sd either side */
    double e = (double)total / (double)k;
    double sd = sqrt(e * (1 - 1.0 / (double)k));
    double lo = fmax(0, e - 3 * sd), hi = e + 3 * sd;
    double top = fmax((double)max, hi);
    const int W = 50;
    int blo = (int)lround(lo / top * W), bhi = (int)lround(hi / top * W);
    fprintf(f, "\n%s n=%u: how often each of the %llu %sorders came up "
               "(%llu trials)\n",
            r->label, r->n, (unsigned long long)k,
            r->cyclic ? "single-cycle " : "", (unsigned long long)total);
    unsigned outside = 0;
    for (uint64_t i = 0; i < k; i++) {
        uint32_t p[8];
        char name[32];
        size_t len = 0;
        int rc = r->cyclic ? fs_cycle_unrank(i, r->n, p)
                           : fs_lehmer_unrank(i, r->n, p);
        for (unsigned j = 0; rc == FS_OK && j < r->n && len + 3 < sizeof name;
             j++)
            len += (size_t)snprintf(name + len, sizeof name - len, "%s%u",
                                    j ? " " : "", p[j]);
        int b = (int)lround((double)r->orders[i] / top * W);
        int out = (double)r->orders[i] < lo || (double)r->orders[i] > hi;
        outside += out;
        fprintf(f, "%*s ", (int)(2 * r->n - 1), name);
        for (int c = 0; c < W; c++)
            fputs(c < b ? "\u2588" : c >= blo && c < bhi ? "\u2591" : " ", f);
        fprintf(f, " %llu%s\n", (unsigned long long)r->orders[i],
                out ? (r->orders[i] > hi ? " +" : " -") : "");
    }
    fprintf(f, "legend: \u2591 where a fair shuffle's count stays (%.0f to "
               "%.0f: 1/%llu of the trials, 3 sd)\n        %u of %llu orders "
               "outside%s\n",
            lo, hi, (unsigned long long)k, outside, (unsigned long long)k,
            outside ? " (+ more often, - less)" : "");
}

/* JSON numbers: finite or null. */
static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fprintf(f, "null");
}

static void jstr(FILE *f, const char *s)
{
    json_string(f, s);
}

void verify_print_json(const vreport *rep, FILE *f)
{
    fprintf(f, "{\"correction\":\"holm\",\"alpha\":");
    jnum(f, rep->alpha);
    fprintf(f, ",\"family\":%zu,\"rng\":", rep->family);
    if (rep->rng)
        jstr(f, rep->rng);
    else
        fprintf(f, "null");
    fprintf(f, ",\"ok\":%s,\"status\":%d,\"unreachable\":",
            rep->ok ? "true" : "false", rep->status);
    char line[400];
    verify_unreachable(rep, line, sizeof line);
    if (line[0])
        jstr(f, line);
    else
        fprintf(f, "null");
    fprintf(f, ",\"power\":");
    const vrun *pr = power_run(rep);
    verify_power(rep, line, sizeof line);
    if (line[0] && pr) {
        fprintf(f, "{\"n\":%u,\"trials\":%llu,\"detectable_bias\":", pr->n,
                (unsigned long long)pr->trials);
        jnum(f, fs_maxcell_detectable(pr->n, pr->trials, rep->alpha,
                                      rep->family));
        fprintf(f, ",\"stated_bias\":");
        jnum(f, rep->bias);
        fprintf(f, ",\"trials_needed\":");
        jnum(f, fs_maxcell_trials(pr->n, rep->bias, rep->alpha, rep->family));
        fprintf(f, ",\"text\":");
        jstr(f, line);
        fprintf(f, "}");
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ",\"runs\":[");
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        fprintf(f, "%s\n{\"algorithm\":", i ? "," : "");
        jstr(f, r->label);
        fprintf(f, ",\"expected\":\"%s\",\"n\":%u,\"trials\":%llu,"
                   "\"seed\":",
                r->expect == EXPECT_FAIR     ? "fair"
                : r->expect == EXPECT_BIASED ? "biased"
                                             : "unknown",
                r->n, (unsigned long long)r->trials);
        if (r->is_input)
            fprintf(f, "null");
        else
            jstr(f, r->seed);
        fprintf(f, ",\"verdict\":\"%s\",\"where\":",
                r->biased ? "biased" : r->inconclusive ? "inconclusive"
                                                       : "fair");
        if (r->biased && verify_where(rep, r->label, line, sizeof line))
            jstr(f, line);
        else
            fprintf(f, "null");
        fprintf(f, ",\"tests\":[");
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            const fs_test_result *t = &r->res[k];
            fprintf(f, "%s{\"test\":\"%s\",\"applicable\":%s", k ? "," : "",
                    fs_test_name(t->test), t->applicable ? "true" : "false");
            if (!t->applicable) {
                fprintf(f, ",\"why\":");
                jstr(f, t->why);
                fprintf(f, "}");
                continue;
            }
            fprintf(f, ",\"distribution\":\"%s\",\"statistic\":",
                    t->normal ? "normal" : "chi-square");
            jnum(f, t->statistic);
            fprintf(f, ",\"df\":");
            jnum(f, t->df);
            fprintf(f, ",\"p\":");
            jnum(f, t->p);
            fprintf(f, ",\"p_holm\":");
            jnum(f, r->adj[k]);
            fprintf(f, ",\"rejected\":%s,\"worst\":[",
                    r->rejected[k] ? "true" : "false");
            for (unsigned w = 0; w < t->nworst; w++) {
                char d[128];
                describe_cell(r, t, &t->worst[w], d, sizeof d);
                fprintf(f, "%s{\"cell\":", w ? "," : "");
                jstr(f, d);
                fprintf(f, ",\"observed\":");
                jnum(f, t->worst[w].observed);
                fprintf(f, ",\"expected\":");
                jnum(f, t->worst[w].expected);
                fprintf(f, ",\"z\":");
                jnum(f, t->worst[w].z);
                fprintf(f, "}");
            }
            fprintf(f, "]}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n]}\n");
}
