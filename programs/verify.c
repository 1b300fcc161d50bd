/* verify.c -- `fairshuf verify`: the fairness lab.  Runs the statistical
 * tests of lib/stats over the library's algorithms (or over permutations
 * read from any program), corrects for multiple testing (Holm), prints one
 * verdict, and draws where the bias is.  The statistics are all in the
 * library; this file plans runs and drives the renderers. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "verify.h"

static const char usage_text[] =
    "Usage: fairshuf verify [OPTION]...\n"
    "Test shuffles for fairness: chi-square and normal tests with p-values,\n"
    "one verdict per run after Holm's multiple-testing correction, and a\n"
    "picture of where a biased shuffle goes wrong.\n"
    "\n"
    "Without options every algorithm of the library is tested (fair ones\n"
    "must pass, negative controls must be flagged).\n"
    "\n"
    "  -a, --algorithm=NAME  an algorithm (--algorithm=list), the demo\n"
    "                        shuffles 'cut' and 'stride-rotate', or 'all'\n"
    "  -G, --rng=NAME        generator (default chacha20)\n"
    "  -N, --n=N             permutation size (default 5; the all run adds\n"
    "                        large-n checks at n=2000 unless --n is given)\n"
    "  -c, --trials=T        permutations per run (default 100000; the\n"
    "                        n=2000 checks of the all run keep 1500)\n"
    "  -s, --seed=S          seed (default 'fairshuf-verify'); in the all\n"
    "                        run each algorithm gets the seed S/NAME/N\n"
    "      --test=LIST       comma-separated: perm, position, pairs,\n"
    "                        inversions, cycles, fixed-points, max-cell,\n"
    "                        or all\n"
    "  -A, --alpha=A         family-wise error rate (default 0.01)\n"
    "  -I, --input=FILE      test permutations read from FILE ('-' = stdin):\n"
    "                        one per line, space- or comma-separated,\n"
    "                        0- or 1-based (detected); or one number per\n"
    "                        line, n numbers per permutation (n is where\n"
    "                        the first number repeats, or --n)\n"
    "      --svg=FILE        write the position heat map(s) as SVG (with\n"
    "                        --swaps: the sweep plotted against N)\n"
    "      --report=FILE     write a self-contained HTML report\n"
    "      --bias=PCT        the single-cell bias the power line prices\n"
    "                        (trials needed to see it; default 1)\n"
    "  -f, --format=FMT      text (default) or json\n"
    "      --color=WHEN      heat map in colour: auto (stdout is a terminal),\n"
    "                        always, never\n"
    "      --swaps=LIST      sweep: shuffle by LIST[i] random swaps (posts\n"
    "                        000/001), n=54 and 10000 trials unless given;\n"
    "                        per count: p-values and the home-cell excess\n"
    "  -v, --verbose         every test's statistic and p-value, the worst\n"
    "                        cells, every heat map (default: one verdict per\n"
    "                        algorithm, one line on where each bias is)\n"
    "      --progress        progress on stderr even when not a terminal\n"
    "      --no-progress     no progress line\n"
    "      --help            display this help and exit\n"
    "      --version         output version information and exit\n"
    "\n"
    "Exit status: 0 fair (all mode: every algorithm as expected), 3 biased\n"
    "or unreachable orders (a non-cryptographic generator whose seed bits\n"
    "are fewer than log2(n!)) (all mode: not as expected), 4 inconclusive\n"
    "(no test could run: too few trials), 1 error, 2 usage error.\n"
    "Examples:\n"
    "  fairshuf verify\n"
    "  fairshuf verify --algorithm=swap-any --n=6\n"
    "  fairshuf verify --algorithm=durstenfeld --n=6 --trials=10000000 "
    "--test=perm\n"
    "  fairshuf verify --n=52 --rng=mt19937 --algorithm=durstenfeld\n"
    "  fairshuf verify --swaps=10,30,100,300\n"
    "  fairshuf perm 4 --count=10000 | fairshuf verify --input=-\n"
    "  for i in $(seq 1000); do shuf -e 0 1 2 3; done | fairshuf verify -I -\n"
    "See fairshuf-verify(1) and docs/verify.md.\n";


#define DEFAULT_SEED "fairshuf-verify"
#define DEFAULT_N 5
#define DEFAULT_TRIALS 100000
#define LARGE_N 2000
#define LARGE_TRIALS 1500

/* What the command line asked for. */
typedef struct vconfig {
    const char *alg_name, *rng_name, *seed, *input, *svg, *report, *swaps;
    uint64_t n, trials;
    int have_n, have_trials, json, color, verbose, progress;
    double bias;
    unsigned tests, explicit_tests;
    double alpha;
    const fs_rng_info *rinfo;
    int all;
} vconfig;

