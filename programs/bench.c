/* bench.c -- `fairshuf bench`: ns per element of fairshuf's shuffles beside
 * C++ std::shuffle + std::mt19937_64, GSL gsl_ran_shuffle + mt19937, plain
 * Durstenfeld and a memcpy floor, measured in one run and interleaved (run
 * r of every implementation before run r+1 of any), medians of --runs.
 *
 * The baselines are helper programs built by `make bench` into
 * BUILD/bench/ next to this binary (bench/Makefile; protocol in
 * bench/baseline.h): each measurement of a baseline is one fork + exec of
 * its helper, timed inside the helper around the shuffles only, just as
 * fairshuf's own measurements time only fs_shuffle*.  Peak memory is the
 * process's VmHWM, reset before each in-process measurement through
 * /proc/self/clear_refs. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench/baseline.h" /* timing and peak RSS, as the baselines */
#include "cli.h"

#ifdef __clang__
#define BENCH_COMPILER "clang " __clang_version__
#else
#define BENCH_COMPILER "gcc " __VERSION__
#endif

static const char usage_text[] =
    "Usage: fairshuf bench [OPTION]...\n"
    "Measure shuffles in ns per 8-byte element beside C++ std::shuffle with\n"
    "std::mt19937_64, GSL gsl_ran_shuffle with mt19937, plain Durstenfeld and\n"
    "a memcpy floor, interleaved in one run; print medians, min-max, ratios\n"
    "and peak memory.\n"
    "\n"
    "  -n, --sizes=LIST     sizes, comma-separated, 54 or 1e5 style\n"
    "                       (default 54,1e3,1e5,1e6,1e7,1e8)\n"
    "  -a, --algorithm=LIST also measure these named algorithms ('all': every\n"
    "                       one; quadratic ones only up to n = 20000, the\n"
    "                       O(n log n) ones up to 1e7)\n"
    "  -r, --rng=LIST       generators for fairshuf (default\n"
    "                       xoshiro256ss,chacha20)\n"
    "  -t, --threads=N      also measure fairshuf with N threads (default 1)\n"
    "  -R, --runs=K         runs per measurement (default 5; median reported)\n"
    "  -m, --min-time=MS    each run repeats the shuffle for at least MS ms\n"
    "                       (default 50; at least one shuffle)\n"
    "  -f, --format=FMT     text (default) or json\n"
    "      --svg=FILE       draw ns/element against n (log axes) into FILE\n"
    "      --help           display this help and exit\n"
    "      --version        output version information and exit\n"
    "\n"
    "impl 'fairshuf' is fs_shuffle_threads(), the library's default choice\n"
    "for the size; 'durstenfeld-plain' is one fs_below per index.  The\n"
    "baselines are built by 'make bench' into the build folder's bench/\n"
    "directory; without them their rows are skipped with a note.\n"
    "Examples:\n"
    "  fairshuf bench --sizes=1e5 --runs=5\n"
    "  fairshuf bench --sizes=1e8 --threads=2 --format=json\n"
    "  fairshuf bench --sizes=1e3,1e6,1e8 --algorithm=all --rng=xoshiro256ss\n";

enum kind { K_MEMCPY, K_STD, K_GSL, K_PLAIN, K_AUTO, K_ALG };

typedef struct series {
    enum kind kind;
    char impl[40];
    char rng[24];
    unsigned threads;
    fs_algorithm alg;
    int quadratic;
} series;

typedef struct cell {
    int done;
    double med, min, max, peak_mib;
} cell;

#define MAXS 128
#define MAXN 32

static series S[MAXS];
static size_t nseries;
static char helper_dir[PATH_MAX];
static char helper_compiler[128];

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
    if (len == 0 || len >= sizeof mant) {
        cli_die(CLI_USAGE, "invalid size: '%s'", s);
        return 0; /* not reached (for static analysers) */
    }
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

static void add(enum kind k, const char *impl, const char *rng,
                unsigned threads, fs_algorithm alg, int quadratic)
{
    if (nseries == MAXS)
        cli_die(CLI_USAGE, "too many implementations to measure");
    series *s = &S[nseries++];
    s->kind = k;
    snprintf(s->impl, sizeof s->impl, "%s", impl);
    snprintf(s->rng, sizeof s->rng, "%s", rng);
    s->threads = threads;
    s->alg = alg;
    s->quadratic = quadratic;
}

/* Too slow to run at this n (the issue: "only where they finish in
 * seconds")? */
