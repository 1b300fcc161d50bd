/* player_copy.c -- a player's deep copy and a look at its next item
 * without stepping (what a player that drives another program needs: it
 * must tell that program the next song before it ends, and only step when
 * it is really played), and a song that other program played out of turn;
 * the field tag and group numbers a front end gives fs_player
 * (<fairshuf/playlist.h>). */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "player_internal.h"

static int dup_array(void *dst, const void *src, size_t n, size_t size)
{
    void **d = dst;
    *d = NULL;
    if (src == NULL)
        return FS_OK;
    *d = malloc((n ? n : 1) * size);
    if (*d == NULL)
        return FS_ENOMEM;
    memcpy(*d, src, n * size);
    return FS_OK;
}

static int dup_ids(fs_ids *d, const fs_ids *s)
{
    d->id = NULL;
    d->cap = d->len = 0;
    if (s->len == 0)
        return FS_OK;
    if (dup_array(&d->id, s->id, s->len, sizeof *s->id) != FS_OK)
        return FS_ENOMEM;
    d->cap = d->len = s->len;
    return FS_OK;
}

int fs_player_clone(const fs_player *p, fs_player **out)
{
    if (p == NULL || out == NULL)
        return FS_EINVAL;
    fs_player *c = malloc(sizeof *c);
    if (c == NULL)
        return FS_ENOMEM;
    memcpy(c, p, sizeof *c);
    /* every pointer NULL first: fs_player_free() of a half-made copy */
    c->ids.id = c->avoid.id = c->queue.id = NULL;
    c->ids.len = c->avoid.len = c->queue.len = 0;
    c->ids.cap = c->avoid.cap = c->queue.cap = 0;
    c->lid = c->group = c->rest = NULL;
    c->sorted = NULL;
    c->weight = NULL;
    int bad = dup_ids(&c->ids, &p->ids) | dup_ids(&c->avoid, &p->avoid) |
              dup_ids(&c->queue, &p->queue) |
              dup_array(&c->lid, p->lid, p->n, sizeof *p->lid) |
              dup_array(&c->sorted, p->sorted, p->n, sizeof *p->sorted) |
              dup_array(&c->group, p->group, p->n, sizeof *p->group) |
              dup_array(&c->weight, p->weight, p->n, sizeof *p->weight) |
              dup_array(&c->rest, p->rest, p->n, sizeof *p->rest);
    if (bad) {
        fs_player_free(c);
        return FS_ENOMEM;
    }
    *out = c;
    return FS_OK;
}

int fs_player_peek(const fs_player *p, size_t *item)
{
    if (p == NULL || item == NULL)
        return FS_EINVAL;
    fs_player *c;
    int rc = fs_player_clone(p, &c);
    if (rc != FS_OK)
        return rc;
    rc = fs_player_next(c, item);
    fs_player_free(c);
    return rc;
}

uint64_t fs_player_field_tag(const char *name)
{
    uint8_t h[16];
    crypto_generichash(h, 16, (const unsigned char *)name, strlen(name), NULL,
                       0);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | h[i];
    return v;
}

typedef struct group_ref {
    const char *text;
    size_t len, i;
} group_ref;

static int by_text(const void *x, const void *y)
{
    const group_ref *a = x, *b = y;
    size_t m = a->len < b->len ? a->len : b->len;
    int c = m ? memcmp(a->text, b->text, m) : 0;
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

int fs_spread_groups(size_t n, const char *const *text, const size_t *len,
                     uint64_t *group)
{
    if (n > 0 && (text == NULL || len == NULL || group == NULL))
        return FS_EINVAL;
    group_ref *r = malloc((n ? n : 1) * sizeof *r);
    if (r == NULL)
        return FS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == NULL && len[i] > 0) {
            free(r);
            return FS_EINVAL;
        }
        r[i].text = text[i];
        r[i].len = len[i];
        r[i].i = i;
    }
    qsort(r, n, sizeof *r, by_text);
    uint64_t g = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && by_text(&r[i], &r[i - 1]) != 0)
            g++;
        group[r[i].i] = g;
    }
    free(r);
    return FS_OK;
}

int fs_player_play(fs_player *p, size_t item)
{
    if (p == NULL || p->n == 0 || item >= p->n)
        return FS_EINVAL;
    uint64_t id = p->lid[item];
    size_t k = 0;
    while (k < p->queue.len && p->queue.id[k] != id)
        k++;
    if (k == p->queue.len) { /* not queued: queued now, then moved first */
        if (p->queue.len >= FS_PLAYER_QUEUE_MAX)
            return FS_ERANGE;
        if (fs__ids_push(&p->queue, id) != FS_OK)
            return FS_ENOMEM;
    }
    /* that entry first: the next step plays it, the rest keep their order */
    memmove(p->queue.id + 1, p->queue.id, k * sizeof *p->queue.id);
    p->queue.id[0] = id;
    size_t got;
    return fs_player_next(p, &got);
}
