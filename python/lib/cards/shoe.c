/* shoe.c -- a shoe: the cards being dealt from the top. */
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/cards.h"

int fs_shoe_init_cards(fs_shoe *s, const fs_card *cards, size_t n)
{
    if (s == NULL || cards == NULL || n == 0)
        return FS_EINVAL;
    if (n > SIZE_MAX / (2 * sizeof(fs_card)))
        return FS_ERANGE;
    fs_card *mem = malloc(2 * n * sizeof *mem);
    if (mem == NULL)
        return FS_ENOMEM;
    memcpy(mem, cards, n * sizeof *mem);
    memcpy(mem + n, cards, n * sizeof *mem);
    s->cards = mem + n;
    s->fresh = mem;
    s->n = n;
    s->pos = 0;
    return FS_OK;
}

int fs_shoe_init(fs_shoe *s, fs_deck_kind kind, unsigned decks)
{
    size_t n;
    int rc = fs_deck_fill(NULL, 0, kind, decks, &n);
    if (rc != FS_ERANGE || s == NULL)
        return rc == FS_OK ? FS_EINVAL : rc;
    if (n > SIZE_MAX / sizeof(fs_card))
        return FS_ERANGE;
    fs_card *tmp = malloc(n * sizeof *tmp);
    if (tmp == NULL)
        return FS_ENOMEM;
    fs_deck_fill(tmp, n, kind, decks, &n);
    rc = fs_shoe_init_cards(s, tmp, n);
    free(tmp);
    return rc;
}

void fs_shoe_free(fs_shoe *s)
{
    if (s && s->fresh) {
        free((void *)s->fresh); /* one block: fresh then cards */
        s->fresh = NULL;
        s->cards = NULL;
        s->n = s->pos = 0;
    }
}

int fs_shoe_shuffle(fs_shoe *s, fs_algorithm alg, fs_rng *rng)
{
    if (s == NULL || s->cards == NULL)
        return FS_EINVAL;
    memcpy(s->cards, s->fresh, s->n * sizeof *s->cards);
    s->pos = 0;
    return fs_shuffle_with(alg, s->cards, s->n, sizeof *s->cards, rng);
}

int fs_shoe_deal(fs_shoe *s, fs_card *out, size_t k)
{
    if (s == NULL || s->cards == NULL)
        return FS_EINVAL;
    if (k > s->n - s->pos)
        return FS_ERANGE;
    if (out)
        memcpy(out, s->cards + s->pos, k * sizeof *out);
    s->pos += k;
    return FS_OK;
}

int fs_shoe_burn(fs_shoe *s, size_t k)
{
    return fs_shoe_deal(s, NULL, k);
}

/* Rotation by three reversals: in place, O(left). */
static void reverse(fs_card *a, size_t n)
{
    for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
        fs_card t = a[i];
        a[i] = a[j - 1];
        a[j - 1] = t;
    }
}

int fs_shoe_cut(fs_shoe *s, size_t at)
{
    if (s == NULL || s->cards == NULL || at > s->n - s->pos)
        return FS_EINVAL;
    fs_card *a = s->cards + s->pos;
    size_t left = s->n - s->pos;
    reverse(a, at);
    reverse(a + at, left - at);
    reverse(a, left);
    return FS_OK;
}

size_t fs_shoe_left(const fs_shoe *s)
{
    return s && s->cards ? s->n - s->pos : 0;
}

const fs_card *fs_shoe_peek(const fs_shoe *s)
{
    return s && s->cards ? s->cards + s->pos : NULL;
}
