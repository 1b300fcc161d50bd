/* fair.c -- `fairshuf fair commit|client-seed|deal|rotate|check`:
 * provably-fair dealing by commit and reveal in seed periods (scheme
 * fairshuf-pf-2, docs/provably-fair.md).  A thin door: the library's
 * period state machine (fs_fair_period_*) computes every record and
 * fs_fair_log_check judges the log; this file stores seeds and records
 * durably, in the order that loses nothing, and prints. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "deal_out.h"
#include "fair.h"
#include "fair_vrf.h"
#include "pending.h"

static const char usage_text[] =
    "Usage: fairshuf fair commit --server-seed-file=F [--log=L] [--game=G]\n"
    "                          [--players=N] [--decks=N] [--format=text|json]\n"
    "  or:  fairshuf fair client-seed --server-seed-file=F --log=L "
    "--client-seed=C\n"
    "  or:  fairshuf fair deal --server-seed-file=F --log=L [--client-seed=C]\n"
    "                          [--format=text|tsv|json] [--lang=en|zh]\n"
    "  or:  fairshuf fair deal --server-seed-file=F --client-seed=C "
    "--nonce=N\n"
    "                          [--scheme=S] [--game=G] [--players=N] "
    "[--decks=N]\n"
    "  or:  fairshuf fair rotate --server-seed-file=F --log=L [--game=G]\n"
    "                          [--players=N] [--decks=N] [--format=text|json]\n"
    "  or:  fairshuf fair check --log=L [--commitment=HEX] [--client-seed=C]\n"
    "                          [--my-deals=FILE] [--max-log-size=SIZE]\n"
    "                          [--format=text|json]\n"
    "  or:  fairshuf fair check --server-seed=HEX --commitment=HEX\n"
    "                          --client-seed=C --nonce=N [--scheme=S] "
    "[--game=G]\n"
    "                          [--players=N] [--decks=N] [--deal=TSV]\n"
    "  or:  fairshuf fair vrf-keygen|vrf-prove|vrf-verify|vrf-table|vrf-deal"
    " ...\n"
    "  or:  fairshuf fair check --log=L --public-key=HEX   (scheme "
    "fairshuf-vrf-1:\n"
    "                          see 'fairshuf fair vrf-deal --help')\n"
    "Provably-fair dealing by commit and reveal (scheme " FS_FAIR_SCHEME
    "; logs of\n" FS_FAIR_SCHEME_V1 " still check).  A seed period is one "
    "server seed: its commitment\n"
    "(with the table: game, players, decks), then the player's client seed,\n"
    "chosen after the commitment is shown and new in every period, then deals\n"
    "with nonces 0, 1, 2, ... in order, until the seed is revealed at the\n"
    "player's request (rotation).  The log L (one JSON object per line)\n"
    "records the periods; the player checks all of it.\n"
    "\n"
    "commit       creates a secret server seed (32 bytes from the OS) in a new\n"
    "             file F readable only by its owner; with --log, opens a\n"
    "             period for the table in L (created if missing); then prints\n"
    "             the commitment, SHA-256(seed), to publish before play.\n"
    "client-seed  records the player's client seed C for the open period\n"
    "             (a seed already used in L is refused: exit 2).\n"
    "deal         with --log: deals the period's next nonce with its client\n"
    "             seed and table, appends the deal to L, then shows it; on\n"
    "             the period's first deal --client-seed records C first (as\n"
    "             client-seed does).  Without --log: one deal of any nonce\n"
    "             (--scheme, default " FS_FAIR_SCHEME ").\n"
    "rotate       at the player's request: appends the reveal of F's seed and\n"
    "             the commitment of a new seed (the same table unless\n"
    "             --game/--players/--decks say otherwise) to L, replaces F,\n"
    "             prints both; the new period needs a new client seed.\n"
    "check        --log: checks every rule of docs/provably-fair.md and names\n"
    "             the first broken one and its line; --commitment and\n"
    "             --client-seed: the ones you saw and chose must be a period\n"
    "             of L (--client-seed alone: the period with your seed, at\n"
    "             best inconclusive: give the commitment you were shown);\n"
    "             --my-deals=FILE: the deals you saw (lines of 'fair deal\n"
    "             --format=tsv', nonces 0, 1, ... in order, or NONCE<TAB>TSV)\n"
    "             must be in that period, the same.  Without --log: one deal,\n"
    "             from --deal or standard input.  A log above --max-log-size\n"
    "             (default 1G) or with a line above 1 MiB is refused (exit 1).\n"
    "\n"
    "  -g, --game=G  (default doudizhu)    -p, --players=N    -d, --decks=N\n"
    "      --help    display this help and exit\n"
    "      --version output version information and exit\n"
    "\n"
    "Exit status of check: 0 honest, 3 dishonest (a rule broken; a log that is\n"
    "not well formed included), 4 inconclusive (an empty log, a period not\n"
    "revealed yet, or your client seed or deals without --commitment: nothing\n"
    "then ties the log to the table you were shown), 1 error (unreadable files,\n"
    "a log too large, a claim that is not a deal), 2 usage.\n"
    "Example:\n"
    "  fairshuf fair commit --server-seed-file=seed.hex --log=play.log "
    "--game=holdem\n"
    "  fairshuf fair deal --server-seed-file=seed.hex --log=play.log \\\n"
    "      --client-seed=alice\n"
    "  fairshuf fair rotate --server-seed-file=seed.hex --log=play.log\n"
    "  fairshuf fair check --log=play.log --commitment=HEX "
    "--client-seed=alice\n";

enum { OPT_SEED_FILE = 256, OPT_SEED, OPT_COMMIT, OPT_CLIENT, OPT_NONCE,
       OPT_DEAL, OPT_LOG, OPT_MY_DEALS, OPT_SCHEME, OPT_MAX_LOG };

uint64_t fair_nonce_or_die(const char *sub, const char *s)
{
    uint64_t v = cli_u64_or_die("nonce", s);
    if (v == UINT64_MAX)
        cli_die(CLI_USAGE, "fair %s: invalid nonce: '%s': 0 to 2^64-2 (a "
                "period never reaches 2^64-1: its next nonce would not "
                "exist)", sub, s);
    return v;
}

unsigned fair_small_u(const char *what, const char *s)
{
    uint64_t v = cli_u64_or_die(what, s);
    if (v == 0 || v > 1000)
        cli_die(CLI_USAGE, "invalid %s: '%s': 1 to 1000", what, s);
    return (unsigned)v;
}

const char *fair_action(int argc, char **argv, const char *help,
                        const char *actions)
{
    if (optind >= argc) {
        cli_error("fair: missing action (%s)", actions);
        cli_try_help(help, CLI_USAGE);
    }
    if (optind + 1 < argc) {
        cli_error("fair: extra operand '%s'", argv[optind + 1]);
        cli_try_help(help, CLI_USAGE);
    }
    return argv[optind];
}

static void need(const char *sub, const char *value, const char *option)
{
    if (value == NULL) {
        cli_error("fair %s: missing --%s", sub, option);
        cli_try_help("fair", CLI_USAGE);
    }
}

/* The game by name or dies "unknown game" (usage). */
static const fs_game *game_or_die(const char *sub, const char *name)
{
    (void)sub;
    return deal_game("fair", name);
}

