/* deal_out.c -- printing deals and reading card codes for the CLI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "deal_out.h"
#include "json.h"

enum deal_format deal_format_parse(const char *sub, const char *s)
{
    if (strcmp(s, "text") == 0)
        return DEAL_TEXT;
    if (strcmp(s, "tsv") == 0)
        return DEAL_TSV;
    if (strcmp(s, "json") == 0)
        return DEAL_JSON;
    if (strcmp(s, "jsonl") == 0)
        return DEAL_JSONL;
    cli_error("invalid format: '%s' (text, tsv, json or jsonl)", s);
    cli_try_help(sub, CLI_USAGE);
}

fs_lang deal_lang_parse(const char *sub, const char *s)
{
    if (strcmp(s, "en") == 0)
        return FS_LANG_EN;
    if (strcmp(s, "zh") == 0)
        return FS_LANG_ZH;
    cli_error("invalid language: '%s' (en or zh)", s);
    cli_try_help(sub, CLI_USAGE);
}

const fs_game *deal_game(const char *sub, const char *name)
{
    (void)sub; /* messages read "fairshuf: what: why", as everywhere */
    size_t n;
    const fs_game *games = fs_game_list(&n);
    if (strcmp(name, "list") == 0) {
        for (size_t i = 0; i < n; i++)
            printf("%-10s %s\n", games[i].name, games[i].description);
        exit(CLI_OK);
    }
    const fs_game *g = fs_game_find(name);
    if (g == NULL)
        cli_die(CLI_USAGE, "unknown game: '%s' (--game=list shows the "
                           "games)", name);
    return g;
}

void deal_setup(const char *sub, fs_dealer *d, const fs_game *g,
                unsigned players, unsigned decks, fs_algorithm alg)
{
    unsigned p = players ? players : g->players;
    if (p < g->min_players || p > g->max_players) {
        if (g->min_players == g->max_players)
            cli_die(CLI_USAGE, "%s: %u players: the game takes exactly %u",
                    g->name, p, g->min_players);
        cli_die(CLI_USAGE, "%s: %u players: the game takes %u to %u",
                g->name, p, g->min_players, g->max_players);
    }
    int rc = fs_dealer_init(d, g, players, decks, alg);
    if (rc == FS_ERANGE) {
        unsigned k = decks ? decks : g->decks;
        size_t seats = p + (g->dealer_hand ? 1u : 0u);
        size_t need = seats * g->hand;
        for (unsigned e = 0; e < g->nextra; e++)
            need += g->extra[e].burn + g->extra[e].count;
        size_t have = fs_deck_size(g->deck) * k;
        if (have > FS_DEAL_MAX_CARDS)
            cli_die(CLI_USAGE, "%s: %u decks: at most %u cards per shoe",
                    g->name, k, FS_DEAL_MAX_CARDS);
        cli_die(CLI_USAGE,
                "%s: not enough cards: %u players need %zu, %u deck%s "
                "hold%s %zu",
                g->name, p, need, k, k == 1 ? "" : "s", k == 1 ? "s" : "",
                have);
    }
    cli_check(rc, sub);
}

/* Two-character codes of every card value, built once. */
static char codes[FS_TILE_END][3];

static const char *code_of(fs_card c)
{
    if (codes[0][0] == 0)
        for (fs_card v = 0; v < FS_TILE_END; v++)
            if (fs_card_code(v, codes[v]) != FS_OK)
                codes[v][0] = '?';
    return c < FS_TILE_END ? codes[c] : "??";
}

static void put_u64(out_buf *o, uint64_t v)
{
    out_u64(o, v);
}

static void put_out(void *ctx, const char *p, size_t n)
{
    out_bytes((out_buf *)ctx, p, n);
}

void deal_json_string(out_buf *o, const char *s)
{
    json_string_to(put_out, o, s);
}

