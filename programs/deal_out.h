/* deal_out.h -- what `deal`, `fair` and `attack` share: choosing a game,
 * setting a dealer up with clear messages, printing deals as text, TSV or
 * JSON, and reading card codes. */
#ifndef FS_DEAL_OUT_H
#define FS_DEAL_OUT_H

#include "fairshuf/cards.h"
#include "out.h"

enum deal_format { DEAL_TEXT, DEAL_TSV, DEAL_JSON, DEAL_JSONL };

/* Parses --format / --lang values or dies (usage error). */
enum deal_format deal_format_parse(const char *sub, const char *s);
fs_lang deal_lang_parse(const char *sub, const char *s);

/* The game by name, or dies; "list" prints the games and exits 0. */
const fs_game *deal_game(const char *sub, const char *name);

/* fs_dealer_init or dies naming the problem (players out of range, not
 * enough cards in the decks). */
void deal_setup(const char *sub, fs_dealer *d, const fs_game *g,
                unsigned players, unsigned decks, fs_algorithm alg);

/* Prints one deal.  index/count number the text blocks ("Deal 3");
 * JSON deals are array elements: the caller prints "[" and "]" through
 * deal_json_begin / deal_json_end, and index > 0 adds the comma; JSONL
 * deals are one object per line. */
void deal_print(out_buf *o, const fs_dealer *d, const fs_deal *deal,
                enum deal_format f, fs_lang lang, uint64_t index,
                uint64_t count);
void deal_json_begin(out_buf *o);
void deal_json_end(out_buf *o);

/* deal_shoe.c: "5,5,13" into sizes (at most cap) or dies (usage). */
size_t deal_parse_hands(const char *s, size_t *sizes, size_t cap);
/* Dies (usage) unless the shoe (decks 0: the game's) holds at most
 * FS_DEAL_MAX_CARDS cards and enough for the hands.  Shoe mode checks no
 * more: the game's layout (players, kitty, ...) does not apply. */
void deal_shoe_check(const fs_game *g, unsigned decks, const size_t *sizes,
                     size_t nhands);
/* Shuffles one shoe of the game's deck (decks 0: the game's) and deals
 * the hands one after another, each sorted; show_rest prints what is left
 * in shoe order.  Formats as deal_print (JSON: {"game","decks","hands",
 * "rest"}). */
void deal_shoe(out_buf *o, const fs_game *g, unsigned decks, fs_algorithm alg,
               fs_rng *rng, const size_t *sizes, size_t nhands, int show_rest,
               enum deal_format f, fs_lang lang, uint64_t index,
               uint64_t count);

/* A JSON string literal (quotes and escapes) of s. */
void deal_json_string(out_buf *o, const char *s);

/* Reads whitespace- or comma-separated card codes (tile codes when tiles
 * is 1) from s into cards (at most cap); dies "malformed card code" on a
 * bad one.  Returns the count. */
size_t deal_parse_cards(const char *sub, const char *s, int tiles,
                        fs_card *cards, size_t cap);

#endif
