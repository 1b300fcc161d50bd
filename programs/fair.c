/* fair.c -- `fairshuf fair commit|deal|check`: provably-fair dealing by
 * commit and reveal (scheme fairshuf-pf-1, docs/provably-fair.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "deal_out.h"

static const char usage_text[] =
    "Usage: fairshuf fair commit --server-seed-file=F [--format=text|json]\n"
    "  or:  fairshuf fair deal --server-seed-file=F --client-seed=C "
    "--nonce=N\n"
    "                          [--game=G] [--players=N] [--decks=N]\n"
    "                          [--format=text|tsv|json] [--lang=en|zh]\n"
    "  or:  fairshuf fair check --server-seed=HEX --commitment=HEX\n"
    "                          --client-seed=C --nonce=N [--game=G]\n"
    "                          [--players=N] [--decks=N] [--deal=CARDS]\n"
    "Provably-fair dealing by commit and reveal (scheme " FS_FAIR_SCHEME ").\n"
    "\n"
    "commit  creates a secret server seed (32 bytes from the OS) in a new file\n"
    "        F readable only by its owner, and prints its commitment,\n"
    "        SHA-256(seed), to publish before play.\n"
    "deal    deals game G from the key HMAC-SHA256(seed, scheme, game,\n"
    "        players, decks, client seed, nonce): an unbiased shuffle that\n"
    "        neither side can steer alone.\n"
    "check   after the seed is revealed, recomputes the deal and the\n"
    "        commitment; exit status 0 only if both match.  The claimed deal\n"
    "        is every card of the deal in TSV order (what 'fair deal\n"
    "        --format=tsv' prints), from --deal or standard input.\n"
    "\n"
    "  -g, --game=G  (default doudizhu)    -p, --players=N    -d, --decks=N\n"
    "      --help    display this help and exit\n"
    "      --version output version information and exit\n"
    "Example:\n"
    "  fairshuf fair commit --server-seed-file=seed.hex\n"
    "  fairshuf fair deal --server-seed-file=seed.hex --client-seed=alice "
    "--nonce=1\n";

enum { OPT_SEED_FILE = 256, OPT_SEED, OPT_COMMIT, OPT_CLIENT, OPT_NONCE,
       OPT_DEAL };

typedef struct args {
    const char *seed_file, *seed_hex, *commitment, *client, *nonce, *deal;
    const char *game, *format, *lang;
    unsigned players, decks;
} args;

static unsigned small_u(const char *what, const char *s)
{
    uint64_t v = cli_u64_or_die(what, s);
    if (v == 0 || v > 1000)
        cli_die(CLI_FAIL, "invalid %s: '%s'", what, s);
    return (unsigned)v;
}

static void need(const char *sub, const char *value, const char *option)
{
    if (value == NULL) {
        cli_error("fair %s: missing --%s", sub, option);
        cli_try_help("fair", CLI_USAGE);
    }
}

/* Reads the 64 hex digits (and an optional newline) of a seed file. */
static void read_seed_file(const char *path, uint8_t seed[32])
{
    char buf[80];
    size_t n = 0;
    int bad = 0, err = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        cli_die(CLI_FAIL, "fair deal: cannot read server seed file '%s': %s",
                path, strerror(errno));
    else {
        n = fread(buf, 1, sizeof buf - 1, f);
        bad = ferror(f);
        err = errno;
        fclose(f);
    }
    if (bad)
        cli_die(CLI_FAIL, "fair deal: cannot read server seed file '%s': %s",
                path, strerror(err));
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    if (fs_hex_decode(buf, seed, 32) != FS_OK)
        cli_die(CLI_FAIL,
                "fair deal: server seed file '%s': not 64 hex digits", path);
}

static void hex_arg(const char *what, const char *s, uint8_t out[32])
{
    if (fs_hex_decode(s, out, 32) != FS_OK)
        cli_die(CLI_FAIL, "fair check: invalid %s: must be 64 hex digits",
                what);
}

