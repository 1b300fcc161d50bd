/* entropy.c -- how many distinct deals a game has, against how many a
 * generator can produce (docs/entropy.md). */
#include <math.h>
#include <stdio.h>

#include "../internal.h"
#include "fairshuf/cards.h"
#include "fairshuf/stats.h"

/* deal_bits and how much of it the generator reaches. */
static void reach(fs_entropy *out, const fs_rng_info *rng, double bits)
{
    out->deal_bits = bits;
    out->seed_bits = rng->seed_bits;
    out->state_bits = rng->state_bits;
    if ((double)rng->seed_bits >= bits)
        out->reach = FS_REACH_ALL;
    else
        out->reach = rng->cryptographic ? FS_REACH_COMPUTATIONAL
                                        : FS_REACH_PARTIAL;
}

void fs_deal_entropy(const fs_dealer *d, const fs_rng_info *rng,
                     fs_entropy *out)
{
    if (rng == NULL)
        rng = fs_rng_find("chacha20");
    const fs_deal *l = &d->layout;
    out->deck_bits = fs_log2_factorial(d->n);
    double bits = out->deck_bits;
    size_t dealt = 0;
    for (size_t p = 0; p < l->nparts; p++) {
        dealt += l->part[p].count;
        if (!l->part[p].ordered)
            bits -= fs_log2_factorial(l->part[p].count);
    }
    /* Burnt and undealt cards: one unordered, unseen group. */
    bits -= fs_log2_factorial(d->n - dealt);
    reach(out, rng, bits);
}

void fs_shoe_entropy(size_t n, const size_t *sizes, size_t nhands,
                     int rest_shown, const fs_rng_info *rng, fs_entropy *out)
{
    if (rng == NULL)
        rng = fs_rng_find("chacha20");
    out->deck_bits = fs_log2_factorial(n);
    double bits = out->deck_bits;
    size_t dealt = 0;
    for (size_t h = 0; h < nhands && dealt < n; h++) {
        size_t k = sizes[h] < n - dealt ? sizes[h] : n - dealt;
        dealt += k;
        bits -= fs_log2_factorial(k);
    }
    if (!rest_shown)
        bits -= fs_log2_factorial(n - dealt);
    reach(out, rng, bits);
}

int fs_entropy_warning(const fs_entropy *e, const char *game,
                       const char *rng, char *buf, size_t cap)
{
    if (e == NULL || buf == NULL || cap == 0)
        return FS_EINVAL;
    buf[0] = '\0';
    if (e->reach != FS_REACH_PARTIAL)
        return 0;
    int len = snprintf(buf, cap,
                       "generator %s has 2^%u seeds but %s has 2^%.1f "
                       "distinct deals: at most 1 deal in 2^%.1f can ever "
                       "be dealt",
                       rng ? rng : "?", e->seed_bits, game ? game : "the game",
                       e->deal_bits, e->deal_bits - e->seed_bits);
    if (len < 0 || (size_t)len >= cap) {
        buf[0] = '\0';
        return FS_ERANGE;
    }
    return len;
}