typedef struct source {
    int demo;                 /* fs_demo_shuffle, or 0 */
    fs_algorithm alg;
} source;

/* ------------------------------------------------------------------ run */

/* Runs one algorithm (or demo) at r->n for r->trials permutations. */
static void run_source(vrun *r, const source *src, const char *rng_name,
                       cli_progress *bar)
{
    fs_rng *rng = cli_rng(rng_name, r->seed);
    cli_check(fs_tally_new(&r->tally, r->n, r->tests, r->cyclic), "tally");
    uint32_t *a = malloc((size_t)r->n * sizeof *a);
    if (a == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    char what[128];
    snprintf(what, sizeof what, "verify %s n=%u", r->label, r->n);
    for (uint64_t k = 0; k < r->trials; k++) {
        if (r->sweep) {
            for (unsigned i = 0; i < r->n; i++)
                a[i] = i;
            cli_check(fs_shuffle_swaps(a, r->n, sizeof *a, r->swaps, rng),
                      "shuffle");
        } else if (src->demo) {
            cli_check(fs_demo_permutation(src->demo, a, r->n, rng),
                      "shuffle");
        } else {
            for (unsigned i = 0; i < r->n; i++)
                a[i] = i;
            cli_check(fs_shuffle_with(src->alg, a, r->n, sizeof *a, rng),
                      "shuffle");
        }
        cli_check(verify_add(r, a), "tally");
        if ((k & 0x3ff) == 0)
            cli_progress_show(bar, what, k, r->trials, "perms");
    }
    free(a);
    fs_rng_free(rng);
}

/* Computes every result, the Holm correction over the whole family, the
 * verdicts and the heat maps. */
static void evaluate(vreport *rep, unsigned explicit_tests)
{
    size_t fam = 0;
    for (size_t i = 0; i < rep->count; i++) {
        vrun *r = &rep->runs[i];
        unsigned ran = 0;
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            cli_check(fs_tally_result(r->tally, fs_test_at(k), &r->res[k]),
                      "test");
            if (r->res[k].applicable)
                fam++, ran++;
            else if (explicit_tests & r->tests & fs_test_at(k) &&
                     strcmp(r->res[k].why, "not requested") != 0)
                cli_error("warning: %s: test %s not run: %s", r->label,
                          fs_test_name(fs_test_at(k)), r->res[k].why);
        }
        r->inconclusive = ran == 0;
        if (r->tally && (r->tests & (FS_TEST_POSITION | FS_TEST_MAXCELL)) &&
            fs_tally_trials(r->tally) > 0) {
            r->dev = malloc(FS_MATRIX_MAX_N * FS_MATRIX_MAX_N * sizeof *r->dev);
            r->z = malloc(FS_MATRIX_MAX_N * FS_MATRIX_MAX_N * sizeof *r->z);
            if (!r->dev || !r->z)
                cli_die(CLI_FAIL, "memory exhausted");
            cli_check(fs_tally_heatmap(r->tally, r->dev, r->z, &r->side),
                      "heat map");
        }
    }
    double *p = malloc((fam ? fam : 1) * sizeof *p);
    int *rej = malloc((fam ? fam : 1) * sizeof *rej);
    double *adj = malloc((fam ? fam : 1) * sizeof *adj);
    if (!p || !rej || !adj)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t j = 0;
    for (size_t i = 0; i < rep->count; i++)
        for (unsigned k = 0; k < FS_TEST_COUNT; k++)
            if (rep->runs[i].res[k].applicable)
                p[j++] = rep->runs[i].res[k].p;
    cli_check(fs_holm(p, fam, rep->alpha, rej), "holm");
    cli_check(fs_holm_adjust(p, fam, adj), "holm");
    rep->family = fam;
    j = 0;
    for (size_t i = 0; i < rep->count; i++) {
        vrun *r = &rep->runs[i];
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            r->adj[k] = NAN;
            if (!r->res[k].applicable)
                continue;
            r->adj[k] = adj[j];
            r->rejected[k] = rej[j];
            r->biased |= rej[j];
            j++;
        }
    }
    free(p);
    free(rej);
    free(adj);
}

