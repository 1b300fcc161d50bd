/* test_cards.c -- cards, decks, shoe, orders, presets, dealer layouts,
 * entropy accounting against the reference facts, the provably-fair
 * scheme and the ASF shuffle and its attack. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "fairshuf/cards.h"
#include "fairshuf/stats.h"

static void test_codes_round_trip(void **state)
{
    (void)state;
    int valid = 0;
    for (fs_card c = 0; c < 200; c++) {
        char code[3];
        if (!fs_card_valid(c)) {
            assert_int_equal(fs_card_code(c, code), FS_EINVAL);
            continue;
        }
        valid++;
        assert_int_equal(fs_card_code(c, code), FS_OK);
        fs_card back;
        assert_int_equal(fs_card_parse(code, 2, c >= FS_TILE_BASE, &back), FS_OK);
        assert_int_equal(back, c);
    }
    assert_int_equal(valid, 54 + 42);
    char code[3];
    fs_card_code(0, code);
    assert_string_equal(code, "As");
    fs_card_code(9 + 13 * 2, code);
    assert_string_equal(code, "Td");
    fs_card_code(51, code);
    assert_string_equal(code, "Kc");
    fs_card_code(FS_CARD_SMALL_JOKER, code);
    assert_string_equal(code, "BJ");
    fs_card_code(FS_TILE_HONOUR + 6, code);
    assert_string_equal(code, "7z");
    fs_card_code(FS_TILE_FLOWER + 7, code);
    assert_string_equal(code, "8f");
    assert_int_equal(fs_card_rank(12), 13);
    assert_int_equal(fs_card_suit(13), 1);
    assert_int_equal(fs_card_suit(FS_CARD_BIG_JOKER), -1);
}

static void test_parse_rejects(void **state)
{
    (void)state;
    static const char *bad[] = {"", "A", "Ax", "1s0", "10", "as", "AS", "0m",
                                "8z", "9f", "XJ", "Bj", "  ", "T"};
    fs_card c;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int tiles = 0; tiles < 2; tiles++)
            assert_int_equal(fs_card_parse(bad[i], strlen(bad[i]), tiles, &c),
                             FS_EINVAL);
    assert_int_equal(fs_card_parse("1s", 2, 1, &c), FS_OK);
    assert_int_equal(c, FS_TILE_BASE + 18);
    assert_int_equal(fs_card_parse("1s", 2, 0, &c), FS_EINVAL);
    assert_int_equal(fs_card_parse("2s", 2, 0, &c), FS_OK);
    assert_int_equal(c, 1);
    assert_int_equal(fs_card_parse("2s", 2, 1, &c), FS_OK);
    assert_int_equal(c, FS_TILE_BASE + 19);
    assert_int_equal(fs_card_parse("BJ", 2, 1, &c), FS_EINVAL);
    assert_int_equal(fs_card_parse("1m", 2, 0, &c), FS_EINVAL);
}

static void test_names(void **state)
{
    (void)state;
    char buf[32];
    fs_card_name(9, FS_LANG_EN, buf, sizeof buf);
    assert_string_equal(buf, "10\xe2\x99\xa0");
    fs_card_name(13, FS_LANG_ZH, buf, sizeof buf);
    assert_string_equal(buf, "红桃A");
    fs_card_name(FS_CARD_SMALL_JOKER, FS_LANG_ZH, buf, sizeof buf);
    assert_string_equal(buf, "小王");
    fs_card_name(FS_CARD_BIG_JOKER, FS_LANG_ZH, buf, sizeof buf);
    assert_string_equal(buf, "大王");
    fs_card_name(FS_TILE_BASE + 4, FS_LANG_ZH, buf, sizeof buf);
    assert_string_equal(buf, "五万");
    fs_card_name(FS_TILE_HONOUR + 6, FS_LANG_ZH, buf, sizeof buf);
    assert_string_equal(buf, "中");
    assert_int_equal(fs_card_name(0, FS_LANG_EN, buf, 2), FS_ERANGE);
    assert_int_equal(fs_card_name(60, FS_LANG_EN, buf, sizeof buf), FS_EINVAL);
}

static void test_decks(void **state)
{
    (void)state;
    static const size_t want[] = {52, 54, 32, 36, 136, 144};
    fs_card buf[300];
    for (int k = 0; k < FS_DECK_COUNT; k++) {
        size_t n;
        assert_int_equal(fs_deck_size((fs_deck_kind)k), want[k]);
        assert_int_equal(fs_deck_fill(buf, 300, (fs_deck_kind)k, 2, &n), FS_OK);
        assert_int_equal(n, 2 * want[k]);
        /* Each card value appears equally often within its deck kind. */
        int seen[200] = {0};
        for (size_t i = 0; i < n; i++) {
            assert_true(fs_card_valid(buf[i]));
            seen[buf[i]]++;
        }
        for (int c = 0; c < 200; c++)
            if (seen[c])
                assert_true(seen[c] == 2 || seen[c] == 8);
    }
    size_t n;
    fs_deck_fill(buf, 300, FS_DECK_32, 1, &n);
    for (size_t i = 0; i < n; i++) /* 7..K and A */
        assert_true(fs_card_rank(buf[i]) == 1 || fs_card_rank(buf[i]) >= 7);
    assert_int_equal(fs_deck_fill(buf, 10, FS_DECK_52, 1, &n), FS_ERANGE);
    assert_int_equal(n, 52);
    assert_int_equal(fs_deck_fill(buf, 300, FS_DECK_52, 0, &n), FS_EINVAL);
    assert_int_equal(fs_deck_fill(buf, 300, FS_DECK_COUNT, 1, &n), FS_EINVAL);
}

