/* order.c -- the orders in which players read their hands. */
#include "../internal.h"
#include "fairshuf/cards.h"

/* Rank value with the ace high: 2..13 as is, A = 14. */
static unsigned ace_high(fs_card c)
{
    unsigned r = fs_card_rank(c);
    return r == 1 ? 14 : r;
}

/* Suits grouped s h c d so that colours alternate on the table. */
static const unsigned alternate[4] = {0, 1, 3, 2};

unsigned fs_card_key(fs_card c, fs_order order)
{
    if (c >= 52)
        return 1000 + c; /* jokers after cards, tiles in value order */
    unsigned s = (unsigned)fs_card_suit(c);
    switch (order) {
    case FS_ORDER_POKER:
        return (ace_high(c) - 2) * 4 + s;
    case FS_ORDER_DOUDIZHU: {
        /* 3 < ... < K < A < 2: shift so that 3 is 0 and 2 is 12. */
        unsigned r = fs_card_rank(c);
        unsigned v = r >= 3 ? r - 3 : r + 10;
        return v * 4 + s;
    }
    case FS_ORDER_BRIDGE:
        return alternate[s] * 16 + (14 - ace_high(c)); /* A K Q ... 2 */
    case FS_ORDER_SHENGJI:
        return alternate[s] * 16 + ace_high(c);
    case FS_ORDER_MAHJONG:
        return c;
    default:
        return 0;
    }
}

void fs_cards_sort(fs_card *cards, size_t n, fs_order order)
{
    if (cards == NULL || order == FS_ORDER_DEAL)
        return;
    /* Insertion sort: hands are short, and it is stable. */
    for (size_t i = 1; i < n; i++) {
        fs_card c = cards[i];
        unsigned k = fs_card_key(c, order);
        size_t j = i;
        while (j > 0 && fs_card_key(cards[j - 1], order) > k) {
            cards[j] = cards[j - 1];
            j--;
        }
        cards[j] = c;
    }
}