/* The exit status.  One source: 0 fair, 3 biased, 4 no test could run.
 * All mode, per algorithm over its runs: 3 if a fair one was flagged or a
 * control was not (though a test ran), else 4 if some algorithm had no
 * test at all, else 0. */
static int decide(const vreport *rep)
{
    if (rep->sweep_mode) /* a measurement: no expectation to meet */
        return CLI_OK;
    if (rep->unreachable) /* a lab fails it whatever the tests say */
        return CLI_BIASED;
    if (!rep->all_mode) {
        const vrun *r = &rep->runs[0];
        return r->biased ? CLI_BIASED
               : r->inconclusive ? CLI_INCONCLUSIVE
                                 : CLI_OK;
    }
    int unexpected = 0, unknown = 0;
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        int biased = 0, ran = 0;
        for (size_t j = 0; j < rep->count; j++)
            if (strcmp(rep->runs[j].label, r->label) == 0) {
                biased |= rep->runs[j].biased;
                ran |= !rep->runs[j].inconclusive;
            }
        if (!ran)
            unknown = 1;
        else if ((r->expect == EXPECT_FAIR && biased) ||
                 (r->expect == EXPECT_BIASED && !biased))
            unexpected = 1;
    }
    return unexpected ? CLI_BIASED : unknown ? CLI_INCONCLUSIVE : CLI_OK;
}

/* --------------------------------------------------------------- parse */

static unsigned parse_tests(const char *list)
{
    if (strcmp(list, "all") == 0)
        return FS_TEST_ALL;
    unsigned bits = 0;
    char *copy = strdup(list), *save = NULL;
    if (copy == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        fs_test t = strcmp(tok, "all") == 0 ? FS_TEST_ALL : fs_test_find(tok);
        if (t == 0)
            cli_die(CLI_USAGE,
                    "unknown test: '%s' (perm, position, pairs, inversions, "
                    "cycles, fixed-points, all)",
                    tok);
        bits |= t;
    }
    free(copy);
    if (bits == 0)
        cli_die(CLI_USAGE, "--test needs at least one test name");
    return bits;
}

