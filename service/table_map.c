/* table_map.c -- the writer's cache of table periods, by table id: an
 * open-addressing hash map (linear probing, deletion by backward shift),
 * so its memory follows the number of tables in use, not the largest id
 * (an array by id cost 8 bytes per id below the largest: id 1e8 took
 * 800 MB, ids from 3e9 failed every allocation). */
#include <stdlib.h>

#include "service.h"

static size_t slot_of(const svc_map *m, int64_t key)
{
    uint64_t x = (uint64_t)key; /* splitmix64's finalizer: ids are dense */
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (size_t)x & (m->cap - 1);
}

void *svc_map_get(const svc_map *m, int64_t key)
{
    if (m->cap == 0 || key <= 0)
        return NULL;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->vals[i];
        if (m->keys[i] == 0)
            return NULL;
    }
}

static void place(svc_map *m, int64_t key, void *val)
{
    size_t i = slot_of(m, key);
    while (m->keys[i] != 0 && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (m->keys[i] == 0)
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
}

int svc_map_put(svc_map *m, int64_t key, void *val)
{
    if (key <= 0)
        return -1;
    if ((m->n + 1) * 4 > m->cap * 3) { /* at most 3/4 full */
        size_t cap = m->cap ? m->cap * 2 : 64;
        svc_map grown = {calloc(cap, sizeof *grown.keys),
                         calloc(cap, sizeof *grown.vals), cap, 0};
        if (!grown.keys || !grown.vals) {
            free(grown.keys);
            free(grown.vals);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i])
                place(&grown, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        *m = grown;
    }
    place(m, key, val);
    return 0;
}

void *svc_map_del(svc_map *m, int64_t key)
{
    if (m->cap == 0 || key <= 0)
        return NULL;
    size_t i = slot_of(m, key);
    while (m->keys[i] != key) {
        if (m->keys[i] == 0)
            return NULL;
        i = (i + 1) & (m->cap - 1);
    }
    void *val = m->vals[i];
    m->n--;
    /* backward shift: later keys of the run move into the hole when their
     * home slot is not after it, so no search stops early */
    for (size_t j = i;;) {
        m->keys[i] = 0;
        m->vals[i] = NULL;
        for (;;) {
            j = (j + 1) & (m->cap - 1);
            if (m->keys[j] == 0)
                return val;
            size_t home = slot_of(m, m->keys[j]);
            /* j's key may fill i when home is cyclically outside (i, j] */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
                break;
        }
        m->keys[i] = m->keys[j];
        m->vals[i] = m->vals[j];
        i = j;
    }
}

void svc_map_free(svc_map *m, void (*free_val)(void *))
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] && free_val)
            free_val(m->vals[i]);
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}
