/* games.c -- the game presets: tables, not code (fairshuf/cards.h). */
#include "../internal.h"
#include "fairshuf/cards.h"

#define PART(key, en, zh, count, burn, ordered) {key, en, zh, count, burn, ordered}
#define NO_REST {NULL, NULL, NULL, 0, 0, 0}

static const fs_game games[] = {
    {"doudizhu", "Dou Dizhu 斗地主: 54 cards, 3 x 17 + 3 landlord cards",
     FS_DECK_54, 1, 3, 3, 3, 17, 0, 0, FS_ORDER_DOUDIZHU, "Player", "玩家",
     1, {PART("kitty", "Landlord cards", "地主牌", 3, 0, 0)}, NO_REST, 0},
    {"holdem", "Texas hold'em: 2 hole cards each, burn+flop, burn+turn, "
               "burn+river",
     FS_DECK_52, 1, 2, 10, 6, 2, 1, 0, FS_ORDER_POKER, "Player", "玩家", 3,
     {PART("flop", "Flop", "翻牌", 3, 1, 0),
      PART("turn", "Turn", "转牌", 1, 1, 0),
      PART("river", "River", "河牌", 1, 1, 0)},
     NO_REST, 0},
    {"poker5", "five-card hands: N x 5 from 52 cards (1 = video poker)",
     FS_DECK_52, 1, 1, 10,
     4, 5, 0, 0, FS_ORDER_POKER, "Player", "玩家", 0, {{0}}, NO_REST, 0},
    {"bridge", "contract bridge: 4 x 13", FS_DECK_52, 1, 4, 4, 4, 13, 0, 0,
     FS_ORDER_BRIDGE, "Player", "玩家", 0, {{0}}, NO_REST, 0},
    {"shengji", "Sheng Ji 升级/拖拉机: two 54-card decks, 4 x 25 + 8 bottom "
                "cards",
     FS_DECK_54, 2, 4, 4, 4, 25, 0, 0, FS_ORDER_SHENGJI, "Player", "玩家", 1,
     {PART("bottom", "Bottom cards", "底牌", 8, 0, 0)}, NO_REST, 0},
    {"mahjong", "mahjong 麻将: 136 tiles, 4 x 13, the dealer's 14th, the wall",
     FS_DECK_TILES_136, 1, 4, 4, 4, 13, 0, 0, FS_ORDER_MAHJONG, "Player",
     "玩家", 1, {PART("dealer14", "Dealer's 14th", "庄家第14张", 1, 0, 0)},
     PART("wall", "Wall", "牌墙", 0, 0, 1), 0},
    {"blackjack", "blackjack: 6-deck shoe, players and dealer x 2, cut card "
                  "78 from the end",
     FS_DECK_52, 6, 1, 7, 1, 2, 1, 1, FS_ORDER_DEAL, "Player", "玩家", 0,
     {{0}}, PART("shoe", "Shoe", "牌靴", 0, 0, 1), 78},
};
#define NGAMES (sizeof games / sizeof games[0])

const fs_game *fs_game_list(size_t *count)
{
    if (count)
        *count = NGAMES;
    return games;
}

const fs_game *fs_game_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < NGAMES; i++)
        if (strcmp(games[i].name, name) == 0)
            return &games[i];
    return NULL;
}