static int do_commit(const args *a)
{
    need("commit", a->seed_file, "server-seed-file");
    enum deal_format f = deal_format_parse("fair", a->format);
    uint8_t seed[32], c[32];
    cli_check(fs_fair_server_seed(seed), "fair commit");
    char hex[65], chex[65];
    fs_hex_encode(seed, 32, hex);
    fs_fair_commitment(seed, c);
    fs_hex_encode(c, 32, chex);
    /* O_EXCL: never overwrite a seed that may already be committed. */
    int fd = open(a->seed_file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        cli_die(CLI_FAIL, "fair commit: cannot create '%s': %s", a->seed_file,
                strerror(errno));
    hex[64] = '\n';
    if (write(fd, hex, 65) != 65 || fsync(fd) != 0 || close(fd) != 0) {
        int err = errno;
        unlink(a->seed_file);
        cli_die(CLI_FAIL, "fair commit: cannot write '%s': %s", a->seed_file,
                strerror(err));
    }
    if (f == DEAL_JSON)
        printf("{\"scheme\":\"%s\",\"commitment\":\"%s\"}\n", FS_FAIR_SCHEME,
               chex);
    else
        printf("%s\n", chex);
    return CLI_OK;
}

static uint64_t nonce_of(const char *sub, const char *s)
{
    (void)sub;
    return cli_u64_or_die("nonce", s);
}

static int do_deal(const args *a, fs_dealer *d, fs_deal *deal)
{
    need("deal", a->seed_file, "server-seed-file");
    need("deal", a->client, "client-seed");
    need("deal", a->nonce, "nonce");
    enum deal_format f = deal_format_parse("fair", a->format);
    fs_lang l = deal_lang_parse("fair", a->lang);
    uint64_t nonce = nonce_of("deal", a->nonce);
    const fs_game *g = deal_game("fair deal", a->game);
    deal_setup("fair deal", d, g, a->players, a->decks, FS_ALG_DURSTENFELD);
    uint8_t seed[32], c[32];
    read_seed_file(a->seed_file, seed);
    cli_check(fs_fair_deal(seed, d, a->client, nonce, deal), "fair deal");
    fs_fair_commitment(seed, c);
    char chex[65];
    fs_hex_encode(c, 32, chex);
    static out_buf out_store; /* 64 KiB: not on the stack */
    out_buf *out = &out_store;
    out_init(out, stdout);
    if (f == DEAL_JSON) {
        out_str(out, "{\"scheme\":\"" FS_FAIR_SCHEME "\",\"commitment\":\"");
        out_str(out, chex);
        out_str(out, "\",\"client_seed\":");
        deal_json_string(out, a->client);
        out_str(out, ",\"nonce\":");
        out_u64(out, nonce);
        out_str(out, ",\"deal\":");
        deal_print(out, d, deal, f, l, 0, 1);
        out_str(out, "}\n");
    } else {
        if (f == DEAL_TEXT) {
            out_str(out, FS_FAIR_SCHEME " commitment ");
            out_str(out, chex);
            out_str(out, "\nclient seed ");
            out_str(out, a->client);
            out_str(out, ", nonce ");
            out_u64(out, nonce);
            out_byte(out, '\n');
        }
        deal_print(out, d, deal, f, l, 0, 1);
    }
    out_flush(out);
    return CLI_OK;
}

/* The claimed deal: --deal or all of standard input. */
static char *claim_text(const args *a)
{
    if (a->deal)
        return strdup(a->deal);
    size_t cap = 1 << 14, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, stdin);
        len += n;
        if (n == 0)
            break;
        if (len + 1 == cap) {
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
    buf[len] = '\0';
    return buf;
}

static int do_check(const args *a, fs_dealer *d)
{
    need("check", a->seed_hex, "server-seed");
    need("check", a->commitment, "commitment");
    need("check", a->client, "client-seed");
    need("check", a->nonce, "nonce");
    uint8_t seed[32], commitment[32];
    hex_arg("server seed", a->seed_hex, seed);
    hex_arg("commitment", a->commitment, commitment);
    uint64_t nonce = nonce_of("check", a->nonce);
    const fs_game *g = deal_game("fair check", a->game);
    deal_setup("fair check", d, g, a->players, a->decks, FS_ALG_DURSTENFELD);
    char *text = claim_text(a);
    fs_card *claimed = malloc(FS_DEAL_MAX_CARDS * sizeof *claimed);
    if (claimed == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t n = deal_parse_cards("fair check", text,
                                g->deck >= FS_DECK_TILES_136, claimed,
                                FS_DEAL_MAX_CARDS);
    free(text);
    int verdict;
    cli_check(fs_fair_check(seed, commitment, d, a->client, nonce, claimed, n,
                            &verdict),
              "fair check");
    free(claimed);
    if (verdict & FS_FAIR_BAD_COMMITMENT)
        printf("FAILED: SHA-256 of the server seed is not the commitment\n");
    if (verdict & FS_FAIR_BAD_DEAL)
        printf("FAILED: the deal is not the one these seeds and nonce give\n");
    if (verdict == 0)
        printf("OK: the commitment matches the server seed and the deal is "
               "the one it gives (" FS_FAIR_SCHEME ")\n");
    return verdict == 0 ? CLI_OK : CLI_FAIL;
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
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"decks", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"lang", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    args a = {0};
    a.game = "doudizhu";
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
        case 'g': a.game = optarg; break;
        case 'p': a.players = small_u("number of players", optarg); break;
        case 'd': a.decks = small_u("number of decks", optarg); break;
        case 'f': a.format = optarg; break;
        case 'l': a.lang = optarg; break;
        case 'h': cli_usage(usage_text);
        case 'V': cli_version("fair");
        default: cli_try_help("fair", CLI_USAGE);
        }
    }
    if (optind >= argc) {
        cli_error("fair: missing action (commit, deal or check)");
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
    else if (strcmp(action, "check") == 0)
        rc = do_check(&a, d);
    else {
        cli_error("fair: unknown action '%s' (commit, deal or check)", action);
        cli_try_help("fair", CLI_USAGE);
    }
    free(d);
    free(deal);
    return rc;
}
