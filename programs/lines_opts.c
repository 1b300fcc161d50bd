/* lines_opts.c -- GNU shuf 9.1's options, checks and messages, plus the
 * fairshuf extensions.  The order of checks follows coreutils' shuf.c so
 * that the first error reported is the same one. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lines_opts.h"
#include "lines_quote.h"

enum {
    OPT_RANDOM_SOURCE = 256, OPT_SEED, OPT_MEMORY, OPT_THREADS,
    OPT_PROGRESS, OPT_NO_PROGRESS, OPT_HEADER, OPT_HELP, OPT_VERSION,
    OPT_CSV, OPT_SPLIT, OPT_STRATIFY, OPT_WEIGHTS, OPT_GROUP_BY,
    OPT_SHUFFLE_WITHIN
};

static const struct option long_opts[] = {
    {"echo", no_argument, NULL, 'e'},
    {"input-range", required_argument, NULL, 'i'},
    {"head-count", required_argument, NULL, 'n'},
    /* exact spellings so that GNU's abbreviations stay unambiguous next
     * to --header */
    {"head", required_argument, NULL, 'n'},
    {"hea", required_argument, NULL, 'n'},
    {"output", required_argument, NULL, 'o'},
    {"random-source", required_argument, NULL, OPT_RANDOM_SOURCE},
    {"repeat", no_argument, NULL, 'r'},
    {"zero-terminated", no_argument, NULL, 'z'},
    {"seed", required_argument, NULL, OPT_SEED},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"temporary-directory", required_argument, NULL, 'T'},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"header", required_argument, NULL, OPT_HEADER},
    {"csv", no_argument, NULL, OPT_CSV},
    {"field-separator", required_argument, NULL, 't'},
    {"split", required_argument, NULL, OPT_SPLIT},
    {"stratify", required_argument, NULL, OPT_STRATIFY},
    {"weights", required_argument, NULL, OPT_WEIGHTS},
    {"group-by", required_argument, NULL, OPT_GROUP_BY},
    {"shuffle-within", no_argument, NULL, OPT_SHUFFLE_WITHIN},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0}};

/* coreutils' xstrtoumax in base 10 with no suffixes: leading blanks and a
 * '+' are accepted, a '-' is not.  0 ok, -1 invalid, -2 overflow. */
static int parse_umax(const char *s, uint64_t *out)
{
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s == '-')
        return -1;
    if (*s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    int over = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    if (*s)
        return -1; /* an invalid suffix wins over overflow, as in GNU */
    if (over)
        return -2;
    *out = v;
    return 0;
}

/* msg = fmt with arg quoted as GNU's quote() does, then ": why". */
static int opt_fail(char *msg, size_t len, const char *fmt, const char *arg,
                const char *why)
{
    char *q = lines_quoteaf(arg);
    int k = snprintf(msg, len, fmt, q);
    if (q != arg)
        free(q);
    if (why && k >= 0 && (size_t)k < len)
        snprintf(msg + k, len - (size_t)k, ": %s", why);
    return CLI_FAIL;
}

/* "LO-HI": the quoted part of a message is GNU's (its strchr splits the
 * argument in place, so a bad LO is quoted alone). */
static int parse_range(const char *arg, lines_opts *o, char *msg, size_t len)
{
    const char *dash = strchr(arg, '-');
    char lo_s[4096];
    const char *fmt = "invalid input range: %s";
    if (dash == NULL)
        return opt_fail(msg, len, fmt, arg, NULL);
    size_t ll = (size_t)(dash - arg);
    if (ll >= sizeof lo_s)
        ll = sizeof lo_s - 1;
    memcpy(lo_s, arg, ll);
    lo_s[ll] = '\0';
    int rc = parse_umax(lo_s, &o->lo);
    if (rc != 0)
        return opt_fail(msg, len, fmt, lo_s, rc == -2 ? strerror(EOVERFLOW) : NULL);
    rc = parse_umax(dash + 1, &o->hi);
    if (rc != 0)
        return opt_fail(msg, len, fmt, dash + 1,
                    rc == -2 ? strerror(EOVERFLOW) : NULL);
    uint64_t count = o->hi - o->lo + 1;
    if ((o->lo <= o->hi) == (count == 0))
        return opt_fail(msg, len, fmt, arg, NULL);
    return 0;
}

/* A message and CLI_FAIL (the "Try --help" line too when try is set). */
static int usage_fail(char *msg, size_t len, int *try_help, int try, const char *m)
{
    snprintf(msg, len, "%s", m);
    *try_help = try;
    return CLI_FAIL;
}

