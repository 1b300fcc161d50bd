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
#include "out.h"

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
    "the\n"
    "                            available memory)\n"
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
    "Without --seed or --random-source the order is keyed from the "
    "operating\n"
    "system (ChaCha20).  Manual: fairshuf-lines(1); docs/lines.md.\n";

typedef struct run {
    lines_opts o;
    unsigned char delim;
    const char *tmpdir;
    int out_fd;
} run;

static run R;

/* ---------------------------------------------------------------- output */

static int open_output(void *arg)
{
    (void)arg;
    if (R.out_fd >= 0)
        return R.out_fd;
    if (R.o.output == NULL) {
        R.out_fd = 1;
        return 1;
    }
    int fd = open(R.o.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        cli_die(CLI_FAIL, "%s: %s", R.o.output, strerror(errno));
    R.out_fd = fd;
    return fd;
}

/* GNU shuf writes through a stdio buffer of st_blksize bytes: a failure
 * in mid-output is reported, and then close_stdout reports "write error"
 * again; a failure at the final flush only once.  Same here. */
static uint64_t out_total;

_Noreturn static void write_failed(int err)
{
    struct stat st;
    uint64_t blk = 4096;
    if (fstat(R.out_fd, &st) == 0 && st.st_blksize > 0)
        blk = (uint64_t)st.st_blksize;
    cli_error("write error: %s", strerror(err));
    if (out_total > blk)
        cli_error("write error");
    exit(CLI_FAIL);
}

/* Writes through a large buffer straight to the descriptor. */
typedef struct wbuf {
    size_t len;
    unsigned char b[1 << 16];
} wbuf;

static void wflush(wbuf *w)
{
    size_t off = 0;
    out_total += w->len;
    while (off < w->len) {
        ssize_t r = write(R.out_fd, w->b + off, w->len - off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            write_failed(errno);
        off += (size_t)r;
    }
    w->len = 0;
}

static void wput(wbuf *w, const void *p, size_t n)
{
    if (w->len + n > sizeof w->b) {
        wflush(w);
        if (n > sizeof w->b) {
            const unsigned char *q = p;
            out_total += n;
            while (n > 0) {
                ssize_t r = write(R.out_fd, q, n);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r < 0)
                    write_failed(errno);
                q += r;
                n -= (size_t)r;
            }
            return;
        }
    }
    memcpy(w->b + w->len, p, n);
    w->len += n;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* A number and the delimiter, two digits per division. */
static inline void wnum(wbuf *w, uint64_t v)
{
    char tmp[24];
    int i = 24;
    tmp[--i] = (char)R.delim;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        tmp[--i] = digit_pairs[d + 1];
        tmp[--i] = digit_pairs[d];
    }
    if (v >= 10) {
        tmp[--i] = digit_pairs[v * 2 + 1];
        tmp[--i] = digit_pairs[v * 2];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    if (w->len + 24 > sizeof w->b)
        wflush(w);
    memcpy(w->b + w->len, tmp + i, (size_t)(24 - i));
    w->len += (size_t)(24 - i);
}

static void finish_output(void)
{
    if (R.out_fd > 1 && close(R.out_fd) != 0)
        cli_die(CLI_FAIL, "write error: %s", strerror(errno));
}

/* -------------------------------------------------------------- progress */

static cli_progress bar; /* the shared reporter: progress.h */

static void progress(void *arg, fs_lines_phase phase, uint64_t done,
                     uint64_t total)
{
    (void)arg;
    if (phase == FS_LINES_WRITING)
        cli_progress_show(&bar, "writing", done, total, "lines");
    else
        cli_progress_show(&bar,
                          phase == FS_LINES_SPILLING ? "spilling" : "reading",
                          done, 0, "bytes");
}

static void progress_end(void)
{
    cli_progress_end(&bar);
}

/* ----------------------------------------------------------------- input */

/* Opens FILE (or stdin) as coreutils does: "FILE: why". */
static int open_input(void)
{
    if (R.o.noperands == 0 || strcmp(R.o.operands[0], "-") == 0)
        return 0;
    int fd = open(R.o.operands[0], O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        cli_die(CLI_FAIL, "%s: %s", R.o.operands[0], strerror(errno));
    return fd;
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

static void read_lines(lineset *ls)
{
    memset(ls, 0, sizeof *ls);
    if (R.o.echo) {
        ls->args = R.o.operands;
        ls->n = (uint64_t)R.o.noperands;
        return;
    }
    int fd = open_input();
    size_t len;
    int rc = fs_lines_read_all(fd, R.delim, &ls->buf, &len);
    if (rc != FS_OK)
        read_error(rc, errno);
    if (fd > 0)
        close(fd);
    ls->n = fs_lines_count(ls->buf, len, R.delim);
    ls->starts = malloc(((size_t)ls->n + 1) * sizeof *ls->starts);
    if (ls->starts == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_lines_index(ls->buf, len, R.delim, ls->starts);
}

static void put_line(wbuf *w, const lineset *ls, uint64_t i)
{
    if (ls->args) {
        wput(w, ls->args[i], strlen(ls->args[i]));
        wput(w, &R.delim, 1);
    } else {
        wput(w, ls->buf + ls->starts[i],
             ls->starts[i + 1] - ls->starts[i]);
    }
}

static void draw_check(int rc)
{
    if (rc == FS_OK)
        return;
    if (rc == FS_EEOF)
        cli_die(CLI_FAIL, "'%s': end of file", R.o.random_source);
    if (rc == FS_EIO)
        cli_die(CLI_FAIL, "%s: %s", R.o.random_source, strerror(errno));
    if (rc == FS_ENOMEM)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_die(CLI_FAIL, "random source: %s", fs_strerror(rc));
}

/* ----------------------------------------------------------------- modes */

/* -r: with replacement, endless without -n. */
static int run_repeat(const fs_draws *d, lineset *ls, uint64_t hdr)
{
    uint64_t n = R.o.have_range ? R.o.hi - R.o.lo + 1 : ls->n - hdr;
    if (n == 0)
        cli_die(CLI_FAIL, "no lines to repeat");
    open_output(NULL);
    static wbuf w;
    for (uint64_t i = 0; i < hdr; i++)
        put_line(&w, ls, i);
    for (uint64_t k = 0; k < R.o.head; k++) {
        uint64_t j;
        draw_check(fs_draws_below(d, n, &j));
        if (R.o.have_range)
            wnum(&w, R.o.lo + j);
        else
            put_line(&w, ls, hdr + j);
    }
    wflush(&w);
    return CLI_OK;
}

/* -i, and lines in GNU mode: forward Fisher-Yates (GNU's randperm). */
static void permute(const fs_draws *d, uint64_t n, uint64_t h,
                    void (*emit)(wbuf *, const void *, uint64_t),
                    const void *ctx, int output_first)
{
    fs_fyperm *p;
    int rc = fs_fyperm_new(&p, n, h);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    static wbuf w;
    static uint64_t v[4096];
    if (output_first) { /* nothing to wait for: stream the output */
        open_output(NULL);
        for (uint64_t i = 0; i < h;) {
            size_t c = h - i < 4096 ? (size_t)(h - i) : 4096;
            draw_check(fs_fyperm_next(p, d, v, c));
            for (size_t k = 0; k < c; k++)
                emit(&w, ctx, v[k]);
            i += c;
        }
    } else { /* draw all first: a short random source leaves -o F alone */
        if (h > SIZE_MAX / sizeof(uint64_t))
            cli_die(CLI_FAIL, "memory exhausted");
        uint64_t *all = malloc((size_t)(h ? h : 1) * sizeof *all);
        if (all == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        draw_check(fs_fyperm_next(p, d, all, (size_t)h));
        open_output(NULL);
        for (uint64_t i = 0; i < h; i++)
            emit(&w, ctx, all[i]);
        free(all);
    }
    fs_fyperm_free(p);
    wflush(&w);
}

static void emit_number(wbuf *w, const void *ctx, uint64_t v)
{
    (void)ctx;
    wnum(w, R.o.lo + v);
}

typedef struct line_ctx {
    const lineset *ls;
    uint64_t base;       /* header lines before the shuffled ones */
    const uint64_t *map; /* reservoir: rank -> line, or NULL */
} line_ctx;

static void emit_line(wbuf *w, const void *ctx, uint64_t v)
{
    const line_ctx *c = ctx;
    put_line(w, c->ls, c->base + (c->map ? c->map[v] : v));
}

/* GNU's choice of code path for FILE/stdin with -n: reservoir sampling
 * unless the input is a regular file of at most 8 MiB. */
static int gnu_uses_reservoir(int fd)
{
    if (R.o.head == UINT64_MAX || R.o.repeat || R.o.echo || R.o.have_range)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 1;
    off_t here = lseek(fd, 0, SEEK_CUR);
    off_t size = st.st_size - (here > 0 ? here : 0);
    return size > 8 * 1024 * 1024;
}

/* GNU's read_input_reservoir_sampling, replayed on lines already read:
 * the same draws (including its extra draw at end of input). */
static uint64_t *reservoir(const fs_draws *d, uint64_t n, uint64_t k,
                           uint64_t *kept)
{
    uint64_t m = n < k ? n : k;
    uint64_t *r = malloc((size_t)(m ? m : 1) * sizeof *r);
    if (r == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (uint64_t i = 0; i < m; i++)
        r[i] = i;
    if (n >= k) {
        for (uint64_t t = k;; t++) {
            uint64_t j;
            draw_check(fs_draws_below(d, t + 1, &j));
            if (t == n)
                break;
            if (j < k)
                r[j] = t;
        }
    }
    *kept = m;
    return r;
}

static int run_gnu(void)
{
    int rfd = -1;
    lineset ls;
    int reservoir_path = 0;
    if (!R.o.have_range) {
        if (!R.o.echo) {
            int fd = open_input();
            reservoir_path = gnu_uses_reservoir(fd);
            if (fd > 0)
                close(fd);
        }
        read_lines(&ls);
    } else {
        memset(&ls, 0, sizeof ls);
    }
    rfd = open(R.o.random_source, O_RDONLY | O_CLOEXEC);
    if (rfd < 0)
        cli_die(CLI_FAIL, "%s: %s", R.o.random_source, strerror(errno));
    fs_gnurand *g;
    if (fs_gnurand_new(&g, rfd, NULL, 0) != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_draws d = {g, NULL};
    uint64_t hdr = R.o.have_range ? 0 : (R.o.header < ls.n ? R.o.header : ls.n);
    if (R.o.repeat) {
        run_repeat(&d, &ls, hdr);
    } else if (R.o.have_range) {
        uint64_t n = R.o.hi - R.o.lo + 1;
        permute(&d, n, R.o.head < n ? R.o.head : n, emit_number, NULL, 0);
    } else {
        uint64_t n = ls.n - hdr, kept = n;
        uint64_t *map = NULL;
        if (reservoir_path)
            map = reservoir(&d, n, R.o.head, &kept);
        line_ctx c = {&ls, hdr, map};
        uint64_t h = R.o.head < kept ? R.o.head : kept;
        if (hdr) { /* an extension: header lines come first */
            open_output(NULL);
            static wbuf w;
            for (uint64_t i = 0; i < hdr; i++)
                put_line(&w, &ls, i);
            wflush(&w);
        }
        permute(&d, kept, h, emit_line, &c, 0);
        free(map);
    }
    fs_gnurand_free(g);
    close(rfd);
    free(ls.buf);
    free(ls.starts);
    return CLI_OK;
}

static void make_key(uint8_t key[32])
{
    int rc = R.o.seed ? fs_seed_to_key(R.o.seed, key) : fs_os_random(key, 32);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "cannot key the generator: %s", fs_strerror(rc));
}

static fs_rng *make_rng(void)
{
    fs_rng *rng;
    int rc = fs_rng_new(&rng, "chacha20", R.o.seed);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "cannot create generator: %s", fs_strerror(rc));
    return rng;
}

static void engine_error(int rc, const fs_lines_result *res)
{
    progress_end();
    if (rc == FS_ENOMEM)
        cli_die(CLI_FAIL, "memory exhausted");
    if (rc == FS_EIO) {
        switch (res->where) {
        case FS_LINES_INPUT:
            cli_die(CLI_FAIL, "read error: %s", strerror(res->err));
        case FS_LINES_OUTPUT:
            out_total = res->out_bytes;
            write_failed(res->err);
        case FS_LINES_TEMP:
            cli_die(CLI_FAIL, "temporary file in '%s': %s", R.tmpdir,
                    strerror(res->err));
        default:
            break;
        }
    }
    cli_die(CLI_FAIL, "%s", fs_strerror(rc));
}

static int run_keyed(void)
{
    if (R.o.have_range || R.o.repeat) {
        fs_rng *rng = make_rng();
        fs_draws d = {NULL, rng};
        if (R.o.have_range && !R.o.repeat) {
            uint64_t n = R.o.hi - R.o.lo + 1;
            permute(&d, n, R.o.head < n ? R.o.head : n, emit_number, NULL, 1);
        } else {
            lineset ls;
            if (!R.o.have_range)
                read_lines(&ls);
            else
                memset(&ls, 0, sizeof ls);
            uint64_t hdr = R.o.header < ls.n ? R.o.header : ls.n;
            run_repeat(&d, &ls, hdr);
            free(ls.buf);
            free(ls.starts);
        }
        fs_rng_free(rng);
        return CLI_OK;
    }
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    make_key(c.key);
    if (R.o.echo) { /* operands may contain the delimiter: order indices */
        uint64_t n = (uint64_t)R.o.noperands;
        uint64_t hdr = R.o.header < n ? R.o.header : n;
        uint64_t *order = malloc((size_t)(n - hdr + 1) * sizeof *order);
        if (order == NULL || fs_lines_order(c.key, n - hdr, order) != FS_OK)
            cli_die(CLI_FAIL, "memory exhausted");
        open_output(NULL);
        static wbuf w;
        lineset ls = {NULL, n, NULL, R.o.operands};
        for (uint64_t i = 0; i < hdr; i++)
            put_line(&w, &ls, i);
        for (uint64_t i = 0; i < n - hdr && i < R.o.head; i++)
            put_line(&w, &ls, hdr + order[i]);
        wflush(&w);
        free(order);
        return CLI_OK;
    }
    c.delim = R.delim;
    c.head = R.o.head;
    c.header = R.o.header;
    c.memory = (size_t)R.o.memory;
    c.tmpdir = R.tmpdir;
    c.threads = R.o.threads;
    c.open_output = open_output;
    c.progress = progress;
    int fd = open_input();
    fs_lines_result res;
    int rc = fs_lines_shuffle(fd, &c, &res);
    if (rc != FS_OK)
        engine_error(rc, &res);
    progress_end();
    if (fd > 0)
        close(fd);
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

int cmd_lines(int argc, char **argv)
{
    guard_std_fds();
    char msg[8192];
    int try_help;
    char *saved = argv[0];
    argv[0] = (char *)cli_prog; /* getopt's messages start with it */
    int rc = lines_parse(argc, argv, &R.o, 0, msg, sizeof msg, &try_help);
    argv[0] = saved;
    const char *sub = strcmp(cli_prog, "shuf") == 0 ? NULL : "lines";
    if (rc != 0) {
        if (msg[0])
            cli_error("%s", msg);
        if (try_help)
            cli_try_help(sub, rc);
        exit(rc);
    }
    if (R.o.help) {
        printf(usage_text, sub ? "fairshuf lines" : cli_prog);
        exit(CLI_OK);
    }
    if (R.o.version)
        cli_version(sub);
    R.delim = R.o.zero ? '\0' : '\n';
    R.out_fd = -1;
    cli_progress_init(&bar, R.o.progress);
    R.tmpdir = R.o.tmpdir ? R.o.tmpdir : getenv("TMPDIR");
    if (R.tmpdir == NULL || *R.tmpdir == '\0')
        R.tmpdir = "/tmp";
    if (R.o.threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        R.o.threads = cpus < 1 ? 1 : cpus > 4 ? 4 : (unsigned)cpus;
    }
    if (R.o.head == 0) { /* GNU: reads nothing, opens no input */
        open_output(NULL);
        finish_output();
        return CLI_OK;
    }
    if (R.o.echo && R.o.repeat && R.o.noperands == 0)
        cli_die(CLI_FAIL, "no lines to repeat");
    rc = R.o.random_source ? run_gnu() : run_keyed();
    finish_output();
    return rc;
}
