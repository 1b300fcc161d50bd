/* certify.c -- `fairshuf certify`: the submission a gaming lab asks for
 * (docs/certify.md): the generator's raw output, every dealt deck, the
 * tests of <fairshuf/certify.h> with one family-wise verdict, the
 * reachability account and the seeding description, and SHA256SUMS, in a
 * new folder that appears whole or not at all. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "certify.h"
#include "cli.h"

static const char usage_text[] =
    "Usage: fairshuf certify --game=G --out=DIR [OPTION]...\n"
    "Deal many times and write what a gaming lab asks for into the new\n"
    "folder DIR: raw.bin (the generator's raw output), decks.tsv (every\n"
    "deal, as 'fairshuf deal --format=tsv'), report.json and report.html\n"
    "(each test's statistic and p-value, one verdict under Holm's\n"
    "family-wise control, the power, the reachability of every deal, the\n"
    "seeding, the command and versions), and SHA256SUMS over them.\n"
    "\n"
    "  -g, --game=G         doudizhu, holdem, poker5, bridge, shengji,\n"
    "                       mahjong, blackjack\n"
    "  -p, --players=N      players (default: the game's)\n"
    "  -d, --decks=N        decks in the shoe (default: the game's)\n"
    "  -G, --rng=NAME       generator (default chacha20, keyed from the OS)\n"
    "  -s, --seed=S         a reproducible run (the same S, the same files)\n"
    "  -a, --algorithm=A    shuffle (default auto); a negative control such\n"
    "                       as naive-swap or asf-1999 must fail\n"
    "  -c, --trials=N       deals (default 200000)\n"
    "      --level=L        confidence level (default 0.99): the verdict\n"
    "                       fails when Holm rejects any test at 1 - L\n"
    "      --profile=P      nigc (25 CFR 547.14, 99%), pa (58 Pa. Code\n"
    "                       810a.5, 95%) or ontario (99%): the level and\n"
    "                       the regulation's named tests\n"
    "      --raw-bytes=SIZE raw.bin's size (default 4M; K, M, G suffixes)\n"
    "      --out=DIR        the submission folder; must not exist\n"
    "      --help           display this help and exit\n"
    "      --version        output version information and exit\n"
    "\n"
    "Exit status: 0 pass, 3 fail, 1 error, 2 usage error.\n"
    "Examples:\n"
    "  fairshuf certify --game=holdem --players=6 --out=holdem-lab\n"
    "  fairshuf certify --game=doudizhu --profile=nigc --out=ddz-nigc\n"
    "  fairshuf certify --game=bridge --algorithm=naive-swap --trials=20000 "
    "--out=control\n";

#define CLI_VERDICT_FAIL 3

typedef struct sub {
    char *dir; /* the folder being filled: DIR.partial-XXXXXX */
} sub;
static sub partial;

