/* fair.c -- `fairshuf fair commit|deal|rotate|check`: provably-fair
 * dealing by commit and reveal in seed periods (scheme fairshuf-pf-1,
 * docs/provably-fair.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "deal_out.h"
#include "pending.h"

static const char usage_text[] =
    "Usage: fairshuf fair commit --server-seed-file=F [--log=L] "
    "[--format=text|json]\n"
    "  or:  fairshuf fair deal --server-seed-file=F --log=L [--client-seed=C]\n"
    "  or:  fairshuf fair deal --server-seed-file=F --client-seed=C "
    "--nonce=N\n"
    "                          [--game=G] [--players=N] [--decks=N]\n"
    "                          [--format=text|tsv|json] [--lang=en|zh]\n"
    "  or:  fairshuf fair rotate --server-seed-file=F --log=L "
    "[--format=text|json]\n"
    "  or:  fairshuf fair check --log=L [--commitment=HEX] [--client-seed=C]\n"
    "                          [--format=text|json]\n"
    "  or:  fairshuf fair check --server-seed=HEX --commitment=HEX\n"
    "                          --client-seed=C --nonce=N [--game=G]\n"
    "                          [--players=N] [--decks=N] [--deal=TSV]\n"
    "Provably-fair dealing by commit and reveal (scheme " FS_FAIR_SCHEME ").\n"
    "A seed period is one server seed: its commitment, then deals with one\n"
    "client seed (chosen after the commitment is shown), one game, and nonces\n"
    "0, 1, 2, ... in order, until the seed is revealed.  The log L (one JSON\n"
    "object per line) records the period; the player checks all of it.\n"
    "\n"
    "commit  creates a secret server seed (32 bytes from the OS) in a new file\n"
    "        F readable only by its owner, and prints its commitment,\n"
    "        SHA-256(seed), to publish before play; with --log, opens a period\n"
    "        in L.\n"
    "deal    deals game G from the key HMAC-SHA256(seed, scheme, game,\n"
    "        players, decks, client seed, nonce): an unbiased shuffle that\n"
    "        neither side can steer alone.  With --log the nonce is the\n"
    "        period's next one, the client seed, game, players and decks are\n"
    "        the period's (the first deal fixes them), and the deal is\n"
    "        appended to L before it is shown.\n"
    "rotate  ends the period: appends the reveal of F's seed and the\n"
    "        commitment of a new seed to L, replaces F with the new seed, and\n"
    "        prints both.\n"
    "check   --log: checks every period of L: one commitment, one client\n"
    "        seed, one game, nonces 0, 1, 2, ... in order, each revealed seed\n"
    "        matching its commitment and every deal the one the seeds give;\n"
    "        --commitment and --client-seed: the ones you saw and chose must\n"
    "        be a period of L.  Without --log: one deal, given as every part\n"
    "        in the form 'fair deal --format=tsv' prints (parts separated by\n"
    "        one tab, cards by one space), from --deal or standard input.\n"
    "\n"
    "  -g, --game=G  (default doudizhu)    -p, --players=N    -d, --decks=N\n"
    "      --help    display this help and exit\n"
    "      --version output version information and exit\n"
    "\n"
    "Exit status of check: 0 honest, 3 dishonest (a rule broken or a deal that\n"
    "is not the one the seeds give), 4 inconclusive (a period of the log is\n"
    "not revealed yet), 1 error (unreadable or malformed data), 2 usage.\n"
    "Example:\n"
    "  fairshuf fair commit --server-seed-file=seed.hex --log=play.log\n"
    "  fairshuf fair deal --server-seed-file=seed.hex --log=play.log \\\n"
    "      --client-seed=alice\n"
    "  fairshuf fair rotate --server-seed-file=seed.hex --log=play.log\n"
    "  fairshuf fair check --log=play.log --commitment=HEX "
    "--client-seed=alice\n";

enum { OPT_SEED_FILE = 256, OPT_SEED, OPT_COMMIT, OPT_CLIENT, OPT_NONCE,
       OPT_DEAL, OPT_LOG };

/* Exit statuses of check beyond cli.h's: a verdict. */
enum { FAIR_DISHONEST = 3, FAIR_INCONCLUSIVE = 4 };

