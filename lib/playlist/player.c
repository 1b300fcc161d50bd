/* player.c -- the player a music player ships (<fairshuf/playlist.h>,
 * docs/playlist.md "The player"): the keyed order, or a spread or
 * weighted order per cycle; a list that changes between steps (matched by
 * item ids); play next; start from this song. */
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "fairshuf/weighted.h"
#include "internal.h"
#include "player_internal.h"

int fs__ids_push(fs_ids *v, uint64_t id)
{
    if (v->len == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        uint64_t *q = realloc(v->id, cap * sizeof *q);
        if (q == NULL)
            return FS_ENOMEM;
        v->id = q;
        v->cap = cap;
    }
    v->id[v->len++] = id;
    return FS_OK;
}

/* Inserts id at index at (at <= len).  FS_ENOMEM. */
static int ids_insert(fs_ids *v, size_t at, uint64_t id)
{
    if (fs__ids_push(v, 0) != FS_OK)
        return FS_ENOMEM;
    memmove(v->id + at + 1, v->id + at, (v->len - 1 - at) * sizeof *v->id);
    v->id[at] = id;
    return FS_OK;
}

static void free_list(fs_player *p)
{
    free(p->lid);
    free(p->sorted);
    free(p->group);
    free(p->weight);
    free(p->rest);
    p->lid = NULL;
    p->sorted = NULL;
    p->group = NULL;
    p->weight = NULL;
    p->rest = NULL;
    p->n = p->nrest = 0;
}

void fs_player_free(fs_player *p)
{
    if (p == NULL)
        return;
    free_list(p);
    free(p->ids.id);
    free(p->avoid.id);
    free(p->queue.id);
    sodium_memzero(p, sizeof *p);
    free(p);
}

int fs_player_create(fs_player **out, const uint8_t key[32], uint32_t window,
                     fs_player_order order, uint64_t field,
                     const uint8_t tag[16])
{
    if (out == NULL || key == NULL || order > FS_PLAYER_WEIGHTS)
        return FS_EINVAL;
    fs_player *p = calloc(1, sizeof *p);
    if (p == NULL)
        return FS_ENOMEM;
    memcpy(p->pl.key, key, 32);
    p->window_asked = window;
    p->order = order;
    p->field = order == FS_PLAYER_PLAIN ? 0 : field;
    if (tag)
        memcpy(p->tag, tag, 16);
    p->fresh = 1;
    p->version = 2;
    *out = p;
    return FS_OK;
}

void fs_player_describe(const fs_player *p, uint8_t key[32],
                        fs_player_order *order, uint64_t *field,
                        uint8_t tag[16], uint8_t fingerprint[32],
                        int *version)
{
    if (fingerprint)
        memcpy(fingerprint, p->pl.fingerprint, 32);
    if (key)
        memcpy(key, p->pl.key, 32);
    if (order)
        *order = p->order;
    if (field)
        *field = p->field;
    if (tag)
        memcpy(tag, p->tag, 16);
    if (version)
        *version = p->present ? p->version : 0;
}

int fs_player_matches(const fs_player *p, const uint8_t key[32],
                      const uint8_t tag[16], fs_player_order order,
                      uint64_t field, const char **why)
{
    const char *dummy;
    if (why == NULL)
        why = &dummy;
    *why = NULL;
    if (p == NULL || tag == NULL)
        return FS_EINVAL;
    if (key && sodium_memcmp(key, p->pl.key, 32) != 0)
        *why = "made with another seed";
    else if (p->present && p->version == 2 && memcmp(tag, p->tag, 16) != 0)
        *why = "made for another list";
    else if (p->present && p->version == 2 &&
             (order != p->order || field != p->field))
        *why = "made with another order";
    return *why ? FS_EINVAL : FS_OK;
}

