/* certify_report.c -- `fairshuf certify`'s report.json and report.html,
 * and the regulations' profiles (docs/certify.md "Profiles"). */
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "certify.h"
#include "json.h"
#include "svg.h"

/* 25 CFR 547.14(b)(2): "may include" these, at 99%. */
static const cert_named nigc_named[] = {
    {"Chi-square test", "card by position, first card, last card, hand "
                        "suits and ranks, bits: byte frequency"},
    {"Runs test", "runs of the first card, bits: runs"},
    {"Serial correlation test", "first card after first card, same card, "
                                "same position"},
    {"Equi-distribution (frequency) test", "first card, last card, bits: "
                                           "monobit, bits: byte frequency"},
    {"Gap test", NULL},
    {"Poker test", NULL},
    {"Coupon collector's test", NULL},
    {"Permutation test", "order of the first k cards"},
    {"Spectral test", NULL},
    {"Test on subsequences", "bits: byte pairs"},
};

/* 58 Pa. Code 810a.5(c): "may employ" these, at 95%. */
static const cert_named pa_named[] = {
    {"Chi-square test", "card by position, first card, last card, hand "
                        "suits and ranks, bits: byte frequency"},
    {"Equi-distribution (frequency) test", "first card, last card, bits: "
                                           "monobit, bits: byte frequency"},
    {"Gap test", NULL},
    {"Overlaps test", NULL},
    {"Poker test", NULL},
    {"Coupon collectors test", NULL},
    {"Permutation test", "order of the first k cards"},
    {"Kolmogorov-Smirnov test", NULL},
    {"Adjacency criterion tests", "successor pairs"},
    {"Order statistic test", NULL},
    {"Runs tests", "runs of the first card, bits: runs"},
    {"Interplay correlation test", "hand suits and ranks (each seat's "
                                   "hand against the others' cards)"},
    {"Serial correlation test", "first card after first card, same card, "
                                "same position"},
    {"Tests on subsequences", "bits: byte pairs"},
    {"Poisson distribution", NULL},
};

static const cert_named ontario_named[] = {
    {"Chi-square test", "card by position, first card, last card, hand "
                        "suits and ranks"},
    {"Runs test", "runs of the first card, bits: runs"},
    {"Serial correlation test", "first card after first card, same card, "
                                "same position"},
    {"Permutation test", "order of the first k cards"},
};

#define N(a) (sizeof a / sizeof *a)
static const cert_profile profiles[] = {
    {"nigc", "NIGC Class II minimum technical standards",
     "25 CFR 547.14(b)(2)", 0.99,
     "The text lists tests an RNG's output \"may include\" at a 99% "
     "confidence level; the ones marked not run are generic tests of a "
     "number stream that the bit tests and dieharder on raw.bin stand in "
     "for.",
     N(nigc_named), nigc_named},
    {"pa", "Pennsylvania interactive gaming RNG standards",
     "58 Pa. Code 810a.5(c)", 0.95,
     "The text lets the lab \"employ various recognized tests\" to the "
     "desired confidence level of 95%; it also requires every RNG instance "
     "to be certified separately: one submission per instance.",
     N(pa_named), pa_named},
    {"ontario", "Ontario (AGCO) RNG requirements", "AGCO Registrar's "
     "Standards for Internet Gaming (text not available here)", 0.99,
     "The Registrar's text was not available when this profile was "
     "written: a 99% level and the four classic tests (chi-square, runs, "
     "serial correlation, permutation) are assumed; check them against the "
     "current standard.",
     N(ontario_named), ontario_named},
};

const cert_profile *cert_profile_find(const char *id)
{
    for (size_t i = 0; i < N(profiles); i++)
        if (strcmp(profiles[i].id, id) == 0)
            return &profiles[i];
    return NULL;
}

static const char *reach_name(fs_reach r)
{
    return r == FS_REACH_ALL             ? "all"
           : r == FS_REACH_COMPUTATIONAL ? "computational"
                                         : "partial";
}

