/* fair_vrf.c -- `fairshuf fair vrf-keygen|vrf-prove|vrf-verify|vrf-table|
 * vrf-deal` and `fairshuf fair check --public-key`: the RFC 9381 VRF and
 * scheme fairshuf-vrf-1 (docs/provably-fair.md, "Scheme fairshuf-vrf-1").
 * A thin door: the library (fairshuf/vrf.h) proves, deals, writes and
 * checks every record; this file reads and writes the key file and
 * prints. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "fair.h"
#include "fair_vrf.h"
#include "fairshuf/vrf.h"
#include "json.h"
#include "out.h"
#include "pending.h"

static const char usage_text[] =
    "Usage: fairshuf fair vrf-keygen --key-file=F\n"
    "  or:  fairshuf fair vrf-prove --key-file=F --alpha=HEX\n"
    "  or:  fairshuf fair vrf-verify --public-key=HEX --alpha=HEX --pi=HEX\n"
    "  or:  fairshuf fair vrf-table --key-file=F --table=T --game=G\n"
    "                          (--commitment=HEX | --client-seed=C)... "
    "[--players=N] [--decks=N]\n"
    "  or:  fairshuf fair vrf-deal --key-file=F --table=T --hand=N "
    "--game=G\n"
    "                          --client-seed=C... [--players=N] [--decks=N] "
    "[--void]\n"
    "  or:  fairshuf fair check --log=L --public-key=HEX [--my-hands=FILE]\n"
    "                          [--format=text|json]\n"
    "  or:  fairshuf fair check --public-key=HEX --record=JSON\n"
    "A verifiable random function, ECVRF-EDWARDS25519-SHA512-TAI (RFC 9381),\n"
    "and scheme " FS_VRF_SCHEME ": every hand is dealt from the VRF's output "
    "for an\n"
    "input the dealer does not choose (table, hand number, the players'\n"
    "client seeds, the key), with a proof anyone checks at once against the\n"
    "dealer's public key.\n"
    "\n"
    "vrf-keygen  creates a new VRF key in F (owner-only, mode 0600; an "
    "existing F\n"
    "            is never replaced) and prints its public key (64 hex). The "
    "key\n"
    "            is for this and nothing else (never a signing key or a "
    "seed).\n"
    "vrf-prove   prints {\"public_key\",\"alpha\",\"pi\",\"beta\"} (hex) for "
    "alpha.\n"
    "vrf-verify  prints beta (128 hex) when pi is a valid proof of alpha "
    "under\n"
    "            the public key; exit 3 when it is not.\n"
    "vrf-table   prints the table record: the key, table, game and the "
    "SHA-256\n"
    "            commitments of the players' client seeds (--commitment, or\n"
    "            --client-seed to compute one), in seat order.\n"
    "vrf-deal    proves and deals hand N of table T and prints its record "
    "(one\n"
    "            JSON line: scheme, key, table, hand, client seeds, game,\n"
    "            players, decks, alpha, pi, deal); --void marks a hand proven "
    "and\n"
    "            not played.  Hands are numbered 0, 1, 2, ... per table.\n"
    "check       --public-key: checks a " FS_VRF_SCHEME " log by the rules "
    "of\n"
    "            docs/provably-fair.md (first broken rule and its line); "
    "--my-hands:\n"
    "            the hand records you received must be in it, the same;\n"
    "            --record: one hand record alone (key, alpha, proof, deal).\n"
    "\n"
    "The key file holds the 32-byte RFC 8032 secret key as 64 hex digits "
    "and a\n"
    "newline.  Exit status: 0 success or honest, 3 invalid proof or "
    "dishonest,\n"
    "4 inconclusive (a log with no hand), 1 error, 2 usage.\n"
    "Example:\n"
    "  fairshuf fair vrf-keygen --key-file=dealer.vrf-key\n"
    "  fairshuf fair vrf-table --key-file=dealer.vrf-key --table=t1 "
    "--game=holdem \\\n"
    "      --client-seed=alice --client-seed=bob >> play.log\n"
    "  fairshuf fair vrf-deal --key-file=dealer.vrf-key --table=t1 --hand=0 "
    "\\\n"
    "      --game=holdem --client-seed=alice --client-seed=bob >> play.log\n"
    "  fairshuf fair check --log=play.log --public-key=HEX\n";

static const char *const actions[] = {"vrf-keygen", "vrf-prove", "vrf-verify",
                                      "vrf-table", "vrf-deal"};

int fair_vrf_wants(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strncmp(argv[i], "--public-key", 12) == 0)
            return 1;
        for (size_t k = 0; k < sizeof actions / sizeof actions[0]; k++)
            if (strcmp(argv[i], actions[k]) == 0)
                return 1;
    }
    return 0;
}

typedef struct vrf_args {
    const char *key_file, *alpha, *pk, *pi, *table, *hand, *game, *log;
    const char *my_hands, *format, *record;
    unsigned players, decks;
    int is_void;
    const char *seeds[FS_VRF_SEATS_MAX], *commits[FS_VRF_SEATS_MAX];
    size_t nseeds, ncommits;
} vrf_args;

static void need(const char *sub, const char *value, const char *option)
{
    if (value == NULL) {
        cli_error("fair %s: missing --%s", sub, option);
        cli_try_help("fair-vrf", CLI_USAGE);
    }
}

/* Lower- or upper-case hex of exactly n bytes (n = 0: any even length,
 * *len receives the bytes) or a usage error. */