static int by_id(const void *x, const void *y)
{
    const fs_idx *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

int fs_player_item_ids(const fs_player *p, size_t n, const char *const *text,
                       const size_t *len, uint64_t *ids)
{
    if (p == NULL || (n > 0 && (text == NULL || len == NULL || ids == NULL)))
        return FS_EINVAL;
    fs_idx *s = malloc((n ? n : 1) * sizeof *s);
    if (s == NULL)
        return FS_ENOMEM;
    int rc = FS_OK;
    for (size_t i = 0; i < n && rc == FS_OK; i++) {
        rc = fs_playlist_item_id(&p->pl, text[i], len[i], 0, &s[i].id);
        s[i].index = i;
    }
    if (rc == FS_OK)
        qsort(s, n, sizeof *s, by_id);
    /* equal texts have equal first ids: the k-th of them (in list order)
     * gets occurrence k */
    uint64_t occ = 0;
    for (size_t k = 0; k < n && rc == FS_OK; k++) {
        occ = k > 0 && s[k].id == s[k - 1].id ? occ + 1 : 0;
        size_t i = s[k].index;
        if (occ == 0)
            ids[i] = s[k].id;
        else
            rc = fs_playlist_item_id(&p->pl, text[i], len[i], occ, &ids[i]);
    }
    free(s);
    return rc;
}

/* The list's index of an id, or -1: the item was removed. */
static int64_t find_id(const fs_player *p, uint64_t id)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->sorted[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n && p->sorted[lo].id == id ? (int64_t)p->sorted[lo].index
                                               : -1;
}

/* Is the current cycle an array (frozen positions, then p->rest) rather
 * than the list's plain keyed order? */
static int array_cycle(const fs_player *p)
{
    return p->frozen || p->order != FS_PLAYER_PLAIN;
}

uint64_t fs_player_cycle_length(const fs_player *p)
{
    return array_cycle(p) ? p->frozen + p->nrest : p->pl.n;
}

/* Position k of the current cycle: the list index, or -1 if removed. */
static int order_at(const fs_player *p, uint64_t k, int64_t *item)
{
    if (!array_cycle(p)) {
        uint64_t x;
        int rc = fs_playlist_item_at(&p->pl, p->cycle, k, &x);
        *item = (int64_t)x;
        return rc;
    }
    if (k < p->frozen)
        *item = find_id(p, p->ids.id[k]);
    else
        *item = (int64_t)p->rest[k - p->frozen];
    return FS_OK;
}

/* Normal cycle: the cycle and position from the step; a record of another
 * cycle is dropped. */
static void sync_step(fs_player *p)
{
    uint64_t c, pos;
    fs_playlist_position(&p->pl, &c, &pos);
    if (c != p->cycle) {
        /* back into an earlier cycle (prev): all of it was passed */
        p->ids.len = 0;
        p->passed = c < p->cycle && p->cycle != UINT64_MAX ? p->pl.n : 0;
    }
    p->cycle = c;
    p->at = p->pl.step ? pos + 1 : 0;
}

/* The positions passed so far: at most `passed`, at least `at`. */
static int record_passed(fs_player *p)
{
    if (p->passed < p->at)
        p->passed = p->at;
    return FS_OK;
}

/* The id of position k of the current cycle (k < passed), from the list
 * the positions were worked out with. */
static int position_id(const fs_player *p, uint64_t k, uint64_t *id)
{
    if (k < p->ids.len) {
        *id = p->ids.id[k];
        return FS_OK;
    }
    int64_t item;
    int rc = order_at(p, k, &item);
    if (rc == FS_OK && item < 0)
        rc = FS_EINVAL; /* positions past the frozen ones are present */
    if (rc == FS_OK)
        *id = p->lid[item];
    return rc;
}

/* Writes down the ids of every position passed (needs the list the
 * positions were worked out with). */
static int materialize(fs_player *p)
{
    /* A plain cycle's positions in chunks through the keyed batch call
     * (the same items as order_at(), one key derivation per chunk). */
    while (!array_cycle(p) && p->ids.len < p->passed) {
        uint64_t buf[1024];
        size_t cnt = p->passed - p->ids.len < 1024
                         ? (size_t)(p->passed - p->ids.len) : 1024;
        int rc = fs_playlist_items(&p->pl, p->cycle, p->ids.len, cnt, buf);
        for (size_t k = 0; rc == FS_OK && k < cnt; k++)
            if (fs__ids_push(&p->ids, p->lid[buf[k]]) != FS_OK)
                rc = FS_ENOMEM;
        if (rc != FS_OK)
            return rc;
    }
    while (p->ids.len < p->passed) {
        uint64_t id;
        int rc = position_id(p, p->ids.len, &id);
        if (rc != FS_OK)
            return rc;
        if (fs__ids_push(&p->ids, id) != FS_OK)
            return FS_ENOMEM;
    }
    return FS_OK;
}

/* The generator of an array cycle's spread or weighted order: ChaCha20
 * keyed (as 64 hex digits) by BLAKE2b-256, keyed by the player's key, of
 * "fairshuf playlist order v1" || cycle || fingerprint || frozen (64-bit
 * little-endian numbers). */
static int order_rng(const fs_player *p, fs_rng **rng)
{
    static const char label[] = "fairshuf playlist order v1";
    enum { L = sizeof label - 1 };
    uint8_t in[L + 48], key[32];
    char hex[65];
    memcpy(in, label, L);
    for (int i = 0; i < 8; i++) {
        in[L + i] = (uint8_t)(p->cycle >> (8 * i));
        in[L + 40 + i] = (uint8_t)(p->frozen >> (8 * i));
    }
    memcpy(in + L + 8, p->pl.fingerprint, 32);
    crypto_generichash(key, 32, in, sizeof in, p->pl.key, 32);
    fs_hex_encode(key, 32, hex);
    int rc = fs_rng_new(rng, "chacha20", hex);
    sodium_memzero(key, sizeof key);
    sodium_memzero(hex, sizeof hex);
    return rc;
}

/* Spread or weighted order of the items not among the frozen positions
 * (and, weights, of positive weight) into p->rest. */
static int field_rest(fs_player *p)
{
    size_t n = p->n, nf = p->frozen, m = 0;
    uint64_t *seen = malloc((nf ? nf : 1) * sizeof *seen);
    uint64_t *cand = malloc(n * sizeof *cand), *g = malloc(n * sizeof *g);
    uint64_t *order = malloc(n * sizeof *order);
    double *w = malloc(n * sizeof *w);
    fs_rng *rng = NULL;
    int rc = FS_ENOMEM;
    if (!seen || !cand || !g || !order || !w)
        goto done;
    if (nf)
        memcpy(seen, p->ids.id, nf * sizeof *seen);
    qsort(seen, nf, sizeof *seen, fs__cmp_u64);
    for (size_t i = 0; i < n; i++) {
        if (nf &&
            bsearch(&p->lid[i], seen, nf, sizeof *seen, fs__cmp_u64))
            continue;
        if (p->order == FS_PLAYER_WEIGHTS && !(p->weight[i] > 0))
            continue; /* weight 0: never */
        cand[m] = i;
        if (p->order == FS_PLAYER_WEIGHTS)
            w[m] = p->weight[i];
        else
            g[m] = p->group[i];
        m++;
    }
    rc = order_rng(p, &rng);
    if (rc == FS_OK)
        rc = p->order == FS_PLAYER_WEIGHTS
                 ? fs_weighted_order(w, m, order, NULL, rng)
                 : fs_spread_order(g, m, order, rng);
    if (rc == FS_OK) {
        for (size_t i = 0; i < m; i++)
            p->rest[i] = cand[order[i]];
        p->nrest = m;
    }
done:
    fs_rng_free(rng);
    free(seen);
    free(cand);
    free(g);
    free(order);
    free(w);
    return rc;
}

/* The window rule for an array cycle that starts afresh: of the first 2w
 * of the rest, those among the previous cycle's last w (avoid) go behind
 * the others, both groups keeping their order. */
static void avoid_rule(fs_player *p)
{
    size_t w = p->avoid.len, span = 2 * w < p->nrest ? 2 * w : p->nrest;
    uint64_t front[2 * FS_PLAYLIST_WINDOW_MAX] = {0},
             back[2 * FS_PLAYLIST_WINDOW_MAX] = {0};
    size_t nf = 0, nb = 0;
    for (size_t k = 0; k < span; k++) {
        uint64_t x = p->rest[k];
        int in = 0;
        for (size_t t = 0; t < w; t++)
            in |= p->avoid.id[t] == p->lid[x];
        if (in)
            back[nb++] = x;
        else
            front[nf++] = x;
    }
    memcpy(p->rest, front, nf * sizeof *front);
    memcpy(p->rest + nf, back, nb * sizeof *back);
}

static int compute_rest(fs_player *p)
{
    free(p->rest);
    p->nrest = 0;
    p->rest = malloc(p->n * sizeof *p->rest);
    if (p->rest == NULL)
        return FS_ENOMEM;
    int rc;
    if (p->order == FS_PLAYER_PLAIN)
        rc = fs_playlist_rest(&p->pl, p->cycle, p->ids.id, p->frozen, p->lid,
                              p->n, p->rest, &p->nrest);
    else
        rc = field_rest(p);
    if (rc == FS_OK && p->frozen == 0 && p->avoid.len)
        avoid_rule(p);
    return rc;
}

/* Ends the current cycle where the player is (after position at) and
 * starts the next one, before its first item.  An array order remembers
 * the last w items played for the window rule. */
static int new_cycle(fs_player *p)
{
    uint64_t c = p->cycle, at = p->at, w = p->pl.window;
    if (c + 1 > UINT64_MAX / p->pl.n)
        return FS_ERANGE;
    p->avoid.len = 0;
    if (p->order != FS_PLAYER_PLAIN)
        for (uint64_t k = at > w ? at - w : 0; k < at; k++) {
            uint64_t id;
            int rc = position_id(p, k, &id);
            if (rc == FS_EINVAL)
                continue; /* removed from the list: nothing to avoid */
            if (rc != FS_OK)
                return rc;
            if (fs__ids_push(&p->avoid, id) != FS_OK)
                return FS_ENOMEM;
        }
    p->pl.step = (c + 1) * p->pl.n;
    p->cycle = c + 1;
    p->at = 0;
    p->frozen = 0;
    p->ids.len = 0;
    p->passed = 0;
    p->base = c + 1;
    return array_cycle(p) ? compute_rest(p) : FS_OK;
}

static uint32_t asked_window(const fs_playlist *pl)
{
    uint32_t window = pl->window;
    if (window == (pl->n / 4 < 10 ? pl->n / 4 : 10))
        window = FS_PLAYLIST_WINDOW_DEFAULT;
    return window;
}

int fs_player_set_list(fs_player *p, size_t n, const uint64_t *ids,
                       const uint8_t fingerprint[32], const uint64_t *group,
                       const double *weight, int *changed)
{
    if (p == NULL || n == 0 || ids == NULL || fingerprint == NULL ||
        (p->order == FS_PLAYER_SPREAD && group == NULL) ||
        (p->order == FS_PLAYER_WEIGHTS && weight == NULL))
        return FS_EINVAL;
    if (p->order == FS_PLAYER_WEIGHTS) {
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            if (!(weight[i] >= 0) || !isfinite(weight[i]))
                return FS_EINVAL;
            any |= weight[i] > 0;
        }
        if (!any)
            return FS_EINVAL;
    }
    if (changed)
        *changed = 0;
    if (!p->fresh && p->present &&
        (p->pl.n != n || memcmp(p->pl.fingerprint, fingerprint, 32))) {
        /* the list changed: the positions passed are written down from
         * the list they were worked out with, which the player must have */
        if (p->lid == NULL && p->passed > p->ids.len)
            return FS_ENOTFOUND;
        int rc = p->lid ? materialize(p) : FS_OK;
        if (rc != FS_OK)
            return rc;
    }
    free_list(p);
    p->lid = malloc(n * sizeof *p->lid);
    p->sorted = malloc(n * sizeof *p->sorted);
    if (group)
        p->group = malloc(n * sizeof *p->group);
    if (weight)
        p->weight = malloc(n * sizeof *p->weight);
    if (!p->lid || !p->sorted || (group && !p->group) ||
        (weight && !p->weight)) {
        free_list(p);
        return FS_ENOMEM;
    }
    p->n = n;
    memcpy(p->lid, ids, n * sizeof *ids);
    if (group)
        memcpy(p->group, group, n * sizeof *group);
    if (weight)
        memcpy(p->weight, weight, n * sizeof *weight);
    for (size_t i = 0; i < n; i++) {
        p->sorted[i].id = ids[i];
        p->sorted[i].index = i;
    }
    qsort(p->sorted, n, sizeof *p->sorted, by_id);
    int rc = FS_OK;
    int differs = p->pl.n != n || memcmp(p->pl.fingerprint, fingerprint, 32);
    if (p->fresh) {
        uint8_t key[32];
        memcpy(key, p->pl.key, 32);
        rc = fs_playlist_init(&p->pl, n, key, p->window_asked);
        sodium_memzero(key, sizeof key);
        memcpy(p->pl.fingerprint, fingerprint, 32);
        p->fresh = 0;
        differs = 0;
    } else if (!p->present && differs) {
        /* an older fairshuf's state (no record): start over on the new
         * list with a key derived from the old one and the new list */
        uint8_t key[32];
        crypto_auth_hmacsha256(key, fingerprint, 32, p->pl.key);
        rc = fs_playlist_init(&p->pl, n, key, asked_window(&p->pl));
        sodium_memzero(key, sizeof key);
        memcpy(p->pl.fingerprint, fingerprint, 32);
        if (changed)
            *changed = 1;
        differs = 0;
    }
    if (rc != FS_OK)
        return rc;
    if (!p->present) {
        p->present = 1;
        p->cycle = UINT64_MAX; /* sync_step() drops the record */
        sync_step(p);
    }
    if (differs) {
        /* the passed positions stay (by identity); the rest of the cycle
         * is the new list's items not among them */
        uint8_t key[32];
        memcpy(key, p->pl.key, 32);
        rc = fs_playlist_init(&p->pl, n, key, asked_window(&p->pl));
        sodium_memzero(key, sizeof key);
        if (rc != FS_OK)
            return rc;
        memcpy(p->pl.fingerprint, fingerprint, 32);
        if (p->passed == 0) {
            p->pl.step = p->cycle * n;
            p->frozen = 0;
            p->ids.len = 0;
        } else {
            p->frozen = p->ids.len;
            p->base = p->cycle;
        }
        if (changed)
            *changed = 1;
    } else if (!array_cycle(p)) {
        sync_step(p);
    }
    if (array_cycle(p))
        rc = compute_rest(p);
    if (rc == FS_OK && p->at > fs_player_cycle_length(p))
        rc = FS_EINVAL;
    return rc;
}

