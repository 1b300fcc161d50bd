/* bench.c -- `fairshuf bench`: ns per element of fairshuf's shuffles beside
 * C++ std::shuffle + std::mt19937_64, GSL gsl_ran_shuffle + mt19937,
 * rip_shuffle (Penschuck, SEA 2023), plain Durstenfeld and a memcpy floor,
 * measured in one run and interleaved (run r of every implementation
 * before run r+1 of any); medians of --runs, and ratios to each baseline
 * taken run by run (the median of per-run ratios, with min and max), so
 * that a busy machine slows both sides of a ratio alike.
 *
 * The baselines are external programs: baseline_std and baseline_gsl are
 * built by `make bench` into BUILD/bench/ next to this binary
 * (bench/Makefile; protocol in bench/baseline.h), rip_shuffle's driver
 * `ripbench` is built from its Rust source (bench/README.md) and named
 * with --baseline=rip=PATH or placed in BUILD/bench/.  Each measurement of
 * a baseline is one fork + exec from a small process forked before any
 * measurement (bench_spawn.c says why), timed inside the program around the
 * shuffles only, just as fairshuf's own measurements time only
 * fs_shuffle*.  A baseline that is not there is skipped with a note.
 *
 * Layout: parse (options) -> plan (the rows) -> run (interleaved rounds)
 * -> report (bench_report.c: text, JSON, SVG). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <inttypes.h>
#include <limits.h>
#if defined(__GLIBC__)
#include <malloc.h> /* malloc_trim */
#endif
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench/baseline.h" /* timing and peak RSS, as the baselines */
#include "bench.h"
#include "cli.h"
#include "progress.h"

static const char usage_text[] =
    "Usage: fairshuf bench [OPTION]...\n"
    "Measure shuffles in ns per 8-byte element beside C++ std::shuffle,\n"
    "GSL gsl_ran_shuffle, rip_shuffle, plain Durstenfeld and a memcpy floor,\n"
    "interleaved in one run; print medians, min-max, per-run ratios to each\n"
    "baseline and peak memory.\n"
    "\n"
    "      --sizes=LIST      sizes, comma-separated, 54 or 1e5 style\n"
    "                        (default 54,1e3,1e5,1e6,1e7,1e8)\n"
    "  -a, --algorithm=LIST  also measure these named algorithms ('all':\n"
    "                        every one; quadratic ones only up to n = 20000,\n"
    "                        the O(n log n) ones up to 1e7)\n"
    "      --rng=LIST        generators for fairshuf (default\n"
    "                        xoshiro256ss,chacha20,default); 'default' is\n"
    "                        NULL: the thread's OS-keyed ChaCha20, what\n"
    "                        fs_shuffle(a, n, size, NULL) uses\n"
    "  -j, --threads=N       also measure fairshuf with N threads (default 1)\n"
    "      --runs=K          runs per measurement (default 5; median)\n"
    "  -m, --min-time=MS     each run repeats the shuffle for at least MS ms\n"
    "                        (default 50; at least one shuffle)\n"
    "      --baseline=NAME=PATH  the program for baseline NAME (std, gsl,\n"
    "                        rip); default BUILD/bench/baseline_std,\n"
    "                        baseline_gsl, ripbench\n"
    "  -f, --format=FMT      text (default) or json\n"
    "      --svg=FILE        draw ns/element against n (log axes) into FILE\n"
    "      --progress        progress on stderr even when not a terminal\n"
    "      --no-progress     no progress line (default: on a terminal)\n"
    "      --help            display this help and exit\n"
    "      --version         output version information and exit\n"
    "\n"
    "impl 'fairshuf' is fs_shuffle_threads(), the library's default choice\n"
    "for the size; 'durstenfeld-plain' is one fs_below per index.  'make\n"
    "bench' builds the std and gsl baselines; rip_shuffle's driver is built\n"
    "as bench/README.md says.  A missing baseline is skipped with a note.\n"
    "Examples:\n"
    "  fairshuf bench --sizes=1e5 --runs=5\n"
    "  fairshuf bench --sizes=1e8 -j 2 --baseline=rip=/opt/ripbench\n"
    "  fairshuf bench --sizes=1e3,1e6 --algorithm=all --rng=xoshiro256ss\n";

