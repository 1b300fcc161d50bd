/* seen.c -- the keyed hash index of seen.h. */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "seen.h"

void fs__seen_init(fs__seen *s)
{
    memset(s, 0, sizeof *s);
    if (fs_os_random(s->key, sizeof s->key) != FS_OK)
        memset(s->key, 0, sizeof s->key);
}

void fs__seen_free(fs__seen *s)
{
    free(s->hash);
    free(s->value);
    memset(s, 0, sizeof *s);
}

uint64_t fs__seen_hash(const fs__seen *s, const void *p, size_t n)
{
    unsigned char h[crypto_shorthash_siphash24_BYTES];
    crypto_shorthash_siphash24(h, p, n, s->key);
    uint64_t v;
    memcpy(&v, h, sizeof v);
    return v;
}

size_t fs__seen_find(const fs__seen *s, uint64_t h, fs__seen_same *same,
                     void *ctx)
{
    if (s->cap == 0)
        return SIZE_MAX;
    /* Linear probing from h's slot; nothing is ever removed. */
    for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->value[i] == SIZE_MAX)
            return SIZE_MAX;
        if (s->hash[i] == h && same(ctx, s->value[i]))
            return s->value[i];
    }
}

static void put(uint64_t *hash, size_t *value, size_t cap, uint64_t h,
                size_t v)
{
    size_t i = h & (cap - 1);
    while (value[i] != SIZE_MAX)
        i = (i + 1) & (cap - 1);
    hash[i] = h;
    value[i] = v;
}

int fs__seen_add(fs__seen *s, uint64_t h, size_t v)
{
    if (v == SIZE_MAX)
        return FS_EINVAL;
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        if (cap > SIZE_MAX / 16)
            return FS_ENOMEM;
        uint64_t *hash = malloc(cap * sizeof *hash);
        size_t *value = malloc(cap * sizeof *value);
        if (hash == NULL || value == NULL) {
            free(hash);
            free(value);
            return FS_ENOMEM;
        }
        memset(value, 0xff, cap * sizeof *value); /* SIZE_MAX: empty */
        for (size_t i = 0; i < s->cap; i++)
            if (s->value[i] != SIZE_MAX)
                put(hash, value, cap, s->hash[i], s->value[i]);
        free(s->hash);
        free(s->value);
        s->hash = hash;
        s->value = value;
        s->cap = cap;
    }
    put(s->hash, s->value, s->cap, h, v);
    s->n++;
    return FS_OK;
}
