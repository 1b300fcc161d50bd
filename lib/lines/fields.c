/* fields.c -- fields of records (a 1-based column number, or a name from
 * the header record) and a table of field values (strata, groups). */
#include <stdlib.h>
#include <string.h>

#include "csv.h"

int fs_lines_field_parse(const char *spec, int csv, unsigned char sep,
                         fs_lines_field *f)
{
    if (spec == NULL || f == NULL || *spec == '\0')
        return FS_EINVAL;
    memset(f, 0, sizeof *f);
    f->csv = csv;
    f->sep = sep;
    size_t k = strspn(spec, "0123456789");
    if (spec[k] == '\0') { /* a column number */
        if (k > 9)
            return FS_ERANGE;
        long v = strtol(spec, NULL, 10);
        if (v < 1)
            return FS_EINVAL;
        f->col = (size_t)v - 1;
        f->resolved = 1;
        return FS_OK;
    }
    f->name = spec;
    return FS_OK;
}

int fs_lines_field_resolve(fs_lines_field *f, const unsigned char *hdr,
                           size_t len)
{
    if (f->resolved)
        return FS_OK;
    size_t want = strlen(f->name);
    unsigned char *buf = malloc(want + 1);
    if (buf == NULL)
        return FS_ENOMEM;
    int rc = FS_ENOTFOUND;
    for (size_t c = 0;; c++) {
        int found;
        size_t l = fs__field(hdr, len, f->csv, f->sep, c, buf, want + 1,
                             &found);
        if (!found)
            break;
        if (l == want && memcmp(buf, f->name, want) == 0) {
            f->col = c;
            f->resolved = 1;
            rc = FS_OK;
            break;
        }
    }
    free(buf);
    return rc;
}

size_t fs_lines_field_get(const fs_lines_field *f, const unsigned char *rec,
                          size_t len, unsigned char *out, size_t cap,
                          int *found)
{
    return fs__field(rec, len, f->csv, f->sep, f->col, out, cap, found);
}

/* ------------------------------------------------------------ values */

typedef struct slot {
    uint64_t hash, id; /* id + 1; 0 = empty */
} slot;

struct fs_lines_values {
    slot *tab;
    size_t cap, n;     /* cap: a power of two */
    unsigned char *text; /* the values, one after the other */
    size_t tlen, tcap;
    uint64_t *off;     /* value id -> offset in text (n + 1 entries) */
    uint64_t *count;
    size_t ocap;
};

static uint64_t hash_of(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h ^ (h >> 29);
}

int fs_lines_values_new(fs_lines_values **out)
{
    fs_lines_values *v = calloc(1, sizeof *v);
    if (v == NULL)
        return FS_ENOMEM;
    v->cap = 64;
    v->tab = calloc(v->cap, sizeof *v->tab);
    v->ocap = 64;
    v->off = malloc((v->ocap + 1) * sizeof *v->off);
    v->count = malloc(v->ocap * sizeof *v->count);
    if (!v->tab || !v->off || !v->count) {
        fs_lines_values_free(v);
        return FS_ENOMEM;
    }
    v->off[0] = 0;
    *out = v;
    return FS_OK;
}

void fs_lines_values_free(fs_lines_values *v)
{
    if (v == NULL)
        return;
    free(v->tab);
    free(v->text);
    free(v->off);
    free(v->count);
    free(v);
}

static int same(const fs_lines_values *v, uint64_t id,
                const unsigned char *p, size_t n)
{
    return v->off[id + 1] - v->off[id] == n &&
           memcmp(v->text + v->off[id], p, n) == 0;
}

static slot *lookup(const fs_lines_values *v, const unsigned char *p,
                    size_t n, uint64_t h)
{
    for (size_t i = (size_t)h & (v->cap - 1);; i = (i + 1) & (v->cap - 1)) {
        slot *s = &v->tab[i];
        if (s->id == 0 || (s->hash == h && same(v, s->id - 1, p, n)))
            return s;
    }
}