/* A run that ends early leaves no half submission behind. */
static void remove_partial(void)
{
    if (partial.dir == NULL)
        return;
    DIR *d = opendir(partial.dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", partial.dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(partial.dir);
    free(partial.dir);
    partial.dir = NULL;
}

/* File `name` of the partial folder, opened with mode, or dies. */
static FILE *open_in(const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", partial.dir, name);
    FILE *f = fopen(path, mode);
    if (f == NULL)
        cli_die(CLI_FAIL, "%s: %s", path, strerror(errno));
    return f;
}

static void close_in(FILE *f, const char *name)
{
    int bad = ferror(f) != 0;
    errno = 0;
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    int err = errno ? errno : EIO;
    bad |= fclose(f) != 0;
    if (bad)
        cli_die(CLI_FAIL, "%s/%s: write error: %s", partial.dir, name,
                strerror(err));
}

/* SHA-256 of a file of the submission, as sha256sum prints it. */
static void sum_file(FILE *sums, const char *name)
{
    FILE *f = open_in(name, "rb");
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    unsigned char buf[1 << 16], h[32];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        crypto_hash_sha256_update(&st, buf, got);
    if (ferror(f))
        cli_die(CLI_FAIL, "%s/%s: read error", partial.dir, name);
    fclose(f);
    crypto_hash_sha256_final(&st, h);
    char hex[65];
    fs_hex_encode(h, 32, hex);
    fprintf(sums, "%s  %s\n", hex, name);
}

/* The command line, each argument shell-quoted where it needs it. */
static char *command_line(int argc, char **argv)
{
    size_t cap = 64;
    for (int i = 0; i < argc; i++)
        cap += 4 * strlen(argv[i]) + 3;
    char *s = malloc(cap), *p = s;
    if (s == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    p += sprintf(p, "fairshuf certify");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int plain = *a != '\0' && strspn(a, "abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_=./,:+@%") ==
                                      strlen(a);
        *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++)
            if (*a == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *a;
        *p++ = '\'';
    }
    *p = '\0';
    return s;
}

static const char *seeding_text(const char *rng, const char *seed)
{
    if (seed)
        return "Seeded with --seed: the run is reproducible from the "
               "command (for the lab's re-run); a dealer in play never "
               "takes a seed (docs/entropy.md).";
    if (rng == NULL || strcmp(rng, "chacha20") == 0)
        return "ChaCha20 (RFC 8439) keyed with 256 bits from the operating "
               "system (getrandom), never from time or pid; each key is "
               "erased after use (fast key erasure) and fresh OS entropy is "
               "mixed in every 1 MiB of output; a forked child re-keys "
               "before its first draw; a refused getrandom is an error, "
               "never a fallback (docs/entropy.md).";
    return "A non-cryptographic generator with a 64-bit seed from the "
           "operating system: not a dealer's generator (docs/entropy.md).";
}

/* Deals the run's trials into decks.tsv and the tally; raw.bin first, from
 * the same generator, just before the deals. */
static void collect(cert_run *r, fs_dealer *d, fs_rng *rng,
                    fs_cert_tally *t, uint8_t **raw)
{
    *raw = malloc(r->raw_bytes ? r->raw_bytes : 1);
    if (*raw == NULL)
        cli_die(CLI_FAIL, "memory exhausted (--raw-bytes=%llu)",
                r->raw_bytes);
    fs_rng_bytes(rng, *raw, r->raw_bytes);
    FILE *f = open_in("raw.bin", "wx");
    fwrite(*raw, 1, r->raw_bytes, f);
    close_in(f, "raw.bin");
    f = open_in("decks.tsv", "wx");
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    fs_deal *deal = malloc(sizeof *deal);
    uint32_t *order = malloc(d->n * sizeof *order);
    if (deal == NULL || order == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    char line[8192];
    for (unsigned long long i = 0; i < r->trials; i++) {
        cli_check(fs_certify_deal(d, rng, deal, order), "deal");
        cli_check(fs_cert_tally_add(t, order), "tally");
        int len = fs_fair_deal_tsv(deal, NULL, line, sizeof line);
        if (len < 0)
            cli_check(len, "deal");
        fwrite(line, 1, (size_t)len, f);
        fputc('\n', f);
    }
    cli_check(fs_rng_error(rng), "generator");
    close_in(f, "decks.tsv");
    free(deal);
    free(order);
}

/* The tests (deals, then raw bytes), Holm over them, the verdict. */
static void judge(cert_run *r, const fs_dealer *d, const fs_cert_tally *t,
                  const uint8_t *raw)
{
    size_t n;
    cli_check(fs_cert_tally_results(t, NULL, 0, &n), "tests");
    size_t bits = r->raw_bytes >= 16 ? FS_CERT_BIT_TESTS : 0;
    r->tests = calloc(n + bits, sizeof *r->tests);
    double *p = malloc((n + bits) * sizeof *p);
    r->rejected = calloc(n + bits, sizeof *r->rejected);
    r->adjusted = malloc((n + bits) * sizeof *r->adjusted);
    if (!r->tests || !p || !r->rejected || !r->adjusted)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_check(fs_cert_tally_results(t, r->tests, n, &n), "tests");
    if (bits)
        cli_check(fs_cert_bits(raw, r->raw_bytes, r->tests + n), "bits");
    r->ntests = n + bits;
    for (size_t i = 0; i < r->ntests; i++)
        p[i] = r->tests[i].p;
    double alpha = 1 - r->level;
    cli_check(fs_holm(p, r->ntests, alpha, r->rejected), "holm");
    cli_check(fs_holm_adjust(p, r->ntests, r->adjusted), "holm");
    size_t family = 0, rejected = 0;
    for (size_t i = 0; i < r->ntests; i++) {
        family += r->tests[i].applicable;
        rejected += r->rejected[i] != 0;
    }
    r->power_eps = d->n <= FS_MATRIX_MAX_N
                       ? fs_maxcell_detectable((unsigned)d->n, r->trials,
                                               alpha, family)
                       : NAN;
    r->pass = rejected == 0 && r->entropy.reach != FS_REACH_PARTIAL;
    r->why_fail = rejected ? "a test is rejected at the family-wise level"
                  : r->pass ? NULL
                            : "the generator cannot reach every deal "
                              "(fewer seeds than deals, not cryptographic)";
    free(p);
}

static void write_reports(const cert_run *r)
{
    FILE *f = open_in("report.json", "wx");
    if (cert_report_json(f, r) != 0)
        cli_die(CLI_FAIL, "report.json: write error");
    close_in(f, "report.json");
    f = open_in("report.html", "wx");
    if (cert_report_html(f, r) != 0)
        cli_die(CLI_FAIL, "report.html: write error");
    close_in(f, "report.html");
    f = open_in("SHA256SUMS", "wx");
    static const char *const files[] = {"raw.bin", "decks.tsv", "report.json",
                                        "report.html"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        sum_file(f, files[i]);
    close_in(f, "SHA256SUMS");
}

/* Makes DIR.partial-XXXXXX beside DIR; dies if DIR is there already. */
static void begin(const char *out)
{
    struct stat st;
    if (lstat(out, &st) == 0)
        cli_die(CLI_FAIL, "%s: already exists (a submission is never "
                "written over; name a new folder)", out);
    size_t len = strlen(out);
    partial.dir = malloc(len + 16);
    if (partial.dir == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    snprintf(partial.dir, len + 16, "%s.partial-XXXXXX", out);
    if (mkdtemp(partial.dir) == NULL) {
        int e = errno;
        free(partial.dir);
        partial.dir = NULL;
        cli_die(CLI_FAIL, "%s: cannot create the folder: %s", out,
                strerror(e));
    }
    mode_t mask = umask(0); /* mkdtemp made it 0700: the umask's mode */
    umask(mask);
    chmod(partial.dir, 0777 & ~mask);
    atexit(remove_partial);
}

/* Renames the full folder to DIR, never over anything there. */
static void commit(const char *out)
{
    if (renameat2(AT_FDCWD, partial.dir, AT_FDCWD, out, RENAME_NOREPLACE) != 0)
        cli_die(CLI_FAIL, "%s: cannot put the submission in place: %s", out,
                strerror(errno));
    free(partial.dir);
    partial.dir = NULL;
}

int cmd_certify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"decks", required_argument, NULL, 'd'},
        {"rng", required_argument, NULL, 'G'},
        {"seed", required_argument, NULL, 's'},
        {"algorithm", required_argument, NULL, 'a'},
        {"trials", required_argument, NULL, 'c'},
        {"level", required_argument, NULL, 'l'},
        {"profile", required_argument, NULL, 'P'},
        {"raw-bytes", required_argument, NULL, 'R'},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    cert_run r;
    memset(&r, 0, sizeof r);
    r.trials = 200000;
    r.raw_bytes = 4u << 20;
    r.level = 0.99;
    r.algorithm = "auto";
    const char *out = NULL, *level = NULL;
    uint64_t v;
    int c;
    while ((c = getopt_long(argc, argv, "g:p:d:G:s:a:c:", opts, NULL)) !=
           -1) {
        switch (c) {
        case 'g': r.game = optarg; break;
        case 'p': r.players = (unsigned)cli_u64_or_die("players", optarg); break;
        case 'd': r.decks = (unsigned)cli_u64_or_die("decks", optarg); break;
        case 'G': r.rng = optarg; break;
        case 's': r.seed = optarg; break;
        case 'a': r.algorithm = optarg; break;
        case 'c':
            if (cli_parse_u64(optarg, &v) != 0 || v < 2 || v > 1000000000)
                cli_die(CLI_USAGE, "invalid --trials: '%s': must be 2 to "
                        "1000000000", optarg);
            r.trials = v;
            break;
        case 'l': level = optarg; break;
        case 'P':
            r.profile = cert_profile_find(optarg);
            if (r.profile == NULL)
                cli_die(CLI_USAGE, "unknown profile: '%s' (nigc, pa or "
                        "ontario)", optarg);
            break;
        case 'R':
            if (cli_parse_size(optarg, &v) != 0 || v > ((uint64_t)1 << 32))
                cli_die(CLI_USAGE, "invalid --raw-bytes: '%s': 0 to 4G",
                        optarg);
            r.raw_bytes = v;
            break;
        case 'o': out = optarg; break;
        case 'h': cli_help("certify", usage_text);
        case 'V': cli_version("certify");
        default: cli_try_help("certify", CLI_USAGE);
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("certify", CLI_USAGE);
    }
    if (r.game == NULL || out == NULL)
        cli_die(CLI_USAGE, "certify needs --game=G and --out=DIR");
    if (r.profile && level)
        cli_die(CLI_USAGE, "--profile sets the level: not with --level");
    if (r.profile)
        r.level = r.profile->level;
    if (level) {
        char *end;
        r.level = strtod(level, &end);
        if (end == level || *end != '\0' || !(r.level > 0.5) ||
            !(r.level < 1))
            cli_die(CLI_USAGE, "invalid --level: '%s': a confidence level "
                    "above 0.5 and below 1, such as 0.99", level);
    }
    if (r.seed && *r.seed == '\0')
        cli_die(CLI_USAGE, "invalid seed: empty");
    const fs_game *g = fs_game_find(r.game);
    if (g == NULL)
        cli_die(CLI_USAGE, "unknown game: '%s' (fairshuf deal --game=list)",
                r.game);
    fs_dealer *d = malloc(sizeof *d);
    if (d == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int rc = fs_dealer_init(d, g, r.players, r.decks,
                            cli_algorithm(r.algorithm));
    if (rc == FS_EINVAL)
        cli_die(CLI_USAGE, "%s takes %u to %u players", g->name,
                g->min_players, g->max_players);
    cli_check(rc, "game");
    r.players = d->players;
    r.decks = d->decks;
    r.cards = d->n;
    fs_rng *rng = cli_rng(r.rng, r.seed);
    r.rng = fs_rng_info_of(rng)->name;
    fs_deal_entropy(d, fs_rng_info_of(rng), &r.entropy);
    r.seeding = seeding_text(r.rng, r.seed);
    r.command = command_line(argc - 1, argv + 1);
    begin(out);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fs_cert_tally *t;
    cli_check(fs_cert_tally_new(&t, d), "tally");
    uint8_t *raw;
    collect(&r, d, rng, t, &raw);
    judge(&r, d, t, raw);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r.seconds = (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    write_reports(&r);
    commit(out);
    printf("%s: %s (%llu deals of %s, %zu tests, Holm at %g)%s%s\n", out,
           r.pass ? "PASS" : "FAIL", r.trials, g->name, r.ntests,
           1 - r.level, r.why_fail ? ": " : "", r.why_fail ? r.why_fail : "");
    fs_cert_tally_free(t);
    fs_rng_free(rng);
    free(raw);
    free(d);
    free(r.tests);
    free(r.rejected);
    free(r.adjusted);
    free((char *)r.command);
    return r.pass ? CLI_OK : CLI_VERDICT_FAIL;
}
