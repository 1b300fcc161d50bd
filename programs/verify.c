/* verify.c -- `fairshuf verify`: the fairness lab.  Runs the statistical
 * tests of lib/stats over the library's algorithms (or over permutations
 * read from any program), corrects for multiple testing (Holm), prints one
 * verdict, and draws where the bias is.  The statistics are all in the
 * library; this file plans runs and drives the renderers. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "verify.h"

static const char usage_text[] =
    "Usage: fairshuf verify [OPTION]...\n"
    "Test shuffles for fairness: chi-square and normal tests with p-values,\n"
    "one verdict per run after Holm's multiple-testing correction, and a\n"
    "picture of where a biased shuffle goes wrong.\n"
    "\n"
    "Without options every algorithm of the library is tested (fair ones\n"
    "must pass, negative controls must be flagged); exit status 0 when all\n"
    "behave as expected.  With one --algorithm or --input: 0 fair, 1 biased.\n"
    "\n"
    "  -a, --algorithm=NAME  an algorithm (--algorithm=list), the demo\n"
    "                        shuffles 'cut' and 'stride-rotate', or 'all'\n"
    "  -r, --rng=NAME        generator (default chacha20)\n"
    "  -n, --n=N             permutation size (default 5; the all run adds\n"
    "                        large-n checks at n=2000 unless --n is given)\n"
    "  -t, --trials=T        permutations per run (default 100000; the\n"
    "                        n=2000 checks of the all run keep 1500)\n"
    "  -s, --seed=S          seed (default 'fairshuf-verify'); in the all\n"
    "                        run each algorithm gets the seed S/NAME/N\n"
    "  -T, --test=LIST       comma-separated: perm, position, pairs,\n"
    "                        inversions, cycles, fixed-points, or all\n"
    "  -A, --alpha=A         family-wise error rate (default 0.01)\n"
    "  -i, --input=FILE      test permutations read from FILE ('-' = stdin):\n"
    "                        one per line, space- or comma-separated,\n"
    "                        0- or 1-based (detected); or one number per\n"
    "                        line, n numbers per permutation (n is where\n"
    "                        the first number repeats, or --n)\n"
    "      --svg=FILE        write the position heat map(s) as SVG\n"
    "      --report=FILE     write a self-contained HTML report\n"
    "  -f, --format=FMT      text (default) or json\n"
    "      --color=WHEN      heat map in colour: auto (stdout is a terminal),\n"
    "                        always, never\n"
    "      --progress, --no-progress   force the progress line on stderr\n"
    "      --help            display this help and exit\n"
    "      --version         output version information and exit\n"
    "\n"
    "Examples:\n"
    "  fairshuf verify\n"
    "  fairshuf verify --algorithm=swap-any --n=6\n"
    "  fairshuf verify --algorithm=durstenfeld --n=6 --trials=10000000 "
    "--test=perm\n"
    "  fairshuf verify --n=52 --rng=mt19937 --algorithm=durstenfeld\n"
    "  fairshuf perm 4 --count=10000 | fairshuf verify --input=-\n"
    "  for i in $(seq 1000); do shuf -e 0 1 2 3; done | fairshuf verify -i -\n"
    "See fairshuf-verify(1) and docs/verify.md.\n";

#define DEFAULT_SEED "fairshuf-verify"
#define DEFAULT_N 5
#define DEFAULT_TRIALS 100000
#define LARGE_N 2000
#define LARGE_TRIALS 1500

typedef struct source {
    int demo;                 /* fs_demo_shuffle, or 0 */
    fs_algorithm alg;
} source;

static int progress_on;       /* -1 auto, 0 no, 1 yes */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(const char *label, uint64_t done, uint64_t total)
{
    static double last;
    double t = now();
    if (t - last < 0.2 && done < total)
        return;
    last = t;
    fprintf(stderr, "\r%s: verify %s: %3.0f%%", cli_prog, label,
            100.0 * (double)done / (double)total);
    if (done >= total)
        fprintf(stderr, "\r%*s\r", 60, "");
    fflush(stderr);
}

