/* playlist.c -- shuffle play over n items: cycle c is the keyed
 * permutation of epoch c, with the boundary rule at its start
 * (<fairshuf/playlist.h>, docs/playlist.md). */
#include <sodium.h>
#include <string.h>

#include "fairshuf/keyed.h"
#include "fairshuf/playlist.h"
#include "internal.h"

static uint32_t effective_window(uint64_t n, uint32_t window)
{
    uint64_t w = window == FS_PLAYLIST_WINDOW_DEFAULT ? (n / 4 < 10 ? n / 4 : 10)
                                                      : window;
    if (w > n / 3)
        w = n / 3;
    if (w > FS_PLAYLIST_WINDOW_MAX)
        w = FS_PLAYLIST_WINDOW_MAX;
    return (uint32_t)w;
}

int fs_playlist_init(fs_playlist *pl, uint64_t n, const uint8_t key[32],
                     uint32_t window)
{
    if (pl == NULL || key == NULL || n == 0)
        return FS_EINVAL;
    memset(pl, 0, sizeof *pl);
    memcpy(pl->key, key, 32);
    pl->n = n;
    pl->window = effective_window(n, window);
    return FS_OK;
}

int fs_playlist_from_seed(fs_playlist *pl, uint64_t n, const char *seed,
                          uint32_t window)
{
    uint8_t key[32];
    if (seed == NULL)
        return FS_ESEED;
    int rc = fs_seed_to_key(seed, key);
    if (rc == FS_OK)
        rc = fs_playlist_init(pl, n, key, window);
    sodium_memzero(key, sizeof key);
    return rc;
}

/* The raw order of cycle c: epoch c of the master key (given as 64 hex
 * digits, which fs_seed_to_key() takes as the key itself). */
static int cycle_perm(const fs_playlist *pl, uint64_t c, fs_keyed *p)
{
    char hex[65];
    fs_hex_encode(pl->key, 32, hex);
    int rc = fs_keyed_from_seed(p, pl->n, hex, c);
    sodium_memzero(hex, sizeof hex);
    return rc;
}

/* The first 2w positions of cycle c >= 1 under the boundary rule: of the
 * first 2w raw items, those among the last w of the previous cycle (raw
 * there, as n - w >= 2w) go behind the others; at most w of them, so the
 * first w positions are free.  cur is cycle c's raw order. */
static int boundary_head(const fs_playlist *pl, uint64_t cycle,
                         const fs_keyed *cur, uint64_t *head)
{
    fs_keyed prev;
    int rc = cycle_perm(pl, cycle - 1, &prev);
    if (rc != FS_OK)
        return rc;
    uint64_t w = pl->window;
    uint64_t tail[FS_PLAYLIST_WINDOW_MAX], raw[2 * FS_PLAYLIST_WINDOW_MAX];
    for (uint64_t k = 0; k < w; k++)
        raw[k] = pl->n - w + k;
    fs_keyed_at_many(&prev, raw, tail, (size_t)w);
    for (uint64_t k = 0; k < 2 * w; k++)
        raw[k] = k;
    fs_keyed_at_many(cur, raw, raw, (size_t)(2 * w));
    uint64_t front = 0, back = 0, ended[2 * FS_PLAYLIST_WINDOW_MAX] = {0};
    for (uint64_t k = 0; k < 2 * w; k++) {
        uint64_t x = raw[k];
        int in_tail = 0;
        for (uint64_t t = 0; t < w; t++)
            in_tail |= tail[t] == x;
        if (in_tail)
            ended[back++] = x;
        else
            head[front++] = x;
    }
    memcpy(head + front, ended, back * sizeof *ended);
    fs_keyed_wipe(&prev);
    return FS_OK;
}