static void test_shoe(void **state)
{
    (void)state;
    fs_shoe s;
    assert_int_equal(fs_shoe_init(&s, FS_DECK_54, 2), FS_OK);
    assert_int_equal(fs_shoe_left(&s), 108);
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "chacha20", "shoe"), FS_OK);
    assert_int_equal(fs_shoe_shuffle(&s, FS_ALG_AUTO, rng), FS_OK);
    fs_card hand[25];
    assert_int_equal(fs_shoe_deal(&s, hand, 25), FS_OK);
    assert_int_equal(fs_shoe_burn(&s, 3), FS_OK);
    assert_int_equal(fs_shoe_left(&s), 80);
    fs_card top = fs_shoe_peek(&s)[0], second = fs_shoe_peek(&s)[1];
    assert_int_equal(fs_shoe_cut(&s, 1), FS_OK);
    assert_int_equal(fs_shoe_peek(&s)[0], second);
    assert_int_equal(fs_shoe_peek(&s)[79], top);
    assert_int_equal(fs_shoe_cut(&s, 81), FS_EINVAL);
    assert_int_equal(fs_shoe_deal(&s, hand, 81), FS_ERANGE);
    assert_int_equal(fs_shoe_left(&s), 80);
    /* A reshuffle gathers all cards: a permutation of two fresh decks. */
    assert_int_equal(fs_shoe_shuffle(&s, FS_ALG_AUTO, rng), FS_OK);
    int count[54] = {0};
    for (size_t i = 0; i < 108; i++)
        count[fs_shoe_peek(&s)[i]]++;
    for (int c = 0; c < 54; c++)
        assert_int_equal(count[c], 2);
    fs_shoe_free(&s);
    fs_rng_free(rng);
}

static void test_orders(void **state)
{
    (void)state;
    /* Dou Dizhu: 3 < ... < K < A < 2 < small joker < big joker. */
    fs_card h[] = {FS_CARD_BIG_JOKER, 1, 0, 2, 12, FS_CARD_SMALL_JOKER, 15};
    fs_cards_sort(h, 7, FS_ORDER_DOUDIZHU);
    char s[64] = "", code[3];
    for (int i = 0; i < 7; i++) {
        fs_card_code(h[i], code);
        strcat(s, code);
    }
    assert_string_equal(s, "3s3hKsAs2sBJRJ");
    fs_card p[] = {0, 1, 12, 14};
    fs_cards_sort(p, 4, FS_ORDER_POKER); /* 2s 2h Ks As */
    assert_int_equal(p[0], 1);
    assert_int_equal(p[1], 14);
    assert_int_equal(p[3], 0);
    fs_card b[] = {51, 0, 13, 39}; /* Kc As Ah Ac -> As Ah Ac Kc */
    fs_cards_sort(b, 4, FS_ORDER_BRIDGE);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[1], 13);
    assert_int_equal(b[2], 39);
    assert_int_equal(b[3], 51);
}

