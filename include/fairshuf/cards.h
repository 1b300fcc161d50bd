/*
 * fairshuf/cards.h -- cards, tiles, shoes, game presets, dealing,
 * entropy accounting, provably-fair dealing and the 1999 poker attack.
 *
 * This header is the manual of the cards layer.  It builds on <fairshuf.h>:
 * every deal is a shuffle of the core (any generator, any algorithm; the
 * default FS_ALG_AUTO with the default chacha20 generator is exactly
 * uniform over all orders of the deck, up to the generator's limits, which
 * fs_deal_entropy() states).  Nothing here prints, exits or allocates in a
 * deal loop.  docs/cards.md describes the model, docs/provably-fair.md the
 * commit-reveal scheme, docs/entropy.md what the default generator
 * guarantees for deal spaces above 256 bits.
 */
#ifndef FAIRSHUF_CARDS_H
#define FAIRSHUF_CARDS_H

#include <fairshuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Cards and tiles
 *
 * An fs_card is a small integer (32 bits wide so that shuffles take the
 * core's 4-byte fast path):
 *   0..51    standard cards: suit * 13 + rank - 1, suits in the order
 *            spades, hearts, diamonds, clubs (codes s h d c), ranks
 *            A=1, 2..10, J=11, Q=12, K=13 (codes A 2..9 T J Q K).
 *            So 0 = As, 12 = Ks, 13 = Ah, 51 = Kc.
 *   52, 53   the small (black) joker 小王 "BJ" and the big (red) joker
 *            大王 "RJ".
 *   64..90   suited tiles: 64 + suit * 9 + number - 1, suits m (characters
 *            万), p (dots 筒), s (bamboo 条): codes "1m".."9s".
 *   91..97   honours 1z..7z: east, south, west, north, white, green, red
 *            (东 南 西 北 白 发 中; the usual riichi numbering).
 *   98..105  flowers and seasons 1f..8f (春 夏 秋 冬 梅 兰 竹 菊).
 * Copies from several decks are the same value (two Ace of spades in
 * shengji are both 0); the position in the deal tells them apart.
 * ---------------------------------------------------------------------- */
typedef uint32_t fs_card;

#define FS_CARD_SMALL_JOKER 52u
#define FS_CARD_BIG_JOKER 53u
#define FS_TILE_BASE 64u
#define FS_TILE_HONOUR (FS_TILE_BASE + 27u)
#define FS_TILE_FLOWER (FS_TILE_BASE + 34u)
#define FS_TILE_END (FS_TILE_BASE + 42u)

/* 1 if c is one of the values above. */
FS_API int fs_card_valid(fs_card c);

/* Rank 1..13 (A=1 ... K=13) of a standard card, 0 for jokers and tiles. */
FS_API unsigned fs_card_rank(fs_card c);

/* Suit 0..3 (s h d c) of a standard card, -1 for jokers and tiles. */
FS_API int fs_card_suit(fs_card c);

/* The two-character code: "As", "Td", "9c", "BJ", "RJ", "1m", "7z", "8f".
 * Writes 3 bytes (with the NUL).  FS_EINVAL for an invalid card. */
FS_API int fs_card_code(fs_card c, char out[3]);

/* Parses a two-character code (exactly len == 2 bytes of s; the case must
 * be as printed: rank upper case, suit lower case).  The two notations
 * overlap ("2s" is the two of spades and the 2 of bamboo), so `tiles`
 * chooses: 0 reads cards and jokers, 1 reads tiles.  FS_EINVAL when it is
 * not a code of that kind.  O(1). */
FS_API int fs_card_parse(const char *s, size_t len, int tiles, fs_card *out);

/* Display languages for fs_card_name(). */
typedef enum fs_lang { FS_LANG_EN = 0, FS_LANG_ZH = 1 } fs_lang;

/* A human name into buf (UTF-8, NUL-terminated, at most cap bytes):
 * English "A♠", "10♥", "BJ" (small joker), "RJ", tiles by code; Chinese
 * "黑桃A", "红桃10", "方块3", "梅花K", "小王", "大王", "一万", "五筒",
 * "九条", "东", "中", "春".  Returns the length, or FS_EINVAL (invalid card)
 * or FS_ERANGE (buf too small; cap >= 16 always suffices). */
FS_API int fs_card_name(fs_card c, fs_lang lang, char *buf, size_t cap);

/* ------------------------------------------------------------------------
 * Decks
 * ---------------------------------------------------------------------- */
typedef enum fs_deck_kind {
    FS_DECK_52 = 0,     /* A..K in four suits */
    FS_DECK_54,         /* 52 + small joker + big joker */
    FS_DECK_32,         /* stripped: 7..K and A (piquet, skat, belote) */
    FS_DECK_36,         /* stripped: 6..K and A (durak, jass) */
    FS_DECK_TILES_136,  /* mahjong: 34 kinds x 4 */
    FS_DECK_TILES_144,  /* mahjong with 8 flowers/seasons */
    FS_DECK_COUNT
} fs_deck_kind;

/* Cards in one deck of the kind (52, 54, 32, 36, 136, 144); 0 if unknown. */
FS_API size_t fs_deck_size(fs_deck_kind kind);

/* Writes `decks` copies of the deck in its fresh order into out: deck
 * after deck; within one: for each suit s, h, d, c the ranks A, 2..K
 * (stripped decks skip the missing ranks), then BJ, RJ; tiles: one set of
 * 1m..9m 1p..9p 1s..9s 1z..7z, four times, then 1f..8f.  *n receives the
 * count.  Errors: FS_EINVAL (kind, decks == 0), FS_ERANGE (cap too small;
 * *n still receives the size needed).  O(n). */
FS_API int fs_deck_fill(fs_card *out, size_t cap, fs_deck_kind kind,
                 unsigned decks, size_t *n);

/* ------------------------------------------------------------------------
 * The shoe: a deck being dealt from the top
 * ---------------------------------------------------------------------- */
typedef struct fs_shoe {
    fs_card *cards;     /* cards[pos..n) are still in the shoe, top first */
    const fs_card *fresh; /* the fresh order (owned by the shoe) */
    size_t n, pos;
} fs_shoe;

/* Creates a shoe holding `decks` decks in their fresh order.  Errors:
 * FS_EINVAL, FS_ENOMEM.  fs_shoe_free() releases it. */
FS_API int fs_shoe_init(fs_shoe *s, fs_deck_kind kind, unsigned decks);

/* Creates a shoe from any cards (copied; n >= 1). */
FS_API int fs_shoe_init_cards(fs_shoe *s, const fs_card *cards, size_t n);

FS_API void fs_shoe_free(fs_shoe *s);

/* Gathers every card back in its fresh order and shuffles with `alg`
 * (FS_ALG_AUTO for the library's fastest fair choice) and rng (NULL: the
 * thread's default).  With a fair algorithm every order of the shoe is
 * equally likely (given an ideal generator).  Errors: as fs_shuffle_with.
 * O(n). */
FS_API int fs_shoe_shuffle(fs_shoe *s, fs_algorithm alg, fs_rng *rng);

/* Deals the next k cards from the top into out (out may be NULL to look
 * away: that is burning).  FS_ERANGE if fewer than k remain (nothing is
 * dealt).  O(k). */
FS_API int fs_shoe_deal(fs_shoe *s, fs_card *out, size_t k);

/* Burns k cards: fs_shoe_deal(s, NULL, k). */
FS_API int fs_shoe_burn(fs_shoe *s, size_t k);

/* Cuts what remains: the top `at` cards go to the bottom, in order.
 * 0 <= at <= fs_shoe_left(s), else FS_EINVAL.  A cut does not change the
 * distribution of a uniformly shuffled shoe.  O(n). */
FS_API int fs_shoe_cut(fs_shoe *s, size_t at);

/* Cards still in the shoe; fs_shoe_peek gives them, top first. */
FS_API size_t fs_shoe_left(const fs_shoe *s);
FS_API const fs_card *fs_shoe_peek(const fs_shoe *s);

/* ------------------------------------------------------------------------
 * Display orders: sorting a hand the way its players read it
 * ---------------------------------------------------------------------- */
typedef enum fs_order {
    FS_ORDER_DEAL = 0,  /* as dealt (blackjack, the wall) */
    FS_ORDER_POKER,     /* 2 < 3 < ... < K < A, then suit s h d c */
    FS_ORDER_DOUDIZHU,  /* 3 < 4 < ... < K < A < 2 < 小王 < 大王 */
    FS_ORDER_BRIDGE,    /* by suit s h c d (colours alternate), A high */
    FS_ORDER_SHENGJI,   /* by suit s h c d, 2 < ... < A, jokers last */
    FS_ORDER_MAHJONG,   /* m, p, s by number, winds, dragons, flowers */
    FS_ORDER_COUNT
} fs_order;

/* Sort key of a card in an order (smaller first).  Any valid card has a
 * key in every order. */
FS_API unsigned fs_card_key(fs_card c, fs_order order);

/* Sorts cards[0..n) by fs_card_key (stable; FS_ORDER_DEAL keeps them).
 * O(n^2) worst case, meant for hands (n <= a few dozen); no allocation. */
FS_API void fs_cards_sort(fs_card *cards, size_t n, fs_order order);

/* ------------------------------------------------------------------------
 * Game presets
 *
 * A game is a small table: the deck, the players, the hand size and how
 * hands are dealt, then the extra parts (kitty, board, ...) each preceded
 * by burnt cards, then the rest (the wall or the shoe), all dealt from the
 * top of one shuffled shoe.  fs_game_list() gives:
 *   doudizhu   54 cards, 3 x 17 in blocks, 3 landlord cards (地主牌)
 *   holdem     52, 2..10 players x 2 hole cards dealt round robin; burn,
 *              flop 3; burn, turn; burn, river
 *   poker5     52, 1..10 players x 5 (five-card draw/stud hands; 1 = video
 *              poker)
 *   bridge     52, 4 x 13
 *   shengji    two 54-card decks, 4 x 25 + 8 bottom cards (底牌)
 *   mahjong    136 tiles, 4 x 13, the dealer's 14th, the wall (ordered)
 *   blackjack  6-deck shoe, 1..7 players and the dealer x 2 round robin,
 *              the rest of the shoe with a cut card 78 cards from the end
 * "Round robin" deals one card per seat per round (seat 1 first, the
 * dealer's seat of blackjack last); "blocks" deals each hand whole.
 * ---------------------------------------------------------------------- */
typedef struct fs_game_part {
    const char *key;    /* JSON field name: "kitty", "flop", "wall"... */
    const char *en, *zh; /* display labels */
    unsigned count;     /* cards in the part (0 for the rest: all left) */
    unsigned burn;      /* cards burnt just before the part */
    int ordered;        /* 1: the order inside matters (a wall, a shoe) */
} fs_game_part;

#define FS_GAME_MAX_EXTRAS 4

typedef struct fs_game {
    const char *name;        /* "doudizhu" */
    const char *description; /* one line */
    fs_deck_kind deck;
    unsigned decks;          /* default number of decks */
    unsigned min_players, max_players, players; /* players: default */
    unsigned hand;           /* cards per hand */
    int round_robin;         /* 1: one card per seat per round */
    int dealer_hand;         /* 1: an extra seat "dealer", served last */
    fs_order order;          /* display order inside a hand */
    const char *hand_en, *hand_zh; /* "Player", "玩家" */
    unsigned nextra;
    fs_game_part extra[FS_GAME_MAX_EXTRAS];
    fs_game_part rest;       /* key NULL: the rest is not part of a deal */
    unsigned cut_card;       /* cards behind the cut card (0: none) */
} fs_game;

/* Every preset; *count receives their number. */
FS_API const fs_game *fs_game_list(size_t *count);

/* Looks a preset up by name; NULL if unknown. */
FS_API const fs_game *fs_game_find(const char *name);

/* ------------------------------------------------------------------------
 * Dealing
 *
 * An fs_dealer is a game set up for a number of players and decks; it
 * precomputes where each dealt card comes from, so a deal is one copy of
 * the fresh deck, one shuffle and one gather: no allocation, O(n).
 * A deal's cards are stored part by part, each part in deal order.
 * Both structures are large (an fs_dealer about 15 KiB, an fs_deal about
 * 5 KiB): allocate them once, statically or on the heap, and reuse them.
 * ---------------------------------------------------------------------- */
#define FS_DEAL_MAX_CARDS 1024
#define FS_DEAL_MAX_PARTS (12 + FS_GAME_MAX_EXTRAS + 1)

typedef struct fs_deal_part {
    const char *key, *en, *zh; /* for hands: "hand" and the hand labels */
    int seat;           /* 0-based seat for hands ("dealer" = players),
                           -1 for the extra parts and the rest */
    size_t offset, count; /* the part is cards[offset .. offset+count) */
    int ordered;
} fs_deal_part;

typedef struct fs_deal {
    size_t nparts, ncards;
    fs_deal_part part[FS_DEAL_MAX_PARTS];
    fs_card cards[FS_DEAL_MAX_CARDS];
    size_t cut;         /* blackjack: cards of the rest dealt before the
                           cut card comes out; 0 when the game has none */
} fs_deal;

typedef struct fs_dealer {
    const fs_game *game;
    unsigned players, decks;
    fs_algorithm alg;
    size_t n;                          /* cards in the shoe */
    fs_card fresh[FS_DEAL_MAX_CARDS];  /* the deck in its fresh order */
    fs_card work[FS_DEAL_MAX_CARDS];   /* the shuffled shoe */
    uint16_t from[FS_DEAL_MAX_CARDS];  /* deal slot -> shoe position */
    int identity;                      /* from[i] == i: shuffle in place */
    fs_deal layout;                    /* parts, without cards */
} fs_dealer;

/* Sets a dealer up.  players 0 and decks 0 mean the game's defaults.
 * alg is the shuffle (FS_ALG_AUTO for the library's choice).  Errors:
 * FS_EINVAL (game NULL, players outside [min, max], alg unknown),
 * FS_ERANGE (the parts need more cards than the decks hold, or more than
 * FS_DEAL_MAX_CARDS).  O(n). */
FS_API int fs_dealer_init(fs_dealer *d, const fs_game *game, unsigned players,
                   unsigned decks, fs_algorithm alg);

/* Deals once: shuffles a fresh copy of the deck with the dealer's
 * algorithm and rng (NULL: the thread's default) and fills *out.  With a
 * fair algorithm each deal is uniform over all deals and independent of
 * the others (given an ideal generator).  Errors: as fs_shuffle_with.
 * O(n), no allocation. */
FS_API int fs_dealer_deal(fs_dealer *d, fs_rng *rng, fs_deal *out);

/* Fills *out from a shoe order that is already shuffled (shoe[0..n) with
 * n = d->n): used by the provably-fair scheme and by the attack. */
FS_API void fs_dealer_layout(const fs_dealer *d, const fs_card *shoe,
                      fs_deal *out);

/* The 0-based shoe position of card `index` of part `part` of the
 * dealer's layout (e.g. the flop of holdem), or -1 if out of range. */
FS_API long fs_dealer_position(const fs_dealer *d, size_t part, size_t index);

/* ------------------------------------------------------------------------
 * Entropy accounting
 *
 * A generator with S possible seeds can produce at most S distinct deals.
 * deal_bits is log2 of the number of distinct deals of the layout: n! over
 * the product of k! for each unordered part (hands, flop...; burnt cards
 * and an unordered rest count as one more unordered part).  With several decks, cards of equal face are
 * counted as distinct, so deal_bits is then an upper bound.  log2(n!) is
 * fs_log2_factorial() of <fairshuf/stats.h>.
 * ---------------------------------------------------------------------- */
typedef enum fs_reach {
    FS_REACH_ALL = 0,           /* seed_bits >= deal_bits */
    FS_REACH_COMPUTATIONAL = 1, /* fewer seeds than deals, cryptographic
                                   generator: see docs/entropy.md */
    FS_REACH_PARTIAL = 2        /* fewer seeds than deals and not
                                   cryptographic: most deals can never
                                   occur; a warning */
} fs_reach;

typedef struct fs_entropy {
    double deck_bits;   /* log2(n!): orders of the shoe, cards distinct */
    double deal_bits;   /* log2 of distinct deals, as above */
    unsigned seed_bits, state_bits; /* from the generator's fs_rng_info */
    fs_reach reach;
} fs_entropy;

/* Accounts the dealer's game against a generator (rng NULL: chacha20).
 * Never fails for an initialised dealer.  O(n). */
FS_API void fs_deal_entropy(const fs_dealer *d, const fs_rng_info *rng,
                     fs_entropy *out);

/* The same for shoe mode (`deal --hands`): a shoe of n cards, hands of
 * sizes[0..nhands) dealt from the top (each unordered), then the rest
 * (ordered when rest_shown, else one unseen group).  Hands needing more
 * than n cards count as n.  O(nhands). */
FS_API void fs_shoe_entropy(size_t n, const size_t *sizes, size_t nhands,
                            int rest_shown, const fs_rng_info *rng,
                            fs_entropy *out);

/* A one-line English warning (no newline) when e->reach is
 * FS_REACH_PARTIAL, e.g. "generator mt19937 has 2^32 seeds but doudizhu
 * has 2^89.6 distinct deals: at most 1 deal in 2^57.6 can ever be dealt".
 * Returns the length written (0 when there is nothing to warn about; buf
 * gets ""), FS_ERANGE when cap is too small (256 always suffices). */
FS_API int fs_entropy_warning(const fs_entropy *e, const char *game,
                       const char *rng, char *buf, size_t cap);

/* ------------------------------------------------------------------------
 * Provably fair dealing: commit - reveal (docs/provably-fair.md, the
 * authoritative specification of both schemes)
 *
 * Scheme FS_FAIR_SCHEME ("fairshuf-pf-2", every new period) and
 * FS_FAIR_SCHEME_V1 ("fairshuf-pf-1", old logs; still checked) share the
 * maths and differ only in the scheme name inside the key and in the log's
 * period rules:
 *   server_seed  32 bytes from the OS, kept secret until revealed.
 *   commitment   SHA-256(server_seed), published before play.
 *   key          HMAC-SHA256(key = server_seed, message =
 *                scheme 0 game 0 players 0 decks 0 client_seed 0 nonce),
 *                numbers in decimal ASCII, 0 a NUL byte.
 *   shuffle      the fresh deck (fs_deck_fill) shuffled by Durstenfeld:
 *                for i = n-1 down to 1, j = fs_below(rng, i + 1), swap
 *                cards i and j; rng = chacha20 keyed with `key`, nonce 0,
 *                counter 0, 64-bit words little-endian; fs_below is
 *                Lemire's method (fairshuf.h).  Then the game's layout.
 * The whole mapping is pinned: it never follows FS_ALG_AUTO.
 * ---------------------------------------------------------------------- */
#define FS_FAIR_SCHEME "fairshuf-pf-2"    /* new periods */
#define FS_FAIR_SCHEME_V1 "fairshuf-pf-1" /* old logs, still checked */

/* 32 fresh bytes from the OS.  FS_ERANDOM if it refuses. */
FS_API int fs_fair_server_seed(uint8_t seed[32]);

/* commitment = SHA-256(seed). */
FS_API void fs_fair_commitment(const uint8_t seed[32], uint8_t out[32]);

/* The per-deal key of `scheme` (FS_FAIR_SCHEME or FS_FAIR_SCHEME_V1; any
 * other name is FS_EINVAL).  client_seed: any NUL-free string (its
 * encoding rule, fs_fair_client_seed_ok, is enforced where a seed enters a
 * log, not here).  FS_EINVAL for NULL arguments.  O(len). */
FS_API int fs_fair_key_scheme(const char *scheme, const uint8_t seed[32],
                              const fs_dealer *d, const char *client_seed,
                              uint64_t nonce, uint8_t key[32]);

/* Deals by `scheme`: key as above, pinned shuffle, the dealer's layout
 * (d's own algorithm is ignored; d->work is used).  Errors: FS_ENOMEM,
 * FS_EINVAL.  O(n) plus one ChaCha20 stream set-up. */
FS_API int fs_fair_deal_scheme(const char *scheme, const uint8_t seed[32],
                               fs_dealer *d, const char *client_seed,
                               uint64_t nonce, fs_deal *out);

/* fs_fair_key_scheme and fs_fair_deal_scheme with FS_FAIR_SCHEME_V1: the
 * library's first interface, kept with its meaning (scheme fairshuf-pf-1). */
FS_API int fs_fair_key(const uint8_t seed[32], const fs_dealer *d,
                const char *client_seed, uint64_t nonce, uint8_t key[32]);
FS_API int fs_fair_deal(const uint8_t seed[32], fs_dealer *d,
                 const char *client_seed, uint64_t nonce, fs_deal *out);

/* Reads a claimed deal in the form `fairshuf fair deal --format=tsv`
 * prints: the dealer's parts in layout order separated by exactly one tab,
 * the cards of a part by exactly one space, two-character codes (tile codes
 * for tile games), an optional final newline; s[0..len) need not be
 * NUL-terminated.  The number of parts must be the layout's (d->layout);
 * the number of cards in each part is whatever the claim says (compare with
 * fs_deal_diff or fs_fair_check).  out->cut is 0.  Errors: FS_EINVAL
 * (malformed: *why receives a static English reason and *where the byte
 * offset; either may be NULL), FS_ERANGE (more than FS_DEAL_MAX_CARDS
 * cards).  O(len), no allocation.  (A log's deal field is stricter: it
 * must be exactly fs_fair_deal_tsv's text, no newline.) */
FS_API int fs_deal_parse(const fs_dealer *d, const char *s, size_t len,
                         fs_deal *out, const char **why, size_t *where);

/* The deal as TSV, exactly what `fairshuf fair deal --format=tsv` prints
 * and what a log's "deal" field holds, without the final newline: parts in
 * layout order separated by one tab, the two-character codes of a part
 * separated by one space.  dl (may be NULL) is not read today (the deal
 * carries its parts).  Returns the length, FS_ERANGE when cap is too small
 * (FS_FAIR_TSV_MAX + 1 always suffices), FS_EINVAL for NULL or an invalid
 * card.  O(cards). */
FS_API int fs_fair_deal_tsv(const fs_deal *d, const fs_dealer *dl, char *buf,
                            size_t cap);

/* The first part (index into a->part) in which two deals differ, in its
 * number of cards or in any card; a->nparts (or b's, the smaller) when
 * one has more parts; -1 when they are the same deal.  The cut is not
 * compared.  O(cards). */
FS_API long fs_deal_diff(const fs_deal *a, const fs_deal *b);

/* Verdicts of fs_fair_check (bits; 0 = everything matches). */
enum { FS_FAIR_BAD_COMMITMENT = 1, FS_FAIR_BAD_DEAL = 2 };

/* Recomputes the deal under `scheme` and compares: *verdict receives 0
 * when SHA-256(seed) == commitment and the claimed deal is exactly the deal
 * the seeds give, part by part (which cards went to which hand, the kitty,
 * the board: fs_deal_diff); otherwise the bits above.  *part (if not NULL)
 * receives fs_deal_diff's answer.  Returns FS_OK or an error as
 * fs_fair_deal_scheme.  fs_fair_check is the same with FS_FAIR_SCHEME_V1. */
FS_API int fs_fair_check_scheme(const char *scheme, const uint8_t seed[32],
                                const uint8_t commitment[32], fs_dealer *d,
                                const char *client_seed, uint64_t nonce,
                                const fs_deal *claimed, int *verdict,
                                long *part);
FS_API int fs_fair_check(const uint8_t seed[32], const uint8_t commitment[32],
                  fs_dealer *d, const char *client_seed, uint64_t nonce,
                  const fs_deal *claimed, int *verdict, long *part);

/* ------------------------------------------------------------------------
 * Seed periods and their log (docs/provably-fair.md, "Periods and the log")
 *
 * A period is one server seed.  Scheme fairshuf-pf-2, one JSON object per
 * line (JSON Lines), fields in any order, each once, no other keys:
 *   {"scheme":"fairshuf-pf-2","event":"commit","commitment":HEX,
 *    "game":G,"players":P,"decks":D}
 *   {"scheme":"fairshuf-pf-2","event":"client_seed","client_seed":S}
 *   {"scheme":"fairshuf-pf-2","event":"deal","nonce":N,"client_seed":S,
 *    "game":G,"players":P,"decks":D,"deal":TSV}
 *   {"scheme":"fairshuf-pf-2","event":"reveal","server_seed":HEX}
 * commit (the table fixed) -> exactly one client_seed (the player's, chosen
 * after seeing the commitment, never used in an earlier period) -> deals
 * with nonces 0, 1, 2, ... -> reveal.  Rotation (reveal + the next commit)
 * happens at the player's request and the next period needs a new client
 * seed.  fairshuf-pf-1 logs have no client_seed record and no table in the
 * commit: the first deal fixes both.  TSV is fs_fair_deal_tsv's text.
 * ---------------------------------------------------------------------- */
#define FS_FAIR_CLIENT_SEED_MAX 256 /* bytes */
#define FS_FAIR_TSV_MAX (FS_DEAL_MAX_CARDS * 3 + FS_DEAL_MAX_PARTS)
#define FS_FAIR_LINE_MAX 8192       /* bytes of one record, without '\n' */

/* 1 if s is an acceptable client seed for `scheme`: valid UTF-8 (no
 * overlong forms, no surrogates, at most U+10FFFF), no C0 control
 * character (0x00-0x1f) and no DEL (0x7f), at most FS_FAIR_CLIENT_SEED_MAX
 * bytes; fairshuf-pf-2 also refuses the empty string.  Otherwise 0, and
 * *why (if not NULL) receives a static English reason.  O(len). */
FS_API int fs_fair_client_seed_ok(const char *scheme, const char *s,
                                  const char **why);

typedef enum fs_fair_event {
    FS_FAIR_COMMIT = 1, FS_FAIR_DEAL = 2, FS_FAIR_REVEAL = 3,
    FS_FAIR_CLIENT_SEED = 4
} fs_fair_event;

/* One line of the log, decoded. */
typedef struct fs_fair_record {
    fs_fair_event event;
    char scheme[32];
    uint8_t value[32];          /* commit: the commitment; reveal: the seed */
    uint64_t nonce;             /* deal */
    char client_seed[FS_FAIR_CLIENT_SEED_MAX + 1]; /* deal, client_seed */
    char game[32];              /* deal; commit (pf-2) */
    unsigned players, decks;    /* deal; commit (pf-2) */
    char deal[FS_FAIR_TSV_MAX + 1]; /* the TSV, NUL-terminated */
} fs_fair_record;

/* Decodes one line (without its newline) of the log: a JSON object with
 * exactly the keys of its event under its scheme (a pf-1 commit has no
 * game, players, decks; pf-1 has no client_seed event), each once, in any
 * order; strings with JSON escapes (no NUL), numbers as plain decimal
 * integers, players and decks 1 to 1000.  A scheme other than the two is
 * read as pf-2 here (the checker refuses it).  Errors: FS_EINVAL
 * (malformed; *why, if not NULL, receives a static English reason).
 * O(len). */
FS_API int fs_fair_record_parse(const char *line, size_t len,
                                fs_fair_record *r, const char **why);

/* Writes the record r (fields as for its event and r->scheme) as one log
 * line: the keys in the order shown above, strings escaped (\" \\ \t \n
 * \r, other bytes below 0x20 and 0x7f as \u00XX; everything else as is),
 * no spaces, no newline, NUL-terminated.  This is the one writer of log
 * records.  Returns the length; FS_ERANGE when cap is too small
 * (FS_FAIR_LINE_MAX + 1 always suffices); FS_EINVAL for an unknown event
 * or scheme.  O(len). */
FS_API int fs_fair_record_write(const fs_fair_record *r, char *line,
                                size_t cap);

/* ------------------------------------------------------------------------
 * The period state machine (docs/provably-fair.md, "The server side")
 *
 * One table's current period, plain data that a server may store as it is
 * (the seed is secret until the reveal).  Every step computes the record
 * that the caller must make durable (append to the log and sync, or commit
 * to a database) BEFORE it shows anything or calls fs_fair_period_applied;
 * the steps never change *p, so a record that could not be stored leaves
 * the period as it was.  `line` receives the record: NUL-terminated, no
 * newline, at most FS_FAIR_LINE_MAX bytes (cap FS_FAIR_LINE_MAX + 1 always
 * suffices; a smaller cap may give FS_ERANGE).
 * ---------------------------------------------------------------------- */
typedef struct fs_fair_period {
    char scheme[32];             /* FS_FAIR_SCHEME (pf-1 periods resume too) */
    char game[32];
    unsigned players, decks;
    uint8_t server_seed[32];     /* secret until the reveal */
    uint8_t commitment[32];
    int has_client_seed;
    char client_seed[FS_FAIR_CLIENT_SEED_MAX + 1];
    uint64_t next_nonce;         /* deals made so far */
    int revealed;                /* 1 once the reveal record is applied */
} fs_fair_period;

/* Starts a period: *next receives a new period (a fresh server seed from
 * the OS, its commitment, the table: game, players and decks, 0 meaning
 * the game's defaults, resolved; no client seed; nonce 0) and `line` its
 * commit record.  *next is a new value, never the current period (that one
 * is still needed for its reveal: rotation = fs_fair_period_reveal of the
 * old one, then this); store the seed and the line durably, then use
 * *next.  Errors: FS_ENOTFOUND (unknown game), FS_EINVAL (players or decks
 * the game refuses; NULL), FS_ERANDOM (no seed: nothing written), FS_ERANGE
 * (cap).  O(deck). */
FS_API int fs_fair_period_begin(fs_fair_period *next, const char *game,
                                unsigned players, unsigned decks, char *line,
                                size_t cap);

/* The client_seed record of the period (pf-2: once, before any deal).
 * Errors: FS_EINVAL (the seed breaks fs_fair_client_seed_ok, a pf-1
 * period, the period already has a client seed, is revealed; *why, if not
 * NULL, receives the reason), FS_ERANGE (cap). */
FS_API int fs_fair_period_client_seed(const fs_fair_period *p,
                                      const char *client_seed, char *line,
                                      size_t cap, const char **why);

/* The next deal: *nonce = p->next_nonce, *out the deal the seeds give,
 * `line` its deal record.  d is the caller's workspace (set up here for
 * the period's table).  Errors: FS_EINVAL (no client seed yet, revealed,
 * nonce exhausted), FS_ENOMEM, FS_ERANGE (cap).  O(deck). */
FS_API int fs_fair_period_deal(const fs_fair_period *p, fs_dealer *d,
                               fs_deal *out, uint64_t *nonce, char *line,
                               size_t cap);

/* The reveal record (the server seed in hex).  Allowed at any time; a pf-2
 * checker flags a period revealed without a deal (empty-period), so a
 * server reveals when the player asks for rotation after playing.
 * Errors: FS_EINVAL (already revealed), FS_ERANGE (cap). */
FS_API int fs_fair_period_reveal(const fs_fair_period *p, char *line,
                                 size_t cap);

/* After `line` (a record made by one of the calls above for this period)
 * is durable: advances *p by it (client seed set; next nonce + 1;
 * revealed).  A commit record changes nothing (begin filled the period).
 * FS_EINVAL (and *p unchanged) when the line is not such a record. */
FS_API int fs_fair_period_applied(fs_fair_period *p, const char *line);

/* The rule "no client seed is used in two periods" (client-seed-reused in
 * docs/provably-fair.md) for a server about to record client_seed for a
 * table: a reused seed makes the log dishonest for ever, so the server
 * asks this first and, on 1, refuses and writes nothing.  text[0..len) is
 * the table's log, or any of its lines ('\n' ends each, the last may lack
 * it; empty lines are skipped).  Returns 1 when a record holds client_seed
 * -- a client_seed record or a deal (pf-1 periods have only deals) -- and
 * *line (if not NULL) receives the 1-based line of the first one; 0 when
 * none does (*line = 0).  Errors: FS_EINVAL (client_seed NULL, text NULL
 * with len > 0, a line that is not a record), FS_ENOMEM.  O(len). */
FS_API int fs_fair_client_seed_used(const char *text, size_t len,
                                    const char *client_seed, size_t *line);

/* ------------------------------------------------------------------------
 * Checking a log
 * ---------------------------------------------------------------------- */
typedef enum fs_fair_verdict {
    FS_FAIR_HONEST = 0,       /* every rule holds, every deal recomputed */
    FS_FAIR_DISHONEST = 3,    /* a rule is broken (the `rule` below) */
    FS_FAIR_INCONCLUSIVE = 4  /* nothing broken, but not all checked:
                                 empty-log or unrevealed */
} fs_fair_verdict;

/* A deal the player saw: its nonce and its TSV (tsv[0..len); a final
 * newline is ignored). */
typedef struct fs_fair_seen {
    uint64_t nonce;
    const char *tsv;
    size_t len;
} fs_fair_seen;

/* What the player brings to the check; every field may be NULL/0. */
typedef struct fs_fair_player {
    const uint8_t *commitment;  /* the commitment they were shown */
    const char *client_seed;    /* the client seed they chose */
    const fs_fair_seen *deals;  /* the deals they saw, in the period
                                   checked (below) */
    size_t ndeals;
    /* For the server only (`fair deal --log` before it appends): the open
     * last period's deals are recomputed with this seed as if it were
     * revealed (bad-deal findings; no `unrevealed`).  Ignored when it is
     * not the open period's seed.  Never give a player's check a seed. */
    const uint8_t *server_seed;
} fs_fair_player;

/* Called for each finding: rule is a slug of docs/provably-fair.md
 * ("nonce", "bad-deal", ..., "unrevealed"), line the 1-based log line (0:
 * the log as a whole), message English text in which every byte that came
 * from the log is printable (others escaped as \xNN). */
typedef void fs_fair_note(void *ctx, size_t line, fs_fair_verdict kind,
                          const char *rule, const char *message);

typedef struct fs_fair_log_result {
    fs_fair_verdict verdict;
    const char *rule;           /* the FIRST broken rule's slug (smallest
                                   line; see the spec), or the
                                   inconclusive reason; NULL when honest */
    size_t line;                /* its line (0: the log as a whole) */
    char message[512];          /* its message (escaped as above) */
    size_t findings;            /* findings of every kind */
    size_t periods, deals, checked; /* checked: deals recomputed */
    size_t unrevealed;          /* deals of the unrevealed last period */
    /* The last period, for a server that appends to the log: */
    int open;                   /* committed and not revealed */
    char scheme[32];
    uint8_t commitment[32];
    uint64_t next_nonce;        /* open: deals made in it so far */
    int has_client_seed;
    char client_seed[FS_FAIR_CLIENT_SEED_MAX + 1];
    char game[32];              /* empty when not fixed yet (pf-1) */
    unsigned players, decks;
    /* The player's period (1-based; 0: the player gave nothing, or no
     * period is theirs) and, when they gave
     * deals, how many of its deals they did not see: before their first
     * nonce, and between their first and last.  Not a rule: other players
     * of the table may have had them; a dealer who burns deals until one
     * suits it leaves them too. */
    size_t player_period;
    size_t unseen_before, unseen_between;
} fs_fair_log_result;

/* Checks a whole log (text[0..len), lines ending in '\n'; the last may
 * lack it) by the rules of docs/provably-fair.md: every record well formed
 * and of a known scheme, the period rules of its scheme, every reveal its
 * commitment, every deal of a revealed period recomputed, no client seed
 * or commitment reused across periods; then the player's: the period
 * checked is the one of player->commitment (commitment-not-found if none),
 * else the one whose client seed is player->client_seed, else the last
 * period with a deal (the last period when none has); its client seed
 * must be player->client_seed (client-seed-mismatch) and every deal the
 * player saw must be in it, the same
 * (deal-missing, deal-differs).  A client seed or deals given without
 * player->commitment add the inconclusive no-commitment (line 0): nothing
 * then ties the log to the table the player was shown.  out->player_period
 * and out->unseen_* say which period was the player's and how many of its
 * deals they did not see.  A malformed line stops the check there.
 * out receives the verdict, the first broken rule and its line, counts
 * and the last period's state.  note (may be NULL) is called for each
 * finding.  Returns FS_OK (the verdict is in *out, whatever it is),
 * FS_EINVAL (NULL text or out), FS_ENOMEM.  O(len + deals * cards +
 * (period deals + seen) log seen), commitments and client seeds looked up
 * by hash. */
FS_API int fs_fair_log_check(const char *text, size_t len,
                             const fs_fair_player *player, fs_fair_note *note,
                             void *ctx, fs_fair_log_result *out);

/* Resumes the open period of a checked log: *p receives the period of
 * r (which must be open) with `seed` as its server seed.  FS_EINVAL when r
 * has no open period or SHA-256(seed) is not its commitment. */
FS_API int fs_fair_period_resume(fs_fair_period *p, const uint8_t seed[32],
                                 const fs_fair_log_result *r);
/* Seeds and commitments travel as hex: fs_hex_encode() and
 * fs_hex_decode() are in <fairshuf.h>. */

/* ------------------------------------------------------------------------
 * The 1999 ASF poker shuffle and the attack on it (docs/cards.md)
 *
 * ASF Software's deal: the 52 cards in their fresh order (As..Kc, as
 * fs_deck_fill), RandSeed = milliseconds since midnight, then
 *   for ctr := 1 to 52: swap Card[ctr], Card[Random(51) + 1]
 * i.e. fs_shuffle_with(FS_ALG_ASF_1999, deck, 52, ...) over the "delphi"
 * generator seeded with the milliseconds.  Knowing a few cards and their
 * 0-based positions in the shoe, the seed follows from a search of at most
 * 86,400,000 values.
 * ---------------------------------------------------------------------- */
#define FS_ASF_SEEDS_PER_DAY 86400000u

/* The ASF shoe for a seed, through the core (delphi + asf-1999). */
FS_API int fs_asf_shoe(uint32_t seed, fs_card shoe[52]);

typedef struct fs_known_card {
    unsigned pos;       /* 0-based position in the shoe, < 52 */
    fs_card card;       /* a standard card, < 52 */
} fs_known_card;

/* Searches the seeds first..last (inclusive) for those whose ASF shoe has
 * every known card at its position; writes up to max_found of them,
 * ascending, to found and the total number to *nfound.  threads: 0 = one
 * per online CPU (capped at 8).  Each seed costs 52 LCG steps and a
 * backward trace of the swaps that stops at the first mismatch; no
 * allocation.  With k known cards roughly (last-first+1) / (52*51*...) other
 * seeds also match by chance (5 cards, a whole day: about 0.28), so a
 * caller checks further cards when it can.  Errors: FS_EINVAL (k == 0,
 * k > 52, a position >= 52 or repeated, a card >= 52 or repeated,
 * first > last), FS_ENOMEM (threads). */
FS_API int fs_attack_asf(const fs_known_card *known, size_t k, uint32_t first,
                  uint32_t last, unsigned threads, uint32_t *found,
                  size_t max_found, uint64_t *nfound);

/* What the search has done: `done` of `total` seeds scanned. */
typedef void fs_attack_progress(void *ctx, uint64_t done, uint64_t total);

/* fs_attack_asf, calling progress (when not NULL) from the calling thread
 * only: after each 2^20 seeds of its own share, then every 50 ms while
 * the other threads finish theirs; done reaches total at the end.  The
 * callback must not call back into the search.  Same results, errors and
 * complexity as fs_attack_asf. */
FS_API int fs_attack_asf_progress(const fs_known_card *known, size_t k,
                                  uint32_t first, uint32_t last,
                                  unsigned threads, uint32_t *found,
                                  size_t max_found, uint64_t *nfound,
                                  fs_attack_progress *progress, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_CARDS_H */