static int grow(fs_lines_values *v)
{
    size_t nc = v->cap * 2;
    slot *t = calloc(nc, sizeof *t);
    if (t == NULL)
        return FS_ENOMEM;
    for (size_t i = 0; i < v->cap; i++) {
        if (v->tab[i].id == 0)
            continue;
        size_t j = (size_t)v->tab[i].hash & (nc - 1);
        while (t[j].id)
            j = (j + 1) & (nc - 1);
        t[j] = v->tab[i];
    }
    free(v->tab);
    v->tab = t;
    v->cap = nc;
    return FS_OK;
}

int fs_lines_values_add(fs_lines_values *v, const void *val, size_t len,
                        uint64_t *id)
{
    const unsigned char *p = val;
    uint64_t h = hash_of(p, len);
    slot *s = lookup(v, p, len, h);
    if (s->id) {
        v->count[s->id - 1]++;
        *id = s->id - 1;
        return FS_OK;
    }
    if (v->n == v->ocap) {
        uint64_t *no = realloc(v->off, (2 * v->ocap + 1) * sizeof *no);
        if (no == NULL)
            return FS_ENOMEM;
        v->off = no;
        uint64_t *nc = realloc(v->count, 2 * v->ocap * sizeof *nc);
        if (nc == NULL)
            return FS_ENOMEM;
        v->count = nc;
        v->ocap *= 2;
    }
    if (v->tlen + len > v->tcap) {
        size_t nc = v->tcap ? v->tcap : 256;
        while (nc < v->tlen + len)
            nc *= 2;
        unsigned char *nt = realloc(v->text, nc);
        if (nt == NULL)
            return FS_ENOMEM;
        v->text = nt;
        v->tcap = nc;
    }
    if (len)
        memcpy(v->text + v->tlen, p, len);
    v->tlen += len;
    v->off[v->n + 1] = v->tlen;
    v->count[v->n] = 1;
    s->hash = h;
    s->id = ++v->n;
    *id = v->n - 1;
    if (v->n * 2 > v->cap)
        return grow(v);
    return FS_OK;
}

int fs_lines_values_find(const fs_lines_values *v, const void *val,
                         size_t len, uint64_t *id)
{
    slot *s = lookup(v, val, len, hash_of(val, len));
    if (s->id == 0)
        return FS_ENOTFOUND;
    *id = s->id - 1;
    return FS_OK;
}

uint64_t fs_lines_values_count(const fs_lines_values *v, uint64_t id)
{
    return id < v->n ? v->count[id] : 0;
}

uint64_t fs_lines_values_size(const fs_lines_values *v)
{
    return v->n;
}

/* ------------------------------------------------------------- parts */

int fs_lines_split_sizes(uint64_t n, const uint64_t *w, size_t k,
                         uint64_t *sizes)
{
    unsigned __int128 total = 0;
    if (w == NULL || sizes == NULL || k == 0)
        return FS_EINVAL;
    for (size_t i = 0; i < k; i++)
        total += w[i];
    if (total == 0)
        return FS_EINVAL;
    uint64_t given = 0;
    for (size_t i = 0; i < k; i++) {
        sizes[i] = (uint64_t)((unsigned __int128)n * w[i] / total);
        given += sizes[i];
    }
    /* the rest, one each, to the largest remainders (ties: lower part) */
    while (given < n) {
        size_t best = 0;
        unsigned __int128 br = 0;
        int have = 0;
        for (size_t i = 0; i < k; i++) {
            unsigned __int128 r = (unsigned __int128)n * w[i] -
                                  (unsigned __int128)sizes[i] * total;
            if (w[i] && (!have || r > br) &&
                (unsigned __int128)sizes[i] * total < (unsigned __int128)n * w[i]) {
                best = i;
                br = r;
                have = 1;
            }
        }
        sizes[best]++;
        given++;
    }
    return FS_OK;
}

size_t fs_lines_split_part(uint64_t n, uint64_t j, const uint64_t *w,
                           size_t k, uint64_t *scratch)
{
    if (fs_lines_split_sizes(n, w, k, scratch) != FS_OK)
        return 0;
    for (size_t i = 0; i < k; i++) {
        if (j < scratch[i])
            return i;
        j -= scratch[i];
    }
    return k - 1;
}
