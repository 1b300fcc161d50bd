/* deal_shoe.c -- `fairshuf deal --hands=5,5,13`: post 004's dealer, hands
 * dealt one after another from one shuffled shoe (the library's fs_shoe),
 * with what is left shown on request (--show-rest). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "deal_out.h"
#include "json.h"

size_t deal_parse_hands(const char *s, size_t *sizes, size_t cap)
{
    size_t k = 0;
    const char *p = s;
    while (1) {
        size_t len = strcspn(p, ",");
        char tok[24];
        uint64_t v;
        if (len == 0 || len >= sizeof tok)
            cli_die(CLI_USAGE, "invalid hands: '%s': sizes such as 5,5,13", s);
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (cli_parse_u64(tok, &v) != 0 || v == 0 || v > FS_DEAL_MAX_CARDS)
            cli_die(CLI_USAGE, "invalid hands: '%s': each size 1 to %u", s,
                    FS_DEAL_MAX_CARDS);
        if (k == cap)
            cli_die(CLI_USAGE, "invalid hands: '%s': at most %zu hands", s,
                    cap);
        sizes[k++] = (size_t)v;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    return k;
}

void deal_shoe_check(const fs_game *g, unsigned decks, const size_t *sizes,
                     size_t nhands)
{
    unsigned k = decks ? decks : g->decks;
    size_t have = fs_deck_size(g->deck) * k, need = 0;
    if (have > FS_DEAL_MAX_CARDS)
        cli_die(CLI_USAGE, "%s: %u decks: at most %u cards per shoe",
                g->name, k, FS_DEAL_MAX_CARDS);
    for (size_t h = 0; h < nhands; h++)
        need += sizes[h];
    if (need > have)
        cli_die(CLI_USAGE, "%s: not enough cards: the hands need %zu, the "
                           "shoe holds %zu",
                g->name, need, have);
}

static void put_cards(out_buf *o, const fs_card *c, size_t n, fs_lang lang,
                      enum deal_format f)
{
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        if (f == DEAL_TSV || f == DEAL_JSONL || f == DEAL_JSON) {
            char code[3];
            if (fs_card_code(c[i], code) != FS_OK)
                strcpy(code, "??");
            if (f == DEAL_TSV) {
                if (i)
                    out_byte(o, ' ');
                out_bytes(o, code, 2);
            } else {
                if (i)
                    out_byte(o, ',');
                out_byte(o, '"');
                out_bytes(o, code, 2);
                out_byte(o, '"');
            }
        } else if (fs_card_name(c[i], lang, buf, sizeof buf) > 0) {
            out_byte(o, ' ');
            out_str(o, buf);
        }
    }
}

void deal_shoe(out_buf *o, const fs_game *g, unsigned decks, fs_algorithm alg,
               fs_rng *rng, const size_t *sizes, size_t nhands, int show_rest,
               enum deal_format f, fs_lang lang, uint64_t index,
               uint64_t count)
{
    fs_shoe shoe;
    cli_check(fs_shoe_init(&shoe, g->deck, decks ? decks : g->decks), "shoe");
    out_check(o, fs_shoe_shuffle(&shoe, alg, rng), "shuffle");
    int zh = lang == FS_LANG_ZH;
    char line[96];
    if (f == DEAL_TEXT && count > 1) {
        if (index)
            out_byte(o, '\n');
        snprintf(line, sizeof line, zh ? "第%llu局\n" : "Deal %llu\n",
                 (unsigned long long)index + 1);
        out_str(o, line);
    }
    if (f == DEAL_JSON && index)
        out_str(o, ",\n");
    if (f == DEAL_JSON || f == DEAL_JSONL) {
        out_str(o, "{\"game\":");
        deal_json_string(o, g->name);
        out_str(o, ",\"decks\":");
        out_u64(o, decks ? decks : g->decks);
        out_str(o, ",\"hands\":[");
    }
    fs_card hand[FS_DEAL_MAX_CARDS];
    for (size_t h = 0; h < nhands; h++) {
        cli_check(fs_shoe_deal(&shoe, hand, sizes[h]), "deal");
        fs_cards_sort(hand, sizes[h], g->order);
        if (f == DEAL_TEXT) {
            snprintf(line, sizeof line, zh ? "  第%zu手：" : "  Hand %zu:",
                     h + 1);
            out_str(o, line);
        } else if (f == DEAL_TSV) {
            if (h)
                out_byte(o, '\t');
        } else {
            out_str(o, h ? ",[" : "[");
        }
        put_cards(o, hand, sizes[h], lang, f);
        if (f == DEAL_TEXT)
            out_byte(o, '\n');
        else if (f != DEAL_TSV)
            out_byte(o, ']');
    }
    size_t left = fs_shoe_left(&shoe);
    if (f == DEAL_JSON || f == DEAL_JSONL)
        out_str(o, "]");
    if (show_rest) {
        const fs_card *rest = fs_shoe_peek(&shoe); /* in shoe order */
        if (f == DEAL_TEXT) {
            snprintf(line, sizeof line,
                     zh ? "  剩余%zu张：" : "  Rest (%zu, top first):", left);
            out_str(o, line);
            put_cards(o, rest, left, lang, f);
            out_byte(o, '\n');
        } else if (f == DEAL_TSV) {
            out_byte(o, '\t');
            put_cards(o, rest, left, lang, f);
        } else {
            out_str(o, ",\"rest\":[");
            put_cards(o, rest, left, lang, f);
            out_byte(o, ']');
        }
    }
    if (f == DEAL_JSON || f == DEAL_JSONL)
        out_str(o, f == DEAL_JSONL ? "}\n" : "}");
    else if (f == DEAL_TSV)
        out_byte(o, '\n');
    fs_shoe_free(&shoe);
}