/* Runs one algorithm (or demo) at r->n for r->trials permutations. */
static void run_source(vrun *r, const source *src, const char *rng_name)
{
    fs_rng *rng = cli_rng(rng_name, r->seed);
    cli_check(fs_tally_new(&r->tally, r->n, r->tests, r->cyclic), "tally");
    uint32_t *a = malloc((size_t)r->n * sizeof *a);
    if (a == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int show = progress_on == 1 ||
               (progress_on < 0 && isatty(2) &&
                (double)r->trials * r->n > 3e7);
    for (uint64_t k = 0; k < r->trials; k++) {
        if (src->demo) {
            cli_check(fs_demo_permutation(src->demo, a, r->n, rng),
                      "shuffle");
        } else {
            for (unsigned i = 0; i < r->n; i++)
                a[i] = i;
            cli_check(fs_shuffle_with(src->alg, a, r->n, sizeof *a, rng),
                      "shuffle");
        }
        cli_check(fs_tally_add(r->tally, a), "tally");
        if (show && (k & 0xffff) == 0)
            progress(r->label, k, r->trials);
    }
    if (show)
        progress(r->label, r->trials, r->trials);
    free(a);
    fs_rng_free(rng);
}

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

static vrun *add_run(vreport *rep)
{
    vrun *r = realloc(rep->runs, (rep->count + 1) * sizeof *r);
    if (r == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    rep->runs = r;
    memset(&r[rep->count], 0, sizeof *r);
    return &r[rep->count++];
}

/* Computes every result, the Holm correction over the whole family, the
 * verdicts and the heat maps. */
static void evaluate(vreport *rep, unsigned explicit_tests)
{
    size_t fam = 0;
    for (size_t i = 0; i < rep->count; i++) {
        vrun *r = &rep->runs[i];
        for (unsigned k = 0; k < FS_TEST_COUNT; k++) {
            cli_check(fs_tally_result(r->tally, fs_test_at(k), &r->res[k]),
                      "test");
            if (r->res[k].applicable)
                fam++;
            else if (explicit_tests & r->tests & fs_test_at(k) &&
                     strcmp(r->res[k].why, "not requested") != 0)
                cli_error("warning: %s: test %s not run: %s", r->label,
                          fs_test_name(fs_test_at(k)), r->res[k].why);
        }
        if (r->tally && (r->tests & FS_TEST_POSITION) &&
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

/* The all-mode exit rule, per algorithm (it may have several runs). */
static int expectations_met(const vreport *rep)
{
    for (size_t i = 0; i < rep->count; i++) {
        const vrun *r = &rep->runs[i];
        int biased = 0;
        for (size_t j = 0; j < rep->count; j++)
            if (strcmp(rep->runs[j].label, r->label) == 0)
                biased |= rep->runs[j].biased;
        if (r->expect == EXPECT_FAIR && biased)
            return 0;
        if (r->expect == EXPECT_BIASED && !biased)
            return 0;
    }
    return 1;
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

int cmd_verify(int argc, char **argv)
{
    enum { O_SVG = 256, O_REPORT, O_COLOR, O_PROGRESS, O_NOPROGRESS };
    static const struct option opts[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"rng", required_argument, NULL, 'r'},
        {"n", required_argument, NULL, 'n'},
        {"trials", required_argument, NULL, 't'},
        {"seed", required_argument, NULL, 's'},
        {"test", required_argument, NULL, 'T'},
        {"alpha", required_argument, NULL, 'A'},
        {"input", required_argument, NULL, 'i'},
        {"svg", required_argument, NULL, O_SVG},
        {"report", required_argument, NULL, O_REPORT},
        {"format", required_argument, NULL, 'f'},
        {"color", required_argument, NULL, O_COLOR},
        {"colour", required_argument, NULL, O_COLOR},
        {"progress", no_argument, NULL, O_PROGRESS},
        {"no-progress", no_argument, NULL, O_NOPROGRESS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *alg_name = NULL, *rng_name = NULL, *seed = DEFAULT_SEED;
    const char *input = NULL, *svg = NULL, *report = NULL;
    uint64_t n = DEFAULT_N, trials = DEFAULT_TRIALS;
    int have_n = 0, have_trials = 0, json = 0, color = -1;
    unsigned tests = FS_TEST_ALL, explicit_tests = 0;
    double alpha = 0.01;
    progress_on = -1;
    int c;
    while ((c = getopt_long(argc, argv, "a:r:n:t:s:T:A:i:f:", opts, NULL)) !=
           -1) {
        switch (c) {
        case 'a': alg_name = optarg; break;
        case 'r': rng_name = optarg; break;
        case 'n': n = cli_u64_or_die("size", optarg); have_n = 1; break;
        case 't':
            trials = cli_u64_or_die("trial count", optarg);
            have_trials = 1;
            break;
        case 's': seed = optarg; break;
        case 'T': tests = explicit_tests = parse_tests(optarg); break;
        case 'A': {
            char *end;
            alpha = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || !(alpha > 0 && alpha < 1))
                cli_die(CLI_USAGE, "invalid alpha: '%s': must be in (0, 1)",
                        optarg);
            break;
        }
        case 'i': input = optarg; break;
        case O_SVG: svg = optarg; break;
        case O_REPORT: report = optarg; break;
        case 'f':
            if (strcmp(optarg, "json") == 0)
                json = 1;
            else if (strcmp(optarg, "text") == 0)
                json = 0;
            else
                cli_die(CLI_USAGE, "invalid format: '%s' (text, json)",
                        optarg);
            break;
        case O_COLOR:
            if (strcmp(optarg, "auto") == 0) color = -1;
            else if (strcmp(optarg, "always") == 0) color = 1;
            else if (strcmp(optarg, "never") == 0) color = 0;
            else
                cli_die(CLI_USAGE, "invalid color: '%s' (auto, always, never)",
                        optarg);
            break;
        case O_PROGRESS: progress_on = 1; break;
        case O_NOPROGRESS: progress_on = 0; break;
        case 'h': cli_usage(usage_text);
        case 'V': cli_version("verify");
        default: cli_try_help("verify", CLI_USAGE);
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("verify", CLI_USAGE);
    }
    if (alg_name && strcmp(alg_name, "list") == 0)
        cli_list_algorithms();
    if (rng_name && strcmp(rng_name, "list") == 0)
        cli_list_rngs();
    if (cli_seed_problem(seed))
        cli_die(CLI_USAGE, "%s", cli_seed_problem(seed));
    if (input && alg_name)
        cli_die(CLI_USAGE, "--input and --algorithm are exclusive");
    if (input && (have_trials || rng_name))
        cli_die(CLI_USAGE,
                "--input takes the trial count from the file; "
                "--trials and --rng do not apply");
    if (n < 2 || n > 100000)
        cli_die(CLI_USAGE, "invalid size: '%llu': must be 2..100000",
                (unsigned long long)n);
    if (!input && trials == 0)
        cli_die(CLI_USAGE, "invalid trial count: must be at least 1");
    if (color < 0)
        color = isatty(1);

    const fs_rng_info *rinfo = fs_rng_find(rng_name ? rng_name : "chacha20");
    if (rinfo == NULL)
        cli_die(CLI_USAGE,
                "unknown generator: '%s' (--rng=list shows the names)",
                rng_name);

    vreport rep = {0};
    rep.alpha = alpha;
    rep.rng = input ? NULL : rinfo->name;
    rep.seed = input ? NULL : seed;
    int all = !input && (alg_name == NULL || strcmp(alg_name, "all") == 0);
    rep.all_mode = all;

    if (input) {
        vrun *r = add_run(&rep);
        r->expect = EXPECT_UNKNOWN;
        r->is_input = 1;
        r->tests = tests;
        verify_read_input(r, input, have_n ? (unsigned)n : 0);
    } else if (all) {
        /* auto (what fs_shuffle() does) first, then every named one */
        size_t nl, na = 0;
        const fs_algorithm_info *list = fs_algorithm_list(&nl);
        const fs_algorithm_info *algs[FS_ALG_COUNT + 1];
        algs[na++] = fs_algorithm_find("auto");
        for (size_t i = 0; i < nl; i++)
            algs[na++] = &list[i];
        for (size_t i = 0; i < na; i++) {
            const fs_algorithm_info *a = algs[i];
            int expect = a->fair ? EXPECT_FAIR : EXPECT_BIASED;
            plan_run(add_run(&rep), a->name, expect, a->cyclic, (unsigned)n,
                     trials, tests, seed, 1);
        }
        /* Some flaws only show at large n (mod-bias: r % (i+1) on 15-bit
         * r).  Unless --n was given, add a binned position check at
         * n=2000 for every algorithm that is not quadratic. */
        if (!have_n)
            for (size_t i = 0; i < na; i++) {
                const fs_algorithm_info *a = algs[i];
                if (a->quadratic || a->cyclic)
                    continue;
                unsigned t = (tests & (FS_TEST_POSITION | FS_TEST_INVERSIONS |
                                       FS_TEST_CYCLES | FS_TEST_FIXED));
                if (t == 0)
                    continue;
                plan_run(add_run(&rep), a->name,
                         a->fair ? EXPECT_FAIR : EXPECT_BIASED, 0, LARGE_N,
                         LARGE_TRIALS, t, seed, 1);
            }
    } else {
        vrun *r = add_run(&rep);
        fs_demo_shuffle d = fs_demo_find(alg_name);
        if (d) {
            plan_run(r, alg_name, EXPECT_BIASED, 0, (unsigned)n, trials,
                     tests, seed, 0);
        } else {
            const fs_algorithm_info *a = fs_algorithm_find(alg_name);
            if (a == NULL)
                cli_die(CLI_USAGE,
                        "unknown algorithm: '%s' (--algorithm=list shows the "
                        "names; demos: cut, stride-rotate)",
                        alg_name);
            else
                plan_run(r, alg_name, a->fair ? EXPECT_FAIR : EXPECT_BIASED,
                         a->cyclic, (unsigned)n, trials, tests, seed, 0);
        }
        if (r->tests & FS_TEST_PERM && explicit_tests) {
            unsigned pn = r->cyclic ? r->n - 1 : r->n;
            if (pn > FS_PERM_MAX_N)
                cli_die(CLI_USAGE, "--test=perm needs n <= %d%s",
                        FS_PERM_MAX_N + r->cyclic,
                        r->cyclic ? " for a cyclic algorithm" : "");
            if ((double)trials < 5.0 * (double)fs_factorial(pn))
                cli_die(CLI_USAGE,
                        "--test=perm at n=%u needs --trials >= %llu (5 per "
                        "order)",
                        r->n, 5ULL * (unsigned long long)fs_factorial(pn));
        }
    }

    for (size_t i = 0; i < rep.count; i++) {
        vrun *r = &rep.runs[i];
        if (r->is_input)
            continue;
        source src = {fs_demo_find(r->label), FS_ALG_AUTO};
        if (!src.demo)
            src.alg = fs_algorithm_find(r->label)->id;
        run_source(r, &src, rinfo->name);
    }
    evaluate(&rep, explicit_tests);
    rep.ok = all ? expectations_met(&rep) : !rep.runs[0].biased;

    if (svg && verify_write_svg(&rep, svg) != 0)
        cli_die(CLI_FAIL, "%s: cannot write SVG", svg);
    if (report && verify_write_html(&rep, report) != 0)
        cli_die(CLI_FAIL, "%s: cannot write report", report);
    if (json) {
        verify_print_json(&rep, stdout);
    } else {
        if (!input)
            verify_print_entropy(stdout, rinfo,
                                 all ? (unsigned)n : rep.runs[0].n);
        verify_print_text(&rep, stdout, color);
    }
    for (size_t i = 0; i < rep.count; i++) {
        fs_tally_free(rep.runs[i].tally);
        free(rep.runs[i].dev);
        free(rep.runs[i].z);
    }
    free(rep.runs);
    return rep.ok ? CLI_OK : CLI_FAIL;
}