int fs_playlist_item_at(const fs_playlist *pl, uint64_t cycle, uint64_t pos,
                        uint64_t *item)
{
    if (pl == NULL || item == NULL || pos >= pl->n)
        return FS_EINVAL;
    fs_keyed cur;
    int rc = cycle_perm(pl, cycle, &cur);
    if (rc != FS_OK)
        return rc;
    uint64_t w = pl->window;
    if (cycle == 0 || w == 0 || pos >= 2 * w) {
        *item = fs_keyed_at(&cur, pos);
    } else {
        uint64_t head[2 * FS_PLAYLIST_WINDOW_MAX];
        rc = boundary_head(pl, cycle, &cur, head);
        if (rc == FS_OK)
            *item = head[pos];
    }
    fs_keyed_wipe(&cur);
    return rc;
}

int fs_playlist_items(const fs_playlist *pl, uint64_t cycle, uint64_t from,
                      size_t count, uint64_t *items)
{
    if (pl == NULL || (items == NULL && count > 0) || from > pl->n ||
        count > pl->n - from)
        return FS_EINVAL;
    if (count == 0)
        return FS_OK;
    fs_keyed cur;
    int rc = cycle_perm(pl, cycle, &cur);
    if (rc != FS_OK)
        return rc;
    for (size_t k = 0; k < count; k++)
        items[k] = from + k;
    fs_keyed_at_many(&cur, items, items, count);
    uint64_t w = pl->window;
    if (cycle > 0 && w > 0 && from < 2 * w) {
        uint64_t head[2 * FS_PLAYLIST_WINDOW_MAX];
        rc = boundary_head(pl, cycle, &cur, head);
        for (uint64_t k = from; rc == FS_OK && k < 2 * w && k - from < count;
             k++)
            items[k - from] = head[k];
    }
    fs_keyed_wipe(&cur);
    return rc;
}

/* The item of step s >= 1. */
static int step_item(const fs_playlist *pl, uint64_t s, uint64_t *item)
{
    return fs_playlist_item_at(pl, (s - 1) / pl->n, (s - 1) % pl->n, item);
}

int fs_playlist_next(fs_playlist *pl, uint64_t *item)
{
    if (pl == NULL || item == NULL || pl->n == 0)
        return FS_EINVAL;
    if (pl->step == UINT64_MAX)
        return FS_ERANGE;
    int rc = step_item(pl, pl->step + 1, item);
    if (rc == FS_OK)
        pl->step++;
    return rc;
}

int fs_playlist_prev(fs_playlist *pl, uint64_t *item)
{
    if (pl == NULL || item == NULL || pl->n == 0)
        return FS_EINVAL;
    if (pl->step <= 1)
        return FS_ERANGE;
    int rc = step_item(pl, pl->step - 1, item);
    if (rc == FS_OK)
        pl->step--;
    return rc;
}

int fs_playlist_current(const fs_playlist *pl, uint64_t *item)
{
    if (pl == NULL || item == NULL || pl->n == 0)
        return FS_EINVAL;
    if (pl->step == 0)
        return FS_ERANGE;
    return step_item(pl, pl->step, item);
}

int fs_playlist_seek(fs_playlist *pl, uint64_t pos, uint64_t *item)
{
    if (pl == NULL || item == NULL || pl->n == 0 || pos >= pl->n)
        return FS_EINVAL;
    uint64_t cycle = pl->step ? (pl->step - 1) / pl->n : 0;
    if (cycle > (UINT64_MAX - pos - 1) / pl->n)
        return FS_ERANGE;
    uint64_t s = cycle * pl->n + pos + 1;
    int rc = step_item(pl, s, item);
    if (rc == FS_OK)
        pl->step = s;
    return rc;
}

void fs_playlist_position(const fs_playlist *pl, uint64_t *cycle, uint64_t *pos)
{
    uint64_t g = pl->step ? pl->step - 1 : 0;
    if (cycle)
        *cycle = pl->n ? g / pl->n : 0;
    if (pos)
        *pos = pl->n ? g % pl->n : 0;
}