static void print_text(out_buf *o, const fs_dealer *d, const fs_deal *deal,
                       fs_lang lang, uint64_t index, uint64_t count)
{
    int zh = lang == FS_LANG_ZH;
    char buf[64];
    if (count > 1) {
        if (index)
            out_byte(o, '\n');
        snprintf(buf, sizeof buf, zh ? "第%llu局\n" : "Deal %llu\n",
                 (unsigned long long)index + 1);
        out_str(o, buf);
    }
    for (size_t p = 0; p < deal->nparts; p++) {
        const fs_deal_part *part = &deal->part[p];
        out_str(o, "  ");
        out_str(o, zh ? part->zh : part->en);
        if (part->seat >= 0 && (unsigned)part->seat < d->players) {
            snprintf(buf, sizeof buf, " %d", part->seat + 1);
            out_str(o, zh ? buf + 1 : buf);
        }
        out_str(o, zh ? "：" : ":");
        fs_card hand[FS_DEAL_MAX_CARDS];
        memcpy(hand, deal->cards + part->offset, part->count * sizeof *hand);
        if (!part->ordered)
            fs_cards_sort(hand, part->count, d->game->order);
        for (size_t i = 0; i < part->count; i++) {
            out_byte(o, ' ');
            if (fs_card_name(hand[i], lang, buf, sizeof buf) > 0)
                out_str(o, buf);
        }
        if (part->ordered && deal->cut && p + 1 == deal->nparts) {
            snprintf(buf, sizeof buf,
                     zh ? "（切牌卡在第%zu张之后）" : " (cut card after %zu)",
                     deal->cut);
            out_str(o, buf);
        }
        out_byte(o, '\n');
    }
}

/* The one TSV writer is the library's: a provably-fair log holds the same
 * text. */
static void print_tsv(out_buf *o, const fs_deal *deal)
{
    static char buf[FS_FAIR_TSV_MAX + 1];
    int n = fs_fair_deal_tsv(deal, NULL, buf, sizeof buf);
    if (n > 0)
        out_bytes(o, buf, (size_t)n);
    out_byte(o, '\n');
}

static void json_cards(out_buf *o, const fs_card *c, size_t n)
{
    out_byte(o, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            out_byte(o, ',');
        out_byte(o, '"');
        out_bytes(o, code_of(c[i]), 2);
        out_byte(o, '"');
    }
    out_byte(o, ']');
}

static void print_json(out_buf *o, const fs_dealer *d, const fs_deal *deal,
                       uint64_t index)
{
    if (index)
        out_str(o, ",\n");
    out_str(o, "{\"game\":");
    deal_json_string(o, d->game->name);
    out_str(o, ",\"players\":");
    put_u64(o, d->players);
    out_str(o, ",\"decks\":");
    put_u64(o, d->decks);
    out_str(o, ",\"hands\":[");
    size_t p = 0;
    for (; p < deal->nparts && deal->part[p].seat >= 0 &&
           (unsigned)deal->part[p].seat < d->players;
         p++) {
        if (p)
            out_byte(o, ',');
        json_cards(o, deal->cards + deal->part[p].offset, deal->part[p].count);
    }
    out_byte(o, ']');
    for (; p < deal->nparts; p++) {
        out_byte(o, ',');
        deal_json_string(o, deal->part[p].key);
        out_byte(o, ':');
        json_cards(o, deal->cards + deal->part[p].offset, deal->part[p].count);
    }
    if (deal->cut) {
        out_str(o, ",\"cut\":");
        put_u64(o, deal->cut);
    }
    out_byte(o, '}');
}

void deal_print(out_buf *o, const fs_dealer *d, const fs_deal *deal,
                enum deal_format f, fs_lang lang, uint64_t index,
                uint64_t count)
{
    switch (f) {
    case DEAL_TEXT: print_text(o, d, deal, lang, index, count); break;
    case DEAL_TSV: print_tsv(o, deal); break;
    case DEAL_JSON: print_json(o, d, deal, index); break;
    case DEAL_JSONL:
        print_json(o, d, deal, 0);
        out_byte(o, '\n');
        break;
    }
}

void deal_json_begin(out_buf *o)
{
    out_str(o, "[\n");
}

void deal_json_end(out_buf *o)
{
    out_str(o, "\n]\n");
}

size_t deal_parse_cards(const char *sub, const char *s, int tiles,
                        fs_card *cards, size_t cap)
{
    (void)sub;
    size_t n = 0;
    const char *sep = " \t\r\n,";
    while (*s) {
        s += strspn(s, sep);
        if (*s == '\0')
            break;
        size_t len = strcspn(s, sep);
        fs_card c;
        if (fs_card_parse(s, len, tiles, &c) != FS_OK)
            cli_die(CLI_FAIL, "malformed card code '%.*s'",
                    (int)(len > 16 ? 16 : len), s);
        if (n == cap)
            cli_die(CLI_FAIL, "too many cards (more than %zu)", cap);
        cards[n++] = c;
        s += len;
    }
    return n;
}