/* The options of GNU shuf 9.1 (e i n o random-source r z). */
static int gnu_option(int c, const char *arg, lines_opts *o, char *msg,
                      size_t len)
{
    uint64_t v;
    int rc;
    switch (c) {
    case 'e': o->echo = 1; return 0;
    case 'r': o->repeat = 1; return 0;
    case 'z': o->zero = 1; return 0;
    case 'i':
        if (o->have_range) {
            snprintf(msg, len, "multiple -i options specified");
            return CLI_FAIL;
        }
        o->have_range = 1;
        return parse_range(arg, o, msg, len);
    case 'n':
        rc = parse_umax(arg, &v);
        if (rc == 0 && v < o->head)
            o->head = v;
        else if (rc == -1)
            return opt_fail(msg, len, "invalid line count: %s", arg, NULL);
        return 0;
    case 'o':
        if (o->output && strcmp(o->output, arg) != 0) {
            snprintf(msg, len, "multiple output files specified");
            return CLI_FAIL;
        }
        o->output = arg;
        return 0;
    default: /* OPT_RANDOM_SOURCE */
        if (o->random_source && strcmp(o->random_source, arg) != 0) {
            snprintf(msg, len, "multiple random sources specified");
            return CLI_FAIL;
        }
        o->random_source = arg;
        return 0;
    }
}

/* One --split weight at p: digits, or digits with a decimal point and up
 * to 9 digits after it (0.8, .25, 3.): *v is its value times 10^9.
 * Returns the end, or NULL. */
static const char *split_weight(const char *p, unsigned __int128 *v)
{
    unsigned __int128 x = 0;
    int digits = 0, frac = -1;
    for (;; p++) {
        if (*p >= '0' && *p <= '9') {
            if (frac >= 9 || x > ((unsigned __int128)1 << 80))
                return NULL;
            x = x * 10 + (unsigned)(*p - '0');
            digits++;
            if (frac >= 0)
                frac++;
        } else if (*p == '.' && frac < 0) {
            frac = 0;
        } else {
            break;
        }
    }
    if (digits == 0)
        return NULL;
    for (int f = frac < 0 ? 0 : frac; f < 9; f++)
        x *= 10;
    *v = x;
    return p;
}