static uint8_t *hex_or_die(const char *sub, const char *what, const char *s,
                           size_t n, size_t *len)
{
    size_t k = strlen(s);
    if (k % 2 || (n && k != 2 * n))
        cli_die(CLI_USAGE, "fair %s: invalid %s: %s", sub, what,
                n ? "wrong length (hex digits)" : "an odd number of hex "
                                                 "digits");
    uint8_t *b = malloc(k / 2 + 1);
    if (b == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    if (fs_hex_decode(s, b, k / 2) != FS_OK)
        cli_die(CLI_USAGE, "fair %s: invalid %s: not hex", sub, what);
    if (len)
        *len = k / 2;
    return b;
}

/* The key file: 64 hex digits and an optional newline. */
static void read_key(const char *sub, const char *path, uint8_t sk[32])
{
    char buf[80];
    struct stat st;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        cli_die(CLI_FAIL, "fair %s: cannot read key file '%s': %s", sub, path,
                strerror(errno));
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077))
        cli_error("warning: key file '%s' is readable or writable by group "
                  "or others (mode %04o): the VRF key must stay secret "
                  "(chmod 600 '%s')", path, (unsigned)(st.st_mode & 07777),
                  path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int bad = ferror(f), err = errno;
    fclose(f);
    if (bad)
        cli_die(CLI_FAIL, "fair %s: cannot read key file '%s': %s", sub, path,
                strerror(err));
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n] = '\0';
    int rc = n == 64 ? fs_hex_decode(buf, sk, 32) : FS_EINVAL;
    sodium_memzero(buf, sizeof buf);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "fair %s: key file '%s': not 64 hex digits", sub,
                path);
}