static void test_games_and_layouts(void **state)
{
    (void)state;
    size_t n;
    const fs_game *g = fs_game_list(&n);
    assert_true(n >= 7);
    static fs_dealer d;
    static fs_deal deal;
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "chacha20", "layouts"), FS_OK);
    for (size_t i = 0; i < n; i++) {
        assert_ptr_equal(fs_game_find(g[i].name), &g[i]);
        for (unsigned p = g[i].min_players; p <= g[i].max_players; p++) {
            assert_int_equal(fs_dealer_init(&d, &g[i], p, 0, FS_ALG_AUTO),
                             FS_OK);
            assert_int_equal(fs_dealer_deal(&d, rng, &deal), FS_OK);
            /* No shoe position is dealt twice. */
            unsigned char used[FS_DEAL_MAX_CARDS] = {0};
            for (size_t k = 0; k < deal.ncards; k++) {
                assert_true(d.from[k] < d.n);
                assert_int_equal(used[d.from[k]]++, 0);
            }
        }
        assert_int_equal(fs_dealer_init(&d, &g[i], g[i].max_players + 1, 0,
                                        FS_ALG_AUTO),
                         FS_EINVAL);
    }
    assert_null(fs_game_find("canasta"));
    /* Dou Dizhu: 3 x 17 + 3 from 54. */
    fs_dealer_init(&d, fs_game_find("doudizhu"), 0, 0, FS_ALG_AUTO);
    assert_int_equal(d.layout.nparts, 4);
    assert_int_equal(d.layout.part[3].count, 3);
    assert_string_equal(d.layout.part[3].zh, "地主牌");
    /* Hold'em with 4: hole cards round robin, then burn + flop at 9..11,
     * burn + turn at 13, burn + river at 15. */
    fs_dealer_init(&d, fs_game_find("holdem"), 4, 0, FS_ALG_AUTO);
    assert_int_equal(fs_dealer_position(&d, 0, 0), 0);
    assert_int_equal(fs_dealer_position(&d, 0, 1), 4);
    assert_int_equal(fs_dealer_position(&d, 3, 1), 7);
    assert_int_equal(fs_dealer_position(&d, 4, 0), 9);
    assert_int_equal(fs_dealer_position(&d, 5, 0), 13);
    assert_int_equal(fs_dealer_position(&d, 6, 0), 15);
    assert_int_equal(fs_dealer_position(&d, 7, 0), -1);
    /* Shengji needs two decks: one is not enough. */
    assert_int_equal(fs_dealer_init(&d, fs_game_find("shengji"), 0, 1,
                                    FS_ALG_AUTO),
                     FS_ERANGE);
    /* Mahjong: 4 x 13 + 1 + wall of 83. Blackjack: cut card. */
    fs_dealer_init(&d, fs_game_find("mahjong"), 0, 0, FS_ALG_AUTO);
    assert_int_equal(d.layout.part[5].count, 136 - 53);
    fs_dealer_init(&d, fs_game_find("blackjack"), 3, 0, FS_ALG_AUTO);
    assert_int_equal(d.layout.part[4].count, 312 - 8);
    assert_int_equal(d.layout.cut, 312 - 8 - 78);
    fs_rng_free(rng);
}

static void test_seeded_deals_reproducible(void **state)
{
    (void)state;
    static fs_dealer d;
    static fs_deal a, b;
    fs_dealer_init(&d, fs_game_find("shengji"), 0, 0, FS_ALG_AUTO);
    fs_rng *r1, *r2;
    fs_rng_new(&r1, "chacha20", "same");
    fs_rng_new(&r2, "chacha20", "same");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fs_dealer_deal(&d, r1, &a), FS_OK);
        assert_int_equal(fs_dealer_deal(&d, r2, &b), FS_OK);
        assert_memory_equal(a.cards, b.cards, a.ncards * sizeof a.cards[0]);
    }
    fs_rng_free(r1);
    fs_rng_free(r2);
}