static void parse(vconfig *cf, int argc, char **argv)
{
    enum { O_SVG = 256, O_REPORT, O_COLOR, O_PROGRESS, O_NOPROGRESS, O_TEST,
           O_SWAPS, O_BIAS };
    static const struct option opts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"rng", required_argument, NULL, 'G'},
        {"n", required_argument, NULL, 'N'},
        {"trials", required_argument, NULL, 'c'},
        {"seed", required_argument, NULL, 's'},
        {"test", required_argument, NULL, O_TEST},
        {"alpha", required_argument, NULL, 'A'},
        {"input", required_argument, NULL, 'I'},
        {"svg", required_argument, NULL, O_SVG},
        {"report", required_argument, NULL, O_REPORT},
        {"bias", required_argument, NULL, O_BIAS},
        {"format", required_argument, NULL, 'f'},
        {"color", required_argument, NULL, O_COLOR},
        {"colour", required_argument, NULL, O_COLOR},
        {"verbose", no_argument, NULL, 'v'},
        {"swaps", required_argument, NULL, O_SWAPS},
        {"progress", no_argument, NULL, O_PROGRESS},
        {"no-progress", no_argument, NULL, O_NOPROGRESS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    memset(cf, 0, sizeof *cf);
    cf->seed = DEFAULT_SEED;
    cf->n = DEFAULT_N;
    cf->trials = DEFAULT_TRIALS;
    cf->color = cf->progress = -1;
    cf->tests = FS_TEST_ALL;
    cf->alpha = 0.01;
    cf->bias = 0.01;
    int c;
    while ((c = getopt_long(argc, argv, "a:G:N:c:s:A:I:f:v", opts, NULL)) !=
           -1) {
        switch (c) {
        case 'a': cf->alg_name = optarg; break;
        case 'G': cf->rng_name = optarg; break;
        case 'N':
            cf->n = cli_u64_or_die("size", optarg);
            cf->have_n = 1;
            break;
        case 'c':
            if (optarg[0] == '-') /* not "0 or more": 0 is refused too */
                cli_die(CLI_USAGE, "invalid trial count: '%s': must be at "
                                   "least 1", optarg);
            cf->trials = cli_u64_or_die("trial count", optarg);
            cf->have_trials = 1;
            break;
        case 's': cf->seed = optarg; break;
        case O_TEST: cf->tests = cf->explicit_tests = parse_tests(optarg); break;
        case 'A': {
            char *end;
            cf->alpha = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' ||
                !(cf->alpha > 0 && cf->alpha < 1))
                cli_die(CLI_USAGE, "invalid alpha: '%s': must be in (0, 1)",
                        optarg);
            break;
        }
        case O_BIAS: {
            char *end;
            double pct = strtod(optarg, &end);
            if (*end == '%')
                end++;
            if (*optarg == '\0' || *end != '\0' || !(pct > 0 && pct <= 100))
                cli_die(CLI_USAGE, "invalid bias: '%s': a percentage in "
                                   "(0, 100]", optarg);
            cf->bias = pct / 100;
            break;
        }
        case 'I': cf->input = optarg; break;
        case O_SVG: cf->svg = optarg; break;
        case O_REPORT: cf->report = optarg; break;
        case 'f':
            if (strcmp(optarg, "json") == 0)
                cf->json = 1;
            else if (strcmp(optarg, "text") == 0)
                cf->json = 0;
            else
                cli_die(CLI_USAGE, "invalid format: '%s' (text, json)",
                        optarg);
            break;
        case O_COLOR:
            if (strcmp(optarg, "auto") == 0) cf->color = -1;
            else if (strcmp(optarg, "always") == 0) cf->color = 1;
            else if (strcmp(optarg, "never") == 0) cf->color = 0;
            else
                cli_die(CLI_USAGE, "invalid color: '%s' (auto, always, never)",
                        optarg);
            break;
        case 'v': cf->verbose = 1; break;
        case O_SWAPS: cf->swaps = optarg; break;
        case O_PROGRESS: cf->progress = 1; break;
        case O_NOPROGRESS: cf->progress = 0; break;
        case 'h': cli_help("verify", usage_text);
        case 'V': cli_version("verify");
        default: cli_bad_option("verify");
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("verify", CLI_USAGE);
    }
    if (cf->alg_name && strcmp(cf->alg_name, "list") == 0)
        cli_list_algorithms();
    if (cf->rng_name && strcmp(cf->rng_name, "list") == 0)
        cli_list_rngs();
    if (cli_seed_problem(cf->seed))
        cli_die(CLI_USAGE, "%s", cli_seed_problem(cf->seed));
    if (cf->input && cf->alg_name)
        cli_die(CLI_USAGE, "--input and --algorithm are exclusive");
    if (cf->swaps && (cf->input || cf->alg_name))
        cli_die(CLI_USAGE, "--swaps runs its own shuffle: --input and "
                           "--algorithm do not apply");
    if (cf->swaps && !cf->have_n)
        cf->n = 54; /* post 001's deck */
    if (cf->swaps && !cf->have_trials)
        cf->trials = 10000;
    if (cf->input && (cf->have_trials || cf->rng_name))
        cli_die(CLI_USAGE,
                "--input takes the trial count from the file; "
                "--trials and --rng do not apply");
    if (cf->n < 2 || cf->n > 100000)
        cli_die(CLI_USAGE, "invalid size: '%llu': must be 2..100000",
                (unsigned long long)cf->n);
    if (!cf->input && cf->trials == 0)
        cli_die(CLI_USAGE, "invalid trial count: '0': must be at least 1");
    if (cf->color < 0)
        cf->color = isatty(1);
    cf->rinfo = fs_rng_find(cf->rng_name ? cf->rng_name : "chacha20");
    if (cf->rinfo == NULL)
        cli_die(CLI_USAGE,
                "unknown generator: '%s' (--rng=list shows the names)",
                cf->rng_name);
    cf->all = !cf->input && !cf->swaps &&
              (cf->alg_name == NULL || strcmp(cf->alg_name, "all") == 0);
}

/* ---------------------------------------------------------------- plan */