static const enum bench_kind base_kind[BENCH_NBASE] = {K_MEMCPY, K_STD,
                                                       K_GSL, K_RIP};
static const char *const helper_file[BENCH_NBASE] = {
    NULL, "baseline_std", "baseline_gsl", "ripbench"};

static bench B; /* large (the result grid): static storage */

/* A remark the reader must see: a "note:" line in the text report, on
 * stderr with --format=json (stdout is then the JSON document). */
__attribute__((format(printf, 2, 3))) static void note(const bench *b,
                                                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (b->o.json) {
        fprintf(stderr, "%s: bench: note: ", cli_prog);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    } else {
        fputs("note: ", stdout);
        vprintf(fmt, ap);
        putchar('\n');
    }
    va_end(ap);
}

/* ---- plan: the rows, in the order they are measured within a run ---- */

static void add(bench *b, enum bench_kind k, const char *impl,
                const char *rng, unsigned threads, fs_algorithm alg,
                int quadratic)
{
    if (b->ns == BENCH_MAXS)
        cli_die(CLI_USAGE, "too many implementations to measure");
    bench_series *s = &b->s[b->ns++];
    s->kind = k;
    snprintf(s->impl, sizeof s->impl, "%s", impl);
    snprintf(s->rng, sizeof s->rng, "%s", rng);
    s->threads = threads;
    s->alg = alg;
    s->quadratic = quadratic;
}

static int is_external(enum bench_kind k)
{
    return k == K_STD || k == K_GSL || k == K_RIP;
}

static int base_of(enum bench_kind k)
{
    for (int i = 0; i < BENCH_NBASE; i++)
        if (base_kind[i] == k)
            return i;
    return -1;
}

/* Too slow to run at this n ("only where they finish in seconds")?  Sets
 * *why to the reason. */
static int too_slow(const bench_series *s, size_t n, const char **why)
{
    if (s->kind != K_ALG)
        return 0;
    if (s->quadratic) {
        *why = "O(n^2): run only up to n = 20000";
        return n > 20000;
    }
    switch (s->alg) {
    case FS_ALG_REJECTION:
    case FS_ALG_SORT_KEY:
    case FS_ALG_RANDOM_COMPARATOR:
        *why = "O(n log n) with a random access or comparator per step: "
               "run only up to n = 1e7";
        return n > 10000000;
    default:
        return 0;
    }
}

static void find_helpers(bench *b)
{
    char dir[PATH_MAX];
    const char *env = getenv("FAIRSHUF_BENCH_DIR");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len <= 0) {
            snprintf(dir, sizeof dir, "bench");
        } else {
            exe[len] = '\0';
            snprintf(dir, sizeof dir, "%s/bench", dirname(exe));
        }
    }
    for (int i = 1; i < BENCH_NBASE; i++)
        if (b->o.helper[i][0] == '\0' &&
            snprintf(b->o.helper[i], PATH_MAX, "%s/%s", dir,
                     helper_file[i]) >= PATH_MAX)
            b->o.helper[i][0] = '\0';
}

