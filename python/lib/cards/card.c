/* card.c -- card and tile values, their two-character codes and names. */
#include <stdio.h>
#include <string.h>

#include "../internal.h"
#include "fairshuf/cards.h"

static const char ranks[] = "A23456789TJQK";
static const char suits[] = "shdc";
static const char tile_suits[] = "mpszf";

int fs_card_valid(fs_card c)
{
    return c <= FS_CARD_BIG_JOKER || (c >= FS_TILE_BASE && c < FS_TILE_END);
}

unsigned fs_card_rank(fs_card c)
{
    return c < 52 ? c % 13 + 1 : 0;
}

int fs_card_suit(fs_card c)
{
    return c < 52 ? (int)(c / 13) : -1;
}

/* Tiles: suit index into "mpszf" and number from 1. */
static void tile_parts(fs_card c, unsigned *suit, unsigned *num)
{
    unsigned t = c - FS_TILE_BASE;
    if (t < 27) {
        *suit = t / 9;
        *num = t % 9 + 1;
    } else if (t < 34) {
        *suit = 3;
        *num = t - 27 + 1;
    } else {
        *suit = 4;
        *num = t - 34 + 1;
    }
}

int fs_card_code(fs_card c, char out[3])
{
    if (!fs_card_valid(c))
        return FS_EINVAL;
    if (c < 52) {
        out[0] = ranks[c % 13];
        out[1] = suits[c / 13];
    } else if (c < FS_TILE_BASE) {
        out[0] = c == FS_CARD_SMALL_JOKER ? 'B' : 'R';
        out[1] = 'J';
    } else {
        unsigned s, k;
        tile_parts(c, &s, &k);
        out[0] = (char)('0' + k);
        out[1] = tile_suits[s];
    }
    out[2] = '\0';
    return FS_OK;
}

static int parse_card(const char *s, fs_card *out)
{
    if (s[1] == 'J' && (s[0] == 'B' || s[0] == 'R')) {
        *out = s[0] == 'B' ? FS_CARD_SMALL_JOKER : FS_CARD_BIG_JOKER;
        return FS_OK;
    }
    const char *r = s[0] ? strchr(ranks, s[0]) : NULL;
    const char *u = s[1] ? strchr(suits, s[1]) : NULL;
    if (r == NULL || u == NULL)
        return FS_EINVAL;
    *out = (fs_card)((u - suits) * 13 + (r - ranks));
    return FS_OK;
}

static int parse_tile(const char *s, fs_card *out)
{
    static const unsigned limit[] = {9, 9, 9, 7, 8};
    static const unsigned base[] = {0, 9, 18, 27, 34};
    const char *t = s[1] ? strchr(tile_suits, s[1]) : NULL;
    if (t == NULL || s[0] < '1' || s[0] > '9')
        return FS_EINVAL;
    unsigned k = (unsigned)(s[0] - '1'), ts = (unsigned)(t - tile_suits);
    if (k >= limit[ts])
        return FS_EINVAL;
    *out = FS_TILE_BASE + base[ts] + k;
    return FS_OK;
}

int fs_card_parse(const char *s, size_t len, int tiles, fs_card *out)
{
    if (s == NULL || out == NULL || len != 2)
        return FS_EINVAL;
    return tiles ? parse_tile(s, out) : parse_card(s, out);
}

static const char *const rank_names[] = {"A", "2", "3", "4",  "5", "6", "7",
                                         "8", "9", "10", "J", "Q", "K"};
static const char *const suit_symbols[] = {"\xe2\x99\xa0", "\xe2\x99\xa5",
                                           "\xe2\x99\xa6", "\xe2\x99\xa3"};
static const char *const suit_zh[] = {"黑桃", "红桃", "方块", "梅花"};
static const char *const num_zh[] = {"一", "二", "三", "四", "五",
                                     "六", "七", "八", "九"};
static const char *const tile_suit_zh[] = {"万", "筒", "条"};
static const char *const honour_zh[] = {"东", "南", "西", "北",
                                        "白", "发", "中"};
static const char *const flower_zh[] = {"春", "夏", "秋", "冬",
                                        "梅", "兰", "竹", "菊"};

int fs_card_name(fs_card c, fs_lang lang, char *buf, size_t cap)
{
    if (!fs_card_valid(c) || buf == NULL)
        return FS_EINVAL;
    char tmp[32];
    int zh = lang == FS_LANG_ZH;
    if (c < 52)
        snprintf(tmp, sizeof tmp, "%s%s", zh ? suit_zh[c / 13] : rank_names[c % 13],
                 zh ? rank_names[c % 13] : suit_symbols[c / 13]);
    else if (c < FS_TILE_BASE)
        snprintf(tmp, sizeof tmp, "%s",
                 zh ? (c == FS_CARD_SMALL_JOKER ? "小王" : "大王")
                    : (c == FS_CARD_SMALL_JOKER ? "BJ" : "RJ"));
    else if (!zh)
        fs_card_code(c, tmp);
    else {
        unsigned s, k;
        tile_parts(c, &s, &k);
        if (s < 3)
            snprintf(tmp, sizeof tmp, "%s%s", num_zh[k - 1], tile_suit_zh[s]);
        else
            snprintf(tmp, sizeof tmp, "%s",
                     s == 3 ? honour_zh[k - 1] : flower_zh[k - 1]);
    }
    size_t len = strlen(tmp);
    if (len + 1 > cap)
        return FS_ERANGE;
    memcpy(buf, tmp, len + 1);
    return (int)len;
}