static void test_entropy_facts(void **state)
{
    (void)state;
    /* vectors.md: log2 n! for 52, 54, 108, 136, 144; 58 is the first n
     * above 256 bits. */
    assert_true(fabs(fs_log2_factorial(52) - 225.58) < 0.01);
    assert_true(fabs(fs_log2_factorial(54) - 237.06) < 0.05);
    assert_true(fabs(fs_log2_factorial(108) - 578.4) < 0.05);
    assert_true(fabs(fs_log2_factorial(136) - 772.6) < 0.05);
    assert_true(fabs(fs_log2_factorial(144) - 829.6) < 0.05);
    assert_true(fs_log2_factorial(57) < 256 && fs_log2_factorial(58) > 256);
    static fs_dealer d;
    fs_entropy e;
    fs_dealer_init(&d, fs_game_find("doudizhu"), 0, 0, FS_ALG_AUTO);
    fs_deal_entropy(&d, fs_rng_find("chacha20"), &e);
    /* 54! / (17!^3 3!) */
    double want = fs_log2_factorial(54) - 3 * fs_log2_factorial(17) -
                  fs_log2_factorial(3);
    assert_true(fabs(e.deal_bits - want) < 1e-9);
    assert_int_equal(e.reach, FS_REACH_ALL);
    char w[256];
    assert_int_equal(fs_entropy_warning(&e, "doudizhu", "chacha20", w, 256), 0);
    fs_deal_entropy(&d, fs_rng_find("mt19937"), &e);
    assert_int_equal(e.reach, FS_REACH_PARTIAL);
    assert_true(fs_entropy_warning(&e, "doudizhu", "mt19937", w, 256) > 0);
    assert_non_null(strstr(w, "2^32 seeds"));
    fs_deal_entropy(&d, fs_rng_find("delphi"), &e);
    assert_int_equal(e.reach, FS_REACH_PARTIAL);
    /* Mahjong's wall is ordered: far above 256 bits even for chacha20. */
    fs_dealer_init(&d, fs_game_find("mahjong"), 0, 0, FS_ALG_AUTO);
    fs_deal_entropy(&d, NULL, &e);
    assert_true(e.deal_bits > 600);
    assert_int_equal(e.reach, FS_REACH_COMPUTATIONAL);
    assert_true(fabs(e.deck_bits - 772.6) < 0.05);
}

static void test_fair_scheme(void **state)
{
    (void)state;
    uint8_t seed[32], commit[32], key[32];
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)i;
    fs_fair_commitment(seed, commit);
    char hex[65];
    fs_hex_encode(commit, 32, hex);
    /* SHA-256 of bytes 00..1f (a published value). */
    assert_string_equal(
        hex, "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
    static fs_dealer d;
    static fs_deal deal;
    fs_dealer_init(&d, fs_game_find("doudizhu"), 0, 0, FS_ALG_AUTO);
    assert_int_equal(fs_fair_key(seed, &d, "alice", 7, key), FS_OK);
    /* The key is HMAC-SHA256 of the NUL-joined fields (libsodium, one
     * shot, as a re-implementer would write it). */
    const char msg[] = "fairshuf-pf-1\0doudizhu\0" "3\0" "1\0alice\0" "7";
    uint8_t want[32];
    crypto_auth_hmacsha256(want, (const unsigned char *)msg, sizeof msg - 1,
                           seed);
    assert_memory_equal(key, want, 32);
    /* The deal is the pinned Durstenfeld over chacha20(key). */
    assert_int_equal(fs_fair_deal(seed, &d, "alice", 7, &deal), FS_OK);
    fs_hex_encode(key, 32, hex);
    fs_rng *rng;
    fs_rng_new(&rng, "chacha20", hex);
    fs_card a[54];
    size_t n;
    fs_deck_fill(a, 54, FS_DECK_54, 1, &n);
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)fs_below(rng, i + 1);
        fs_card t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    fs_rng_free(rng);
    assert_memory_equal(deal.cards, a, 54 * sizeof a[0]);
    /* check: honest passes; a changed card, another nonce, another seed,
     * another commitment fail. */
    int v;
    long part;
    assert_int_equal(fs_fair_check(seed, commit, &d, "alice", 7, &deal, &v,
                                   &part), FS_OK);
    assert_int_equal(v, 0);
    assert_int_equal(part, -1);
    static fs_deal bad;
    bad = deal;
    fs_card t = bad.cards[0];
    bad.cards[0] = bad.cards[53];
    bad.cards[53] = t;
    fs_fair_check(seed, commit, &d, "alice", 7, &bad, &v, &part);
    assert_int_equal(v, FS_FAIR_BAD_DEAL);
    assert_int_equal(part, 0);
    fs_fair_check(seed, commit, &d, "alice", 8, &deal, &v, NULL);
    assert_int_equal(v, FS_FAIR_BAD_DEAL);
    fs_fair_check(seed, commit, &d, "bob", 7, &deal, &v, NULL);
    assert_int_equal(v, FS_FAIR_BAD_DEAL);
    bad = deal;
    bad.part[3].count--; /* the kitty one card short */
    bad.ncards--;
    fs_fair_check(seed, commit, &d, "alice", 7, &bad, &v, &part);
    assert_int_equal(v, FS_FAIR_BAD_DEAL);
    assert_int_equal(part, 3);
    uint8_t other[32];
    memcpy(other, seed, 32);
    other[31] ^= 1;
    fs_fair_check(other, commit, &d, "alice", 7, &deal, &v, NULL);
    assert_int_equal(v, FS_FAIR_BAD_COMMITMENT | FS_FAIR_BAD_DEAL);
    uint8_t c2[32];
    fs_fair_commitment(other, c2);
    fs_fair_check(seed, c2, &d, "alice", 7, &deal, &v, NULL);
    assert_int_equal(v, FS_FAIR_BAD_COMMITMENT);
    uint8_t back[32];
    assert_int_equal(fs_hex_decode("zz", back, 1), FS_EINVAL);
    assert_int_equal(fs_hex_decode("0A", back, 1), FS_OK);
    assert_int_equal(back[0], 10);
}