/* The next queued item still in the list, played at position at: the
 * cycle becomes its passed positions, the queued item, the positions
 * heard after a prev, then the rest without them.  0: queue empty. */
static int play_queued(fs_player *p, size_t *item, int *played)
{
    *played = 0;
    while (p->queue.len) {
        uint64_t id = p->queue.id[0];
        memmove(p->queue.id, p->queue.id + 1,
                --p->queue.len * sizeof *p->queue.id);
        int64_t i = find_id(p, id);
        if (i < 0)
            continue; /* removed from the list since */
        record_passed(p);
        int rc = materialize(p);
        if (rc != FS_OK)
            return rc;
        if (!array_cycle(p))
            p->base = p->cycle;
        if (ids_insert(&p->ids, p->at, id) != FS_OK)
            return FS_ENOMEM;
        p->frozen = p->passed = p->ids.len;
        p->at++;
        *item = (size_t)i;
        *played = 1;
        return compute_rest(p);
    }
    return FS_OK;
}

int fs_player_next(fs_player *p, size_t *item)
{
    if (p == NULL || item == NULL || p->n == 0)
        return FS_EINVAL;
    int played, rc = play_queued(p, item, &played);
    if (rc != FS_OK || played)
        return rc == FS_OK ? record_passed(p) : rc;
    if (array_cycle(p)) {
        for (int round = 0; round < 2 && array_cycle(p); round++) {
            uint64_t len = fs_player_cycle_length(p);
            for (uint64_t k = p->at; k < len; k++) {
                int64_t x;
                order_at(p, k, &x);
                if (x >= 0) {
                    p->at = k + 1;
                    *item = (size_t)x;
                    return record_passed(p);
                }
            }
            if ((rc = new_cycle(p)) != FS_OK) /* this cycle is over */
                return rc;
        }
        if (array_cycle(p))
            return FS_ERANGE; /* nothing playable: every weight 0 */
    }
    uint64_t x;
    rc = fs_playlist_next(&p->pl, &x);
    if (rc != FS_OK)
        return rc;
    sync_step(p);
    *item = (size_t)x;
    return record_passed(p);
}