static void print_hex(const uint8_t *b, size_t n)
{
    char *h = malloc(2 * n + 1);
    if (h == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_hex_encode(b, n, h);
    fputs(h, stdout);
    free(h);
}

static int do_keygen(const vrf_args *a)
{
    need("vrf-keygen", a->key_file, "key-file");
    uint8_t sk[32], pk[32];
    cli_check(fs_vrf_keygen(sk, pk), "fair vrf-keygen");
    char *tmp = fair_seed_tmp("vrf-keygen", a->key_file, sk);
    sodium_memzero(sk, sizeof sk);
    if (link(tmp, a->key_file) != 0) { /* link never replaces */
        int err = errno;
        unlink(tmp);
        pending_done();
        cli_die(CLI_FAIL, "fair vrf-keygen: cannot create '%s': %s",
                a->key_file, strerror(err));
    }
    unlink(tmp);
    pending_done();
    free(tmp);
    print_hex(pk, 32);
    putchar('\n');
    return CLI_OK;
}

static int do_prove(const vrf_args *a)
{
    need("vrf-prove", a->key_file, "key-file");
    need("vrf-prove", a->alpha, "alpha");
    size_t len;
    uint8_t *alpha = hex_or_die("vrf-prove", "alpha", a->alpha, 0, &len);
    uint8_t sk[32], pk[32], pi[80], beta[64];
    read_key("vrf-prove", a->key_file, sk);
    cli_check(fs_vrf_public_key(sk, pk), "fair vrf-prove");
    cli_check(fs_vrf_prove(sk, alpha, len, pi, beta), "fair vrf-prove");
    sodium_memzero(sk, sizeof sk);
    fputs("{\"public_key\":\"", stdout);
    print_hex(pk, 32);
    fputs("\",\"alpha\":\"", stdout);
    print_hex(alpha, len);
    fputs("\",\"pi\":\"", stdout);
    print_hex(pi, 80);
    fputs("\",\"beta\":\"", stdout);
    print_hex(beta, 64);
    fputs("\"}\n", stdout);
    free(alpha);
    return CLI_OK;
}

static int do_verify(const vrf_args *a)
{
    need("vrf-verify", a->pk, "public-key");
    need("vrf-verify", a->alpha, "alpha");
    need("vrf-verify", a->pi, "pi");
    size_t len;
    uint8_t *pk = hex_or_die("vrf-verify", "public key", a->pk, 32, NULL);
    uint8_t *pi = hex_or_die("vrf-verify", "pi", a->pi, 80, NULL);
    uint8_t *alpha = hex_or_die("vrf-verify", "alpha", a->alpha, 0, &len);
    uint8_t beta[64];
    int rc = fs_vrf_verify(pk, alpha, len, pi, beta);
    int key_ok = fs_vrf_public_key_ok(pk);
    free(pk);
    free(pi);
    free(alpha);
    if (rc != FS_OK) {
        cli_error("fair vrf-verify: %s", key_ok ? "invalid proof: pi is not "
                  "a proof of alpha under the public key" : "invalid public "
                  "key: not a point of the prime-order subgroup");
        return FAIR_DISHONEST;
    }
    print_hex(beta, 64);
    putchar('\n');
    return CLI_OK;
}

/* The table and game fields every record shares; dies on a bad one. */
static void fill_table(const char *sub, const vrf_args *a, fs_vrf_record *r,
                       const uint8_t sk[32], fs_dealer *d)
{
    const char *why;
    need(sub, a->table, "table");
    need(sub, a->game, "game");
    if (!fs_fair_client_seed_ok(FS_FAIR_SCHEME, a->table, &why))
        cli_die(CLI_USAGE, "fair %s: invalid table name (the client seed "
                "rule applies): %s", sub, why);
    const fs_game *g = fs_game_find(a->game);
    if (g == NULL)
        cli_die(CLI_USAGE, "fair %s: unknown game '%s'", sub, a->game);
    strcpy(r->table, a->table);
    snprintf(r->game, sizeof r->game, "%s", g->name);
    r->players = a->players ? a->players : g->players;
    r->decks = a->decks ? a->decks : g->decks;
    if (fs_dealer_init(d, g, r->players, r->decks, FS_ALG_DURSTENFELD) !=
        FS_OK)
        cli_die(CLI_USAGE, "fair %s: %s does not allow %u players with %u "
                "deck%s", sub, g->name, r->players, r->decks,
                r->decks == 1 ? "" : "s");
    cli_check(fs_vrf_public_key(sk, r->public_key), "fair vrf");
}

static void seed_or_die(const char *sub, const char *s)
{
    const char *why;
    if (!fs_fair_client_seed_ok(FS_FAIR_SCHEME, s, &why))
        cli_die(CLI_USAGE, "fair %s: invalid client seed: %s", sub, why);
}

static void print_record(const fs_vrf_record *r)
{
    static char line[FS_VRF_LINE_MAX + 1];
    int n = fs_vrf_record_write(r, line, sizeof line);
    cli_check(n < 0 ? n : FS_OK, "fair vrf");
    puts(line);
}

static int do_table(const vrf_args *a, fs_dealer *d)
{
    static fs_vrf_record r;
    uint8_t sk[32];
    need("vrf-table", a->key_file, "key-file");
    if (a->nseeds + a->ncommits == 0)
        cli_die(CLI_USAGE, "fair vrf-table: missing --commitment or "
                "--client-seed (one per player)");
    if (a->nseeds && a->ncommits)
        cli_die(CLI_USAGE, "fair vrf-table: give --commitment or "
                "--client-seed, not both");
    read_key("vrf-table", a->key_file, sk);
    fill_table("vrf-table", a, &r, sk, d);
    sodium_memzero(sk, sizeof sk);
    r.event = FS_VRF_TABLE;
    for (size_t i = 0; i < a->nseeds; i++) {
        seed_or_die("vrf-table", a->seeds[i]);
        fs_vrf_seed_commitment(a->seeds[i], r.commitments[i]);
    }
    for (size_t i = 0; i < a->ncommits; i++) {
        uint8_t *c = hex_or_die("vrf-table", "commitment", a->commits[i], 32,
                                NULL);
        memcpy(r.commitments[i], c, 32);
        free(c);
    }
    r.nseeds = a->nseeds + a->ncommits;
    print_record(&r);
    return CLI_OK;
}

static int do_deal(const vrf_args *a, fs_dealer *d, fs_deal *deal)
{
    static fs_vrf_record r;
    uint8_t sk[32];
    need("vrf-deal", a->key_file, "key-file");
    need("vrf-deal", a->hand, "hand");
    if (a->nseeds == 0)
        need("vrf-deal", NULL, "client-seed");
    if (a->ncommits)
        cli_die(CLI_USAGE, "fair vrf-deal: --commitment belongs to "
                "vrf-table");
    uint64_t hand = cli_u64_or_die("hand number", a->hand);
    read_key("vrf-deal", a->key_file, sk);
    fill_table("vrf-deal", a, &r, sk, d);
    for (size_t i = 0; i < a->nseeds; i++) {
        seed_or_die("vrf-deal", a->seeds[i]);
        strcpy(r.client_seeds[i], a->seeds[i]);
    }
    r.nseeds = a->nseeds;
    r.hand = hand;
    cli_check(fs_vrf_hand(sk, &r, d, deal), "fair vrf-deal");
    sodium_memzero(sk, sizeof sk);
    if (a->is_void)
        r.event = FS_VRF_VOID;
    print_record(&r);
    return CLI_OK;
}

/* --- fair check --public-key ------------------------------------------- */

/* The player's hand records, one a line; blank lines skipped. */
static fs_vrf_record *my_hands(const char *path, size_t *count)
{
    size_t len, n = 0, no = 0;
    char *text = fair_slurp("hands file", path, &len, 0);
    fs_vrf_record *r = NULL;
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        char *end = nl ? nl : text + len;
        no++;
        if (end > p && end[-1] == '\r')
            end--;
        if (end > p) {
            fs_vrf_record *nr = realloc(r, (n + 1) * sizeof *r);
            const char *why;
            if (nr == NULL)
                cli_die(CLI_FAIL, "memory exhausted");
            r = nr;
            if (fs_vrf_record_parse(p, (size_t)(end - p), &r[n], &why) !=
                    FS_OK ||
                r[n].event == FS_VRF_TABLE)
                cli_die(CLI_FAIL, "fair check: hands file '%s', line %zu: "
                        "not a hand record: %s", path, no,
                        why ? why : "a table record");
            n++;
        }
        p = nl ? nl + 1 : text + len;
    }
    free(text);
    *count = n;
    return r;
}

