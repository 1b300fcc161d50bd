/* cli.c -- shared helpers of the subcommands. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"

const char *cli_prog = "fairshuf";

static void vmsg(const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "%s: ", cli_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
}

void cli_die(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
    exit(status);
}

void cli_try_help(const char *sub, int status)
{
    if (sub && strcmp(cli_prog, "shuf") != 0)
        fprintf(stderr, "Try '%s %s --help' for more information.\n",
                cli_prog, sub);
    else
        fprintf(stderr, "Try '%s --help' for more information.\n", cli_prog);
    exit(status);
}

void cli_version(const char *sub)
{
    if (sub)
        printf("%s %s (fairshuf) %s\n", cli_prog, sub, fs_version());
    else
        printf("%s (fairshuf) %s\n", cli_prog, fs_version());
    printf("Seeded-stream specification version %d.\n"
           "License: MIT.  There is NO WARRANTY, to the extent permitted by "
           "law.\n",
           FS_STREAM_VERSION);
    exit(CLI_OK);
}

void cli_usage(const char *text)
{
    fputs(text, stdout);
    exit(CLI_OK);
}

const char *cli_manual(const char *page)
{
    static char buf[PATH_MAX + 32];
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0'; /* the binary's folder */
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/../share/man/man1/%s.1", exe, page);
        if (access(path, R_OK) != 0) { /* not installed beside the binary */
            snprintf(path, sizeof path, "%s/../docs/man/%s.1", exe, page);
            char real[PATH_MAX];
            if (realpath(path, real) == NULL)
                return NULL;
            snprintf(buf, sizeof buf, "man -l %s", real);
            return buf;
        }
    }
    snprintf(buf, sizeof buf, "man %s", page);
    return buf;
}

void cli_help(const char *sub, const char *text)
{
    char page[64];
    snprintf(page, sizeof page, "fairshuf-%s", sub ? sub : "");
    const char *man = sub ? cli_manual(page) : NULL;
    if (man == NULL) /* perm and rng are described in fairshuf(1) */
        man = cli_manual("fairshuf");
    fputs(text, stdout);
    printf("Manual: %s\n", man ? man : "man fairshuf");
    exit(CLI_OK);
}

void cli_bad_option(const char *sub)
{
    if (optopt >= '0' && optopt <= '9')
        cli_error("a negative number is not an operand (an option's value "
                  "may be one)");
    cli_try_help(sub, CLI_USAGE);
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    uint64_t v = 0;
    int overflow = 0;
    for (const char *p = s; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (d > 9)
            return -1;
        if (v > (UINT64_MAX - d) / 10)
            overflow = 1;
        else
            v = v * 10 + d;
    }
    if (overflow)
        return -2;
    *out = v;
    return 0;
}

uint64_t cli_u64_or_die(const char *what, const char *s)
{
    uint64_t v;
    int rc = cli_parse_u64(s, &v);
    if (rc == -2)
        cli_die(CLI_USAGE, "invalid %s: '%s': %s", what, s, strerror(ERANGE));
    if (rc != 0)
        cli_die(CLI_USAGE, "invalid %s: '%s'%s", what, s,
                *s == '-' ? ": must be 0 or more" : "");
    return v;
}

unsigned cli_threads_or_die(const char *s, unsigned max)
{
    uint64_t v;
    int rc = cli_parse_u64(s, &v);
    if (rc == 0 && v >= 1 && v <= max)
        return (unsigned)v;
    cli_die(CLI_USAGE, "invalid thread count: '%s' (1 to %u)", s, max);
}

int cli_parse_size(const char *s, uint64_t *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -2;
    unsigned shift = 0;
    switch (*end) {
    case '\0': case 'B': case 'b': break;
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    case 'T': case 't': shift = 40; break;
    default: return -1;
    }
    if (*end != '\0' && end[1] != '\0' &&
        !((end[1] == 'B' || end[1] == 'i') && end[2] == '\0') &&
        !(end[1] == 'i' && end[2] == 'B' && end[3] == '\0'))
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -2;
    *out = (uint64_t)v << shift;
    return 0;
}

const char *cli_seed_problem(const char *seed)
{
    return seed && seed[0] == '\0' ? "invalid seed: '': empty" : NULL;
}

fs_rng *cli_rng(const char *name, const char *seed)
{
    if (name && strcmp(name, "list") == 0)
        cli_list_rngs();
    fs_rng *rng;
    int rc = fs_rng_new(&rng, name, seed);
    if (rc == FS_ENOTFOUND)
        cli_die(CLI_USAGE,
                "unknown generator: '%s' (--rng=list shows the names)", name);
    if (rc == FS_ESEED)
        cli_die(CLI_USAGE, "%s", cli_seed_problem(""));
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "cannot create generator: %s", fs_strerror(rc));
    return rng;
}

fs_algorithm cli_algorithm(const char *name)
{
    if (name && strcmp(name, "list") == 0)
        cli_list_algorithms();
    const fs_algorithm_info *a = fs_algorithm_find(name);
    if (a == NULL)
        cli_die(CLI_USAGE,
                "unknown algorithm: '%s' (--algorithm=list shows the names)",
                name);
    return a->id;
}

void cli_list_rngs(void)
{
    size_t n;
    const fs_rng_info *r = fs_rng_list(&n);
    for (size_t i = 0; i < n; i++)
        printf("%-14s %s\n", r[i].name, r[i].description);
    exit(CLI_OK);
}

void cli_list_algorithms(void)
{
    size_t n;
    const fs_algorithm_info *a = fs_algorithm_list(&n);
    printf("%-18s %s\n", "auto", fs_algorithm_find("auto")->description);
    for (size_t i = 0; i < n; i++)
        printf("%-18s %s\n", a[i].name, a[i].description);
    exit(CLI_OK);
}

void cli_check(int rc, const char *what)
{
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "%s: %s", what, fs_strerror(rc));
}

static int stdout_reported; /* cli_flush_stdout() failed: the caller said so */

int cli_flush_stdout(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    if (errno == 0)
        errno = EIO;
    stdout_reported = 1;
    return -1;
}

static void close_stdout(void)
{
    int bad = ferror(stdout);
    int err = fclose(stdout) != 0 ? errno : 0;
    if ((bad || err) && stdout_reported)
        _exit(CLI_FAIL);
    if (bad || err) {
        if (err == 0)
            err = errno ? errno : EIO;
        fprintf(stderr, "%s: write error: %s\n", cli_prog, strerror(err));
        _exit(CLI_FAIL);
    }
}

/* libsodium calls its misuse handler, then abort(), when it cannot go on;
 * for fairshuf that happens only when the OS refuses randomness while
 * sodium_init() sets itself up (its probe and canary need getrandom).  The
 * library cannot exit; the program can: report it like any refused
 * randomness and exit 1 instead of dumping core.  Nothing buffered on
 * stdout is written (_exit), so no partial output appears. */
static void sodium_refused(void)
{
    static const char msg[] =
        ": cannot initialise libsodium: the OS refused randomness\n";
    ssize_t ignored = write(STDERR_FILENO, cli_prog, strlen(cli_prog));
    ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(CLI_FAIL);
}

void cli_atexit_close_stdout(void)
{
    atexit(close_stdout);
    sodium_set_misuse_handler(sodium_refused);
}
