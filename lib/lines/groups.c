/* groups.c -- `fairshuf lines --group-by=FIELD`: records with equal field
 * values form a group; groups are numbered by first appearance and
 * written whole, in the keyed order of groups (fs_lines_order under the
 * group key Kg = SHA-256 of "fairshuf lines groups v1:" and hex(K)), so
 * every order of the G groups is equally likely whatever their sizes.
 * Within a group: input order, or (shuffle_within) the keyed order of the
 * records' own keys fs_lines_key(K, i, 0), ties by levels 1, 2, ...
 * Per record 32 bytes of index stay in memory; the records' bytes are
 * kept in memory up to half of the budget, then in an unlinked temporary
 * file: the output does not depend on where they were kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "store.h"

typedef struct grec {
    uint64_t g, idx, off, len;
} grec;

struct fs_lines_groups {
    uint8_t K[32];
    int within;
    fs_lines_values *vals;
    grec *r;
    uint64_t n, cap;
    fs__store st;    /* the records' bytes */
    uint64_t *rank;  /* group -> its place in the order of groups */
};

int fs_lines_groups_new(fs_lines_groups **out, const uint8_t K[32],
                        int shuffle_within, size_t memory,
                        const char *tmpdir)
{
    if (out == NULL || K == NULL)
        return FS_EINVAL;
    fs_lines_groups *g = calloc(1, sizeof *g);
    if (g == NULL)
        return FS_ENOMEM;
    memcpy(g->K, K, 32);
    g->within = shuffle_within;
    fs__store_init(&g->st, (memory ? memory : fs_lines_default_memory()) / 2,
                   tmpdir);
    if (fs_lines_values_new(&g->vals) != FS_OK) {
        free(g);
        return FS_ENOMEM;
    }
    *out = g;
    return FS_OK;
}

void fs_lines_groups_free(fs_lines_groups *g)
{
    if (g == NULL)
        return;
    fs__store_free(&g->st);
    fs_lines_values_free(g->vals);
    free(g->r);
    free(g->rank);
    free(g);
}

int fs_lines_groups_add(fs_lines_groups *g, const void *val, size_t vlen,
                        const unsigned char *rec, size_t len)
{
    uint64_t id;
    int rc = fs_lines_values_add(g->vals, val, vlen, &id);
    if (rc != FS_OK)
        return rc;
    if (g->n == g->cap) {
        uint64_t nc = g->cap ? g->cap * 2 : 1024;
        grec *nr = realloc(g->r, (size_t)nc * sizeof *nr);
        if (nr == NULL)
            return FS_ENOMEM;
        g->r = nr;
        g->cap = nc;
    }
    uint64_t off;
    if ((rc = fs__store_put(&g->st, rec, len, &off)) != FS_OK)
        return rc;
    g->r[g->n] = (grec){id, g->n, off, len};
    g->n++;
    return FS_OK;
}

/* Records by (rank of their group, then input order or their keys). */
static int by_place(const void *a, const void *b, void *arg)
{
    const fs_lines_groups *g = arg;
    const grec *x = a, *y = b;
    uint64_t rx = g->rank[x->g], ry = g->rank[y->g];
    if (rx != ry)
        return rx < ry ? -1 : 1;
    if (g->within) {
        for (uint32_t level = 0; x->idx != y->idx && level < 64; level++) {
            uint64_t kx = fs_lines_key(g->K, x->idx, level);
            uint64_t ky = fs_lines_key(g->K, y->idx, level);
            if (kx != ky)
                return kx < ky ? -1 : 1;
        }
    }
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int fs_lines_groups_key(const uint8_t K[32], uint8_t Kg[32])
{
    static const char hex[] = "0123456789abcdef";
    char s[32 + 64 + 1] = "fairshuf lines groups v1:";
    size_t p = strlen(s);
    for (int i = 0; i < 32; i++) {
        s[p++] = hex[K[i] >> 4];
        s[p++] = hex[K[i] & 15];
    }
    s[p] = '\0';
    return fs_seed_to_key(s, Kg);
}

/* Writes every record in the order of groups; with k parts, a record
 * goes with its group's part (whole groups: fs_lines_split_part over the
 * G groups in their order). */
static int write_ordered(fs_lines_groups *g, const uint64_t *w, size_t k,
                         int (*emit)(void *arg, size_t part,
                                     const unsigned char *p, size_t n),
                         void *arg, int *err)
{
    uint64_t G = fs_lines_values_size(g->vals);
    uint8_t Kg[32];
    uint64_t *order = malloc((size_t)(G ? G : 1) * sizeof *order);
    uint64_t scratch[64];
    free(g->rank);
    g->rank = malloc((size_t)(G ? G : 1) * sizeof *g->rank);
    int rc = order && g->rank ? fs_lines_groups_key(g->K, Kg) : FS_ENOMEM;
    if (rc == FS_OK)
        rc = fs_lines_order(Kg, G, order);
    if (rc == FS_OK) {
        for (uint64_t r = 0; r < G; r++)
            g->rank[order[r]] = r;
        if (g->n > 0) /* no records (a header-only input): r may be NULL */
            qsort_r(g->r, (size_t)g->n, sizeof *g->r, by_place, g);
    }
    free(order);
    size_t part = 0;
    uint64_t last = UINT64_MAX;
    for (uint64_t i = 0; rc == FS_OK && i < g->n; i++) {
        const unsigned char *p;
        if (k > 1 && g->rank[g->r[i].g] != last) { /* a new group */
            last = g->rank[g->r[i].g];
            part = fs_lines_split_part(G, last, w, k, scratch);
        }
        rc = fs__store_get(&g->st, g->r[i].off, (size_t)g->r[i].len, &p);
        if (rc == FS_OK)
            rc = emit(arg, part, p, (size_t)g->r[i].len);
    }
    if (err)
        *err = g->st.err;
    return rc;
}

typedef struct one_part {
    int (*emit)(void *arg, const unsigned char *p, size_t n);
    void *arg;
} one_part;

static int emit_one(void *arg, size_t part, const unsigned char *p, size_t n)
{
    const one_part *o = arg;
    (void)part;
    return o->emit(o->arg, p, n);
}

int fs_lines_groups_write(fs_lines_groups *g,
                          int (*emit)(void *arg, const unsigned char *p,
                                      size_t n),
                          void *arg, int *err)
{
    one_part o = {emit, arg};
    return write_ordered(g, NULL, 1, emit_one, &o, err);
}

int fs_lines_groups_write_parts(fs_lines_groups *g, const uint64_t *w,
                                size_t k,
                                int (*emit)(void *arg, size_t part,
                                            const unsigned char *p,
                                            size_t n),
                                void *arg, int *err)
{
    uint64_t scratch[64];
    if (g == NULL || emit == NULL || k == 0 || k > 64 ||
        fs_lines_split_sizes(0, w, k, scratch) != FS_OK)
        return FS_EINVAL;
    return write_ordered(g, w, k, emit, arg, err);
}

uint64_t fs_lines_groups_count(const fs_lines_groups *g)
{
    return fs_lines_values_size(g->vals);
}

int fs_lines_groups_on_disk(const fs_lines_groups *g)
{
    return g->st.fd >= 0;
}