/* One hand record alone (--record): its key, alpha, proof and deal. */
static int check_record(const vrf_args *a)
{
    static fs_vrf_record r;
    static fs_dealer d;
    static fs_deal deal;
    const char *why, *rule;
    uint8_t *pk = hex_or_die("check", "public key", a->pk, 32, NULL);
    size_t n = strlen(a->record);
    if (n > 0 && a->record[n - 1] == '\n')
        n--;
    fs_fair_verdict v = FS_FAIR_DISHONEST;
    if (fs_vrf_record_parse(a->record, n, &r, &why) != FS_OK)
        rule = "malformed";
    else if (r.event == FS_VRF_TABLE) {
        rule = "malformed";
        why = "a table record is not a hand";
    } else
        v = fs_vrf_hand_check(pk, &r, &d, &deal, &rule, &why);
    free(pk);
    if (v == FS_FAIR_HONEST) {
        printf("OK: hand %llu of table '%s': the proof holds under the public "
               "key, alpha is the hand's and the deal is the deal of beta\n",
               (unsigned long long)r.hand, r.table);
        return CLI_OK;
    }
    printf("DISHONEST: rule '%s' broken: %s\n", rule, why);
    return FAIR_DISHONEST;
}

static int do_check(const vrf_args *a)
{
    if (a->record) {
        if (a->log || a->my_hands)
            cli_die(CLI_USAGE, "fair check: --record checks one hand: --log "
                    "and --my-hands do not apply");
        return check_record(a);
    }
    need("check", a->log, "log");
    int json = strcmp(a->format, "json") == 0;
    if (!json && strcmp(a->format, "text") != 0)
        cli_die(CLI_USAGE, "fair check: invalid format: '%s' (text or json)",
                a->format);
    uint8_t *pk = hex_or_die("check", "public key", a->pk, 32, NULL);
    size_t n, nmine = 0;
    fs_vrf_record *mine = a->my_hands ? my_hands(a->my_hands, &nmine) : NULL;
    char *text = fair_slurp("log", a->log, &n, FAIR_LOG_SIZE_MAX);
    static out_buf o;
    out_init(&o, stdout);
    fair_note_ctx ctx = {json, &o, 0};
    fs_vrf_log_result r;
    if (json)
        fputs("{\"findings\":[", stdout);
    cli_check(fs_vrf_log_check(text, n, pk, mine, nmine, fair_note, &ctx, &r),
              "fair check");
    out_flush(&o);
    free(text);
    free(mine);
    free(pk);
    int status = fair_verdict_status(r.verdict);
    if (json) {
        printf("],\"verdict\":\"%s\",\"rule\":", fair_verdict_name(r.verdict));
        if (r.rule) {
            printf("\"%s\",\"line\":%zu,\"message\":", r.rule, r.line);
            json_string(stdout, r.message);
        } else
            fputs("null,\"line\":null,\"message\":null", stdout);
        printf(",\"scheme\":\"%s\",\"tables\":%zu,\"hands\":%zu,\"voids\":%zu,"
               "\"proven\":%zu}\n", FS_VRF_SCHEME, r.tables, r.hands, r.voids,
               r.proven);
    } else if (status == FAIR_DISHONEST)
        printf("DISHONEST: rule '%s' broken %s%.0zu (first of %zu finding%s; "
               "%zu table%s, %zu hand%s, %zu void)\n", r.rule,
               r.line ? "at line " : "by the log as a whole", r.line,
               r.findings, r.findings == 1 ? "" : "s", r.tables,
               r.tables == 1 ? "" : "s", r.hands, r.hands == 1 ? "" : "s",
               r.voids);
    else if (status == FAIR_INCONCLUSIVE)
        printf("INCONCLUSIVE: the log has no hand: nothing was checked "
               "(%zu table%s)\n", r.tables, r.tables == 1 ? "" : "s");
    else
        printf("OK: %zu table%s, %zu hand%s and %zu void hand%s: every proof "
               "holds under the public key, every alpha is the hand's, every "
               "deal is its beta's, hands numbered without gaps or repeats%s\n",
               r.tables, r.tables == 1 ? "" : "s", r.hands,
               r.hands == 1 ? "" : "s", r.voids, r.voids == 1 ? "" : "s",
               nmine ? "; your hands are in it" : "");
    return status;
}

