/* attack.c -- `fairshuf attack`: the 1999 online poker attack (post 003).
 * Given five cards and where they sit in the shoe, find the Delphi seed
 * (milliseconds since midnight) of ASF Software's shuffle and print every
 * other hand, the turn and the river.  The search is the library's. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "deal_out.h"
#include "progress.h"

static const char usage_text[] =
    "Usage: fairshuf attack --known=POS:CARD,... [OPTION]...\n"
    "  or:  fairshuf attack --seat=S --hole=C,C --flop=C,C,C [OPTION]...\n"
    "Reproduce the 1999 attack on ASF Software's Texas hold'em shuffle: from\n"
    "five known cards, find the seed (milliseconds since midnight) of the\n"
    "Delphi generator, then print everyone's cards, the turn and the river.\n"
    "\n"
    "  -k, --known=LIST     POS:CARD pairs, POS the 1-based position in the\n"
    "                       shoe (1 = the first card dealt), CARD a code such\n"
    "                       as As, Td, 9c\n"
    "      --seat=S         your seat (1-based) ...\n"
    "      --hole=C,C       ... your two hole cards ...\n"
    "      --flop=C,C,C     ... and the flop: positions follow from the deal\n"
    "  -p, --players=N      players at the table (default 6)\n"
    "  -w, --window=A-B     search seeds A..B only (default 0-86399999: a day)\n"
    "  -j, --threads=N      search threads (default: one per CPU; -j as in\n"
    "                       bench and make)\n"
    "  -f, --format=F       text (default) or json\n"
    "      --progress       progress on stderr even when not a terminal\n"
    "      --no-progress    no progress line (default: on a terminal)\n"
    "      --help           display this help and exit\n"
    "      --version        output version information and exit\n"
    "\n"
    "Exit status: 0 if a seed was found, 1 if none (or on error).\n"
    "Example:\n"
    "  fairshuf deal --game=holdem --rng=delphi --algorithm=asf-1999 "
    "--seed=45296789\n"
    "  fairshuf attack --seat=1 --hole=2h,8d --flop=7h,Qs,Qc\n";

enum { OPT_SEAT = 256, OPT_HOLE, OPT_FLOP, OPT_PROGRESS, OPT_NO_PROGRESS };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* "POS:CARD,POS:CARD..." into known[], positions made 0-based. */
static size_t parse_known(const char *s, fs_known_card *known, size_t cap,
                          size_t k)
{
    char *copy = strdup(s);
    if (copy == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        size_t plen = strcspn(tok, ":");
        if (tok[plen] != ':')
            cli_die(CLI_USAGE, "invalid known card '%s': expected "
                              "POS:CARD", tok);
        tok[plen] = '\0';
        const char *code = tok + plen + 1;
        uint64_t pos;
        if (cli_parse_u64(tok, &pos) != 0 || pos < 1 || pos > 52)
            cli_die(CLI_USAGE, "invalid position '%s': 1 to 52", tok);
        fs_card c;
        if (fs_card_parse(code, strlen(code), 0, &c) != FS_OK || c >= 52)
            cli_die(CLI_USAGE, "malformed card code '%s'", code);
        if (k == cap)
            cli_die(CLI_USAGE, "too many known cards");
        known[k].pos = (unsigned)(pos - 1);
        known[k].card = c;
        k++;
    }
    free(copy);
    return k;
}

/* Cards of one part (by key, or a seat's hand) into known[]. */
static size_t add_part(const fs_dealer *d, const char *what, const char *list,
                       size_t part, fs_known_card *known, size_t k)
{
    fs_card c[8];
    size_t n = deal_parse_cards("attack", list, 0, c, 8);
    if (n != d->layout.part[part].count)
        cli_die(CLI_USAGE, "--%s needs %zu cards, got %zu", what,
                d->layout.part[part].count, n);
    for (size_t i = 0; i < n; i++) {
        if (c[i] >= 52)
            cli_die(CLI_USAGE, "malformed card code: not a card of a "
                              "52-card deck");
        known[k].pos = (unsigned)fs_dealer_position(d, part, i);
        known[k].card = c[i];
        k++;
    }
    return k;
}