int fs_player_prev(fs_player *p, size_t *item)
{
    if (p == NULL || item == NULL || p->n == 0)
        return FS_EINVAL;
    if (array_cycle(p)) {
        for (uint64_t k = p->at > 1 ? p->at - 1 : 0; k > 0; k--) {
            int64_t x;
            order_at(p, k - 1, &x);
            if (x >= 0) {
                p->at = k;
                *item = (size_t)x;
                return FS_OK;
            }
        }
        return FS_ERANGE;
    }
    if (p->at <= 1 && p->cycle <= p->base && p->pl.step > 1)
        return FS_ERANGE; /* the cycle before was on another list */
    uint64_t x;
    int rc = fs_playlist_prev(&p->pl, &x);
    if (rc != FS_OK)
        return rc;
    sync_step(p);
    *item = (size_t)x;
    return record_passed(p);
}

int fs_player_current(const fs_player *p, size_t *item)
{
    if (p == NULL || item == NULL || p->n == 0)
        return FS_EINVAL;
    if (p->at == 0)
        return FS_ERANGE;
    int64_t x;
    int rc = order_at(p, p->at - 1, &x);
    if (rc != FS_OK)
        return rc;
    if (x < 0)
        return FS_ENOTFOUND;
    *item = (size_t)x;
    return FS_OK;
}