static int too_slow(const series *s, size_t n)
{
    if (s->kind != K_ALG)
        return 0;
    if (s->quadratic)
        return n > 20000;
    switch (s->alg) {
    case FS_ALG_REJECTION:
    case FS_ALG_SORT_KEY:
    case FS_ALG_RANDOM_COMPARATOR:
        return n > 10000000;
    default:
        return 0;
    }
}

static int helper_path(const series *s, char *buf, size_t cap)
{
    const char *name = s->kind == K_STD ? "baseline_std" : "baseline_gsl";
    int w = snprintf(buf, cap, "%s/%s", helper_dir, name);
    return w > 0 && (size_t)w < cap && access(buf, X_OK) == 0;
}

/* One run of a baseline helper; 0 on success. */
static int run_helper(const series *s, size_t n, double min_ms, double *ns,
                      double *peak)
{
    char path[PATH_MAX], narg[32], marg[32];
    if (!helper_path(s, path, sizeof path))
        return -1;
    snprintf(narg, sizeof narg, "%zu", n);
    snprintf(marg, sizeof marg, "%.3f", min_ms);
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execl(path, path, narg, marg, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char line[512];
    size_t len = 0;
    ssize_t r;
    while (len + 1 < sizeof line &&
           (r = read(fd[0], line + len, sizeof line - 1 - len)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        len += (size_t)r;
    }
    line[len] = '\0';
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    char *end;
    *ns = strtod(line, &end);
    long kib = strtol(end, &end, 10);
    *peak = (double)kib / 1024.0;
    while (*end == ' ')
        end++;
    end[strcspn(end, "\n")] = '\0';
    if (helper_compiler[0] == '\0')
        snprintf(helper_compiler, sizeof helper_compiler, "%s", end);
    return *ns > 0 ? 0 : -1;
}

/* One in-process run; 0 on success. */
static int run_local(const series *s, size_t n, double min_ms, double *ns,
                     double *peak)
{
    reset_peak();
    uint64_t *a = malloc(n * sizeof *a);
    uint64_t *b = s->kind == K_MEMCPY ? malloc(n * sizeof *b) : NULL;
    fs_rng *rng = NULL;
    int rc = FS_OK;
    if (a == NULL || (s->kind == K_MEMCPY && b == NULL))
        cli_die(CLI_FAIL, "memory exhausted at n = %zu", n);
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    if (s->kind != K_MEMCPY)
        cli_check(fs_rng_new(&rng, s->rng, "bench"), s->rng);
    else
        memset(b, 0, n * sizeof *b); /* fault the pages in, as `a` is */
    double min_ns = min_ms * 1e6, t0 = baseline_now_ns(), t = t0;
    size_t reps = 0;
    do {
        switch (s->kind) {
        case K_MEMCPY:
            memcpy(b, a, n * sizeof *a);
            __asm__ volatile("" : : "r"(b) : "memory");
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
        reps++;
    } while (rc == FS_OK && (t = baseline_now_ns()) - t0 < min_ns);
    cli_check(rc, s->impl);
    *ns = (t - t0) / ((double)reps * (double)n);
    *peak = (double)baseline_peak_kib() / 1024.0;
    fs_rng_free(rng);
    free(a);
    free(b);
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static const cell *find_cell(cell (*res)[MAXN], enum kind k, size_t ni)
{
    for (size_t i = 0; i < nseries; i++)
        if (S[i].kind == k && res[i][ni].done)
            return &res[i][ni];
    return NULL;
}

static void ratio(char *buf, size_t cap, const cell *c, const cell *base)
{
    if (base && base->med > 0)
        snprintf(buf, cap, "%.2f", c->med / base->med);
    else
        snprintf(buf, cap, "-");
}

static void print_text_size(cell (*res)[MAXN], size_t ni, size_t n)
{
    const cell *cs = find_cell(res, K_STD, ni), *cg = find_cell(res, K_GSL, ni),
               *cm = find_cell(res, K_MEMCPY, ni);
    printf("\nn = %zu\n", n);
    printf("%-20s %-13s %3s %9s %19s %7s %7s %8s %9s\n", "impl", "rng", "thr",
           "ns/elem", "min-max", "x std", "x gsl", "x memcpy", "peak MiB");
    for (size_t i = 0; i < nseries; i++) {
        const cell *c = &res[i][ni];
        if (!c->done)
            continue;
        char mm[40], r1[16], r2[16], r3[16];
        snprintf(mm, sizeof mm, "%.3f-%.3f", c->min, c->max);
        ratio(r1, sizeof r1, c, cs);
        ratio(r2, sizeof r2, c, cg);
        ratio(r3, sizeof r3, c, cm);
        printf("%-20s %-13s %3u %9.3f %19s %7s %7s %8s %9.1f\n", S[i].impl,
               S[i].rng, S[i].threads, c->med, mm, r1, r2, r3, c->peak_mib);
    }
    fflush(stdout);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void print_json(cell (*res)[MAXN], const size_t *sizes, size_t nsz)
{
    int first = 1;
    printf("[");
    for (size_t ni = 0; ni < nsz; ni++)
        for (size_t i = 0; i < nseries; i++) {
            const cell *c = &res[i][ni];
            if (!c->done)
                continue;
            printf("%s\n  {\"impl\": ", first ? "" : ",");
            json_str(stdout, S[i].impl);
            printf(", \"rng\": ");
            json_str(stdout, S[i].rng);
            printf(", \"n\": %zu, \"threads\": %u, \"ns_per_element\": %.4f, "
                   "\"min\": %.4f, \"max\": %.4f, \"peak_rss_mib\": %.1f}",
                   sizes[ni], S[i].threads, c->med, c->min, c->max,
                   c->peak_mib);
            first = 0;
        }
    printf("\n]\n");
}

/* ns/element against n on log axes, one line per implementation; written
 * to FILE.tmp and renamed, so a failure leaves no half-written FILE. */
static void write_svg(const char *file, cell (*res)[MAXN], const size_t *sizes,
                      size_t nsz)
{
    static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c",
                                         "#9467bd", "#ff7f0e", "#8c564b",
                                         "#e377c2", "#7f7f7f", "#bcbd22",
                                         "#17becf"};
    double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0;
    for (size_t ni = 0; ni < nsz; ni++)
        for (size_t i = 0; i < nseries; i++)
            if (res[i][ni].done && res[i][ni].med > 0) {
                double x = (double)sizes[ni], y = res[i][ni].med;
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
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", file) >= (int)sizeof tmp)
        cli_die(CLI_FAIL, "%s: name too long", file);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        cli_die(CLI_FAIL, "%s: %s", tmp, strerror(errno));
        return; /* not reached */
    }
#define PX(x) (L + (log10(x) - lx0) / (lx1 - lx0) * (W - L - R))
#define PY(y) (H - B - (log10(y) - ly0) / (ly1 - ly0) * (H - T - B))
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%.0f\" y=\"22\" font-size=\"15\">fairshuf bench: "
               "ns per 8-byte element (median), %s</text>\n",
            W, H, L, BENCH_COMPILER);
    for (double e = lx0; e <= lx1; e++) {
        double x = L + (e - lx0) / (lx1 - lx0) * (W - L - R);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                   "stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.0f\" "
                   "text-anchor=\"middle\">1e%.0f</text>\n",
                x, T, x, H - B, x, H - B + 16, e);
    }
    for (double e = ly0; e <= ly1; e++) {
        double y = H - B - (e - ly0) / (ly1 - ly0) * (H - T - B);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
                   "stroke=\"#ddd\"/><text x=\"%.0f\" y=\"%.1f\" "
                   "text-anchor=\"end\">%g</text>\n",
                L, y, W - R, y, L - 6, y + 4, pow(10, e));
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">n "
               "(elements)</text>\n<text x=\"16\" y=\"%.0f\" "
               "transform=\"rotate(-90 16 %.0f)\" text-anchor=\"middle\">"
               "ns per element</text>\n",
            (L + W - R) / 2, H - 12, (T + H - B) / 2, (T + H - B) / 2);
    size_t drawn = 0;
    for (size_t i = 0; i < nseries; i++) {
        const char *c = colour[drawn % (sizeof colour / sizeof *colour)];
        int any = 0;
        for (size_t ni = 0; ni < nsz; ni++) {
            const cell *ce = &res[i][ni];
            if (!ce->done || ce->med <= 0)
                continue;
            if (!any)
                fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
                           "stroke-width=\"2\" points=\"", c);
            fprintf(f, "%.1f,%.1f ", PX((double)sizes[ni]), PY(ce->med));
            any = 1;
        }
        if (!any)
            continue;
        fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s %s%s",
                W - R + 12, T + 16.0 * (double)drawn, c, S[i].impl,
                S[i].rng, S[i].threads > 1 ? " " : "");
        if (S[i].threads > 1)
            fprintf(f, "x%u threads", S[i].threads);
        fprintf(f, "</text>\n");
        drawn++;
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
    if (ferror(f) | fclose(f)) {
        unlink(tmp);
        cli_die(CLI_FAIL, "%s: write error", tmp);
    }
    if (rename(tmp, file) != 0) {
        unlink(tmp);
        cli_die(CLI_FAIL, "%s: %s", file, strerror(errno));
    }
}

