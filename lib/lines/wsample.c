/* wsample.c -- weighted sampling without replacement over a stream of
 * records (`fairshuf lines --weights=FIELD -n K`): record i gets
 * fs_weighted_key(fs_lines_key(K, i, 0), w_i) (Efraimidis-Spirakis), and
 * the K records of smallest key are kept in a max-heap, written at the
 * end in increasing key order (ties by index) -- successive weighted
 * draws.  The kept records' bytes live in memory until they pass the
 * budget, then in an unlinked temporary file: the selection depends only
 * on (K, input), never on where the bytes were kept. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fairshuf/weighted.h"
#include "engine.h"
#include "store.h"

typedef struct cand {
    double key;
    uint64_t idx;
    uint64_t off; /* in the arena, or the file */
    size_t len;
} cand;

struct fs_lines_wsample {
    uint8_t K[32];
    uint64_t k;
    size_t memory;
    cand *heap;          /* max-heap on (key, idx): the worst on top */
    uint64_t n;
    fs__store st;        /* the kept records' bytes */
    size_t live;         /* bytes of records still kept */
};

static int worse(const cand *a, const cand *b) /* a after b in order */
{
    return a->key > b->key || (a->key == b->key && a->idx > b->idx);
}

static void sift_down(cand *h, uint64_t n, uint64_t i)
{
    for (;;) {
        uint64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && worse(&h[l], &h[m]))
            m = l;
        if (r < n && worse(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        cand t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void sift_up(cand *h, uint64_t i)
{
    while (i > 0) {
        uint64_t p = (i - 1) / 2;
        if (!worse(&h[i], &h[p]))
            return;
        cand t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

int fs_lines_wsample_new(fs_lines_wsample **out, const uint8_t K[32],
                         uint64_t k, size_t memory, const char *tmpdir)
{
    if (out == NULL || K == NULL)
        return FS_EINVAL;
    fs_lines_wsample *s = calloc(1, sizeof *s);
    if (s == NULL)
        return FS_ENOMEM;
    memcpy(s->K, K, 32);
    s->k = k;
    s->memory = memory ? memory : fs_lines_default_memory();
    fs__store_init(&s->st, s->memory / 2, tmpdir);
    size_t first = k < 4096 ? (size_t)k : 4096;
    if (k > SIZE_MAX / sizeof(cand) ||
        (s->heap = malloc((first ? first : 1) * sizeof *s->heap)) == NULL) {
        free(s);
        return FS_ENOMEM;
    }
    *out = s;
    return FS_OK;
}

void fs_lines_wsample_free(fs_lines_wsample *s)
{
    if (s == NULL)
        return;
    fs__store_free(&s->st);
    free(s->heap);
    free(s);
}

/* In memory, the bytes of records no longer kept are dropped now and
 * then: the live ones move to a new store. */
static int compact(fs_lines_wsample *s)
{
    fs__store ns;
    fs__store_init(&ns, s->st.limit, s->st.tmpdir);
    for (uint64_t i = 0; i < s->n; i++) {
        const unsigned char *p;
        int rc = fs__store_get(&s->st, s->heap[i].off, s->heap[i].len, &p);
        if (rc == FS_OK)
            rc = fs__store_put(&ns, p, s->heap[i].len, &s->heap[i].off);
        if (rc != FS_OK) {
            fs__store_free(&ns);
            return rc;
        }
    }
    fs__store_free(&s->st);
    s->st = ns;
    return FS_OK;
}

static int store(fs_lines_wsample *s, const unsigned char *rec, size_t len,
                 uint64_t *off)
{
    if (s->st.fd < 0 && s->st.alen + len > s->st.acap &&
        s->st.alen > 2 * s->live + (1u << 20)) {
        int rc = compact(s);
        if (rc != FS_OK)
            return rc;
    }
    return fs__store_put(&s->st, rec, len, off);
}

int fs_lines_wsample_add(fs_lines_wsample *s, uint64_t i, double w,
                         const unsigned char *rec, size_t len)
{
    if (!(w >= 0) || !isfinite(w))
        return FS_EINVAL;
    if (w == 0 || s->k == 0)
        return FS_OK; /* never drawn */
    cand c = {fs_weighted_key(fs_lines_key(s->K, i, 0), w), i, 0, len};
    if (s->n == s->k) {
        if (!worse(&s->heap[0], &c))
            return FS_OK; /* not among the k smallest */
        s->live -= s->heap[0].len;
        int rc = store(s, rec, len, &c.off);
        if (rc != FS_OK)
            return rc;
        s->live += len;
        s->heap[0] = c;
        sift_down(s->heap, s->n, 0);
        return FS_OK;
    }
    if (s->n >= 4096 && (s->n & (s->n - 1)) == 0) { /* grow the heap */
        uint64_t nc = s->n * 2 < s->k ? s->n * 2 : s->k;
        cand *nh = realloc(s->heap, (size_t)nc * sizeof *nh);
        if (nh == NULL)
            return FS_ENOMEM;
        s->heap = nh;
    }
    int rc = store(s, rec, len, &c.off);
    if (rc != FS_OK)
        return rc;
    s->live += len;
    s->heap[s->n] = c;
    sift_up(s->heap, s->n++);
    return FS_OK;
}

static int by_order(const void *a, const void *b)
{
    return worse(a, b) ? 1 : worse(b, a) ? -1 : 0;
}

int fs_lines_wsample_write(fs_lines_wsample *s,
                           int (*emit)(void *arg, const unsigned char *p,
                                       size_t n),
                           void *arg, int *err)
{
    int rc = FS_OK;
    qsort(s->heap, (size_t)s->n, sizeof *s->heap, by_order);
    for (uint64_t i = 0; rc == FS_OK && i < s->n; i++) {
        const unsigned char *p;
        rc = fs__store_get(&s->st, s->heap[i].off, s->heap[i].len, &p);
        if (rc == FS_OK)
            rc = emit(arg, p, s->heap[i].len);
    }
    if (err)
        *err = s->st.err;
    return rc;
}

uint64_t fs_lines_wsample_kept(const fs_lines_wsample *s)
{
    return s->n;
}

int fs_lines_wsample_on_disk(const fs_lines_wsample *s)
{
    return s->st.fd >= 0;
}
