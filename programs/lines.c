/* lines.c -- `fairshuf lines` (and `shuf`): GNU shuf 9.1's interface over
 * the library's line engine (fairshuf/lines.h).
 *
 * Two ways to draw:
 *   --random-source=F   GNU's algorithms, draw for draw (fs_gnurand), so
 *                       the output equals GNU shuf 9.1's for the same bytes;
 *   otherwise           the keyed order (--seed=S or an OS key): the same
 *                       (S, input) gives the same bytes whatever the memory
 *                       budget, thread count or input kind. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "fairshuf/lines.h"
#include "lines_opts.h"
#include "lines_out.h"
#include "lines_quote.h"
#include "lines_run.h"

static const char usage_text[] =
    "Usage: %1$s [OPTION]... [FILE]\n"
    "  or:  %1$s -e [OPTION]... [ARG]...\n"
    "  or:  %1$s -i LO-HI [OPTION]...\n"
    "Write a random permutation of the input lines to standard output.\n"
    "\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options "
    "too.\n"
    "  -e, --echo                treat each ARG as an input line\n"
    "  -i, --input-range=LO-HI   treat each number LO through HI as an input "
    "line\n"
    "  -n, --head-count=COUNT    output at most COUNT lines\n"
    "  -o, --output=FILE         write result to FILE instead of standard "
    "output\n"
    "      --random-source=FILE  get random bytes from FILE (GNU shuf's "
    "draws)\n"
    "  -r, --repeat              output lines can be repeated\n"
    "  -z, --zero-terminated     line delimiter is NUL, not newline\n"
    "\n"
    "fairshuf extensions (not in GNU shuf):\n"
    "      --seed=S              reproducible output: the same S and input "
    "give\n"
    "                            the same output on every run, whatever "
    "the\n"
    "                            memory, threads, or file vs pipe; -n K is "
    "the\n"
    "                            head of the full output\n"
    "      --memory=SIZE         memory budget (K, M, G suffixes); larger "
    "input\n"
    "                            is shuffled out of core (default: half "
    "what\n"
    "                            the process may use; see below)\n"
    "  -T, --temporary-directory=DIR  temporary files go in DIR, not "
    "$TMPDIR\n"
    "                            or /tmp; they are unlinked at once\n"
    "      --threads=N           use N threads (output does not change)\n"
    "      --progress            show progress on stderr\n"
    "      --no-progress         never show progress (default: shown on a\n"
    "                            terminal when the run takes a while)\n"
    "      --header=N            write the first N lines first, unshuffled\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n"
    "\n"
    "Data work (fairshuf extensions; --seed makes every one reproducible):\n"
    "  gzip and zstd input is found by its magic bytes (file or pipe) and\n"
    "  read decompressed; -o FILE.gz or FILE.zst writes it compressed.\n"
    "      --csv                 records are RFC 4180 CSV: a quoted field "
    "may\n"
    "                            hold newlines; fields split at commas\n"
    "  -t, --field-separator=SEP  fields split at SEP (default tab, as "
    "sort -t)\n"
    "      --split=W,W[,W...]    one shuffle cut into parts of those "
    "shares\n"
    "                            (80,10,10 or 0.8,0.1,0.1); -o 'NAME-%%d' "
    "(1, 2,\n"
    "                            ...) or -o NAME,NAME,... (distinct files, "
    "not\n"
    "                            the input); with --group-by: whole groups\n"
    "      --stratify=FIELD      with --split: each value of FIELD keeps "
    "its\n"
    "                            share in every part (within 1 record)\n"
    "      --weights=FIELD       with -n K: K records drawn without "
    "replacement,\n"
    "                            in proportion to FIELD (a number >= 0)\n"
    "      --group-by=FIELD      records with equal FIELD move together; "
    "groups\n"
    "                            in a uniform random order, input order "
    "inside\n"
    "      --shuffle-within      with --group-by: shuffle inside each "
    "group too\n"
    "  -n K in a data mode: the first K records of its output (not with\n"
    "  --split --group-by); -n 0 still reads and checks the input.\n"
    "  FIELD is a column number from 1, or a column name with --header=1.\n"
    "  The default --memory fits the process (cgroup limit, ulimit -v, "
    "available\n"
    "  memory); what does not fit is shuffled on disk, with the same "
    "output.\n"
    "\n"
    "Without --seed or --random-source the order is keyed from the "
    "operating\n"
    "system (ChaCha20).  -o FILE is replaced only when the run succeeds; "
    "on a\n"
    "failure FILE is left as it was.  --header=N -n 0 writes the header "
    "only.\n"
    "Manual: fairshuf-lines(1); docs/lines.md.\n";

/* -------------------------------------------------------------- progress */

