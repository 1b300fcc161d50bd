/* deal.c -- `fairshuf deal`: shuffle and deal card games. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "deal_out.h"
#include "progress.h"

static const char usage_text[] =
    "Usage: fairshuf deal [OPTION]...\n"
    "Shuffle and deal a card game: each hand labelled and sorted (text), or\n"
    "one deal per line (tsv), or JSON.\n"
    "\n"
    "  -g, --game=G         doudizhu (default), holdem, poker5, bridge,\n"
    "                       shengji, mahjong, blackjack; 'list' describes them\n"
    "  -p, --players=N      players (default: the game's)\n"
    "  -d, --decks=N        decks in the shoe (default: the game's)\n"
    "  -c, --count=K        deal K independent deals (default 1)\n"
    "  -G, --rng=NAME       generator (default chacha20); 'list' shows all\n"
    "  -s, --seed=S         reproducible deals: the same S gives the same deals\n"
    "  -a, --algorithm=A    shuffle (default auto); 'list' shows all\n"
    "  -f, --format=F       text (default), tsv, json (one array, written\n"
    "                       when every deal is made) or jsonl (JSON Lines:\n"
    "                       one object per deal, streams)\n"
    "  -l, --lang=L         en (default) or zh: names in text output\n"
    "      --hands=LIST     shoe mode: deal hands of these sizes one after\n"
    "                       another from one shuffled shoe (5,5,13)\n"
    "      --show-rest      shoe mode: also print the cards left, in order\n"
    "      --progress       progress on stderr even when not a terminal\n"
    "      --no-progress    no progress line (default: on a terminal)\n"
    "      --help           display this help and exit\n"
    "      --version        output version information and exit\n"
    "\n"
    "TSV fields: one per hand, then the kitty, board, wall or shoe; cards as\n"
    "codes in deal order: rank A23456789TJQK + suit shdc (As Td 9c), jokers\n"
    "BJ (small) and RJ (big), tiles 1m..9m 1p..9p 1s..9s 1z..7z 1f..8f.\n"
    "A warning goes to stderr when the generator cannot reach every deal or\n"
    "the algorithm is not uniform over all deals.\n"
    "Exit status: 0 success, 1 failure, 2 usage error.\n"
    "Examples:\n"
    "  fairshuf deal\n"
    "  fairshuf deal --game=holdem --players=4 --lang=zh\n"
    "  fairshuf deal --game=doudizhu --count=1000000 --format=tsv --seed=x\n"
    "  fairshuf deal --game=poker5 --count=3 --format=jsonl\n"
    "  fairshuf deal --game=poker5 --hands=5,5,13 --show-rest\n"
    "  fairshuf deal --game=doudizhu --decks=2 --hands=17,17,17,3 --show-rest\n"
    "  fairshuf deal --game=holdem --rng=delphi --algorithm=asf-1999 "
    "--seed=45296789\n";

static unsigned small_u(const char *what, const char *s)
{
    uint64_t v = cli_u64_or_die(what, s);
    if (v == 0 || v > 1000)
        cli_die(CLI_USAGE, "invalid %s: '%s': must be 1 to 1000", what, s);
    return (unsigned)v;
}

int cmd_deal(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"decks", required_argument, NULL, 'd'},
        {"count", required_argument, NULL, 'c'},
        {"rng", required_argument, NULL, 'G'},
        {"seed", required_argument, NULL, 's'},
        {"algorithm", required_argument, NULL, 'a'},
        {"format", required_argument, NULL, 'f'},
        {"lang", required_argument, NULL, 'l'},
        {"hands", required_argument, NULL, 'H'},
        {"show-rest", no_argument, NULL, 'S'},
        {"progress", no_argument, NULL, 'P'},
        {"no-progress", no_argument, NULL, 'Q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *game = "doudizhu", *rng_name = NULL, *seed = NULL;
    const char *alg_name = "auto", *format = "text", *lang = "en";
    unsigned players = 0, decks = 0;
    uint64_t count = 1;
    int c, progress = -1, show_rest = 0;
    size_t sizes[64], nhands = 0;
    while ((c = getopt_long(argc, argv, "g:p:d:c:G:s:a:f:l:", opts, NULL)) !=
           -1) {
        switch (c) {
        case 'g': game = optarg; break;
        case 'p': players = small_u("number of players", optarg); break;
        case 'd': decks = small_u("number of decks", optarg); break;
        case 'c': count = cli_u64_or_die("count", optarg); break;
        case 'G': rng_name = optarg; break;
        case 's': seed = optarg; break;
        case 'a': alg_name = optarg; break;
        case 'f': format = optarg; break;
        case 'l': lang = optarg; break;
        case 'H': nhands = deal_parse_hands(optarg, sizes, 64); break;
        case 'S': show_rest = 1; break;
        case 'P': progress = 1; break;
        case 'Q': progress = 0; break;
        case 'h': cli_help("deal", usage_text);
        case 'V': cli_version("deal");
        default: cli_bad_option("deal");
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("deal", CLI_USAGE);
    }
    enum deal_format f = deal_format_parse("deal", format);
    fs_lang l = deal_lang_parse("deal", lang);
    fs_algorithm alg = cli_algorithm(alg_name);
    const fs_game *g = deal_game("deal", game);
    fs_dealer *d = malloc(sizeof *d);
    fs_deal *deal = malloc(sizeof *deal);
    if (d == NULL || deal == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_entropy e;
    fs_rng *rng;
    if (nhands) { /* shoe mode: the game gives its deck, not its layout */
        if (players)
            cli_die(CLI_USAGE, "--players does not apply to --hands (the "
                               "hands are LIST, dealt from one shoe)");
        deal_shoe_check(g, decks, sizes, nhands);
        rng = cli_rng(rng_name, seed);
        fs_shoe_entropy(fs_deck_size(g->deck) * (decks ? decks : g->decks),
                        sizes, nhands, show_rest, fs_rng_info_of(rng), &e);
    } else {
        deal_setup("deal", d, g, players, decks, alg);
        rng = cli_rng(rng_name, seed);
        fs_deal_entropy(d, fs_rng_info_of(rng), &e);
    }
    char warning[256];
    if (fs_entropy_warning(&e, g->name, fs_rng_info_of(rng)->name, warning,
                           sizeof warning) > 0)
        cli_error("warning: %s", warning);
    /* The library's metadata says which algorithms are uniform over every
     * order: a negative control is not, nor is sattolo (single cycles). */
    const fs_algorithm_info *ai = fs_algorithm_find(alg_name);
    int uniform = ai->fair && !ai->cyclic;
    const fs_rng_info *ri = fs_rng_info_of(rng);
    if (ri->legacy || !uniform)
        cli_error("warning: %s%s%s: %s, for demonstrations only",
                  ri->legacy ? ri->name : "",
                  ri->legacy && !uniform ? " with " : "",
                  uniform ? "" : alg_name,
                  !uniform && ai->fair ? "not uniform over all deals"
                                       : "a known-bad choice");

    static out_buf out_store; /* 64 KiB: not on the stack */
    out_buf *out = &out_store;
    /* One JSON document is held until every deal is made: a generator
     * that fails in mid-run leaves no unclosed array on stdout (the other
     * formats stream whole records). */
    char *doc = NULL;
    size_t doc_len = 0;
    FILE *held = f == DEAL_JSON ? open_memstream(&doc, &doc_len) : stdout;
    if (held == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    out_init(out, held);
    cli_progress bar;
    cli_progress_init(&bar, progress);
    if (f == DEAL_JSON)
        deal_json_begin(out);
    for (uint64_t k = 0; k < count; k++) {
        if (nhands) {
            deal_shoe(out, g, decks, alg, rng, sizes, nhands, show_rest, f, l,
                      k, count);
        } else {
            out_check(out, fs_dealer_deal(d, rng, deal), "deal");
            deal_print(out, d, deal, f, l, k, count);
        }
        if ((k & 0x3ff) == 0)
            cli_progress_show(&bar, "deal", k, count, "deals");
    }
    cli_progress_end(&bar);
    if (f == DEAL_JSON)
        deal_json_end(out);
    out_flush(out);
    if (held != stdout) {
        if (fclose(held) != 0)
            cli_die(CLI_FAIL, "memory exhausted");
        fwrite(doc, 1, doc_len, stdout);
        free(doc);
    }
    free(deal);
    free(d);
    fs_rng_free(rng);
    return CLI_OK;
}