enum { O_KEY = 256, O_ALPHA, O_PK, O_PI, O_TABLE, O_HAND, O_CLIENT, O_COMMIT,
       O_LOG, O_MINE, O_VOID, O_RECORD };

int cmd_fair_vrf(int argc, char **argv)
{
    static const struct option opts[] = {
        {"key-file", required_argument, NULL, O_KEY},
        {"alpha", required_argument, NULL, O_ALPHA},
        {"public-key", required_argument, NULL, O_PK},
        {"pi", required_argument, NULL, O_PI},
        {"table", required_argument, NULL, O_TABLE},
        {"hand", required_argument, NULL, O_HAND},
        {"client-seed", required_argument, NULL, O_CLIENT},
        {"commitment", required_argument, NULL, O_COMMIT},
        {"log", required_argument, NULL, O_LOG},
        {"my-hands", required_argument, NULL, O_MINE},
        {"void", no_argument, NULL, O_VOID},
        {"record", required_argument, NULL, O_RECORD},
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"decks", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    vrf_args a = {0};
    a.format = "text";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "g:p:d:f:", opts, NULL)) != -1) {
        switch (c) {
        case O_KEY: a.key_file = optarg; break;
        case O_ALPHA: a.alpha = optarg; break;
        case O_PK: a.pk = optarg; break;
        case O_PI: a.pi = optarg; break;
        case O_TABLE: a.table = optarg; break;
        case O_HAND: a.hand = optarg; break;
        case O_CLIENT:
        case O_COMMIT:
            if (a.nseeds + a.ncommits == FS_VRF_SEATS_MAX)
                cli_die(CLI_USAGE, "fair: at most %d client seeds or "
                        "commitments", FS_VRF_SEATS_MAX);
            if (c == O_CLIENT)
                a.seeds[a.nseeds++] = optarg;
            else
                a.commits[a.ncommits++] = optarg;
            break;
        case O_LOG: a.log = optarg; break;
        case O_MINE: a.my_hands = optarg; break;
        case O_VOID: a.is_void = 1; break;
        case O_RECORD: a.record = optarg; break;
        case 'g': a.game = optarg; break;
        case 'p':
        case 'd':
            *(c == 'p' ? &a.players : &a.decks) = fair_small_u(
                c == 'p' ? "number of players" : "number of decks", optarg);
            break;
        case 'f': a.format = optarg; break;
        case 'h': cli_help("fair-vrf", usage_text);
        case 'V': cli_version("fair");
        default: cli_try_help("fair-vrf", CLI_USAGE);
        }
    }
    const char *action = fair_action(argc, argv, "fair-vrf",
                                     "vrf-keygen, vrf-prove, vrf-verify, "
                                     "vrf-table, vrf-deal or check "
                                     "--public-key");
    fs_dealer *d = malloc(sizeof *d);
    fs_deal *deal = malloc(sizeof *deal);
    if (d == NULL || deal == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int rc;
    if (strcmp(action, "vrf-keygen") == 0)
        rc = do_keygen(&a);
    else if (strcmp(action, "vrf-prove") == 0)
        rc = do_prove(&a);
    else if (strcmp(action, "vrf-verify") == 0)
        rc = do_verify(&a);
    else if (strcmp(action, "vrf-table") == 0)
        rc = do_table(&a, d);
    else if (strcmp(action, "vrf-deal") == 0)
        rc = do_deal(&a, d, deal);
    else if (strcmp(action, "check") == 0 && a.pk)
        rc = do_check(&a);
    else {
        cli_error("fair: unknown action '%s' with these options (vrf-keygen, "
                  "vrf-prove, vrf-verify, vrf-table, vrf-deal, or check "
                  "--public-key)", action);
        cli_try_help("fair-vrf", CLI_USAGE);
    }
    free(d);
    free(deal);
    return rc;
}