/* The period's state from the locked log and the seed file; dies when the
 * seed is not the open period's (naming a seed left by a killed rotate). */
static void resume(const char *sub, const fair_args *a, fair_log *l,
                   fs_fair_period *p)
{
    uint8_t seed[32];
    fair_read_seed(sub, a->seed_file, seed);
    fair_log_open(sub, a->log, 0, seed, l);
    if (fs_fair_period_resume(p, seed, &l->res) != FS_OK) {
        char *stray = l->res.open ? fair_stray_seed(a->seed_file,
                                                    l->res.commitment)
                                  : NULL;
        if (stray)
            cli_die(CLI_FAIL, "fair %s: the seed in '%s' is not the one "
                    "committed in the open period of log '%s'; that one is "
                    "in '%s', left by an interrupted 'fair rotate': mv '%s' "
                    "'%s'", sub, a->seed_file, a->log, stray, stray,
                    a->seed_file);
        cli_die(CLI_FAIL, "fair %s: the seed in '%s' is not the one "
                "committed in the open period of log '%s'", sub, a->seed_file,
                a->log);
    }
    sodium_memzero(seed, sizeof seed);
}

static void print_commit(enum deal_format f, const char *chex)
{
    if (f == DEAL_JSON)
        printf("{\"scheme\":\"%s\",\"commitment\":\"%s\"}\n", FS_FAIR_SCHEME,
               chex);
    else
        printf("%s\n", chex);
}

