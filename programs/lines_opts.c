/* lines_opts.c -- GNU shuf 9.1's options, checks and messages, plus the
 * fairshuf extensions.  The order of checks follows coreutils' shuf.c so
 * that the first error reported is the same one. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lines_opts.h"

enum {
    OPT_RANDOM_SOURCE = 256, OPT_SEED, OPT_MEMORY, OPT_THREADS,
    OPT_PROGRESS, OPT_NO_PROGRESS, OPT_HEADER, OPT_HELP, OPT_VERSION
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

static int opt_fail(char *msg, size_t len, const char *fmt, const char *arg,
                const char *why)
{
    int k = snprintf(msg, len, fmt, arg);
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
    const char *fmt = "invalid input range: '%s'";
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
    while ((c = getopt_long(argc, argv, "ei:n:o:rzT:", long_opts, NULL)) !=
           -1) {
        uint64_t v;
        int rc;
        switch (c) {
        case 'e': o->echo = 1; break;
        case 'i':
            if (o->have_range) {
                snprintf(msg, msglen, "multiple -i options specified");
                return CLI_FAIL;
            }
            o->have_range = 1;
            if (parse_range(optarg, o, msg, msglen) != 0)
                return CLI_FAIL;
            break;
        case 'n':
            rc = parse_umax(optarg, &v);
            if (rc == 0) {
                if (v < o->head)
                    o->head = v;
            } else if (rc != -2) {
                return opt_fail(msg, msglen, "invalid line count: '%s'", optarg,
                            NULL);
            }
            break;
        case 'o':
            if (o->output && strcmp(o->output, optarg) != 0) {
                snprintf(msg, msglen, "multiple output files specified");
                return CLI_FAIL;
            }
            o->output = optarg;
            break;
        case OPT_RANDOM_SOURCE:
            if (o->random_source && strcmp(o->random_source, optarg) != 0) {
                snprintf(msg, msglen, "multiple random sources specified");
                return CLI_FAIL;
            }
            o->random_source = optarg;
            break;
        case 'r': o->repeat = 1; break;
        case 'z': o->zero = 1; break;
        case OPT_SEED:
            if (cli_seed_problem(optarg)) {
                snprintf(msg, msglen, "%s", cli_seed_problem(optarg));
                return CLI_FAIL;
            }
            o->seed = optarg;
            break;
        case OPT_MEMORY:
            if (cli_parse_size(optarg, &v) != 0 || v < 4096) {
                opt_fail(msg, msglen, "invalid memory size: '%s'", optarg,
                     NULL);
                return CLI_FAIL;
            }
            o->memory = v;
            break;
        case 'T': o->tmpdir = optarg; break;
        case OPT_THREADS:
            if (parse_umax(optarg, &v) != 0 || v < 1 || v > 256)
                return opt_fail(msg, msglen,
                            "invalid thread count: '%s' (1 to 256)", optarg,
                            NULL);
            o->threads = (unsigned)v;
            break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_NO_PROGRESS: o->progress = 0; break;
        case OPT_HEADER:
            rc = parse_umax(optarg, &v);
            if (rc == -1)
                return opt_fail(msg, msglen, "invalid header line count: '%s'",
                            optarg, NULL);
            o->header = rc == -2 ? UINT64_MAX : v;
            break;
        case OPT_HELP: o->help = 1; return 0;
        case OPT_VERSION: o->version = 1; return 0;
        default:
            *try_help = 1;
            return CLI_FAIL;
        }
    }
    o->operands = argv + optind;
    o->noperands = argc - optind;
    if (o->echo && o->have_range) {
        snprintf(msg, msglen, "cannot combine -e and -i options");
        *try_help = 1;
        return CLI_FAIL;
    }
    const char *extra = NULL;
    if (o->have_range && o->noperands > 0)
        extra = o->operands[0];
    else if (!o->echo && !o->have_range && o->noperands > 1)
        extra = o->operands[1];
    if (extra) {
        opt_fail(msg, msglen, "extra operand '%s'", extra, NULL);
        *try_help = 1;
        return CLI_FAIL;
    }
    if (o->seed && o->random_source) {
        snprintf(msg, msglen, "cannot combine --seed and --random-source");
        *try_help = 1;
        return CLI_FAIL;
    }
    return 0;
}