static const char *const fair_games[] = {
    "doudizhu", "holdem", "poker5", "bridge", "shengji", "mahjong",
    "blackjack"};

/* Tampering anywhere is caught: every single position of every game's deal
 * (each hand, the kitty, the board, the wall, the last card) changed to
 * another card, and every boundary between two parts moved by one card
 * (same card sequence, other hands).  A check that compares only a prefix
 * of the cards, or only the sequence, fails here (issue 16). */
static void test_fair_tamper_anywhere(void **state)
{
    (void)state;
    uint8_t seed[32], commit[32];
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(i * 7 + 3);
    fs_fair_commitment(seed, commit);
    static fs_dealer d;
    static fs_deal deal, bad;
    for (size_t g = 0; g < sizeof fair_games / sizeof fair_games[0]; g++) {
        assert_int_equal(fs_dealer_init(&d, fs_game_find(fair_games[g]), 0, 0,
                                        FS_ALG_AUTO), FS_OK);
        assert_int_equal(fs_fair_deal(seed, &d, "tamper", 3, &deal), FS_OK);
        int v;
        long part;
        fs_fair_check(seed, commit, &d, "tamper", 3, &deal, &v, &part);
        assert_int_equal(v, 0);
        for (size_t p = 0; p < deal.nparts; p++) {
            const fs_deal_part *dp = &deal.part[p];
            for (size_t k = 0; k < dp->count; k++) {
                size_t at = dp->offset + k;
                bad = deal;
                /* another card value of the same deck */
                size_t o = at;
                while (bad.cards[o] == deal.cards[at])
                    o = (o + 1) % deal.ncards;
                bad.cards[at] = deal.cards[o];
                fs_fair_check(seed, commit, &d, "tamper", 3, &bad, &v, &part);
                assert_int_equal(v, FS_FAIR_BAD_DEAL);
                assert_int_equal(part, (long)p);
            }
            if (p + 1 < deal.nparts) { /* move the boundary p | p+1 */
                bad = deal;
                bad.part[p].count++;
                bad.part[p + 1].offset++;
                bad.part[p + 1].count--;
                fs_fair_check(seed, commit, &d, "tamper", 3, &bad, &v, &part);
                assert_int_equal(v, FS_FAIR_BAD_DEAL);
                assert_int_equal(part, (long)p);
            }
        }
        bad = deal; /* a part missing, a part too many */
        bad.nparts--;
        fs_fair_check(seed, commit, &d, "tamper", 3, &bad, &v, &part);
        assert_int_equal(v, FS_FAIR_BAD_DEAL);
    }
}

/* Every input of the key changes it: scheme fields, game, players, decks,
 * client seed (including a NUL-shifted one), nonce, server seed. */