int fs_player_seek(fs_player *p, uint64_t pos, size_t *item)
{
    if (p == NULL || item == NULL || p->n == 0 ||
        pos >= fs_player_cycle_length(p))
        return FS_EINVAL;
    if (array_cycle(p)) {
        int64_t x;
        order_at(p, pos, &x);
        if (x < 0)
            return FS_ENOTFOUND;
        p->at = pos + 1;
        *item = (size_t)x;
        return record_passed(p);
    }
    uint64_t x;
    int rc = fs_playlist_seek(&p->pl, pos, &x);
    if (rc != FS_OK)
        return rc;
    sync_step(p);
    *item = (size_t)x;
    return record_passed(p);
}

int fs_player_seek_item(fs_player *p, size_t item)
{
    if (p == NULL || p->n == 0 || item >= p->n)
        return FS_EINVAL;
    int rc;
    if (p->at > 0 && (rc = new_cycle(p)) != FS_OK)
        return rc;
    p->ids.len = 0;
    if (fs__ids_push(&p->ids, p->lid[item]) != FS_OK)
        return FS_ENOMEM;
    p->frozen = 1;
    p->at = 1;
    p->passed = 1;
    p->base = p->cycle;
    return compute_rest(p);
}

int fs_player_queue(fs_player *p, size_t item)
{
    if (p == NULL || p->n == 0 || item >= p->n)
        return FS_EINVAL;
    if (p->queue.len >= FS_PLAYER_QUEUE_MAX)
        return FS_ERANGE;
    return fs__ids_push(&p->queue, p->lid[item]);
}