static void plan(bench *b)
{
    bench_opts *o = &b->o;
    add(b, K_MEMCPY, "memcpy", "none", 1, FS_ALG_AUTO, 0);
    add(b, K_STD, "std::shuffle", "mt19937_64", 1, FS_ALG_AUTO, 0);
    add(b, K_GSL, "gsl_ran_shuffle", "mt19937", 1, FS_ALG_AUTO, 0);
    add(b, K_RIP, "rip_shuffle", "pcg64mcg", 1, FS_ALG_AUTO, 0);
    for (size_t r = 0; r < o->nrng; r++) {
        add(b, K_PLAIN, "durstenfeld-plain", o->rngs[r], 1,
            FS_ALG_DURSTENFELD, 0);
        add(b, K_AUTO, "fairshuf", o->rngs[r], 1, FS_ALG_AUTO, 0);
        if (o->threads > 1)
            add(b, K_AUTO, "fairshuf", o->rngs[r], o->threads, FS_ALG_AUTO,
                0);
    }
    if (o->algs) {
        size_t na;
        const fs_algorithm_info *all = fs_algorithm_list(&na);
        char *list = strdup(o->algs);
        if (list == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
            int all_of = strcmp(tok, "all") == 0;
            if (!all_of && fs_algorithm_find(tok) == NULL)
                cli_die(CLI_USAGE, "unknown algorithm: '%s'", tok);
            for (size_t i = 0; i < na; i++) {
                if (!all_of && strcmp(tok, all[i].name) != 0)
                    continue;
                for (size_t r = 0; r < o->nrng; r++)
                    add(b, K_ALG, all[i].name, o->rngs[r], 1, all[i].id,
                        all[i].quadratic);
            }
        }
        free(list);
    }
    find_helpers(b);
    /* A missing baseline is dropped from the plan, visibly. */
    size_t kept = 0;
    for (size_t i = 0; i < b->ns; i++) {
        int bi = base_of(b->s[i].kind);
        if (is_external(b->s[i].kind) &&
            (b->o.helper[bi][0] == '\0' ||
             access(b->o.helper[bi], X_OK) != 0)) {
            if (b->s[i].kind == K_RIP)
                note(b, "%s skipped: %s not found (build it with "
                        "rip_shuffle's build.sh, see bench/README.md, and "
                        "give --baseline=rip=PATH)",
                     b->s[i].impl, b->o.helper[bi]);
            else
                note(b, "%s skipped: %s not built ('make bench' builds "
                        "it; needs a C++ compiler and GSL)",
                     b->s[i].impl, b->o.helper[bi]);
            continue;
        }
        b->s[kept++] = b->s[i];
    }
    b->ns = kept;
}

/* ---- run: one measurement of one row ---- */

static void reset_peak(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd >= 0) {
        if (write(fd, "5", 1) < 0) {
            /* older kernels: the peak then covers the whole run */
        }
        close(fd);
    }
}

/* One run of an external baseline; 0 on success.  The std and gsl helpers
 * print "NS PEAK_KIB COMPILER"; ripbench ("N MIN_MS REPS") prints
 * "MEDIAN MIN MAX V..." and its peak is taken from wait4(). */
static int run_helper(bench *b, const bench_series *s, size_t n, double *ns,
                      double *peak)
{
    const char *path = b->o.helper[base_of(s->kind)];
    char narg[32], marg[32];
    snprintf(narg, sizeof narg, "%zu", n);
    snprintf(marg, sizeof marg, "%.3f", (double)b->o.min_ms);
    const char *args[] = {narg, marg, "1"};
    char line[512];
    long maxrss = 0;
    if (bench_spawn_run(path, args, s->kind == K_RIP ? 3 : 2, line,
                        sizeof line, &maxrss) != 0)
        return -1;
    char *end;
    *ns = strtod(line, &end);
    if (s->kind == K_RIP) {
        *peak = (double)maxrss / 1024.0; /* KiB on Linux */
        return *ns > 0 ? 0 : -1;
    }
    long kib = strtol(end, &end, 10);
    *peak = (double)kib / 1024.0;
    while (*end == ' ')
        end++;
    end[strcspn(end, "\n")] = '\0';
    if (b->helper_compiler[0] == '\0')
        snprintf(b->helper_compiler, sizeof b->helper_compiler, "%s", end);
    return *ns > 0 ? 0 : -1;
}

/* One in-process run: the array is allocated and filled, then shuffled
 * repeatedly for min_ms.  *first is the first shuffle's time over the mean
 * of the later ones (0 when there was only one): what a one-shot call
 * pays beyond a warm one. */