static unsigned __int128 gcd(unsigned __int128 a, unsigned __int128 b)
{
    while (b != 0) {
        unsigned __int128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* --split=80,10,10 or 0.8,0.1,0.1: 2 to 64 non-negative weights, not all
 * 0; only their ratios matter.  Decimal weights are scaled by the same
 * power of ten to integers (exact: no floating point), then divided by
 * their greatest common divisor; each must end at most 2^40. */
static int parse_split(const char *arg, lines_opts *o, char *msg, size_t len)
{
    const char *p = arg;
    unsigned __int128 w[64], g = 0;
    size_t k = 0;
    int ok = 0;
    for (;;) {
        if (k == 64 || (p = split_weight(p, &w[k])) == NULL)
            break;
        g = gcd(g, w[k]);
        k++;
        if (*p == '\0') {
            ok = k >= 2 && g != 0;
            break;
        }
        if (*p++ != ',')
            break;
    }
    for (size_t i = 0; ok && i < k; i++) {
        if (w[i] / g > ((uint64_t)1 << 40))
            ok = 0;
        else
            o->split_w[i] = (uint64_t)(w[i] / g);
    }
    if (ok) {
        o->nsplit = k;
        o->split = arg;
        return 0;
    }
    o->nsplit = 0;
    opt_fail(msg, len, "invalid --split: %s (2 to 64 weights, as 80,10,10 "
             "or 0.8,0.1,0.1)", arg, NULL);
    return CLI_USAGE;
}

/* fairshuf's extensions. */
static int ext_option(int c, const char *arg, lines_opts *o, char *msg,
                      size_t len)
{
    uint64_t v;
    int rc;
    switch (c) {
    case OPT_SEED:
        if (cli_seed_problem(arg)) {
            snprintf(msg, len, "%s", cli_seed_problem(arg));
            return CLI_FAIL;
        }
        o->seed = arg;
        return 0;
    case OPT_MEMORY:
        if (cli_parse_size(arg, &v) != 0)
            return opt_fail(msg, len, "invalid memory size: %s", arg, NULL);
        if (v < 4096)
            return opt_fail(msg, len, "invalid memory size: %s", arg,
                            "the minimum is 4K (4096 bytes)");
        o->memory = v;
        return 0;
    case 'T': o->tmpdir = arg; return 0;
    case OPT_THREADS:
        if (parse_umax(arg, &v) != 0 || v < 1 || v > 256)
            return opt_fail(msg, len, "invalid thread count: %s (1 to 256)",
                            arg, NULL);
        o->threads = (unsigned)v;
        return 0;
    case OPT_PROGRESS: o->progress = 1; return 0;
    case OPT_NO_PROGRESS: o->progress = 0; return 0;
    case OPT_CSV: o->csv = 1; return 0;
    case 't':
        if (strlen(arg) != 1 && strcmp(arg, "\\t") != 0 &&
            strcmp(arg, "\\0") != 0) {
            opt_fail(msg, len,
                     "invalid field separator: %s (one byte, or \\t or \\0)",
                     arg, NULL);
            return CLI_USAGE;
        }
        o->have_sep = 1;
        o->sep = strcmp(arg, "\\t") == 0 ? '\t'
                 : strcmp(arg, "\\0") == 0 ? '\0' : (unsigned char)arg[0];
        return 0;
    case OPT_SPLIT:
        return parse_split(arg, o, msg, len);
    case OPT_STRATIFY: o->stratify = arg; return 0;
    case OPT_WEIGHTS: o->weights = arg; return 0;
    case OPT_GROUP_BY: o->group_by = arg; return 0;
    case OPT_SHUFFLE_WITHIN: o->shuffle_within = 1; return 0;
    default: /* OPT_HEADER */
        rc = parse_umax(arg, &v);
        if (rc == -1)
            return opt_fail(msg, len, "invalid header line count: %s", arg,
                            NULL);
        o->header = rc == -2 ? UINT64_MAX : v;
        o->have_header = 1;
        return 0;
    }
}

/* The checks after all options, in GNU's order, then the extensions'. */
static int check_operands(lines_opts *o, char *msg, size_t len,
                          int *try_help)
{
    if (o->echo && o->have_range)
        return usage_fail(msg, len, try_help, 1, "cannot combine -e and -i options");
    const char *extra = NULL;
    if (o->have_range && o->noperands > 0)
        extra = o->operands[0];
    else if (!o->echo && !o->have_range && o->noperands > 1)
        extra = o->operands[1];
    if (extra) {
        *try_help = 1;
        return opt_fail(msg, len, "extra operand %s", extra, NULL);
    }
    if (o->seed && o->random_source)
        return usage_fail(msg, len, try_help, 1,
                    "cannot combine --seed and --random-source");
    if (o->csv && (o->have_range || o->echo || o->zero))
        return usage_fail(msg, len, try_help, 1,
                    o->zero ? "cannot combine --csv and -z options"
                            : "--csv needs input records (not -e or -i)");
    const char *data = o->split ? "--split" : o->weights ? "--weights"
                       : o->group_by ? "--group-by" : NULL;
    if (o->weights && (o->split || o->group_by))
        return usage_fail(msg, len, try_help, 1,
                    "--weights is a run of its own (not with --split or "
                    "--group-by)") + 1;
    if (data && (o->have_range || o->echo || o->repeat || o->random_source)) {
        snprintf(msg, len, "cannot combine %s with -e, -i, -r or "
                 "--random-source", data);
        *try_help = 1;
        return CLI_USAGE;
    }
    if (o->stratify && !o->split)
        return usage_fail(msg, len, try_help, 1, "--stratify needs --split") + 1;
    if (o->stratify && o->group_by)
        return usage_fail(msg, len, try_help, 1,
                    "cannot combine --stratify and --group-by (a split "
                    "keeps whole groups or strata, not both)") + 1;
    if (o->split && o->group_by && o->head != UINT64_MAX)
        return usage_fail(msg, len, try_help, 1,
                    "--split --group-by cuts whole groups: -n does not "
                    "apply") + 1;
    if (o->shuffle_within && !o->group_by)
        return usage_fail(msg, len, try_help, 1,
                    "--shuffle-within needs --group-by") + 1;
    if (o->weights && o->head == UINT64_MAX)
        return usage_fail(msg, len, try_help, 1,
                    "--weights needs -n COUNT (how many to draw)") + 1;
    if (o->split && o->output == NULL)
        return usage_fail(msg, len, try_help, 1,
                    "--split needs -o 'NAME-%d' or -o NAME,NAME,...") + 1;
    if (!o->have_sep)
        o->sep = o->csv ? ',' : '\t';
    if (o->have_header && o->have_range) /* numbers have no header line */
        return usage_fail(msg, len, try_help, 1,
                    "cannot combine --header and -i options");
    return 0;
}

int lines_parse(int argc, char **argv, lines_opts *o, int quiet, char *msg,
                size_t msglen, int *try_help)
{
    memset(o, 0, sizeof *o);
    o->head = UINT64_MAX;
    o->progress = -1;
    *try_help = 0;
    msg[0] = '\0';
    optind = 0; /* full re-initialisation of glibc's getopt */
    opterr = !quiet;
    int c;
    while ((c = getopt_long(argc, argv, "ei:n:o:rzT:t:", long_opts, NULL)) !=
           -1) {
        int rc;
        if (c == OPT_HELP || c == OPT_VERSION) {
            *(c == OPT_HELP ? &o->help : &o->version) = 1;
            return 0;
        }
        if ((c < 256 && strchr("einorz", c)) || c == OPT_RANDOM_SOURCE)
            rc = gnu_option(c, optarg, o, msg, msglen);
        else if (c == '?' || c == ':')
            return usage_fail(msg, msglen, try_help, 1, "");
        else
            rc = ext_option(c, optarg, o, msg, msglen);
        if (rc != 0)
            return rc;
    }
    o->operands = argv + optind;
    o->noperands = argc - optind;
    return check_operands(o, msg, msglen, try_help);
}