static void show_progress(void *arg, fs_lines_phase phase, uint64_t done,
                          uint64_t total)
{
    run *R = arg;
    if (phase == FS_LINES_WRITING)
        cli_progress_show(&R->bar, "writing", done, total, "lines");
    else
        cli_progress_show(&R->bar,
                          phase == FS_LINES_SPILLING ? "spilling" : "reading",
                          done, 0, "bytes");
}

void lines_progress_end(run *R)
{
    cli_progress_end(&R->bar);
}

/* ----------------------------------------------------------------- input */

/* Opens FILE (or stdin) as coreutils does: "FILE: why". */
static int open_raw(const run *R)
{
    if (R->o.noperands == 0 || strcmp(R->o.operands[0], "-") == 0)
        return 0;
    int fd = open(R->o.operands[0], O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        cli_die(CLI_FAIL, "%s: %s", lines_quotef(R->o.operands[0]),
                strerror(errno));
    return fd;
}

/* The input as the engine reads it: decompressed (gzip, zstd) and, with
 * --csv, framed by a source (fairshuf/lines.h); plain input as it is. */
int open_input(run *R)
{
    R->raw_fd = open_raw(R);
    int fd;
    fs_lines_source_opts so = R->src_opts;
    so.csv = R->o.csv;
    so.delim = R->delim;
    int rc = fs_lines_source_open(R->raw_fd, &so, &R->src, &fd);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "cannot read the input: %s", fs_strerror(rc));
    return fd;
}

static const char *input_name(const run *R)
{
    return R->o.noperands == 0 || strcmp(R->o.operands[0], "-") == 0
               ? "-" : R->o.operands[0];
}

/* Dies when the source found damaged data or could not read: called
 * after all input is read, before any output. */
void input_check(run *R)
{
    int err = 0;
    const char *why = NULL;
    int rc = fs_lines_source_end(R->src, &err, &why);
    if (rc == FS_OK)
        return;
    if (why)
        cli_die(CLI_FAIL, "%s: %s", lines_quotef(input_name(R)), why);
    if (rc == FS_ENOMEM)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_die(CLI_FAIL, "read error: %s", strerror(err));
}

void close_input(run *R)
{
    input_check(R);
    fs_lines_source_free(R->src);
    R->src = NULL;
    if (R->raw_fd > 0)
        close(R->raw_fd);
    R->raw_fd = 0;
}

static void read_error(int rc, int err)
{
    if (rc == FS_ENOMEM)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_die(CLI_FAIL, "read error: %s", strerror(err));
}

/* The input as an array of lines (GNU mode, -r): buffer plus starts. */
typedef struct lineset {
    unsigned char *buf;  /* owned by read_lines, NULL for -e */
    uint64_t n;
    size_t *starts;      /* n + 1 offsets into buf, or NULL for -e */
    char **args;         /* -e operands */
} lineset;