typedef struct args {
    const char *seed_file, *seed_hex, *commitment, *client, *nonce, *deal;
    const char *game, *format, *lang, *log;
    unsigned players, decks;
} args;

static unsigned small_u(const char *what, const char *s)
{
    uint64_t v = cli_u64_or_die(what, s);
    if (v == 0 || v > 1000)
        cli_die(CLI_USAGE, "invalid %s: '%s': 1 to 1000", what, s);
    return (unsigned)v;
}

static void need(const char *sub, const char *value, const char *option)
{
    if (value == NULL) {
        cli_error("fair %s: missing --%s", sub, option);
        cli_try_help("fair", CLI_USAGE);
    }
}

/* Reads the 64 hex digits (and an optional newline) of a seed file; warns
 * when others than its owner may read it (the seed is the secret). */
static void read_seed_file(const char *sub, const char *path,
                           uint8_t seed[32])
{
    char buf[80];
    size_t n = 0;
    int bad = 0, err = 0;
    struct stat st;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        cli_die(CLI_FAIL, "fair %s: cannot read server seed file '%s': %s",
                sub, path, strerror(errno));
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077))
        cli_error("warning: server seed file '%s' is readable or writable "
                  "by group or others (mode %04o): the seed must stay secret until it is "
                  "revealed (chmod 600 '%s')", path,
                  (unsigned)(st.st_mode & 07777), path);
    n = fread(buf, 1, sizeof buf - 1, f);
    bad = ferror(f);
    err = errno;
    fclose(f);
    if (bad)
        cli_die(CLI_FAIL, "fair %s: cannot read server seed file '%s': %s",
                sub, path, strerror(err));
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    if (fs_hex_decode(buf, seed, 32) != FS_OK)
        cli_die(CLI_FAIL,
                "fair %s: server seed file '%s': not 64 hex digits", sub, path);
    sodium_memzero(buf, sizeof buf);
}

static void hex_arg(const char *what, const char *s, uint8_t out[32])
{
    if (fs_hex_decode(s, out, 32) != FS_OK)
        cli_die(CLI_FAIL, "fair check: invalid %s: must be 64 hex digits",
                what);
}

/* A new seed in a temporary file beside `path` (mode 0600, synced);
 * returns its malloc'd name.  The caller links or renames it into place
 * and unlinks it on failure, so no half-made seed file is left. */
static char *new_seed_file(const char *sub, const char *path,
                           uint8_t seed[32])
{
    cli_check(fs_fair_server_seed(seed), sub);
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    if (tmp == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".XXXXXX", 8);
    int fd = mkstemp(tmp); /* mode 0600 */
    if (fd < 0)
        cli_die(CLI_FAIL, "%s: cannot create '%s': %s", sub, path,
                strerror(errno));
    /* removed by a signal until it may hold a committed seed (below) */
    pending_set(tmp);
    char hex[65];
    fs_hex_encode(seed, 32, hex);
    hex[64] = '\n';
    int ok = write(fd, hex, 65) == 65 && fsync(fd) == 0;
    int err = errno;
    sodium_memzero(hex, sizeof hex);
    if (close(fd) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        unlink(tmp);
        cli_die(CLI_FAIL, "%s: cannot write '%s': %s", sub, path,
                strerror(err));
    }
    return tmp;
}

/* --- the period log ---------------------------------------------------- */

typedef struct logf {
    int fd;
    off_t size;
    char *text;
    fs_fair_log_result res;
} logf;

static void log_note(void *ctx, size_t line, fs_fair_finding kind,
                     const char *msg)
{
    const char *path = ctx;
    if (kind == FS_FAIR_UNREVEALED)
        return;
    cli_error("'%s' line %zu: %s", path, line, msg);
}

/* Opens (commit: creating) and locks the log, reads and checks it: a
 * server never appends to a log it could not defend. */