static vrun *add_run(vreport *rep)
{
    vrun *r = realloc(rep->runs, (rep->count + 1) * sizeof *r);
    if (r == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    rep->runs = r;
    memset(&r[rep->count], 0, sizeof *r);
    return &r[rep->count++];
}

static void plan_run(vrun *r, const char *label, int expect, int cyclic,
                     unsigned n, uint64_t trials, unsigned tests,
                     const char *seed, int derive)
{
    snprintf(r->label, sizeof r->label, "%s", label);
    r->expect = expect;
    r->cyclic = cyclic;
    r->n = n;
    r->trials = trials;
    r->tests = tests;
    if (derive)
        snprintf(r->seed, sizeof r->seed, "%s/%s/%u", seed, label, n);
    else
        snprintf(r->seed, sizeof r->seed, "%s", seed);
}

/* Every algorithm (auto first) at n; unless --n was given, a binned check
 * at n=2000 too: some flaws only show at large n (mod-bias: r % (i+1) on
 * a 15-bit r). */
static void plan_all(vreport *rep, const vconfig *cf)
{
    size_t nl, na = 0;
    const fs_algorithm_info *list = fs_algorithm_list(&nl);
    const fs_algorithm_info *algs[FS_ALG_COUNT + 1];
    algs[na++] = fs_algorithm_find("auto");
    for (size_t i = 0; i < nl; i++)
        algs[na++] = &list[i];
    for (size_t i = 0; i < na; i++) {
        const fs_algorithm_info *a = algs[i];
        plan_run(add_run(rep), a->name, a->fair ? EXPECT_FAIR : EXPECT_BIASED,
                 a->cyclic, (unsigned)cf->n, cf->trials, cf->tests, cf->seed,
                 1);
    }
    if (cf->have_n)
        return;
    unsigned t = cf->tests & (FS_TEST_POSITION | FS_TEST_INVERSIONS |
                              FS_TEST_CYCLES | FS_TEST_FIXED |
                              FS_TEST_MAXCELL);
    for (size_t i = 0; t && i < na; i++) {
        const fs_algorithm_info *a = algs[i];
        if (a->quadratic || a->cyclic)
            continue;
        plan_run(add_run(rep), a->name, a->fair ? EXPECT_FAIR : EXPECT_BIASED,
                 0, LARGE_N, LARGE_TRIALS, t, cf->seed, 1);
    }
}

static void plan_one(vreport *rep, const vconfig *cf)
{
    vrun *r = add_run(rep);
    const char *name = cf->alg_name;
    if (fs_demo_find(name)) {
        plan_run(r, name, EXPECT_BIASED, 0, (unsigned)cf->n, cf->trials,
                 cf->tests, cf->seed, 0);
    } else {
        const fs_algorithm_info *a = fs_algorithm_find(name);
        if (a == NULL)
            cli_die(CLI_USAGE,
                    "unknown algorithm: '%s' (--algorithm=list shows the "
                    "names; demos: cut, stride-rotate)",
                    name);
        plan_run(r, name, a->fair ? EXPECT_FAIR : EXPECT_BIASED, a->cyclic,
                 (unsigned)cf->n, cf->trials, cf->tests, cf->seed, 0);
    }
    if (r->tests & FS_TEST_PERM && cf->explicit_tests) {
        unsigned pn = r->cyclic ? r->n - 1 : r->n;
        if (pn > FS_PERM_MAX_N)
            cli_die(CLI_USAGE, "--test=perm needs n <= %d%s",
                    FS_PERM_MAX_N + r->cyclic,
                    r->cyclic ? " for a cyclic algorithm" : "");
        if ((double)cf->trials < 5.0 * (double)fs_factorial(pn))
            cli_die(CLI_USAGE,
                    "--test=perm at n=%u needs --trials >= %llu (5 per "
                    "order)",
                    r->n, 5ULL * (unsigned long long)fs_factorial(pn));
    }
}

/* One run per swap count of --swaps=LIST, position and fixed points. */
static void plan_sweep(vreport *rep, const vconfig *cf)
{
    char *copy = strdup(cf->swaps), *save = NULL;
    if (copy == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        uint64_t k = cli_u64_or_die("swap count", tok);
        char label[64];
        snprintf(label, sizeof label, "swaps=%llu", (unsigned long long)k);
        vrun *r = add_run(rep);
        plan_run(r, label, EXPECT_UNKNOWN, 0, (unsigned)cf->n, cf->trials,
                 cf->explicit_tests ? cf->tests
                                    : FS_TEST_POSITION | FS_TEST_FIXED,
                 cf->seed, 1);
        r->sweep = 1;
        r->swaps = k;
    }
    free(copy);
    if (rep->count == 0)
        cli_die(CLI_USAGE, "invalid swap counts: '%s'", cf->swaps);
}

static void plan(vreport *rep, const vconfig *cf)
{
    memset(rep, 0, sizeof *rep);
    rep->alpha = cf->alpha;
    rep->rng = cf->input ? NULL : cf->rinfo->name;
    rep->seed = cf->input ? NULL : cf->seed;
    rep->all_mode = cf->all;
    if (cf->input) {
        vrun *r = add_run(rep);
        r->expect = EXPECT_UNKNOWN;
        r->is_input = 1;
        r->tests = cf->tests;
        verify_read_input(r, cf->input, cf->have_n ? (unsigned)cf->n : 0);
    } else if (cf->swaps) {
        rep->sweep_mode = 1;
        plan_sweep(rep, cf);
    } else if (cf->all) {
        plan_all(rep, cf);
    } else {
        plan_one(rep, cf);
    }
}

/* -------------------------------------------------------------- report */

static void report(const vreport *rep, const vconfig *cf)
{
    if (cf->svg && rep->sweep_mode) {
        if (verify_write_sweep_svg(rep, cf->svg) != 0)
            cli_die(CLI_FAIL, "%s: cannot write SVG: %s", cf->svg,
                    strerror(errno));
    } else if (cf->svg && verify_write_svg(rep, cf->svg) != 0)
        cli_die(CLI_FAIL, "%s: cannot write SVG: %s", cf->svg,
                strerror(errno));
    if (cf->report && verify_write_html(rep, cf->report) != 0)
        cli_die(CLI_FAIL, "%s: cannot write report: %s", cf->report,
                strerror(errno));
    if (cf->json) {
        verify_print_json(rep, stdout);
        return;
    }
    if (!cf->input)
        verify_print_entropy(stdout, cf->rinfo,
                             cf->all ? (unsigned)cf->n : rep->runs[0].n);
    if (rep->sweep_mode)
        verify_print_sweep(rep, stdout);
    else if (cf->verbose)
        verify_print_text(rep, stdout, cf->color);
    else
        verify_print_summary(rep, stdout, cf->color);
}

int cmd_verify(int argc, char **argv)
{
    vconfig cf;
    parse(&cf, argc, argv);
    vreport rep;
    plan(&rep, &cf);
    cli_progress bar;
    cli_progress_init(&bar, cf.progress);
    for (size_t i = 0; i < rep.count; i++) {
        vrun *r = &rep.runs[i];
        if (r->is_input)
            continue;
        if (r->sweep) {
            source none = {0, FS_ALG_AUTO};
            run_source(r, &none, cf.rinfo->name, &bar);
            continue;
        }
        source src = {fs_demo_find(r->label), FS_ALG_AUTO};
        if (!src.demo)
            src.alg = fs_algorithm_find(r->label)->id;
        run_source(r, &src, cf.rinfo->name, &bar);
    }
    cli_progress_end(&bar);
    evaluate(&rep, cf.explicit_tests);
    rep.bias = cf.bias;
    if (!cf.input) {
        rep.rinfo = cf.rinfo;
        for (size_t i = 0; i < rep.count; i++)
            if (rep.runs[i].n > rep.reach_n)
                rep.reach_n = rep.runs[i].n;
        rep.unreachable = !cf.rinfo->cryptographic &&
                          cf.rinfo->seed_bits < fs_log2_factorial(rep.reach_n);
    }
    rep.status = decide(&rep);
    rep.ok = rep.status == CLI_OK;
    report(&rep, &cf);
    for (size_t i = 0; i < rep.count; i++) {
        fs_tally_free(rep.runs[i].tally);
        free(rep.runs[i].dev);
        free(rep.runs[i].z);
        free(rep.runs[i].orders);
    }
    free(rep.runs);
    return rep.status;
}