/* stdout must hold what was printed before anything is kept. */
static int stdout_ok(void)
{
    return cli_flush_stdout() == 0;
}

static int do_commit(const fair_args *a)
{
    need("commit", a->seed_file, "server-seed-file");
    enum deal_format f = deal_format_parse("fair", a->format);
    const fs_game *g = game_or_die("commit", a->game ? a->game : "doudizhu");
    fair_log l = {-1, 0, 0, NULL, {0}};
    if (a->log) {
        fair_log_open("commit", a->log, 1, NULL, &l);
        if (l.res.open)
            cli_die(CLI_FAIL, "fair commit: log '%s' has a period that is "
                    "not revealed yet: end it with 'fair rotate'", a->log);
    }
    fs_fair_period *p = malloc(sizeof *p);
    static char line[FS_FAIR_LINE_MAX + 1];
    if (p == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int rc = fs_fair_period_begin(p, g->name, a->players, a->decks, line,
                                  sizeof line);
    if (rc == FS_EINVAL) {
        fs_dealer *d = malloc(sizeof *d);
        if (d)
            deal_setup("fair commit", d, g, a->players, a->decks,
                       FS_ALG_DURSTENFELD); /* dies naming the problem */
    }
    cli_check(rc, "fair commit");
    char chex[65];
    fs_hex_encode(p->commitment, 32, chex);
    /* 1. the seed, durable under its name (link never replaces) */
    char *tmp = fair_seed_tmp("commit", a->seed_file, p->server_seed);
    sodium_memzero(p, sizeof *p);
    free(p);
    if (link(tmp, a->seed_file) != 0) {
        int err = errno;
        unlink(tmp);
        pending_done();
        cli_die(CLI_FAIL, "fair commit: cannot create '%s': %s", a->seed_file,
                strerror(err));
    }
    unlink(tmp);
    pending_done();
    free(tmp);
    /* 2. the record: a commitment not in the log commits to nothing */
    off_t before = l.size;
    if (a->log) {
        const char *lines[] = {line};
        int err = fair_log_append("commit", a->log, &l, lines, 1);
        if (err) {
            unlink(a->seed_file);
            cli_die(CLI_FAIL, "fair commit: cannot append to log '%s': %s "
                    "(removed '%s')", a->log, strerror(err), a->seed_file);
        }
    }
    /* 3. shown only now; a commitment nobody saw is undone */
    print_commit(f, chex);
    if (!stdout_ok()) {
        int err = errno;
        if (a->log)
            fair_log_undo(a->log, &l, before);
        unlink(a->seed_file);
        cli_die(CLI_FAIL, "fair commit: the commitment could not be shown "
                "(%s): removed '%s'%s", strerror(err), a->seed_file,
                a->log ? " and its record" : "");
    }
    fair_log_close(&l);
    return CLI_OK;
}

static void print_deal(const fair_args *a, const fs_dealer *d,
                       const fs_deal *deal, const char *scheme,
                       const char *chex, const char *client, uint64_t nonce)
{
    enum deal_format f = deal_format_parse("fair", a->format);
    fs_lang l = deal_lang_parse("fair", a->lang);
    static out_buf out_store; /* 64 KiB: not on the stack */
    out_buf *out = &out_store;
    out_init(out, stdout);
    if (f == DEAL_JSON) {
        out_str(out, "{\"scheme\":\"");
        out_str(out, scheme);
        out_str(out, "\",\"commitment\":\"");
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
            out_str(out, scheme);
            out_str(out, " commitment ");
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

static void client_or_die(const char *sub, const char *scheme, const char *c)
{
    const char *why;
    if (!fs_fair_client_seed_ok(scheme, c, &why))
        cli_die(CLI_USAGE, "fair %s: invalid client seed: %s", sub, why);
}

/* A client seed already in the log would make it dishonest for ever: the
 * library's rule refuses it before anything is written. */
static void client_fresh_or_die(const char *sub, const fair_args *a,
                                const fair_log *l)
{
    size_t at;
    int used = fs_fair_client_seed_used(l->text, (size_t)l->size, a->client,
                                        &at);
    if (used == 1)
        cli_die(CLI_USAGE, "fair %s: client seed '%s' is already used at "
                "line %zu of log '%s': each period needs a client seed never "
                "used before in the log", sub, a->client, at, a->log);
    if (used < 0)
        cli_die(CLI_FAIL, "fair %s: %s", sub, fs_strerror(used));
}

static int do_client_seed(const fair_args *a)
{
    need("client-seed", a->seed_file, "server-seed-file");
    need("client-seed", a->log, "log");
    need("client-seed", a->client, "client-seed");
    client_or_die("client-seed", FS_FAIR_SCHEME, a->client);
    fair_log l = {-1, 0, 0, NULL, {0}};
    fs_fair_period p;
    resume("client-seed", a, &l, &p);
    client_fresh_or_die("client-seed", a, &l);
    static char line[FS_FAIR_LINE_MAX + 1];
    const char *why = NULL;
    int rc = fs_fair_period_client_seed(&p, a->client, line, sizeof line,
                                        &why);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "fair client-seed: %s", why ? why : "refused");
    cli_check(rc, "fair client-seed");
    const char *lines[] = {line};
    int err = fair_log_append("client-seed", a->log, &l, lines, 1);
    if (err)
        cli_die(CLI_FAIL, "fair client-seed: cannot append to log '%s': %s",
                a->log, strerror(err));
    sodium_memzero(&p, sizeof p);
    fair_log_close(&l);
    return CLI_OK;
}

/* `deal --log`: the period's next deal, durable before it is shown. */
static int deal_logged(const fair_args *a, fs_dealer *d, fs_deal *deal)
{
    fair_log l = {-1, 0, 0, NULL, {0}};
    static fs_fair_period p;
    static char cline[FS_FAIR_LINE_MAX + 1], dline[FS_FAIR_LINE_MAX + 1];
    resume("deal", a, &l, &p);
    if (strcmp(p.scheme, FS_FAIR_SCHEME) != 0)
        cli_die(CLI_FAIL, "fair deal: the open period of log '%s' is %s: "
                "new deals go to a " FS_FAIR_SCHEME " period ('fair rotate' "
                "after its deals)", a->log, FS_FAIR_SCHEME_V1);
    if ((a->game && strcmp(game_or_die("deal", a->game)->name, p.game)) ||
        (a->players && a->players != p.players) ||
        (a->decks && a->decks != p.decks))
        cli_die(CLI_FAIL, "fair deal: the period deals %s for %u players, %u "
                "decks: another table needs a new period ('fair rotate')",
                p.game, p.players, p.decks);
    if (a->nonce && cli_u64_or_die("nonce", a->nonce) != p.next_nonce)
        cli_die(CLI_FAIL, "fair deal: nonce %s given, but the period's next "
                "nonce is %llu", a->nonce, (unsigned long long)p.next_nonce);
    const char *lines[2];
    size_t n = 0;
    if (!p.has_client_seed) {
        if (a->client == NULL)
            cli_die(CLI_FAIL, "fair deal: the period has no client seed yet: "
                    "give the player's (--client-seed, or 'fair "
                    "client-seed')");
        client_or_die("deal", p.scheme, a->client);
        client_fresh_or_die("deal", a, &l);
        const char *why = NULL;
        int rc = fs_fair_period_client_seed(&p, a->client, cline,
                                            sizeof cline, &why);
        if (rc == FS_EINVAL)
            cli_die(CLI_FAIL, "fair deal: %s", why ? why : "refused");
        cli_check(rc, "fair deal");
        /* p is this run's copy: applied now so that the deal uses the
         * seed; nothing is kept unless both records are appended */
        cli_check(fs_fair_period_applied(&p, cline), "fair deal");
        lines[n++] = cline;
    } else if (a->client && strcmp(a->client, p.client_seed) != 0)
        cli_die(CLI_FAIL, "fair deal: the period's client seed is another "
                "one: a new client seed needs a new period ('fair rotate')");
    uint64_t nonce;
    cli_check(fs_fair_period_deal(&p, d, deal, &nonce, dline, sizeof dline),
              "fair deal");
    lines[n++] = dline;
    int err = fair_log_append("deal", a->log, &l, lines, n);
    if (err)
        cli_die(CLI_FAIL, "fair deal: cannot append to log '%s': %s", a->log,
                strerror(err));
    cli_check(fs_fair_period_applied(&p, dline), "fair deal");
    char chex[65];
    fs_hex_encode(p.commitment, 32, chex);
    print_deal(a, d, deal, p.scheme, chex, p.client_seed, nonce);
    sodium_memzero(&p, sizeof p);
    fair_log_close(&l);
    return CLI_OK;
}

static int do_deal(const fair_args *a, fs_dealer *d, fs_deal *deal)
{
    need("deal", a->seed_file, "server-seed-file");
    deal_format_parse("fair", a->format);
    deal_lang_parse("fair", a->lang);
    if (a->log) {
        if (a->scheme)
            cli_die(CLI_USAGE, "fair deal: --scheme does not apply to --log "
                    "(the period's scheme)");
        return deal_logged(a, d, deal);
    }
    need("deal", a->client, "client-seed");
    need("deal", a->nonce, "nonce");
    const char *scheme = a->scheme ? a->scheme : FS_FAIR_SCHEME;
    client_or_die("deal", scheme, a->client);
    uint64_t nonce = fair_nonce_or_die("deal", a->nonce);
    uint8_t seed[32], c[32];
    fair_read_seed("deal", a->seed_file, seed);
    fs_fair_commitment(seed, c);
    char chex[65];
    fs_hex_encode(c, 32, chex);
    const fs_game *g = game_or_die("deal", a->game ? a->game : "doudizhu");
    deal_setup("fair deal", d, g, a->players, a->decks, FS_ALG_DURSTENFELD);
    cli_check(fs_fair_deal_scheme(scheme, seed, d, a->client, nonce, deal),
              "fair deal");
    sodium_memzero(seed, sizeof seed);
    print_deal(a, d, deal, scheme, chex, a->client, nonce);
    return CLI_OK;
}

static int do_rotate(const fair_args *a)
{
    need("rotate", a->seed_file, "server-seed-file");
    need("rotate", a->log, "log");
    enum deal_format f = deal_format_parse("fair", a->format);
    fair_log l = {-1, 0, 0, NULL, {0}};
    static fs_fair_period old, next;
    /* rotate renames the new seed over F: a link or a special file would be
     * replaced, not written through (the output rules of lib/outfile.c) */
    struct stat st;
    if (lstat(a->seed_file, &st) == 0 && !S_ISREG(st.st_mode))
        cli_die(CLI_FAIL, "fair rotate: '%s' is %s: rotate replaces the "
                "seed file by renaming a new one over it; give the seed "
                "file itself", a->seed_file, S_ISLNK(st.st_mode)
                    ? "a symbolic link" : "not a regular file");
    resume("rotate", a, &l, &old);
    if (strcmp(old.scheme, FS_FAIR_SCHEME) == 0 && old.next_nonce == 0)
        cli_die(CLI_FAIL, "fair rotate: the period has no deal yet: a period "
                "revealed without a deal breaks the rule 'empty-period' "
                "(rotate at the player's request, after the deals)");
    const char *game = a->game ? game_or_die("rotate", a->game)->name
                       : old.game[0] ? old.game : "doudizhu";
    unsigned players = a->players ? a->players
                       : a->game ? 0 : old.players,
             decks = a->decks ? a->decks : a->game ? 0 : old.decks;
    static char rline[FS_FAIR_LINE_MAX + 1], cline[FS_FAIR_LINE_MAX + 1];
    cli_check(fs_fair_period_reveal(&old, rline, sizeof rline),
              "fair rotate");
    int rc = fs_fair_period_begin(&next, game, players, decks, cline,
                                  sizeof cline);
    if (rc == FS_EINVAL) {
        fs_dealer *d = malloc(sizeof *d);
        if (d)
            deal_setup("fair rotate", d, fs_game_find(game), players, decks,
                       FS_ALG_DURSTENFELD);
    }
    cli_check(rc, "fair rotate");
    char *tmp = fair_seed_tmp("rotate", a->seed_file, next.server_seed);
    char ohex[65], nhex[65];
    fs_hex_encode(old.server_seed, 32, ohex);
    fs_hex_encode(next.commitment, 32, nhex);
    /* The reveal and the new commitment go to the log as one write, then
     * the new seed replaces the old.  From here tmp may be the only copy of
     * a committed seed: no signal removes it. */
    pending_done();
    const char *lines[] = {rline, cline};
    int err = fair_log_append("rotate", a->log, &l, lines, 2);
    if (err) {
        unlink(tmp);
        cli_die(CLI_FAIL, "fair rotate: cannot append to log '%s': %s "
                "(nothing changed)", a->log, strerror(err));
    }
    if (rename(tmp, a->seed_file) != 0)
        cli_die(CLI_FAIL, "fair rotate: cannot replace '%s': %s; the log "
                "revealed its seed: the new seed is in '%s' (mv '%s' '%s')",
                a->seed_file, strerror(errno), tmp, tmp, a->seed_file);
    free(tmp);
    fair_log_close(&l);
    sodium_memzero(&old, sizeof old);
    sodium_memzero(&next, sizeof next);
    if (f == DEAL_JSON)
        printf("{\"scheme\":\"%s\",\"revealed_server_seed\":\"%s\","
               "\"commitment\":\"%s\"}\n", FS_FAIR_SCHEME, ohex, nhex);
    else
        printf("revealed server seed %s\ncommitment %s\n", ohex, nhex);
    return CLI_OK;
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
        {"my-deals", required_argument, NULL, OPT_MY_DEALS},
        {"scheme", required_argument, NULL, OPT_SCHEME},
        {"max-log-size", required_argument, NULL, OPT_MAX_LOG},
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"decks", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"lang", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    if (fair_vrf_wants(argc, argv)) /* scheme fairshuf-vrf-1: fair_vrf.c */
        return cmd_fair_vrf(argc, argv);
    fair_args a = {0};
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
        case OPT_MY_DEALS: a.my_deals = optarg; break;
        case OPT_MAX_LOG:
            if (cli_parse_size(optarg, &a.max_log) != 0 || a.max_log == 0)
                cli_die(CLI_USAGE, "invalid --max-log-size: '%s' (a size: "
                        "bytes, or with K, M, G)", optarg);
            break;
        case OPT_SCHEME:
            if (strcmp(optarg, FS_FAIR_SCHEME) != 0 &&
                strcmp(optarg, FS_FAIR_SCHEME_V1) != 0)
                cli_die(CLI_USAGE, "invalid scheme: '%s' (" FS_FAIR_SCHEME
                        " or " FS_FAIR_SCHEME_V1 ")", optarg);
            a.scheme = optarg;
            break;
        case 'g': a.game = optarg; break;
        case 'p': a.players = fair_small_u("number of players", optarg); break;
        case 'd': a.decks = fair_small_u("number of decks", optarg); break;
        case 'f': a.format = optarg; break;
        case 'l': a.lang = optarg; break;
        case 'h': cli_help("fair", usage_text);
        case 'V': cli_version("fair");
        default: cli_bad_option("fair");
        }
    }
    const char *action = fair_action(argc, argv, "fair",
                                     "commit, client-seed, deal, rotate or "
                                     "check");
    fs_dealer *d = malloc(sizeof *d);
    fs_deal *deal = malloc(sizeof *deal);
    if (d == NULL || deal == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int rc;
    if (strcmp(action, "commit") == 0)
        rc = do_commit(&a);
    else if (strcmp(action, "client-seed") == 0)
        rc = do_client_seed(&a);
    else if (strcmp(action, "deal") == 0)
        rc = do_deal(&a, d, deal);
    else if (strcmp(action, "rotate") == 0)
        rc = do_rotate(&a);
    else if (strcmp(action, "check") == 0)
        rc = fair_check(&a, d);
    else {
        cli_error("fair: unknown action '%s' (commit, client-seed, deal, "
                  "rotate or check)", action);
        cli_try_help("fair", CLI_USAGE);
    }
    free(d);
    free(deal);
    return rc;
}