static void log_open(const char *sub, const char *path, logf *l)
{
    int create = strcmp(sub, "commit") == 0 ? O_CREAT : 0;
    l->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | create, 0644);
    if (l->fd < 0)
        cli_die(CLI_FAIL, "fair %s: cannot open log '%s': %s", sub, path,
                strerror(errno));
    if (flock(l->fd, LOCK_EX) != 0)
        cli_die(CLI_FAIL, "fair %s: cannot lock log '%s': %s", sub, path,
                strerror(errno));
    struct stat st;
    if (fstat(l->fd, &st) != 0)
        cli_die(CLI_FAIL, "fair %s: cannot read log '%s': %s", sub, path,
                strerror(errno));
    l->size = st.st_size;
    l->text = malloc((size_t)st.st_size + 1);
    if (l->text == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = pread(l->fd, l->text + got, (size_t)st.st_size - got,
                          (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            cli_die(CLI_FAIL, "fair %s: cannot read log '%s': %s", sub, path,
                    r < 0 ? strerror(errno) : "file shrank");
        got += (size_t)r;
    }
    if (got > 0 && l->text[got - 1] != '\n')
        cli_die(CLI_FAIL, "fair %s: log '%s': the last line is incomplete",
                sub, path);
    int rc = fs_fair_log_check(l->text, got, NULL, NULL, log_note,
                               (void *)path, &l->res);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "fair %s: log '%s' is malformed", sub, path);
    cli_check(rc, "fair check");
    if (l->res.dishonest)
        cli_die(CLI_FAIL, "fair %s: log '%s' breaks the scheme's rules "
                "(fair check --log says where): not appending to it", sub,
                path);
}

/* Appends whole lines or nothing: a failed write is cut back off.
 * Returns 0 or the errno of the failure. */
static int log_append(const char *sub, const char *path, logf *l,
                      const char *lines, size_t n)
{
    ssize_t w = write(l->fd, lines, n);
    int err = w < 0 ? errno : ENOSPC;
    if (w == (ssize_t)n && fsync(l->fd) == 0) {
        l->size += (off_t)n;
        return 0;
    }
    if (w == (ssize_t)n)
        err = errno;
    if (ftruncate(l->fd, l->size) != 0)
        cli_error("fair %s: cannot cut the failed record off '%s': %s", sub,
                  path, strerror(errno));
    return err;
}

static void log_append_or_die(const char *sub, const char *path, logf *l,
                              const char *lines, size_t n)
{
    int err = log_append(sub, path, l, lines, n);
    if (err)
        cli_die(CLI_FAIL, "fair %s: cannot append to log '%s': %s", sub,
                path, strerror(err));
}

static void log_close(logf *l)
{
    close(l->fd); /* releases the lock */
    free(l->text);
}

/* The record lines are JSON; the one escaper is deal_json_string. */
typedef struct membuf {
    char *p;
    size_t n;
    FILE *f;
    out_buf o;
} membuf;