static void find_helpers(void)
{
    const char *env = getenv("FAIRSHUF_BENCH_DIR");
    if (env && *env) {
        snprintf(helper_dir, sizeof helper_dir, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        snprintf(helper_dir, sizeof helper_dir, "bench");
        return;
    }
    exe[len] = '\0';
    snprintf(helper_dir, sizeof helper_dir, "%s/bench", dirname(exe));
}

int cmd_bench(int argc, char **argv)
{
    enum { OPT_SVG = 256 };
    static const struct option opts[] = {
        {"sizes", required_argument, NULL, 'n'},
        {"algorithm", required_argument, NULL, 'a'},
        {"rng", required_argument, NULL, 'r'},
        {"threads", required_argument, NULL, 't'},
        {"runs", required_argument, NULL, 'R'},
        {"min-time", required_argument, NULL, 'm'},
        {"format", required_argument, NULL, 'f'},
        {"svg", required_argument, NULL, OPT_SVG},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    char sizes_arg[512] = "54,1e3,1e5,1e6,1e7,1e8";
    char rngs_arg[256] = "xoshiro256ss,chacha20";
    const char *algs_arg = NULL, *svg = NULL;
    uint64_t threads = 1, runs = 5, min_ms = 50;
    int json = 0, c;
    while ((c = getopt_long(argc, argv, "n:a:r:t:R:m:f:", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (strlen(optarg) >= sizeof sizes_arg)
                cli_die(CLI_USAGE, "--sizes: list too long");
            strcpy(sizes_arg, optarg);
            break;
        case 'a': algs_arg = optarg; break;
        case 'r':
            if (strlen(optarg) >= sizeof rngs_arg)
                cli_die(CLI_USAGE, "--rng: list too long");
            strcpy(rngs_arg, optarg);
            break;
        case 't': threads = cli_u64_or_die("thread count", optarg); break;
        case 'R': runs = cli_u64_or_die("run count", optarg); break;
        case 'm': min_ms = cli_u64_or_die("minimum time", optarg); break;
        case 'f':
            if (strcmp(optarg, "json") == 0)
                json = 1;
            else if (strcmp(optarg, "text") == 0)
                json = 0;
            else
                cli_die(CLI_USAGE, "invalid format: '%s' (text, json)",
                        optarg);
            break;
        case OPT_SVG: svg = optarg; break;
        case 'h': cli_usage(usage_text);
        case 'V': cli_version("bench");
        default: cli_try_help("bench", CLI_USAGE);
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("bench", CLI_USAGE);
    }
    if (threads == 0 || threads > 256)
        cli_die(CLI_USAGE, "invalid thread count: must be 1 to 256");
    if (runs == 0 || runs > 1000)
        cli_die(CLI_USAGE, "invalid run count: must be 1 to 1000");
    if (algs_arg && strcmp(algs_arg, "list") == 0)
        cli_list_algorithms();
    if (strcmp(rngs_arg, "list") == 0)
        cli_list_rngs();

    size_t sizes[MAXN], nsz = 0;
    for (char *tok = strtok(sizes_arg, ","); tok; tok = strtok(NULL, ",")) {
        if (nsz == MAXN)
            cli_die(CLI_USAGE, "--sizes: at most %d sizes", MAXN);
        uint64_t v = parse_size(tok);
        if (v < 2 || v > SIZE_MAX / 16)
            cli_die(CLI_USAGE, "invalid size: '%s': must be 2 or more", tok);
        sizes[nsz++] = (size_t)v;
    }
    if (nsz == 0)
        cli_die(CLI_USAGE, "--sizes: no size given");

    /* The rows, in the order they are measured within each run. */
    char *rngs[16];
    size_t nrng = 0;
    for (char *tok = strtok(rngs_arg, ","); tok; tok = strtok(NULL, ",")) {
        if (fs_rng_find(tok) == NULL)
            cli_die(CLI_USAGE, "unknown generator: '%s'", tok);
        if (nrng == 16) {
            cli_die(CLI_USAGE, "--rng: at most 16 generators");
            break; /* not reached */
        }
        rngs[nrng++] = tok;
    }
    if (nrng == 0)
        cli_die(CLI_USAGE, "--rng: no generator given");
    add(K_MEMCPY, "memcpy", "none", 1, FS_ALG_AUTO, 0);
    add(K_STD, "std::shuffle", "mt19937_64", 1, FS_ALG_AUTO, 0);
    add(K_GSL, "gsl_ran_shuffle", "mt19937", 1, FS_ALG_AUTO, 0);
    for (size_t r = 0; r < nrng; r++) {
        add(K_PLAIN, "durstenfeld-plain", rngs[r], 1, FS_ALG_DURSTENFELD, 0);
        add(K_AUTO, "fairshuf", rngs[r], 1, FS_ALG_AUTO, 0);
        if (threads > 1)
            add(K_AUTO, "fairshuf", rngs[r], (unsigned)threads, FS_ALG_AUTO,
                0);
    }
    if (algs_arg) {
        size_t na;
        const fs_algorithm_info *all = fs_algorithm_list(&na);
        char *list = strdup(algs_arg);
        if (list == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
            for (size_t i = 0; i < na; i++) {
                int all_of = strcmp(tok, "all") == 0;
                if (!all_of && fs_algorithm_find(tok) == NULL)
                    cli_die(CLI_USAGE, "unknown algorithm: '%s'", tok);
                if (!all_of && strcmp(tok, all[i].name) != 0)
                    continue;
                for (size_t r = 0; r < nrng; r++)
                    add(K_ALG, all[i].name, rngs[r], 1, all[i].id,
                        all[i].quadratic);
            }
        free(list);
    }
    find_helpers();
    char path[PATH_MAX];
    for (size_t i = 0; i < nseries; i++)
        if ((S[i].kind == K_STD || S[i].kind == K_GSL) &&
            !helper_path(&S[i], path, sizeof path))
            fprintf(stderr,
                    "fairshuf: bench: %s not built (%s missing; 'make bench' "
                    "builds it): its rows are skipped\n",
                    S[i].impl, path);

    static cell res[MAXS][MAXN];
    double *v = malloc(runs * nseries * sizeof *v);
    double *pk = calloc(nseries, sizeof *pk);
    if (v == NULL || pk == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    if (!json)
        printf("fairshuf bench: 8-byte elements, %" PRIu64
               " interleaved runs per cell, median ns/element\n"
               "compiler: fairshuf built by %s\n",
               runs, BENCH_COMPILER);
    int said_helpers = 0;
    for (size_t ni = 0; ni < nsz; ni++) {
        size_t n = sizes[ni];
        int ok[MAXS];
        for (size_t i = 0; i < nseries; i++) {
            ok[i] = !too_slow(&S[i], n);
            pk[i] = 0;
        }
        for (uint64_t r = 0; r < runs; r++)
            for (size_t i = 0; i < nseries; i++) {
                if (!ok[i])
                    continue;
                double ns, peak;
                int rc = (S[i].kind == K_STD || S[i].kind == K_GSL)
                             ? run_helper(&S[i], n, (double)min_ms, &ns, &peak)
                             : run_local(&S[i], n, (double)min_ms, &ns, &peak);
                if (rc != 0) {
                    ok[i] = 0;
                    continue;
                }
                v[i * runs + r] = ns;
                pk[i] = peak > pk[i] ? peak : pk[i];
            }
        for (size_t i = 0; i < nseries; i++) {
            if (!ok[i])
                continue;
            double *x = v + i * runs;
            qsort(x, runs, sizeof *x, cmp_double);
            cell *ce = &res[i][ni];
            ce->done = 1;
            ce->min = x[0];
            ce->max = x[runs - 1];
            ce->med = runs % 2 ? x[runs / 2]
                               : (x[runs / 2 - 1] + x[runs / 2]) / 2;
            ce->peak_mib = pk[i];
        }
        if (!json) {
            if (!said_helpers && helper_compiler[0]) {
                printf("compiler: baselines built by %s\n", helper_compiler);
                said_helpers = 1;
            }
            print_text_size(res, ni, n);
        }
    }
    if (json) {
        fprintf(stderr, "fairshuf: bench: fairshuf built by %s; baselines by "
                        "%s\n", BENCH_COMPILER,
                helper_compiler[0] ? helper_compiler : "(not run)");
        print_json(res, sizes, nsz);
    }
    if (svg)
        write_svg(svg, res, sizes, nsz);
    free(v);
    free(pk);
    return CLI_OK;
}