static void parse_window(const char *s, uint32_t *a, uint32_t *b)
{
    size_t dl = strcspn(s, "-");
    uint64_t x, y;
    char left[32];
    if (s[dl] != '-' || dl >= sizeof left)
        cli_die(CLI_USAGE, "invalid window '%s': expected FROM-TO", s);
    else {
        memcpy(left, s, dl);
        left[dl] = '\0';
    }
    const char *right = s + dl + 1;
    if (cli_parse_u64(left, &x) != 0 || cli_parse_u64(right, &y) != 0 ||
        x > y || y > UINT32_MAX)
        cli_die(CLI_USAGE, "invalid window '%s': expected FROM-TO, "
                          "FROM <= TO < 2^32", s);
    *a = (uint32_t)x;
    *b = (uint32_t)y;
}

/* What the command line asked for, and the search it plans. */
typedef struct attack_job {
    const char *known_s, *hole, *flop;
    enum deal_format format;
    uint64_t seat, players, threads;
    int progress; /* -1 on a terminal, 0 never, 1 always */
    uint32_t first, last;
    fs_known_card known[52];
    size_t nknown;
} attack_job;

static void parse(attack_job *j, int argc, char **argv)
{
    static const struct option opts[] = {
        {"known", required_argument, NULL, 'k'},
        {"seat", required_argument, NULL, OPT_SEAT},
        {"hole", required_argument, NULL, OPT_HOLE},
        {"flop", required_argument, NULL, OPT_FLOP},
        {"players", required_argument, NULL, 'p'},
        {"window", required_argument, NULL, 'w'},
        {"threads", required_argument, NULL, 'j'},
        {"format", required_argument, NULL, 'f'},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *format = "text";
    memset(j, 0, sizeof *j);
    j->players = 6;
    j->progress = -1;
    j->last = FS_ASF_SEEDS_PER_DAY - 1;
    int c;
    while ((c = getopt_long(argc, argv, "k:p:w:j:f:", opts, NULL)) != -1) {
        switch (c) {
        case 'k': j->known_s = optarg; break;
        case OPT_SEAT: j->seat = cli_u64_or_die("seat", optarg); break;
        case OPT_HOLE: j->hole = optarg; break;
        case OPT_FLOP: j->flop = optarg; break;
        case 'p':
            j->players = cli_u64_or_die("number of players", optarg);
            break;
        case 'w': parse_window(optarg, &j->first, &j->last); break;
        case 'j': j->threads = cli_threads_or_die(optarg, 64); break;
        case 'f': format = optarg; break;
        case OPT_PROGRESS: j->progress = 1; break;
        case OPT_NO_PROGRESS: j->progress = 0; break;
        case 'h': cli_help("attack", usage_text);
        case 'V': cli_version("attack");
        default: cli_bad_option("attack");
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("attack", CLI_USAGE);
    }
    j->format = deal_format_parse("attack", format);
    if (j->format == DEAL_TSV || j->format == DEAL_JSONL)
        cli_die(CLI_USAGE, "invalid format: '%s' (text or json)", format);
}

/* The known cards, with shoe positions from --known or from the seat. */
static void plan(attack_job *j, const fs_dealer *d)
{
    if (j->known_s)
        j->nknown = parse_known(j->known_s, j->known, 52, j->nknown);
    if (j->hole || j->flop || j->seat) {
        if (!j->hole || !j->flop || !j->seat)
            cli_die(CLI_USAGE, "--seat, --hole and --flop go together");
        if (j->seat > d->players)
            cli_die(CLI_USAGE, "seat %llu: only %u players",
                    (unsigned long long)j->seat, d->players);
        j->nknown = add_part(d, "hole", j->hole, (size_t)j->seat - 1,
                             j->known, j->nknown);
        j->nknown = add_part(d, "flop", j->flop, d->players, j->known,
                             j->nknown);
    }
    if (j->nknown == 0) {
        cli_error("no known cards (--known, or --seat/--hole/--flop)");
        cli_try_help("attack", CLI_USAGE);
    }
}

/* The seeds found (at most 16 kept) and what the search took. */
static void report(const attack_job *j, fs_dealer *d, fs_deal *deal,
                   const uint32_t *found, uint64_t nfound, double secs)
{
    enum deal_format f = j->format;
    uint64_t searched = (uint64_t)j->last - j->first + 1;
    /* What the same search would face against the default generator: its
     * key space, since a shuffled 52-card deck (2^225.6 orders) is one of
     * 2^256 keystreams. */
    const unsigned space_bits = fs_rng_find("chacha20")->seed_bits;

    static out_buf out_store; /* 64 KiB: not on the stack */
    out_buf *out = &out_store;
    out_init(out, stdout);
    char line[512];
    if (f == DEAL_JSON) {
        snprintf(line, sizeof line,
                 "{\"first\":%u,\"last\":%u,\"searched\":%llu,\"seconds\":%.3f,"
                 "\"matches\":%llu,\"seeds\":[",
                 j->first, j->last, (unsigned long long)searched, secs,
                 (unsigned long long)nfound);
        out_str(out, line);
        for (uint64_t i = 0; i < nfound && i < 16; i++) {
            if (i)
                out_byte(out, ',');
            out_u64(out, found[i]);
        }
        out_str(out, "],\"deals\":[");
    } else {
        snprintf(line, sizeof line,
                 "searched seeds %u..%u (%llu seeds, %zu known cards) in "
                 "%.3f s\n",
                 j->first, j->last, (unsigned long long)searched, j->nknown,
                 secs);
        out_str(out, line);
    }
    for (uint64_t i = 0; i < nfound && i < 16; i++) {
        fs_card shoe[52];
        cli_check(fs_asf_shoe(found[i], shoe), "attack");
        fs_dealer_layout(d, shoe, deal);
        if (f == DEAL_JSON) {
            deal_print(out, d, deal, f, FS_LANG_EN, i, 1);
            continue;
        }
        uint32_t ms = found[i] % FS_ASF_SEEDS_PER_DAY;
        snprintf(line, sizeof line,
                 "seed %u (%02u:%02u:%02u.%03u after midnight)%s\n", found[i],
                 ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000,
                 nfound > 1 ? ": one of several candidates; check a further "
                              "card"
                            : "");
        out_str(out, line);
        deal_print(out, d, deal, f, FS_LANG_EN, 0, 1);
    }
    if (f == DEAL_JSON) {
        snprintf(line, sizeof line, "],\"default_generator_space_bits\":%u}\n",
                 space_bits);
        out_str(out, line);
    } else if (nfound == 0) {
        snprintf(line, sizeof line,
                 "no seed found: these cards did not come from the 1999 ASF "
                 "shuffle with a seed in %u..%u.\n"
                 "Against fairshuf's default generator the space to search "
                 "is 2^%u keys (chacha20),\n"
                 "not %llu seeds: at 10^9 keys a second that is about "
                 "3.7e60 years.\n",
                 j->first, j->last, space_bits, (unsigned long long)searched);
        out_str(out, line);
    } else if (nfound > 16) {
        snprintf(line, sizeof line, "... %llu matching seeds in all\n",
                 (unsigned long long)nfound);
        out_str(out, line);
    }
    out_flush(out);
}

/* The library's progress callback, drawn by the shared reporter. */
static void show_progress(void *ctx, uint64_t done, uint64_t total)
{
    cli_progress_show(ctx, "attack", done, total, "seeds");
}

int cmd_attack(int argc, char **argv)
{
    attack_job j;
    parse(&j, argc, argv);
    fs_dealer *d = malloc(sizeof *d);
    fs_deal *deal = malloc(sizeof *deal);
    if (d == NULL || deal == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    const fs_game *g = fs_game_find("holdem");
    deal_setup("attack", d, g, j.players > 1000 ? 1000 : (unsigned)j.players,
               0, FS_ALG_ASF_1999);
    plan(&j, d);
    /* run: the library's search */
    uint32_t found[16];
    uint64_t nfound;
    cli_progress bar;
    cli_progress_init(&bar, j.progress);
    double t0 = now();
    int rc = fs_attack_asf_progress(j.known, j.nknown, j.first, j.last,
                                    (unsigned)j.threads, found, 16, &nfound,
                                    bar.on ? show_progress : NULL, &bar);
    double secs = now() - t0;
    cli_progress_end(&bar);
    if (rc == FS_EINVAL)
        cli_die(CLI_USAGE, "known cards repeat a position or a card");
    cli_check(rc, "attack");
    report(&j, d, deal, found, nfound, secs);
    free(deal);
    free(d);
    return nfound ? CLI_OK : CLI_FAIL;
}