static void mem_open(membuf *m)
{
    m->p = NULL;
    m->n = 0;
    m->f = open_memstream(&m->p, &m->n);
    if (m->f == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    out_init(&m->o, m->f);
}

static void mem_close(membuf *m)
{
    out_flush(&m->o);
    if (fclose(m->f) != 0 || m->p == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
}

static void rec_commit(out_buf *o, const char *chex)
{
    out_str(o, "{\"scheme\":\"" FS_FAIR_SCHEME "\",\"event\":\"commit\","
               "\"commitment\":\"");
    out_str(o, chex);
    out_str(o, "\"}\n");
}

static void rec_reveal(out_buf *o, const char *shex)
{
    out_str(o, "{\"scheme\":\"" FS_FAIR_SCHEME "\",\"event\":\"reveal\","
               "\"server_seed\":\"");
    out_str(o, shex);
    out_str(o, "\"}\n");
}

/* stdout must hold what was printed before anything is kept. */
static int stdout_ok(void)
{
    return fflush(stdout) == 0 && !ferror(stdout);
}

static int do_commit(const args *a)
{
    need("commit", a->seed_file, "server-seed-file");
    enum deal_format f = deal_format_parse("fair", a->format);
    logf l = {-1, 0, NULL, {0}};
    if (a->log) {
        log_open("commit", a->log, &l);
        if (l.res.open)
            cli_die(CLI_FAIL, "fair commit: log '%s' has a period that is "
                    "not revealed yet: end it with 'fair rotate'", a->log);
    }
    uint8_t seed[32], c[32];
    char *tmp = new_seed_file("fair commit", a->seed_file, seed);
    fs_fair_commitment(seed, c);
    sodium_memzero(seed, sizeof seed);
    char chex[65];
    fs_hex_encode(c, 32, chex);
    /* link() never replaces: a seed that may be committed is never lost. */
    if (link(tmp, a->seed_file) != 0) {
        int err = errno;
        unlink(tmp);
        cli_die(CLI_FAIL, "fair commit: cannot create '%s': %s", a->seed_file,
                strerror(err));
    }
    unlink(tmp); /* the seed file is its name now */
    pending_done();
    free(tmp);
    if (f == DEAL_JSON)
        printf("{\"scheme\":\"%s\",\"commitment\":\"%s\"}\n", FS_FAIR_SCHEME,
               chex);
    else
        printf("%s\n", chex);
    /* A commitment nobody saw commits to nothing: undo the file. */
    if (!stdout_ok()) {
        int err = errno;
        unlink(a->seed_file);
        cli_die(CLI_FAIL, "fair commit: the commitment could not be shown "
                "(%s): removed '%s'", strerror(err), a->seed_file);
    }
    if (a->log) {
        membuf m;
        mem_open(&m);
        rec_commit(&m.o, chex);
        mem_close(&m);
        int err = log_append("commit", a->log, &l, m.p, m.n);
        if (err) {
            unlink(a->seed_file);
            cli_die(CLI_FAIL, "fair commit: cannot append to log '%s': %s "
                    "(removed '%s')", a->log, strerror(err), a->seed_file);
        }
        free(m.p);
        log_close(&l);
    }
    return CLI_OK;
}

static uint64_t nonce_of(const char *s)
{
    return cli_u64_or_die("nonce", s);
}

static void print_deal(const args *a, const fs_dealer *d, const fs_deal *deal,
                       const char *chex, const char *client, uint64_t nonce)
{
    enum deal_format f = deal_format_parse("fair", a->format);
    fs_lang l = deal_lang_parse("fair", a->lang);
    static out_buf out_store; /* 64 KiB: not on the stack */
    out_buf *out = &out_store;
    out_init(out, stdout);
    if (f == DEAL_JSON) {
        out_str(out, "{\"scheme\":\"" FS_FAIR_SCHEME "\",\"commitment\":\"");
        out_str(out, chex);
        out_str(out, "\",\"client_seed\":");
        deal_json_string(out, client);
        out_str(out, ",\"nonce\":");
        out_u64(out, nonce);
        out_str(out, ",\"deal\":");
        deal_print(out, d, deal, f, l, 0, 1);
        out_str(out, "}\n");
    } else {
        if (f == DEAL_TEXT) {
            /* Quoted and escaped: a client seed cannot forge a line. */
            out_str(out, FS_FAIR_SCHEME " commitment ");
            out_str(out, chex);
            out_str(out, "\nclient seed ");
            deal_json_string(out, client);
            out_str(out, ", nonce ");
            out_u64(out, nonce);
            out_byte(out, '\n');
        }
        deal_print(out, d, deal, f, l, 0, 1);
    }
    out_flush(out);
}

static void client_ok(const char *sub, const char *c)
{
    if (strlen(c) > FS_FAIR_CLIENT_SEED_MAX)
        cli_die(CLI_USAGE, "fair %s: client seed longer than %d bytes", sub,
                FS_FAIR_CLIENT_SEED_MAX);
}

static int do_deal(const args *a, fs_dealer *d, fs_deal *deal)
{
    need("deal", a->seed_file, "server-seed-file");
    if (a->log == NULL) {
        need("deal", a->client, "client-seed");
        need("deal", a->nonce, "nonce");
    }
    deal_format_parse("fair", a->format);
    deal_lang_parse("fair", a->lang);
    uint8_t seed[32], c[32];
    read_seed_file("deal", a->seed_file, seed);
    fs_fair_commitment(seed, c);
    char chex[65];
    fs_hex_encode(c, 32, chex);
    logf l = {-1, 0, NULL, {0}};
    const char *client = a->client, *game = a->game;
    unsigned players = a->players, decks = a->decks;
    uint64_t nonce = 0;
    if (a->log) {
        log_open("deal", a->log, &l);
        if (!l.res.open || sodium_memcmp(l.res.commitment, c, 32) != 0)
            cli_die(CLI_FAIL, "fair deal: the seed in '%s' is not the one "
                    "committed in the open period of log '%s'", a->seed_file,
                    a->log);
        nonce = l.res.next_nonce;
        if (nonce > 0) { /* the period's client seed and table */
            if (client && strcmp(client, l.res.client_seed) != 0)
                cli_die(CLI_FAIL, "fair deal: the period's client seed is "
                        "another one: a new client seed needs a new period "
                        "('fair rotate')");
            if ((game && strcmp(game, l.res.game) != 0) ||
                (players && players != l.res.players) ||
                (decks && decks != l.res.decks))
                cli_die(CLI_FAIL, "fair deal: the period deals %s for %u "
                        "players, %u decks: another game needs a new period "
                        "('fair rotate')", l.res.game, l.res.players,
                        l.res.decks);
            client = l.res.client_seed;
            game = l.res.game;
            players = l.res.players;
            decks = l.res.decks;
        } else
            need("deal", client, "client-seed");
        if (a->nonce && nonce_of(a->nonce) != nonce)
            cli_die(CLI_FAIL, "fair deal: nonce %s given, but the period's "
                    "next nonce is %llu", a->nonce, (unsigned long long)nonce);
    } else
        nonce = nonce_of(a->nonce);
    client_ok("deal", client);
    const fs_game *g = deal_game("fair deal", game ? game : "doudizhu");
    deal_setup("fair deal", d, g, players, decks, FS_ALG_DURSTENFELD);
    cli_check(fs_fair_deal(seed, d, client, nonce, deal), "fair deal");
    sodium_memzero(seed, sizeof seed);
    if (a->log) { /* logged before shown: the log is the record */
        membuf t, m;
        mem_open(&t);
        deal_print(&t.o, d, deal, DEAL_TSV, FS_LANG_EN, 0, 1);
        mem_close(&t);
        if (t.n > 0 && t.p[t.n - 1] == '\n')
            t.p[--t.n] = '\0';
        mem_open(&m);
        out_str(&m.o, "{\"scheme\":\"" FS_FAIR_SCHEME "\",\"event\":\"deal\","
                      "\"nonce\":");
        out_u64(&m.o, nonce);
        out_str(&m.o, ",\"client_seed\":");
        deal_json_string(&m.o, client);
        out_str(&m.o, ",\"game\":");
        deal_json_string(&m.o, g->name);
        out_str(&m.o, ",\"players\":");
        out_u64(&m.o, d->players);
        out_str(&m.o, ",\"decks\":");
        out_u64(&m.o, d->decks);
        out_str(&m.o, ",\"deal\":");
        deal_json_string(&m.o, t.p);
        out_str(&m.o, "}\n");
        mem_close(&m);
        log_append_or_die("deal", a->log, &l, m.p, m.n);
        free(t.p);
        free(m.p);
    }
    print_deal(a, d, deal, chex, client, nonce);
    if (a->log)
        log_close(&l);
    return CLI_OK;
}

static int do_rotate(const args *a)
{
    need("rotate", a->seed_file, "server-seed-file");
    need("rotate", a->log, "log");
    enum deal_format f = deal_format_parse("fair", a->format);
    uint8_t old[32], c[32], seed[32], nc[32];
    read_seed_file("rotate", a->seed_file, old);
    fs_fair_commitment(old, c);
    logf l = {-1, 0, NULL, {0}};
    log_open("rotate", a->log, &l);
    if (!l.res.open || sodium_memcmp(l.res.commitment, c, 32) != 0)
        cli_die(CLI_FAIL, "fair rotate: the seed in '%s' is not the one "
                "committed in the open period of log '%s'", a->seed_file,
                a->log);
    char *tmp = new_seed_file("fair rotate", a->seed_file, seed);
    fs_fair_commitment(seed, nc);
    sodium_memzero(seed, sizeof seed);
    char ohex[65], nhex[65];
    fs_hex_encode(old, 32, ohex);
    fs_hex_encode(nc, 32, nhex);
    membuf m;
    mem_open(&m);
    rec_reveal(&m.o, ohex);
    rec_commit(&m.o, nhex);
    mem_close(&m);
    /* The reveal and the new commitment go to the log as one write, then
     * the new seed replaces the old.  From here tmp may be the only copy of
     * a committed seed: no signal removes it. */
    pending_done();
    int err = log_append("rotate", a->log, &l, m.p, m.n);
    free(m.p);
    if (err) {
        unlink(tmp);
        cli_die(CLI_FAIL, "fair rotate: cannot append to log '%s': %s "
                "(nothing changed)", a->log, strerror(err));
    }
    if (rename(tmp, a->seed_file) != 0)
        cli_die(CLI_FAIL, "fair rotate: cannot replace '%s': %s; the log "
                "revealed its seed: the new seed is in '%s'", a->seed_file,
                strerror(errno), tmp);
    free(tmp);
    log_close(&l);
    sodium_memzero(old, sizeof old);
    if (f == DEAL_JSON)
        printf("{\"scheme\":\"%s\",\"revealed_server_seed\":\"%s\","
               "\"commitment\":\"%s\"}\n", FS_FAIR_SCHEME, ohex, nhex);
    else
        printf("revealed server seed %s\ncommitment %s\n", ohex, nhex);
    return CLI_OK;
}

/* The claimed deal: --deal or all of standard input. */
static char *claim_text(const args *a, size_t *len)
{
    if (a->deal) {
        *len = strlen(a->deal);
        return strdup(a->deal);
    }
    size_t cap = 1 << 14, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n - 1, stdin);
        n += r;
        if (r == 0)
            break;
        if (n + 1 == cap) {
            if (cap >= (1u << 24))
                cli_die(CLI_FAIL, "fair check: claimed deal too long");
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL)
                free(buf);
            buf = nb;
        }
    }
    if (buf == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    if (ferror(stdin))
        cli_die(CLI_FAIL, "fair check: cannot read the deal: %s",
                strerror(errno));
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* "hand 2", "kitty", ...: a part of the layout, for messages. */
static void part_label(const fs_dealer *d, size_t p, char *buf, size_t cap)
{
    const fs_deal_part *part = &d->layout.part[p];
    if (part->seat >= 0 && (unsigned)part->seat < d->players)
        snprintf(buf, cap, "hand %d", part->seat + 1);
    else
        snprintf(buf, cap, "%s", part->key);
}

/* Findings of `check --log`: verdict content on stdout (text lines or
 * JSON objects collected for the report); a malformed log is an error on
 * stderr. */
typedef struct check_ctx {
    const char *path;
    int json;
    membuf found;
    size_t nfound;
} check_ctx;

static void check_note(void *ctx, size_t line, fs_fair_finding kind,
                       const char *msg)
{
    check_ctx *c = ctx;
    if (kind == FS_FAIR_MALFORMED) {
        log_note((void *)c->path, line, kind, msg);
        return;
    }
    const char *what = kind == FS_FAIR_DISHONEST ? "dishonest" : "unrevealed";
    if (!c->json) {
        if (line)
            printf("line %zu: %s: %s\n", line, what, msg);
        else
            printf("log: %s: %s\n", what, msg);
        return;
    }
    out_buf *o = &c->found.o;
    out_str(o, c->nfound++ ? ",{\"line\":" : "{\"line\":");
    out_u64(o, line);
    out_str(o, ",\"finding\":\"");
    out_str(o, what);
    out_str(o, "\",\"message\":");
    deal_json_string(o, msg);
    out_byte(o, '}');
}

static int check_log(const args *a)
{
    uint8_t commitment[32];
    if (a->commitment)
        hex_arg("commitment", a->commitment, commitment);
    if (a->client)
        client_ok("check", a->client);
    enum deal_format fmt = deal_format_parse("fair", a->format);
    if (fmt == DEAL_TSV)
        cli_die(CLI_USAGE, "fair check: invalid format: 'tsv' (text or json)");
    FILE *f = fopen(a->log, "r");
    if (f == NULL)
        cli_die(CLI_FAIL, "fair check: cannot read log '%s': %s", a->log,
                strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    for (;;) {
        if (text == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        n += fread(text + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nt = realloc(text, cap *= 2);
        if (nt == NULL)
            free(text);
        text = nt;
    }
    if (ferror(f))
        cli_die(CLI_FAIL, "fair check: cannot read log '%s': %s", a->log,
                strerror(errno));
    fclose(f);
    check_ctx ctx = {a->log, fmt == DEAL_JSON, {0}, 0};
    if (ctx.json)
        mem_open(&ctx.found);
    fs_fair_log_result r;
    int rc = fs_fair_log_check(text, n, a->commitment ? commitment : NULL,
                               a->client, check_note, &ctx, &r);
    free(text);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "fair check: log '%s' is malformed", a->log);
    cli_check(rc, "fair check");
    int status = r.dishonest ? FAIR_DISHONEST
                 : r.unrevealed ? FAIR_INCONCLUSIVE : CLI_OK;
    if (ctx.json) {
        mem_close(&ctx.found);
        printf("{\"scheme\":\"" FS_FAIR_SCHEME "\",\"verdict\":\"%s\","
               "\"periods\":%zu,\"deals\":%zu,\"checked\":%zu,"
               "\"findings\":[%s]}\n",
               status == CLI_OK ? "honest"
               : status == FAIR_DISHONEST ? "dishonest" : "inconclusive",
               r.periods, r.deals, r.checked, ctx.found.p);
        free(ctx.found.p);
    } else if (status == FAIR_DISHONEST)
        printf("FAILED: %zu problem%s in %zu period%s, %zu deal%s "
               "(" FS_FAIR_SCHEME ")\n", r.dishonest,
               r.dishonest == 1 ? "" : "s", r.periods,
               r.periods == 1 ? "" : "s", r.deals, r.deals == 1 ? "" : "s");
    else if (status == FAIR_INCONCLUSIVE)
        printf("INCONCLUSIVE: no rule broken in %zu period%s, but the last "
               "is not revealed yet: %llu deal%s not checked; %zu deal%s "
               "checked (" FS_FAIR_SCHEME ")\n", r.periods,
               r.periods == 1 ? "" : "s", (unsigned long long)r.next_nonce,
               r.next_nonce == 1 ? "" : "s", r.checked,
               r.checked == 1 ? "" : "s");
    else
        printf("OK: %zu period%s, %zu deal%s: one commitment and one client "
               "seed per period, nonces 0, 1, 2, ... in order, every seed "
               "its commitment and every deal the one the seeds give "
               "(" FS_FAIR_SCHEME ")\n", r.periods, r.periods == 1 ? "" : "s",
               r.checked, r.checked == 1 ? "" : "s");
    return status;
}

static int do_check(const args *a, fs_dealer *d)
{
    if (a->log) {
        if (a->seed_hex || a->nonce || a->deal || a->game || a->players ||
            a->decks) {
            cli_error("fair check: --log checks the whole log: --server-seed, "
                      "--nonce, --deal, --game, --players and --decks do not "
                      "apply");
            cli_try_help("fair", CLI_USAGE);
        }
        return check_log(a);
    }
    need("check", a->seed_hex, "server-seed");
    need("check", a->commitment, "commitment");
    need("check", a->client, "client-seed");
    need("check", a->nonce, "nonce");
    client_ok("check", a->client);
    uint8_t seed[32], commitment[32];
    hex_arg("server seed", a->seed_hex, seed);
    hex_arg("commitment", a->commitment, commitment);
    uint64_t nonce = nonce_of(a->nonce);
    const fs_game *g = deal_game("fair check", a->game ? a->game : "doudizhu");
    deal_setup("fair check", d, g, a->players, a->decks, FS_ALG_DURSTENFELD);
    size_t len;
    char *text = claim_text(a, &len);
    fs_deal *claimed = malloc(sizeof *claimed);
    if (claimed == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    const char *why;
    size_t where;
    int rc = fs_deal_parse(d, text, len, claimed, &why, &where);
    if (rc != FS_OK) {
        size_t show = where < len ? strcspn(text + where, " \t\n") : 0;
        cli_die(CLI_FAIL, "fair check: malformed deal at byte %zu%s%.*s%s: "
                "%s; a %s deal for %u players is %zu parts%s",
                where, show ? " ('" : "", (int)(show > 16 ? 16 : show),
                text + where, show ? "')" : "", why ? why : fs_strerror(rc),
                g->name, d->players, d->layout.nparts,
                " (as 'fair deal --format=tsv' prints)");
    }
    free(text);
    int verdict;
    long part;
    cli_check(fs_fair_check(seed, commitment, d, a->client, nonce, claimed,
                            &verdict, &part),
              "fair check");
    free(claimed);
    if (verdict & FS_FAIR_BAD_COMMITMENT)
        printf("FAILED: SHA-256 of the server seed is not the commitment\n");
    if (verdict & FS_FAIR_BAD_DEAL) {
        char label[48];
        part_label(d, (size_t)part, label, sizeof label);
        printf("FAILED: the deal is not the one these seeds and nonce give "
               "(%s differs)\n", label);
    }
    if (verdict == 0)
        printf("OK: the commitment matches the server seed and the deal is "
               "the one it gives (" FS_FAIR_SCHEME "); to know the server "
               "could not choose it, check the period's log (--log)\n");
    return verdict == 0 ? CLI_OK : FAIR_DISHONEST;
}

int cmd_fair(int argc, char **argv)
{
    static const struct option opts[] = {
        {"server-seed-file", required_argument, NULL, OPT_SEED_FILE},
        {"server-seed", required_argument, NULL, OPT_SEED},
        {"commitment", required_argument, NULL, OPT_COMMIT},
        {"client-seed", required_argument, NULL, OPT_CLIENT},
        {"nonce", required_argument, NULL, OPT_NONCE},
        {"deal", required_argument, NULL, OPT_DEAL},
        {"log", required_argument, NULL, OPT_LOG},
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"decks", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"lang", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    args a = {0};
    a.format = "text";
    a.lang = "en";
    int c;
    while ((c = getopt_long(argc, argv, "g:p:d:f:l:", opts, NULL)) != -1) {
        switch (c) {
        case OPT_SEED_FILE: a.seed_file = optarg; break;
        case OPT_SEED: a.seed_hex = optarg; break;
        case OPT_COMMIT: a.commitment = optarg; break;
        case OPT_CLIENT: a.client = optarg; break;
        case OPT_NONCE: a.nonce = optarg; break;
        case OPT_DEAL: a.deal = optarg; break;
        case OPT_LOG: a.log = optarg; break;
        case 'g': a.game = optarg; break;
        case 'p': a.players = small_u("number of players", optarg); break;
        case 'd': a.decks = small_u("number of decks", optarg); break;
        case 'f': a.format = optarg; break;
        case 'l': a.lang = optarg; break;
        case 'h': cli_help("fair", usage_text);
        case 'V': cli_version("fair");
        default: cli_bad_option("fair");
        }
    }
    if (optind >= argc) {
        cli_error("fair: missing action (commit, deal, rotate or check)");
        cli_try_help("fair", CLI_USAGE);
    }
    if (optind + 1 < argc) {
        cli_error("fair: extra operand '%s'", argv[optind + 1]);
        cli_try_help("fair", CLI_USAGE);
    }
    const char *action = argv[optind];
    fs_dealer *d = malloc(sizeof *d);
    fs_deal *deal = malloc(sizeof *deal);
    if (d == NULL || deal == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int rc;
    if (strcmp(action, "commit") == 0)
        rc = do_commit(&a);
    else if (strcmp(action, "deal") == 0)
        rc = do_deal(&a, d, deal);
    else if (strcmp(action, "rotate") == 0)
        rc = do_rotate(&a);
    else if (strcmp(action, "check") == 0)
        rc = do_check(&a, d);
    else {
        cli_error("fair: unknown action '%s' (commit, deal, rotate or check)", action);
        cli_try_help("fair", CLI_USAGE);
    }
    free(d);
    free(deal);
    return rc;
}