static void test_fair_key_inputs(void **state)
{
    (void)state;
    uint8_t seed[32], key[32], k2[32];
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)i;
    static fs_dealer d, e;
    fs_dealer_init(&d, fs_game_find("holdem"), 6, 0, FS_ALG_AUTO);
    assert_int_equal(fs_fair_key(seed, &d, "ab", 5, key), FS_OK);
    fs_fair_key(seed, &d, "ab", 6, k2);
    assert_memory_not_equal(key, k2, 32);
    fs_fair_key(seed, &d, "ab", 5 + ((uint64_t)1 << 32), k2);
    assert_memory_not_equal(key, k2, 32);
    fs_fair_key(seed, &d, "abc", 5, k2);
    assert_memory_not_equal(key, k2, 32);
    fs_fair_key(seed, &d, "a", 5, k2);
    assert_memory_not_equal(key, k2, 32);
    fs_dealer_init(&e, fs_game_find("holdem"), 7, 0, FS_ALG_AUTO);
    fs_fair_key(seed, &e, "ab", 5, k2);
    assert_memory_not_equal(key, k2, 32);
    fs_dealer_init(&e, fs_game_find("holdem"), 6, 2, FS_ALG_AUTO);
    fs_fair_key(seed, &e, "ab", 5, k2);
    assert_memory_not_equal(key, k2, 32);
    fs_dealer_init(&e, fs_game_find("poker5"), 6, 0, FS_ALG_AUTO);
    fs_fair_key(seed, &e, "ab", 5, k2);
    assert_memory_not_equal(key, k2, 32);
    seed[0] ^= 0x80;
    fs_fair_key(seed, &d, "ab", 5, k2);
    assert_memory_not_equal(key, k2, 32);
    seed[0] ^= 0x80;
    /* The exact message: a re-implementation's HMAC agrees. */
    const char msg[] = "fairshuf-pf-1\0holdem\0" "6\0" "1\0ab\0" "5";
    crypto_auth_hmacsha256(k2, (const unsigned char *)msg, sizeof msg - 1,
                           seed);
    assert_memory_equal(key, k2, 32);
    /* And the nonce really reaches the deal. */
    static fs_deal x, y;
    fs_fair_deal(seed, &d, "ab", 5, &x);
    fs_fair_deal(seed, &d, "ab", 6, &y);
    assert_true(fs_deal_diff(&x, &y) >= 0);
}

/* The claim parser: strict TSV, exactly the layout's parts. */
static void test_deal_parse_strict(void **state)
{
    (void)state;
    static fs_dealer d;
    static fs_deal deal, back;
    uint8_t seed[32] = {1};
    fs_dealer_init(&d, fs_game_find("doudizhu"), 0, 0, FS_ALG_AUTO);
    fs_fair_deal(seed, &d, "c", 0, &deal);
    char tsv[256];
    size_t n = 0;
    for (size_t p = 0; p < deal.nparts; p++)
        for (size_t k = 0; k < deal.part[p].count; k++) {
            char code[3];
            fs_card_code(deal.cards[deal.part[p].offset + k], code);
            if (n)
                tsv[n++] = k ? ' ' : '\t';
            memcpy(tsv + n, code, 2);
            n += 2;
        }
    tsv[n] = '\0';
    const char *why;
    size_t where;
    assert_int_equal(fs_deal_parse(&d, tsv, n, &back, &why, &where), FS_OK);
    assert_int_equal(fs_deal_diff(&deal, &back), -1);
    tsv[n] = '\n';
    assert_int_equal(fs_deal_parse(&d, tsv, n + 1, &back, NULL, NULL), FS_OK);
    /* tabs as spaces: one part */
    char alt[256];
    memcpy(alt, tsv, n);
    for (size_t i = 0; i < n; i++)
        if (alt[i] == '\t')
            alt[i] = ' ';
    assert_int_equal(fs_deal_parse(&d, alt, n, &back, &why, &where),
                     FS_EINVAL);
    assert_non_null(strstr(why, "fewer"));
    /* tabs as commas, a double space, a trailing space: malformed */
    memcpy(alt, tsv, n);
    *strchr(alt, '\t') = ',';
    assert_int_equal(fs_deal_parse(&d, alt, n, &back, &why, &where),
                     FS_EINVAL);
    assert_int_equal(where, 48);
    memcpy(alt, tsv, n);
    alt[2] = '\t'; /* hands 1 | 16 | 17 | 17 | 3: five parts */
    assert_int_equal(fs_deal_parse(&d, alt, n, &back, &why, &where),
                     FS_EINVAL);
    assert_non_null(strstr(why, "more"));
    memcpy(alt, tsv, n);
    alt[n] = ' ';
    assert_int_equal(fs_deal_parse(&d, alt, n + 1, &back, NULL, NULL),
                     FS_EINVAL);
    assert_int_equal(fs_deal_parse(&d, "", 0, &back, NULL, NULL), FS_EINVAL);
    /* a moved tab parses (16/18/17/3) and differs from the deal */
    memcpy(alt, tsv, n);
    alt[47] = '\t';
    alt[50] = ' ';
    assert_int_equal(fs_deal_parse(&d, alt, n, &back, NULL, NULL), FS_OK);
    assert_int_equal(back.part[0].count, 16);
    assert_int_equal(back.part[1].count, 18);
    assert_int_equal(fs_deal_diff(&deal, &back), 0);
}

