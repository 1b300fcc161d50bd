/* dealer.c -- a game set up for its players: the layout (which shoe
 * position each dealt card comes from) is computed once, so that a deal is
 * copy + shuffle + gather. */
#include "../internal.h"
#include "fairshuf/cards.h"

/* Appends a part; its slots are filled by the caller. */
static fs_deal_part *add_part(fs_deal *l, const char *key, const char *en,
                              const char *zh, int seat, size_t count,
                              int ordered)
{
    fs_deal_part *p = &l->part[l->nparts++];
    p->key = key;
    p->en = en;
    p->zh = zh;
    p->seat = seat;
    p->offset = l->ncards;
    p->count = count;
    p->ordered = ordered;
    l->ncards += count;
    return p;
}

int fs_dealer_init(fs_dealer *d, const fs_game *g, unsigned players,
                   unsigned decks, fs_algorithm alg)
{
    if (d == NULL || g == NULL)
        return FS_EINVAL;
    if (players == 0)
        players = g->players;
    if (decks == 0)
        decks = g->decks;
    if (players < g->min_players || players > g->max_players)
        return FS_EINVAL;
    if ((unsigned)alg >= FS_ALG_COUNT)
        return FS_EINVAL;
    size_t n;
    int rc = fs_deck_fill(d->fresh, FS_DEAL_MAX_CARDS, g->deck, decks, &n);
    if (rc != FS_OK)
        return rc;
    d->game = g;
    d->players = players;
    d->decks = decks;
    d->alg = alg;
    d->n = n;

    unsigned seats = players + (g->dealer_hand ? 1u : 0u);
    size_t need = (size_t)seats * g->hand;
    for (unsigned e = 0; e < g->nextra; e++)
        need += g->extra[e].burn + g->extra[e].count;
    if (need > n)
        return FS_ERANGE;

    fs_deal *l = &d->layout;
    l->nparts = l->ncards = 0;
    l->cut = 0;
    for (unsigned s = 0; s < seats; s++) {
        int dealer = s == players;
        add_part(l, dealer ? "dealer" : "hand", dealer ? "Dealer" : g->hand_en,
                 dealer ? "庄家" : g->hand_zh, (int)s, g->hand, 0);
    }
    /* Hands: slot of card r of seat s, in dealing order. */
    size_t pos = 0;
    for (unsigned r = 0; r < g->hand; r++)
        for (unsigned s = 0; s < seats; s++) {
            size_t slot = (size_t)s * g->hand + r;
            size_t at = g->round_robin ? (size_t)r * seats + s
                                       : (size_t)s * g->hand + r;
            d->from[slot] = (uint16_t)at;
        }
    pos = (size_t)seats * g->hand;
    for (unsigned e = 0; e < g->nextra; e++) {
        const fs_game_part *gp = &g->extra[e];
        pos += gp->burn;
        fs_deal_part *p =
            add_part(l, gp->key, gp->en, gp->zh, -1, gp->count, gp->ordered);
        for (size_t i = 0; i < gp->count; i++)
            d->from[p->offset + i] = (uint16_t)pos++;
    }
    if (g->rest.key) {
        fs_deal_part *p = add_part(l, g->rest.key, g->rest.en, g->rest.zh, -1,
                                   n - pos, g->rest.ordered);
        for (size_t i = 0; i < p->count; i++)
            d->from[p->offset + i] = (uint16_t)pos++;
        if (g->cut_card) {
            size_t behind = (size_t)g->cut_card * decks / g->decks;
            l->cut = p->count > behind ? p->count - behind : 0;
        }
    }
    d->identity = 1;
    for (size_t i = 0; i < l->ncards; i++)
        d->identity &= d->from[i] == i;
    return FS_OK;
}

void fs_dealer_layout(const fs_dealer *d, const fs_card *shoe, fs_deal *out)
{
    const fs_deal *l = &d->layout;
    out->nparts = l->nparts;
    out->ncards = l->ncards;
    out->cut = l->cut;
    memcpy(out->part, l->part, l->nparts * sizeof l->part[0]);
    for (size_t i = 0; i < l->ncards; i++)
        out->cards[i] = shoe[d->from[i]];
}

int fs_dealer_deal(fs_dealer *d, fs_rng *rng, fs_deal *out)
{
    if (d == NULL || d->game == NULL || out == NULL)
        return FS_EINVAL;
    const fs_deal *l = &d->layout;
    /* Blocks dealt straight from the top (most games): the shuffled shoe
     * is the deal, so shuffle in the output and skip the gather. */
    fs_card *shoe = d->identity ? out->cards : d->work;
    memcpy(shoe, d->fresh, d->n * sizeof shoe[0]);
    int rc = fs_shuffle_with(d->alg, shoe, d->n, sizeof shoe[0], rng);
    if (rc != FS_OK)
        return rc;
    if (!d->identity) {
        fs_dealer_layout(d, shoe, out);
        return FS_OK;
    }
    out->nparts = l->nparts;
    out->ncards = l->ncards;
    out->cut = l->cut;
    memcpy(out->part, l->part, l->nparts * sizeof l->part[0]);
    return FS_OK;
}

long fs_dealer_position(const fs_dealer *d, size_t part, size_t index)
{
    if (d == NULL || part >= d->layout.nparts ||
        index >= d->layout.part[part].count)
        return -1;
    return d->from[d->layout.part[part].offset + index];
}