static void run_local(const bench *b, const bench_series *s, size_t n,
                      double *ns, double *peak, double *first)
{
    reset_peak();
    uint64_t *a = malloc(n * sizeof *a);
    uint64_t *c = s->kind == K_MEMCPY ? malloc(n * sizeof *c) : NULL;
    fs_rng *rng = NULL;
    int rc = FS_OK;
    if (a == NULL || (s->kind == K_MEMCPY && c == NULL))
        cli_die(CLI_FAIL, "memory exhausted at n = %zu", n);
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    if (s->kind == K_MEMCPY)
        memset(c, 0, n * sizeof *c); /* fault the pages in, as `a` is */
    else if (strcmp(s->rng, "default") != 0)
        cli_check(fs_rng_new(&rng, s->rng, "bench"), s->rng);
    else if (fs_rng_default() == NULL) /* rng stays NULL: the default */
        cli_check(FS_ERANDOM, s->rng);
    double min_ns = (double)b->o.min_ms * 1e6, t0 = baseline_now_ns();
    double t = t0, t1 = t0;
    size_t reps = 0;
    do {
        switch (s->kind) {
        case K_MEMCPY:
            memcpy(c, a, n * sizeof *a);
            __asm__ volatile("" : : "r"(c) : "memory");
            break;
        case K_PLAIN:
            rc = fs_shuffle_with(FS_ALG_DURSTENFELD, a, n, sizeof *a, rng);
            break;
        case K_AUTO:
            rc = fs_shuffle_threads(a, n, sizeof *a, s->threads, rng);
            break;
        default:
            rc = fs_shuffle_with(s->alg, a, n, sizeof *a, rng);
            break;
        }
        if (reps++ == 0)
            t1 = baseline_now_ns();
    } while (rc == FS_OK && (t = baseline_now_ns()) - t0 < min_ns);
    cli_check(rc, s->impl);
    *ns = (t - t0) / ((double)reps * (double)n);
    *first = reps > 1 ? (t1 - t0) / ((t - t1) / (double)(reps - 1)) : 0;
    *peak = (double)baseline_peak_kib() / 1024.0;
    fs_rng_free(rng);
    free(a);
    free(c);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median, min, max of the k positive entries of x (sorted in place). */
static bench_stat stat_of(double *x, size_t k)
{
    bench_stat st = {0, 0, 0, 0};
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (x[i] > 0)
            x[m++] = x[i];
    if (m == 0)
        return st;
    qsort(x, m, sizeof *x, cmp_double);
    st.ok = 1;
    st.min = x[0];
    st.max = x[m - 1];
    st.med = m % 2 ? x[m / 2] : (x[m / 2 - 1] + x[m / 2]) / 2;
    return st;
}

/* All runs at size index ni, interleaved; then the cells. */
static void run_size(bench *b, size_t ni, double *v, double *cold,
                     double *tmp, cli_progress *bar)
{
    size_t n = b->o.sizes[ni], runs = (size_t)b->o.runs;
    int ok[BENCH_MAXS];
#if defined(__GLIBC__)
    /* The heap the earlier sizes' runs freed goes back to the system
     * (glibc keeps it otherwise), so this size's peaks are its own runs',
     * not the bench's history.  Once per size, not per run: what a run
     * frees and the next reuses stays mapped, as in a process that calls
     * fs_shuffle again (the timings' first call of round one pays for
     * fresh pages, which the per-round median leaves out). */
    malloc_trim(0);
#endif
    double pk[BENCH_MAXS];
    for (size_t i = 0; i < b->ns; i++) {
        const char *why = "";
        ok[i] = !too_slow(&b->s[i], n, &why);
        if (!ok[i])
            note(b, "%s (%s) not run at n = %zu: %s", b->s[i].impl,
                 b->s[i].rng, n, why);
        pk[i] = 0;
    }
    char what[48];
    snprintf(what, sizeof what, "bench n=%zu", n);
    for (size_t r = 0; r < runs; r++)
        for (size_t i = 0; i < b->ns; i++) {
            double ns = 0, peak = 0, first = 0;
            cli_progress_show(bar, what, r * b->ns + i, runs * b->ns,
                              "runs");
            v[i * runs + r] = cold[i * runs + r] = 0;
            if (!ok[i])
                continue;
            if (is_external(b->s[i].kind)) {
                if (run_helper(b, &b->s[i], n, &ns, &peak) != 0) {
                    note(b, "%s failed at n = %zu (%s): its row is skipped",
                         b->s[i].impl, n, b->o.helper[base_of(b->s[i].kind)]);
                    ok[i] = 0;
                    continue;
                }
            } else {
                run_local(b, &b->s[i], n, &ns, &peak, &first);
            }
            v[i * runs + r] = ns;
            cold[i * runs + r] = first;
            pk[i] = peak > pk[i] ? peak : pk[i];
        }
    for (size_t i = 0; i < b->ns; i++) {
        if (!ok[i])
            continue;
        bench_cell *ce = &b->res[i][ni];
        for (int k = 0; k < BENCH_NBASE; k++) {
            size_t j = 0;
            while (j < b->ns && b->s[j].kind != base_kind[k])
                j++;
            if (j == b->ns || !ok[j])
                continue;
            for (size_t r = 0; r < runs; r++)
                tmp[r] = v[j * runs + r] > 0
                             ? v[i * runs + r] / v[j * runs + r]
                             : 0;
            ce->ratio[k] = stat_of(tmp, runs);
        }
        memcpy(tmp, cold + i * runs, runs * sizeof *tmp);
        ce->cold = stat_of(tmp, runs);
        memcpy(tmp, v + i * runs, runs * sizeof *tmp);
        ce->ns = stat_of(tmp, runs);
        ce->done = ce->ns.ok;
        ce->peak_mib = pk[i];
    }
}

static void run(bench *b)
{
    size_t runs = (size_t)b->o.runs;
    double *v = malloc(runs * b->ns * sizeof *v);
    double *cold = malloc(runs * b->ns * sizeof *cold);
    double *tmp = malloc(runs * sizeof *tmp);
    if (v == NULL || cold == NULL || tmp == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_progress bar;
    cli_progress_init(&bar, b->o.progress);
    (void)bench_spawner_start(); /* failing: the baselines' rows are skipped */
    for (size_t ni = 0; ni < b->o.nsz; ni++) {
        run_size(b, ni, v, cold, tmp, &bar);
        cli_progress_end(&bar);
        if (!b->o.json)
            bench_print_text_size(b, ni);
    }
    bench_spawner_stop();
    free(v);
    free(cold);
    free(tmp);
}

/* ---- parse ---- */

/* 54, 100000 or 1e5. */
static uint64_t parse_size(const char *s)
{
    uint64_t v;
    const char *e = strchr(s, 'e');
    if (e == NULL)
        return cli_u64_or_die("size", s);
    char mant[32];
    size_t len = (size_t)(e - s);
    uint64_t m, x;
    if (len == 0 || len >= sizeof mant)
        cli_die(CLI_USAGE, "invalid size: '%s'", s);
    memcpy(mant, s, len);
    mant[len] = '\0';
    if (cli_parse_u64(mant, &m) != 0 || cli_parse_u64(e + 1, &x) != 0 ||
        x > 19)
        cli_die(CLI_USAGE, "invalid size: '%s'", s);
    v = m;
    for (uint64_t i = 0; i < x; i++) {
        if (v > UINT64_MAX / 10)
            cli_die(CLI_USAGE, "invalid size: '%s': too large", s);
        v *= 10;
    }
    return v;
}

static void parse_baseline(bench_opts *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    for (int i = 1; eq && i < BENCH_NBASE; i++)
        if ((size_t)(eq - arg) == strlen(bench_base_name[i]) &&
            strncmp(arg, bench_base_name[i], (size_t)(eq - arg)) == 0) {
            if (eq[1] == '\0' || strlen(eq + 1) >= PATH_MAX)
                cli_die(CLI_USAGE, "invalid baseline: '%s'", arg);
            strcpy(o->helper[i], eq + 1);
            return;
        }
    cli_die(CLI_USAGE, "invalid baseline: '%s' (NAME=PATH, NAME one of "
                       "std, gsl, rip)", arg);
}

static void parse(bench_opts *o, int argc, char **argv)
{
    enum { OPT_SVG = 256, OPT_SIZES, OPT_RNG, OPT_RUNS, OPT_BASE,
           OPT_PROGRESS, OPT_NO_PROGRESS };
    static const struct option opts[] = {
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"algorithm", required_argument, NULL, 'a'},
        {"rng", required_argument, NULL, OPT_RNG},
        {"threads", required_argument, NULL, 'j'},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"min-time", required_argument, NULL, 'm'},
        {"baseline", required_argument, NULL, OPT_BASE},
        {"format", required_argument, NULL, 'f'},
        {"svg", required_argument, NULL, OPT_SVG},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    static char sizes_arg[512] = "54,1e3,1e5,1e6,1e7,1e8";
    static char rngs_arg[256] = "xoshiro256ss,chacha20,default";
    int c;
    o->threads = 1;
    o->runs = 5;
    o->min_ms = 50;
    o->progress = -1;
    while ((c = getopt_long(argc, argv, "a:j:m:f:", opts, NULL)) != -1) {
        switch (c) {
        case OPT_SIZES:
            if (strlen(optarg) >= sizeof sizes_arg)
                cli_die(CLI_USAGE, "--sizes: list too long");
            strcpy(sizes_arg, optarg);
            break;
        case 'a': o->algs = optarg; break;
        case OPT_RNG:
            if (strlen(optarg) >= sizeof rngs_arg)
                cli_die(CLI_USAGE, "--rng: list too long");
            strcpy(rngs_arg, optarg);
            break;
        case 'j': o->threads = cli_threads_or_die(optarg, 256); break;
        case OPT_RUNS: o->runs = cli_u64_or_die("run count", optarg); break;
        case 'm': o->min_ms = cli_u64_or_die("minimum time", optarg); break;
        case OPT_BASE: parse_baseline(o, optarg); break;
        case 'f':
            if (strcmp(optarg, "json") == 0)
                o->json = 1;
            else if (strcmp(optarg, "text") == 0)
                o->json = 0;
            else
                cli_die(CLI_USAGE, "invalid format: '%s' (text, json)",
                        optarg);
            break;
        case OPT_SVG: o->svg = optarg; break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_NO_PROGRESS: o->progress = 0; break;
        case 'h': cli_help("bench", usage_text);
        case 'V': cli_version("bench");
        default: cli_bad_option("bench");
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("bench", CLI_USAGE);
    }
    if (o->runs == 0 || o->runs > 1000)
        cli_die(CLI_USAGE, "invalid run count: must be 1 to 1000");
    if (o->algs && strcmp(o->algs, "list") == 0)
        cli_list_algorithms();
    if (strcmp(rngs_arg, "list") == 0)
        cli_list_rngs();
    for (char *tok = strtok(sizes_arg, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nsz == BENCH_MAXN)
            cli_die(CLI_USAGE, "--sizes: at most %d sizes", BENCH_MAXN);
        uint64_t v = parse_size(tok);
        if (v < 2 || v > SIZE_MAX / 16)
            cli_die(CLI_USAGE, "invalid size: '%s': must be 2 or more", tok);
        o->sizes[o->nsz++] = (size_t)v;
    }
    if (o->nsz == 0)
        cli_die(CLI_USAGE, "--sizes: no size given");
    for (char *tok = strtok(rngs_arg, ","); tok; tok = strtok(NULL, ",")) {
        if (fs_rng_find(tok) == NULL && strcmp(tok, "default") != 0)
            cli_die(CLI_USAGE, "unknown generator: '%s'", tok);
        if (o->nrng == BENCH_MAXR)
            cli_die(CLI_USAGE, "--rng: at most %d generators", BENCH_MAXR);
        o->rngs[o->nrng++] = tok;
    }
    if (o->nrng == 0)
        cli_die(CLI_USAGE, "--rng: no generator given");
}

int cmd_bench(int argc, char **argv)
{
    bench *b = &B;
    parse(&b->o, argc, argv);
    if (!b->o.json)
        bench_print_header(b);
    plan(b);
    run(b);
    if (b->o.json)
        bench_print_json(b);
    if (b->o.svg)
        bench_write_svg(b, b->o.svg);
    return CLI_OK;
}