/* The ASF shoe equals a plain re-implementation of the Delphi loop. */
static void test_asf_shoe_matches_delphi_loop(void **state)
{
    (void)state;
    static const uint32_t seeds[] = {0, 1, 42, 45296789, 86399999};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        fs_card shoe[52], card[53];
        assert_int_equal(fs_asf_shoe(seeds[s], shoe), FS_OK);
        uint32_t randseed = seeds[s];
        for (int i = 1; i <= 52; i++)
            card[i] = (fs_card)(i - 1);
        for (int ctr = 1; ctr <= 52; ctr++) {
            randseed = randseed * 134775813u + 1u;
            int r = (int)(((uint64_t)randseed * 51) >> 32) + 1;
            fs_card t = card[ctr];
            card[ctr] = card[r];
            card[r] = t;
        }
        assert_memory_equal(shoe, card + 1, sizeof shoe);
    }
}

static void test_attack_window(void **state)
{
    (void)state;
    fs_rng *rng;
    fs_rng_new(&rng, "chacha20", "secret seeds");
    for (int round = 0; round < 5; round++) {
        uint32_t secret = (uint32_t)fs_below(rng, FS_ASF_SEEDS_PER_DAY);
        fs_card shoe[52];
        fs_asf_shoe(secret, shoe);
        /* Seat 2 of 6: hole cards at 1 and 7, flop at 13..15. */
        fs_known_card k[5] = {{1, shoe[1]}, {7, shoe[7]}, {13, shoe[13]},
                              {14, shoe[14]}, {15, shoe[15]}};
        uint32_t lo = secret > 100000 ? secret - 100000 : 0;
        uint32_t found[4];
        uint64_t nf;
        assert_int_equal(fs_attack_asf(k, 5, lo, secret + 100000, 0, found, 4,
                                       &nf), FS_OK);
        assert_true(nf >= 1);
        int hit = 0;
        for (uint64_t i = 0; i < nf && i < 4; i++)
            hit |= found[i] == secret;
        assert_true(hit);
        /* Threads do not change the answer. */
        uint32_t f1[4];
        uint64_t n1;
        fs_attack_asf(k, 5, lo, secret + 100000, 1, f1, 4, &n1);
        assert_int_equal(n1, nf);
        assert_memory_equal(f1, found, (nf < 4 ? nf : 4) * sizeof f1[0]);
    }
    fs_rng_free(rng);
    /* A window that ends at the last 32-bit value does not wrap. */
    fs_card shoe[52];
    fs_asf_shoe(UINT32_MAX, shoe);
    fs_known_card k[5] = {{0, shoe[0]}, {1, shoe[1]}, {2, shoe[2]},
                          {3, shoe[3]}, {4, shoe[4]}};
    uint32_t f[2];
    uint64_t nf;
    assert_int_equal(fs_attack_asf(k, 5, UINT32_MAX - 20, UINT32_MAX, 1, f, 2,
                                   &nf), FS_OK);
    assert_int_equal(nf, 1);
    assert_int_equal(f[0], UINT32_MAX);
    /* Bad input. */
    fs_known_card dup[2] = {{0, 1}, {0, 2}};
    assert_int_equal(fs_attack_asf(dup, 2, 0, 10, 1, f, 2, &nf), FS_EINVAL);
    fs_known_card far[1] = {{52, 1}};
    assert_int_equal(fs_attack_asf(far, 1, 0, 10, 1, f, 2, &nf), FS_EINVAL);
    assert_int_equal(fs_attack_asf(k, 5, 10, 0, 1, f, 2, &nf), FS_EINVAL);
}