/* The reachability account in one sentence. */
static void reach_text(const cert_run *r, char *buf, size_t cap)
{
    const fs_entropy *e = &r->entropy;
    if (e->reach == FS_REACH_ALL)
        snprintf(buf, cap, "Every deal is reachable: %s has 2^%u seeds and "
                 "%s has 2^%.1f distinct deals, and the shuffle maps the "
                 "generator's draws onto the orders of the shoe without "
                 "loss (docs/entropy.md).", r->rng, e->seed_bits, r->game,
                 e->deal_bits);
    else if (e->reach == FS_REACH_COMPUTATIONAL)
        snprintf(buf, cap, "%s has 2^%.1f distinct deals, more than the 2^%u "
                 "keys of %s: no one can tell which deals are never dealt "
                 "without breaking the cipher (docs/entropy.md, "
                 "\"computational reach\").", r->game, e->deal_bits,
                 e->seed_bits, r->rng);
    else
        snprintf(buf, cap, "NOT every deal is reachable: %s has 2^%u seeds "
                 "but %s has 2^%.1f distinct deals, so at most 1 deal in "
                 "2^%.1f can ever be dealt.", r->rng, e->seed_bits, r->game,
                 e->deal_bits, e->deal_bits - e->seed_bits);
}

static void power_text(const cert_run *r, char *buf, size_t cap)
{
    if (isnan(r->power_eps))
        snprintf(buf, cap, "The most extreme card-by-position cell is not "
                 "tested for %zu cards (binned above 64).", r->cards);
    else
        snprintf(buf, cap, "A bias of %.2f%% in one card-by-position cell "
                 "(one card put on one position that much more often) would "
                 "be seen at this number of deals (%llu), with 90%% power "
                 "at the family-wise level.", 100 * r->power_eps, r->trials);
}

static void jnum(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.10g", x);
    else
        fputs("null", f);
}

static void jkey(FILE *f, const char *key, const char *value, int comma)
{
    json_string(f, key);
    fputc(':', f);
    if (value)
        json_string(f, value);
    else
        fputs("null", f);
    if (comma)
        fputc(',', f);
}

static const char *keystream(void)
{
#ifdef FS_CHACHA_OPENSSL
    return "OpenSSL libcrypto";
#else
    return "libsodium";
#endif
}

int cert_report_json(FILE *f, const cert_run *r)
{
    char reach[512], power[512];
    reach_text(r, reach, sizeof reach);
    power_text(r, power, sizeof power);
    size_t family = 0;
    for (size_t i = 0; i < r->ntests; i++)
        family += r->tests[i].applicable;
    fputc('{', f);
    jkey(f, "verdict", r->pass ? "pass" : "fail", 1);
    jkey(f, "why", r->why_fail, 1);
    jkey(f, "game", r->game, 1);
    fprintf(f, "\"players\":%u,\"decks\":%u,\"cards\":%zu,", r->players,
            r->decks, r->cards);
    jkey(f, "rng", r->rng, 1);
    jkey(f, "algorithm", r->algorithm, 1);
    fprintf(f, "\"trials\":%llu,\"level\":", r->trials);
    jnum(f, r->level);
    fprintf(f, ",\"familywise\":{\"method\":\"holm\",\"alpha\":");
    jnum(f, 1 - r->level);
    fprintf(f, ",\"family\":%zu},\"profile\":", family);
    if (r->profile) {
        fputc('{', f);
        jkey(f, "id", r->profile->id, 1);
        jkey(f, "title", r->profile->title, 1);
        jkey(f, "source", r->profile->source, 1);
        jkey(f, "note", r->profile->note, 1);
        fputs("\"named\":[", f);
        for (size_t i = 0; i < r->profile->nnamed; i++) {
            fputs(i ? ",{" : "{", f);
            jkey(f, "name", r->profile->named[i].name, 1);
            jkey(f, "covered_by", r->profile->named[i].covered, 0);
            fputc('}', f);
        }
        fputs("]}", f);
    } else {
        fputs("null", f);
    }
    fputs(",\"tests\":[", f);
    for (size_t i = 0; i < r->ntests; i++) {
        const fs_cert_test *t = &r->tests[i];
        fputs(i ? ",{" : "{", f);
        jkey(f, "name", t->name, 1);
        jkey(f, "kind", t->kind, 1);
        fprintf(f, "\"applicable\":%s,", t->applicable ? "true" : "false");
        jkey(f, "statistic_kind", t->applicable ? (t->normal ? "z" : "chi2")
                                                : NULL, 1);
        fputs("\"statistic\":", f);
        jnum(f, t->applicable ? t->statistic : NAN);
        fputs(",\"df\":", f);
        jnum(f, t->applicable && !t->normal ? t->df : NAN);
        fputs(",\"p\":", f);
        jnum(f, t->p);
        fputs(",\"p_holm\":", f);
        jnum(f, r->adjusted[i]);
        fprintf(f, ",\"pass\":%s,", !t->applicable ? "null"
                                    : r->rejected[i] ? "false" : "true");
        jkey(f, "why", t->applicable ? NULL : t->why, 0);
        fputc('}', f);
    }
    fputs("],\"power\":{\"model\":\"one card on one position more often by "
          "a fraction eps, 90% power\",\"detectable_bias\":", f);
    jnum(f, r->power_eps);
    fputc(',', f);
    jkey(f, "text", power, 0);
    fprintf(f, "},\"reachability\":{\"deck_bits\":%.3f,\"deal_bits\":%.3f,"
               "\"seed_bits\":%u,\"state_bits\":%u,",
            r->entropy.deck_bits, r->entropy.deal_bits, r->entropy.seed_bits,
            r->entropy.state_bits);
    jkey(f, "reach", reach_name(r->entropy.reach), 1);
    jkey(f, "text", reach, 0);
    fputs("},", f);
    jkey(f, "seeding", r->seeding, 1);
    fputs("\"files\":{\"raw.bin\":{", f);
    fprintf(f, "\"bytes\":%llu,", r->raw_bytes);
    jkey(f, "what", "the generator's output just before the deals, from "
                    "the same instance, bytes in stream order", 0);
    fprintf(f, "},\"decks.tsv\":{\"deals\":%llu,", r->trials);
    jkey(f, "what", "every deal, one per line, as fairshuf deal "
                    "--format=tsv", 0);
    fputs("}},\"reproduce\":{", f);
    jkey(f, "command", r->command, 1);
    jkey(f, "fairshuf", fs_version(), 1);
    jkey(f, "keystream", keystream(), 1);
    jkey(f, "libsodium", sodium_version_string(), 0);
    fputs("},\"seconds\":", f);
    jnum(f, r->seconds);
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}

