/* change.c -- a list that changes mid-cycle: item identities (keyed
 * 64-bit hashes of an item's text and occurrence) and the keyed order of
 * the items not yet played in the cycle (<fairshuf/playlist.h>,
 * docs/playlist.md "Changed lists"). */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "fairshuf/playlist.h"
#include "internal.h"

/* A SipHash key derived from the master key and a label. */
static void sub_key(const fs_playlist *pl, const char *label,
                    uint8_t out[crypto_shorthash_siphash24_KEYBYTES])
{
    crypto_generichash(out, crypto_shorthash_siphash24_KEYBYTES,
                       (const unsigned char *)label, strlen(label), pl->key,
                       32);
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int fs_playlist_item_id(const fs_playlist *pl, const void *text, size_t len,
                        uint64_t occurrence, uint64_t *id)
{
    if (pl == NULL || id == NULL || (text == NULL && len > 0))
        return FS_EINVAL;
    uint8_t k[crypto_shorthash_siphash24_KEYBYTES], h[8];
    sub_key(pl, "fairshuf playlist item id v1", k);
    crypto_generichash_state st;
    uint8_t occ[8], digest[32];
    put64(occ, occurrence);
    /* BLAKE2b of (occurrence, text) keyed by k, first 8 bytes. */
    crypto_generichash_init(&st, k, sizeof k, sizeof digest);
    crypto_generichash_update(&st, occ, 8);
    if (len > 0)
        crypto_generichash_update(&st, text, len);
    crypto_generichash_final(&st, digest, sizeof digest);
    memcpy(h, digest, 8);
    *id = get64(h);
    sodium_memzero(k, sizeof k);
    return FS_OK;
}

typedef struct ranked {
    uint64_t rank, index;
} ranked;

static int by_rank(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

int fs_playlist_rest(const fs_playlist *pl, uint64_t cycle,
                     const uint64_t *played, size_t nplayed,
                     const uint64_t *ids, size_t n, uint64_t *rest,
                     size_t *nrest)
{
    if (pl == NULL || nrest == NULL || (played == NULL && nplayed > 0) ||
        (n > 0 && (ids == NULL || rest == NULL)))
        return FS_EINVAL;
    uint64_t *seen = malloc((nplayed ? nplayed : 1) * sizeof *seen);
    ranked *r = malloc((n ? n : 1) * sizeof *r);
    if (seen == NULL || r == NULL) {
        free(seen);
        free(r);
        return FS_ENOMEM;
    }
    if (nplayed)
        memcpy(seen, played, nplayed * sizeof *seen);
    qsort(seen, nplayed, sizeof *seen, fs__cmp_u64);
    uint8_t k[crypto_shorthash_siphash24_KEYBYTES], in[48], h[8];
    sub_key(pl, "fairshuf playlist rest v1", k);
    put64(in, cycle);
    memcpy(in + 8, pl->fingerprint, 32);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (nplayed &&
            bsearch(&ids[i], seen, nplayed, sizeof *seen, fs__cmp_u64))
            continue;
        put64(in + 40, ids[i]);
        crypto_shorthash_siphash24(h, in, sizeof in, k);
        r[m].rank = get64(h);
        r[m].index = i;
        m++;
    }
    qsort(r, m, sizeof *r, by_rank);
    for (size_t i = 0; i < m; i++)
        rest[i] = r[i].index;
    *nrest = m;
    sodium_memzero(k, sizeof k);
    free(seen);
    free(r);
    return FS_OK;
}
