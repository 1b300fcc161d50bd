/* keyed_batch.c -- many positions of a keyed permutation at once: the same
 * Feistel network and cycle walk as keyed.c, with each round function
 * tabulated once (2^half SipHash calls per round) and the rounds run
 * round-major over blocks of positions.  <fairshuf/keyed.h> says when. */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "keyed_internal.h"

struct fs_keyed_batch {
    fs_keyed p;
    uint32_t *tab; /* rounds x 2^half words, or NULL: per-call path */
};

int fs_keyed_batch_new(fs_keyed_batch **out, const fs_keyed *p,
                       uint64_t expected)
{
    if (out == NULL || p == NULL || p->n == 0)
        return FS_EINVAL;
    *out = NULL;
    fs_keyed_batch *b = calloc(1, sizeof *b);
    if (b == NULL)
        return FS_ENOMEM;
    b->p = *p;
    uint64_t size = (uint64_t)1 << p->half;
    /* The tables cost rounds * 2^half round-function calls; the per-call
     * path costs rounds per position per pass: tabulate when the caller
     * expects at least a quarter of the table's size in positions. */
    if (p->half <= FS_KEYED_TABLE_HALF && expected >= size / 4) {
        b->tab = malloc((size_t)(p->rounds * size) * sizeof *b->tab);
        if (b->tab == NULL) {
            sodium_memzero(b, sizeof *b);
            free(b);
            return FS_ENOMEM;
        }
        for (unsigned r = 0; r < p->rounds; r++)
            for (uint64_t x = 0; x < size; x++)
                b->tab[r * size + x] = (uint32_t)fs__keyed_round(p, r, x);
    }
    *out = b;
    return FS_OK;
}

int fs_keyed_batch_tabulated(const fs_keyed_batch *b)
{
    return b != NULL && b->tab != NULL;
}

void fs_keyed_batch_free(fs_keyed_batch *b)
{
    if (b == NULL)
        return;
    if (b->tab) {
        sodium_memzero(b->tab, (size_t)b->p.rounds << b->p.half << 2);
        free(b->tab);
    }
    sodium_memzero(b, sizeof *b);
    free(b);
}

enum { BLOCK = 256 };

/* The Feistel network (keyed.c's encrypt/decrypt) on m positions held as
 * halves l[], r[], in place: (L, R) -> (R, L ^ F(R)) is written as
 * alternately L ^= F(R) and R ^= F(L), with one swap at the end for an odd
 * number of rounds. */
static void rounds_fwd(const fs_keyed_batch *b, uint32_t *l, uint32_t *r,
                       size_t m)
{
    const unsigned h = b->p.half, nr = b->p.rounds;
    for (unsigned k = 0; k < nr; k++) {
        const uint32_t *t = b->tab + ((size_t)k << h);
        uint32_t *dst = k % 2 ? r : l;
        const uint32_t *src = k % 2 ? l : r;
        for (size_t i = 0; i < m; i++)
            dst[i] ^= t[src[i]];
    }
    if (nr % 2)
        for (size_t i = 0; i < m; i++) {
            uint32_t t = l[i];
            l[i] = r[i];
            r[i] = t;
        }
    /* the key-chosen transposition of domain points 0 and 1 (keyed.c) */
    if (b->p.odd)
        for (size_t i = 0; i < m; i++)
            if (l[i] == 0 && r[i] < 2)
                r[i] ^= 1;
}

static void rounds_inv(const fs_keyed_batch *b, uint32_t *l, uint32_t *r,
                       size_t m)
{
    const unsigned h = b->p.half, nr = b->p.rounds;
    if (b->p.odd)
        for (size_t i = 0; i < m; i++)
            if (l[i] == 0 && r[i] < 2)
                r[i] ^= 1;
    if (nr % 2)
        for (size_t i = 0; i < m; i++) {
            uint32_t t = l[i];
            l[i] = r[i];
            r[i] = t;
        }
    for (unsigned k = nr; k-- > 0;) {
        const uint32_t *t = b->tab + ((size_t)k << h);
        uint32_t *dst = k % 2 ? r : l;
        const uint32_t *src = k % 2 ? l : r;
        for (size_t i = 0; i < m; i++)
            dst[i] ^= t[src[i]];
    }
}

/* Up to BLOCK positions: every position < n goes through passes of the
 * network until it lands below n (cycle-walking, as keyed.c); the ones
 * still walking are compacted to the front after each pass. */
static void map_block(const fs_keyed_batch *b, const uint64_t *in,
                      uint64_t *out, size_t m, int inverse)
{
    uint32_t l[BLOCK], r[BLOCK], idx[BLOCK];
    const uint64_t n = b->p.n, mask = b->p.mask;
    const unsigned h = b->p.half;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        uint64_t x = in[i];
        if (x >= n) {
            out[i] = x;
            continue;
        }
        l[k] = (uint32_t)(x >> h);
        r[k] = (uint32_t)(x & mask);
        idx[k++] = (uint32_t)i;
    }
    while (k > 0) {
        (inverse ? rounds_inv : rounds_fwd)(b, l, r, k);
        size_t w = 0;
        for (size_t i = 0; i < k; i++) {
            uint64_t y = (uint64_t)l[i] << h | r[i];
            if (y < n) {
                out[idx[i]] = y;
            } else {
                l[w] = l[i];
                r[w] = r[i];
                idx[w++] = idx[i];
            }
        }
        k = w;
    }
}

static void map(const fs_keyed_batch *b, const uint64_t *in, uint64_t *out,
                size_t count, int inverse)
{
    if (b->tab == NULL) {
        for (size_t i = 0; i < count; i++)
            out[i] = inverse ? fs_keyed_inverse(&b->p, in[i])
                             : fs_keyed_at(&b->p, in[i]);
        return;
    }
    for (size_t i = 0; i < count; i += BLOCK)
        map_block(b, in + i, out + i, count - i < BLOCK ? count - i : BLOCK,
                  inverse);
}

void fs_keyed_batch_at(const fs_keyed_batch *b, const uint64_t *in,
                       uint64_t *out, size_t count)
{
    map(b, in, out, count, 0);
}

void fs_keyed_batch_inverse(const fs_keyed_batch *b, const uint64_t *in,
                            uint64_t *out, size_t count)
{
    map(b, in, out, count, 1);
}

static void many(const fs_keyed *p, const uint64_t *in, uint64_t *out,
                 size_t count, int inverse)
{
    fs_keyed_batch *b;
    if (fs_keyed_batch_new(&b, p, count) == FS_OK) {
        map(b, in, out, count, inverse);
        fs_keyed_batch_free(b);
        return;
    }
    fs_keyed_batch fallback = {.p = *p, .tab = NULL};
    map(&fallback, in, out, count, inverse);
    sodium_memzero(&fallback, sizeof fallback);
}

void fs_keyed_at_many(const fs_keyed *p, const uint64_t *in, uint64_t *out,
                      size_t count)
{
    many(p, in, out, count, 0);
}

void fs_keyed_inverse_many(const fs_keyed *p, const uint64_t *in,
                           uint64_t *out, size_t count)
{
    many(p, in, out, count, 1);
}