static void row(FILE *f, const char *key, const char *value)
{
    fputs("<tr><th>", f);
    svg_esc(f, key);
    fputs("</th><td>", f);
    svg_esc(f, value);
    fputs("</td></tr>\n", f);
}

static void fmt(FILE *f, double x, const char *spec)
{
    if (isfinite(x))
        fprintf(f, spec, x);
    else
        fputs("&mdash;", f);
}

static const char css[] =
    "body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:"
    "980px;padding:16px;color:#1d2330}\n"
    "h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:22px 0 8px}\n"
    ".verdict{padding:14px 16px;border-radius:8px;font-size:18px;"
    "font-weight:600}\n.pass{background:#e3f4e6;color:#14532d;border:1px "
    "solid #86c697}\n.fail{background:#fde7e7;color:#7f1d1d;border:1px solid"
    " #e39b9b}\n"
    "table{border-collapse:collapse;width:100%;margin:6px 0}"
    "th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e3e6ec;"
    "vertical-align:top}\nth{font-weight:600;white-space:nowrap}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.rej td{background:#fde7e7}\n.small{color:#566;font-size:13px}\n"
    "code{font-size:13px;word-break:break-all}\n"
    ".scroll{overflow-x:auto}\n";

int cert_report_html(FILE *f, const cert_run *r)
{
    char reach[512], power[512], buf[256];
    reach_text(r, reach, sizeof reach);
    power_text(r, power, sizeof power);
    size_t family = 0, rejected = 0;
    for (size_t i = 0; i < r->ntests; i++) {
        family += r->tests[i].applicable;
        rejected += r->rejected[i] != 0;
    }
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset="
               "\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-"
               "width, initial-scale=1\">\n<title>fairshuf certify: %s, %s"
               "</title>\n<style>%s</style></head><body>\n",
            r->game, r->pass ? "pass" : "fail", css);
    fprintf(f, "<h1>RNG submission: %s, %u players, %llu deals</h1>\n",
            r->game, r->players, r->trials);
    fprintf(f, "<div id=\"verdict\" class=\"verdict %s\" data-verdict=\"%s\">"
               "%s",
            r->pass ? "pass" : "fail", r->pass ? "pass" : "fail",
            r->pass ? "PASS" : "FAIL");
    snprintf(buf, sizeof buf, ": %zu of %zu tests rejected at the "
             "family-wise level %g (Holm)", rejected, family, 1 - r->level);
    svg_esc(f, buf);
    if (r->why_fail && rejected == 0) { /* the reachability account */
        fputs(" &mdash; ", f);
        svg_esc(f, r->why_fail);
    }
    fputs("</div>\n<h2>What was tested</h2>\n<table>\n", f);
    row(f, "Game", r->game);
    snprintf(buf, sizeof buf, "%u players, %u deck(s), %zu cards", r->players,
             r->decks, r->cards);
    row(f, "Layout", buf);
    row(f, "Generator", r->rng);
    row(f, "Shuffle", r->algorithm);
    snprintf(buf, sizeof buf, "%llu (decks.tsv)", r->trials);
    row(f, "Deals", buf);
    snprintf(buf, sizeof buf, "%llu bytes (raw.bin)", r->raw_bytes);
    row(f, "Raw output", buf);
    snprintf(buf, sizeof buf, "%g%% confidence: Holm's step-down over %zu "
             "tests at %g", 100 * r->level, family, 1 - r->level);
    row(f, "Level", buf);
    fputs("</table>\n<h2>Every deal reachable?</h2>\n<p>", f);
    svg_esc(f, reach);
    fputs("</p>\n<h2>Power</h2>\n<p>", f);
    svg_esc(f, power);
    fputs("</p>\n<h2>Seeding and reseeding</h2>\n<p>", f);
    svg_esc(f, r->seeding);
    fputs("</p>\n", f);
    if (r->profile) {
        fputs("<h2>Profile: ", f);
        svg_esc(f, r->profile->title);
        fputs(" (", f);
        svg_esc(f, r->profile->source);
        fputs(")</h2>\n<p class=\"small\">", f);
        svg_esc(f, r->profile->note);
        fputs("</p>\n<table><tr><th>Named test</th><th>Answered by"
              "</th></tr>\n", f);
        for (size_t i = 0; i < r->profile->nnamed; i++)
            row(f, r->profile->named[i].name,
                r->profile->named[i].covered ? r->profile->named[i].covered
                                             : "not run");
        fputs("</table>\n", f);
    }
    fputs("<h2>Tests</h2>\n<div class=\"scroll\"><table><tr><th>Test</th>"
          "<th>Kind</th><th>Statistic</th><th>df</th><th>p</th>"
          "<th>Holm p</th><th>Result</th></tr>\n", f);
    for (size_t i = 0; i < r->ntests; i++) {
        const fs_cert_test *t = &r->tests[i];
        fprintf(f, "<tr%s><td>", r->rejected[i] ? " class=\"rej\"" : "");
        svg_esc(f, t->name);
        fprintf(f, "</td><td>%s</td><td class=\"n\">", t->kind);
        if (t->applicable)
            fprintf(f, "%s = %.3f", t->normal ? "z" : "&chi;&sup2;",
                    t->statistic);
        fputs("</td><td class=\"n\">", f);
        fmt(f, t->applicable && !t->normal ? t->df : NAN, "%.0f");
        fputs("</td><td class=\"n\">", f);
        fmt(f, t->p, "%.4g");
        fputs("</td><td class=\"n\">", f);
        fmt(f, r->adjusted[i], "%.4g");
        fputs("</td><td>", f);
        if (!t->applicable)
            svg_esc(f, t->why ? t->why : "not run");
        else
            fputs(r->rejected[i] ? "<b>rejected</b>" : "pass", f);
        fputs("</td></tr>\n", f);
    }
    fputs("</table></div>\n<h2>Files</h2>\n<p class=\"small\">raw.bin "
          "(the generator's output just before the deals, same instance), "
          "decks.tsv (every deal as <code>fairshuf deal --format=tsv</code>),"
          " report.json, this page; SHA256SUMS checks them "
          "(<code>sha256sum -c SHA256SUMS</code>).</p>\n<h2>Reproduce"
          "</h2>\n<p><code>", f);
    svg_esc(f, r->command);
    fprintf(f, "</code></p>\n<p class=\"small\">fairshuf %s, ChaCha20 "
               "keystream from %s, libsodium %s; %.1f s.</p>\n"
               "</body></html>\n",
            fs_version(), keystream(), sodium_version_string(), r->seconds);
    return ferror(f) ? -1 : 0;
}