static void read_lines(run *R, lineset *ls)
{
    memset(ls, 0, sizeof *ls);
    if (R->o.echo) {
        ls->args = R->o.operands;
        ls->n = (uint64_t)R->o.noperands;
        return;
    }
    int fd = open_input(R);
    size_t len;
    int rc = fs_lines_read_all(fd, R->delim, &ls->buf, &len);
    if (rc != FS_OK)
        read_error(rc, errno);
    close_input(R);
    ls->n = fs_lines_count(ls->buf, len, R->delim);
    ls->starts = malloc(((size_t)ls->n + 1) * sizeof *ls->starts);
    if (ls->starts == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_lines_index(ls->buf, len, R->delim, ls->starts);
}

static void put_line(run *R, const lineset *ls, uint64_t i)
{
    if (ls->args) {
        lines_out_put(&R->out, ls->args[i], strlen(ls->args[i]));
        lines_out_put(&R->out, &R->delim, 1);
    } else {
        lines_out_put(&R->out, ls->buf + ls->starts[i],
                      ls->starts[i + 1] - ls->starts[i]);
    }
}

static void put_header(run *R, const lineset *ls, uint64_t hdr)
{
    for (uint64_t i = 0; i < hdr; i++)
        put_line(R, ls, i);
}

static void draw_check(const run *R, int rc)
{
    if (rc == FS_OK)
        return;
    if (rc == FS_EEOF)
        cli_die(CLI_FAIL, "%s: end of file", lines_quoteaf(R->o.random_source));
    if (rc == FS_EIO)
        cli_die(CLI_FAIL, "%s: read error: %s",
                lines_quoteaf(R->o.random_source), strerror(errno));
    if (rc == FS_ENOMEM)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_die(CLI_FAIL, "random source: %s", fs_strerror(rc));
}

/* ----------------------------------------------------------------- modes */

/* -r: with replacement, endless without -n.  Output streams as drawn (an
 * endless run cannot wait); a failed draw (a --random-source running dry)
 * ends it with exit 1 after the lines drawn so far, as GNU shuf (standard
 * output; -o FILE stays untouched). */
static int run_repeat(run *R, const fs_draws *d, lineset *ls, uint64_t hdr)
{
    uint64_t n = R->o.have_range ? R->o.hi - R->o.lo + 1 : ls->n - hdr;
    if (n == 0)
        cli_die(CLI_FAIL, "no lines to repeat");
    lines_out_open(&R->out);
    put_header(R, ls, hdr);
    for (uint64_t k = 0; k < R->o.head; k++) {
        uint64_t j;
        int rc = fs_draws_below(d, n, &j);
        if (rc != FS_OK && R->o.output == NULL)
            lines_out_flush(&R->out); /* as GNU: the lines drawn so far */
        draw_check(R, rc);
        if (R->o.have_range)
            lines_out_num(&R->out, R->o.lo + j);
        else
            put_line(R, ls, hdr + j);
    }
    return CLI_OK;
}

/* What permute writes: numbers LO + v (-i), or lines base + map[v]. */
typedef struct emit_ctx {
    const lineset *ls;   /* NULL: numbers */
    uint64_t base;       /* header lines before the shuffled ones */
    const uint64_t *map; /* reservoir: slot -> line, or NULL */
} emit_ctx;

static void emit(run *R, const emit_ctx *c, uint64_t v)
{
    if (c->ls == NULL)
        lines_out_num(&R->out, R->o.lo + v);
    else
        put_line(R, c->ls, c->base + (c->map ? c->map[v] : v));
}

/* -i, and lines in GNU mode: forward Fisher-Yates (GNU's randperm), h of
 * n values, after the header lines of c (if any). */
static void permute(run *R, const fs_draws *d, uint64_t n, uint64_t h,
                    const emit_ctx *c, int output_first)
{
    fs_fyperm *p;
    if (fs_fyperm_new(&p, n, h) != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    if (output_first) { /* nothing to wait for: stream the output */
        lines_out_open(&R->out);
        uint64_t v[4096];
        for (uint64_t i = 0; i < h;) {
            size_t k = h - i < 4096 ? (size_t)(h - i) : 4096;
            draw_check(R, fs_fyperm_next(p, d, v, k));
            for (size_t j = 0; j < k; j++)
                emit(R, c, v[j]);
            i += k;
        }
    } else { /* every draw first: a short source writes nothing at all */
        if (h > SIZE_MAX / sizeof(uint64_t))
            cli_die(CLI_FAIL, "memory exhausted");
        uint64_t *all = malloc((size_t)(h ? h : 1) * sizeof *all);
        if (all == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        draw_check(R, fs_fyperm_next(p, d, all, (size_t)h));
        lines_out_open(&R->out);
        if (c->ls)
            put_header(R, c->ls, c->base);
        for (uint64_t i = 0; i < h; i++)
            emit(R, c, all[i]);
        free(all);
    }
    fs_fyperm_free(p);
}

/* GNU's choice of code path for FILE/stdin with -n: reservoir sampling
 * unless the input is a regular file of at most 8 MiB. */
static int gnu_uses_reservoir(const run *R, int fd)
{
    if (R->o.head == UINT64_MAX || R->o.head == 0 || R->o.repeat ||
        R->o.echo || R->o.have_range)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 1;
    off_t here = lseek(fd, 0, SEEK_CUR);
    off_t size = st.st_size - (here > 0 ? here : 0);
    return size > 8 * 1024 * 1024;
}

/* --random-source: GNU's algorithms over GNU's draws. */
static int run_gnu(run *R)
{
    lineset ls;
    memset(&ls, 0, sizeof ls);
    int reservoir_path = 0;
    if (!R->o.have_range) {
        if (!R->o.echo) {
            int fd = open_raw(R);
            unsigned char magic[4];
            ssize_t got = pread(fd, magic, 4, 0);
            /* a compressed file reaches the engine through a pipe */
            reservoir_path =
                gnu_uses_reservoir(R, fd) ||
                (got > 0 && fs_lines_codec_sniff(magic, (size_t)got) !=
                                FS_CODEC_PLAIN);
            if (fd > 0)
                close(fd);
        }
        read_lines(R, &ls);
    }
    uint64_t hdr = R->o.header < ls.n ? R->o.header : ls.n;
    if (R->o.head == 0) { /* only a header: no draw, no random source */
        lines_out_open(&R->out);
        put_header(R, &ls, hdr);
        free(ls.buf);
        free(ls.starts);
        return CLI_OK;
    }
    int rfd = open(R->o.random_source, O_RDONLY | O_CLOEXEC);
    if (rfd < 0)
        cli_die(CLI_FAIL, "%s: %s", lines_quotef(R->o.random_source),
                strerror(errno));
    fs_gnurand *g;
    if (fs_gnurand_new(&g, rfd, NULL, 0) != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_draws d = {g, NULL};
    if (R->o.repeat) {
        run_repeat(R, &d, &ls, hdr);
    } else if (R->o.have_range) {
        uint64_t n = R->o.hi - R->o.lo + 1;
        emit_ctx c = {NULL, 0, NULL};
        permute(R, &d, n, R->o.head < n ? R->o.head : n, &c, 0);
    } else {
        uint64_t n = ls.n - hdr, kept = n;
        uint64_t *map = NULL;
        if (reservoir_path) {
            uint64_t m = n < R->o.head ? n : R->o.head;
            map = malloc((size_t)(m ? m : 1) * sizeof *map);
            if (map == NULL)
                cli_die(CLI_FAIL, "memory exhausted");
            draw_check(R, fs_lines_reservoir(&d, n, R->o.head, map, &kept));
        }
        emit_ctx c = {&ls, hdr, map};
        permute(R, &d, kept, R->o.head < kept ? R->o.head : kept, &c, 0);
        free(map);
    }
    fs_gnurand_free(g);
    close(rfd);
    free(ls.buf);
    free(ls.starts);
    return CLI_OK;
}

void make_key(const run *R, uint8_t key[32])
{
    int rc = R->o.seed ? fs_seed_to_key(R->o.seed, key) : fs_os_random(key, 32);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "cannot key the generator: %s", fs_strerror(rc));
}

static fs_rng *make_rng(const run *R)
{
    fs_rng *rng;
    int rc = fs_rng_new(&rng, "chacha20", R->o.seed);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "cannot create generator: %s", fs_strerror(rc));
    return rng;
}

_Noreturn void engine_error(run *R, int rc, const fs_lines_result *res)
{
    lines_progress_end(R);
    if (rc == FS_ENOMEM) /* even out of core: the budget was too large */
        cli_die(CLI_FAIL, "memory exhausted (budget %.0f MiB; "
                "a smaller --memory=SIZE shuffles more on disk)",
                (double)(R->o.memory ? R->o.memory
                                     : fs_lines_default_memory()) / 1048576.0);
    if (rc == FS_EIO) {
        switch (res->where) {
        case FS_LINES_INPUT:
            cli_die(CLI_FAIL, "read error: %s", fs_lines_strerror(rc, res));
        case FS_LINES_OUTPUT:
            lines_out_failed(&R->out, res->out_bytes, res->err);
        case FS_LINES_TEMP:
            cli_die(CLI_FAIL, "temporary file in %s: %s",
                    lines_quoteaf(R->tmpdir), fs_lines_strerror(rc, res));
        case FS_LINES_INPUT_CHANGED:
            cli_die(CLI_FAIL, "%s: %s", lines_quotef(input_name(R)),
                    fs_lines_strerror(rc, res));
        default:
            break;
        }
    }
    cli_die(CLI_FAIL, "%s", fs_lines_strerror(rc, res));
}

/* -i or -r without --random-source: draws from the seeded or OS stream. */
static int run_drawn(run *R)
{
    fs_rng *rng = make_rng(R);
    fs_draws d = {NULL, rng};
    if (R->o.have_range && !R->o.repeat) {
        uint64_t n = R->o.hi - R->o.lo + 1;
        emit_ctx c = {NULL, 0, NULL};
        permute(R, &d, n, R->o.head < n ? R->o.head : n, &c, 1);
    } else {
        lineset ls;
        if (!R->o.have_range)
            read_lines(R, &ls);
        else
            memset(&ls, 0, sizeof ls);
        uint64_t hdr = R->o.header < ls.n ? R->o.header : ls.n;
        if (R->o.head == 0) {
            lines_out_open(&R->out);
            put_header(R, &ls, hdr);
        } else {
            run_repeat(R, &d, &ls, hdr);
        }
        free(ls.buf);
        free(ls.starts);
    }
    fs_rng_free(rng);
    return CLI_OK;
}

/* -e: the operands may contain the delimiter, so order indices. */
static int run_echo_keyed(run *R, const uint8_t key[32])
{
    uint64_t n = (uint64_t)R->o.noperands;
    uint64_t hdr = R->o.header < n ? R->o.header : n;
    uint64_t *order = malloc((size_t)(n - hdr + 1) * sizeof *order);
    if (order == NULL || fs_lines_order(key, n - hdr, order) != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    lines_out_open(&R->out);
    lineset ls = {NULL, n, NULL, R->o.operands};
    put_header(R, &ls, hdr);
    for (uint64_t i = 0; i < n - hdr && i < R->o.head; i++)
        put_line(R, &ls, hdr + order[i]);
    free(order);
    return CLI_OK;
}

static int open_output_cb(void *arg)
{
    run *R = arg;
    input_check(R); /* damaged input: no output at all */
    return lines_out_open(&R->out);
}

void keyed_config(run *R, fs_lines_config *c)
{
    memset(c, 0, sizeof *c);
    make_key(R, c->key);
    c->delim = R->delim;
    c->head = R->o.head;
    c->header = R->o.header;
    c->memory = (size_t)R->o.memory;
    c->tmpdir = R->tmpdir;
    c->threads = R->o.threads;
    c->open_output = open_output_cb;
    c->output_arg = R;
    c->progress = show_progress;
    c->progress_arg = R;
}

static int run_keyed(run *R)
{
    if (R->o.have_range || R->o.repeat)
        return run_drawn(R);
    if (R->o.group_by) /* with --split too: whole groups per part */
        return run_group(R);
    if (R->o.split)
        return run_split(R);
    if (R->o.weights)
        return run_weights(R);
    fs_lines_config c;
    keyed_config(R, &c);
    if (R->o.echo)
        return run_echo_keyed(R, c.key);
    int fd = open_input(R);
    fs_lines_result res;
    int rc = fs_lines_shuffle(fd, &c, &res);
    if (rc != FS_OK) {
        input_check(R); /* a damaged input explains a failure best */
        engine_error(R, rc, &res);
    }
    lines_progress_end(R);
    close_input(R);
    R->out.total += res.out_bytes; /* for the final flush's message */
    return CLI_OK;
}

/* A closed standard descriptor must not be reused by open(): park a
 * descriptor there that fails the way the closed one would (EBADF). */
static void guard_std_fds(void)
{
    if (fcntl(0, F_GETFD) < 0)
        (void)open("/dev/null", O_WRONLY);
    if (fcntl(1, F_GETFD) < 0)
        (void)open("/dev/null", O_RDONLY);
    if (fcntl(2, F_GETFD) < 0)
        (void)open("/dev/null", O_RDONLY);
}

/* Parses argv into R->o; handles --help, --version and usage errors. */
static void parse(run *R, int argc, char **argv, const char *sub)
{
    char msg[8192];
    int try_help;
    char *saved = argv[0];
    argv[0] = (char *)cli_prog; /* getopt's messages start with it */
    int rc = lines_parse(argc, argv, &R->o, 0, msg, sizeof msg, &try_help);
    argv[0] = saved;
    if (rc != 0) {
        if (msg[0])
            cli_error("%s", msg);
        if (try_help)
            cli_try_help(sub, rc);
        exit(rc);
    }
    if (R->o.help) {
        printf(usage_text, sub ? "fairshuf lines" : cli_prog);
        exit(CLI_OK);
    }
    if (R->o.version)
        cli_version(sub);
}

static void defaults(run *R)
{
    /* CSV records reach the engine NUL-terminated (fairshuf/lines.h) */
    R->delim = R->o.zero || R->o.csv ? '\0' : '\n';
    cli_progress_init(&R->bar, R->o.progress);
    R->tmpdir = R->o.tmpdir ? R->o.tmpdir : getenv("TMPDIR");
    if (R->tmpdir == NULL || *R->tmpdir == '\0')
        R->tmpdir = "/tmp";
    if (R->o.threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        R->o.threads = cpus < 1 ? 1 : cpus > 4 ? 4 : (unsigned)cpus;
    }
    lines_out_init(&R->out, R->o.output, R->delim);
    R->out.csv = R->o.csv;
}

int cmd_lines(int argc, char **argv)
{
    guard_std_fds();
    run *R = calloc(1, sizeof *R);
    if (R == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    const char *sub = strcmp(cli_prog, "shuf") == 0 ? NULL : "lines";
    parse(R, argc, argv, sub);
    defaults(R);
    int rc = CLI_OK;
    int data = R->o.split || R->o.weights || R->o.group_by;
    if (R->o.head == 0 && R->o.header == 0 && !data) {
        /* GNU: reads nothing, opens no input (the data modes read and
         * check their input whatever -n: docs/lines.md, "Data work") */
        lines_out_open(&R->out);
    } else {
        if (R->o.echo && R->o.repeat && R->o.noperands == 0)
            cli_die(CLI_FAIL, "no lines to repeat");
        rc = R->o.random_source ? run_gnu(R) : run_keyed(R);
    }
    lines_out_commit(&R->out);
    free(R);
    return rc;
}
