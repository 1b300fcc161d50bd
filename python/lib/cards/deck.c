/* deck.c -- decks in their fresh order (the order every shuffle starts
 * from, so seeded deals are reproducible; docs/cards.md lists it). */
#include "../internal.h"
#include "fairshuf/cards.h"

static const size_t sizes[FS_DECK_COUNT] = {52, 54, 32, 36, 136, 144};

size_t fs_deck_size(fs_deck_kind kind)
{
    return (unsigned)kind < FS_DECK_COUNT ? sizes[kind] : 0;
}

/* One deck into out (room for its size). */
static void fill_one(fs_card *out, fs_deck_kind kind)
{
    size_t k = 0;
    switch (kind) {
    case FS_DECK_52:
    case FS_DECK_54:
    case FS_DECK_32:
    case FS_DECK_36: {
        /* Stripped decks keep A and the ranks from `low` up. */
        unsigned low = kind == FS_DECK_32 ? 7 : kind == FS_DECK_36 ? 6 : 2;
        for (unsigned s = 0; s < 4; s++)
            for (unsigned r = 1; r <= 13; r++)
                if (r == 1 || r >= low)
                    out[k++] = s * 13 + r - 1;
        if (kind == FS_DECK_54) {
            out[k++] = FS_CARD_SMALL_JOKER;
            out[k++] = FS_CARD_BIG_JOKER;
        }
        break;
    }
    case FS_DECK_TILES_136:
    case FS_DECK_TILES_144:
        for (unsigned copy = 0; copy < 4; copy++)
            for (unsigned t = 0; t < 34; t++)
                out[k++] = FS_TILE_BASE + t;
        if (kind == FS_DECK_TILES_144)
            for (unsigned t = 0; t < 8; t++)
                out[k++] = FS_TILE_FLOWER + t;
        break;
    default:
        break;
    }
}

int fs_deck_fill(fs_card *out, size_t cap, fs_deck_kind kind,
                 unsigned decks, size_t *n)
{
    size_t one = fs_deck_size(kind);
    if (one == 0 || decks == 0)
        return FS_EINVAL;
    if (decks > SIZE_MAX / one)
        return FS_ERANGE;
    size_t total = one * decks;
    if (n)
        *n = total;
    if (total > cap || out == NULL)
        return FS_ERANGE;
    for (unsigned d = 0; d < decks; d++)
        fill_one(out + d * one, kind);
    return FS_OK;
}