/* The progress callback: done only grows, never past total, and ends at
 * total; the seeds found are those of fs_attack_asf. */
typedef struct seen {
    uint64_t calls, last, total;
    int backwards;
} seen;

static void note_progress(void *ctx, uint64_t done, uint64_t total)
{
    seen *s = ctx;
    s->backwards |= done < s->last || done > total;
    s->calls++;
    s->last = done;
    s->total = total;
}

static void test_attack_progress(void **state)
{
    (void)state;
    fs_card shoe[52];
    fs_asf_shoe(4000000, shoe);
    fs_known_card k[5] = {{0, shoe[0]}, {1, shoe[1]}, {2, shoe[2]},
                          {3, shoe[3]}, {4, shoe[4]}};
    for (unsigned threads = 1; threads <= 3; threads++) {
        seen s = {0, 0, 0, 0};
        uint32_t f[4], g[4];
        uint64_t nf, ng;
        assert_int_equal(fs_attack_asf_progress(k, 5, 1, 5000000, threads, f,
                                                4, &nf, note_progress, &s),
                         FS_OK);
        assert_int_equal(fs_attack_asf(k, 5, 1, 5000000, threads, g, 4, &ng),
                         FS_OK);
        assert_int_equal(nf, ng);
        assert_memory_equal(f, g, (nf < 4 ? nf : 4) * sizeof f[0]);
        assert_true(s.calls >= 2); /* 5M seeds: several 2^20 blocks */
        assert_false(s.backwards);
        assert_int_equal(s.total, 5000000);
        assert_int_equal(s.last, 5000000);
    }
    uint32_t f[2];
    uint64_t nf;
    assert_int_equal(fs_attack_asf_progress(k, 5, 0, 10, 1, f, 2, &nf, NULL,
                                            NULL), FS_OK);
}

/* Against the default generator the search finds nothing. */
static void test_attack_chacha_fails(void **state)
{
    (void)state;
    static fs_dealer d;
    static fs_deal deal;
    fs_dealer_init(&d, fs_game_find("holdem"), 6, 0, FS_ALG_AUTO);
    fs_rng *rng;
    fs_rng_new(&rng, "chacha20", "no attack");
    fs_dealer_deal(&d, rng, &deal);
    fs_known_card k[5];
    for (int i = 0; i < 2; i++) {
        k[i].pos = (unsigned)fs_dealer_position(&d, 0, (size_t)i);
        k[i].card = deal.cards[i];
    }
    for (int i = 0; i < 3; i++) {
        k[2 + i].pos = (unsigned)fs_dealer_position(&d, 6, (size_t)i);
        k[2 + i].card = deal.cards[d.layout.part[6].offset + (size_t)i];
    }
    uint32_t f[2];
    uint64_t nf;
    assert_int_equal(fs_attack_asf(k, 5, 40000000, 40400000, 0, f, 2, &nf),
                     FS_OK);
    assert_int_equal(nf, 0);
    fs_rng_free(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_round_trip),
        cmocka_unit_test(test_parse_rejects),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_decks),
        cmocka_unit_test(test_shoe),
        cmocka_unit_test(test_orders),
        cmocka_unit_test(test_games_and_layouts),
        cmocka_unit_test(test_seeded_deals_reproducible),
        cmocka_unit_test(test_entropy_facts),
        cmocka_unit_test(test_fair_scheme),
        cmocka_unit_test(test_fair_tamper_anywhere),
        cmocka_unit_test(test_fair_key_inputs),
        cmocka_unit_test(test_deal_parse_strict),
        cmocka_unit_test(test_asf_shoe_matches_delphi_loop),
        cmocka_unit_test(test_attack_window),
        cmocka_unit_test(test_attack_progress),
        cmocka_unit_test(test_attack_chacha_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
