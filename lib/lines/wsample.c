/* wsample.c -- weighted sampling without replacement over a stream of
 * records (`fairshuf lines --weights=FIELD -n K`): record i gets
 * fs_weighted_key(fs_lines_key(K, i, 0), w_i) (Efraimidis-Spirakis), and
 * the K records of smallest key are kept in a max-heap, written at the
 * end in increasing key order (ties by index) -- successive weighted
 * draws.  The kept records' bytes live in memory until they pass the
 * budget, then in an unlinked temporary file: the selection depends only
 * on (K, input), never on where the bytes were kept. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fairshuf/weighted.h"
#include "io.h"
#include "engine.h"

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
    const char *tmpdir;
    cand *heap;          /* max-heap on (key, idx): the worst on top */
    uint64_t n;
    unsigned char *arena; /* memory mode */
    size_t alen, acap, live;
    int fd;              /* file mode: >= 0 */
    uint64_t flen;       /* bytes in the file, buffered ones included */
    unsigned char *wbuf;
    size_t wlen;
    int err;
};

#define WBUF ((size_t)1 << 20)

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
    s->tmpdir = tmpdir;
    s->fd = -1;
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
    if (s->fd >= 0)
        close(s->fd);
    free(s->heap);
    free(s->arena);
    free(s->wbuf);
    free(s);
}

static int io_fail(fs_lines_wsample *s)
{
    s->err = errno;
    return FS_EIO;
}

static int file_flush(fs_lines_wsample *s)
{
    if (s->wlen && fs__write_all(s->fd, s->wbuf, s->wlen) != FS_OK)
        return io_fail(s);
    s->wlen = 0;
    return FS_OK;
}

static int file_put(fs_lines_wsample *s, const unsigned char *p, size_t n,
                    uint64_t *off)
{
    *off = s->flen;
    s->flen += n;
    if (s->wlen + n > WBUF && file_flush(s) != FS_OK)
        return FS_EIO;
    if (n > WBUF)
        return fs__write_all(s->fd, p, n) == FS_OK ? FS_OK : io_fail(s);
    memcpy(s->wbuf + s->wlen, p, n);
    s->wlen += n;
    return FS_OK;
}

/* The kept bytes passed the budget: they move to a temporary file. */
static int to_file(fs_lines_wsample *s)
{
    const char *dir = s->tmpdir ? s->tmpdir : getenv("TMPDIR");
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    if ((s->wbuf = malloc(WBUF)) == NULL)
        return FS_ENOMEM;
#ifdef O_TMPFILE
    s->fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
#endif
    if (s->fd < 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/fairshuf-XXXXXX", dir);
        s->fd = mkstemp(path);
        if (s->fd < 0)
            return io_fail(s);
        unlink(path);
    }
    for (uint64_t i = 0; i < s->n; i++) {
        cand *c = &s->heap[i];
        if (file_put(s, s->arena + c->off, c->len, &c->off) != FS_OK)
            return FS_EIO;
    }
    free(s->arena);
    s->arena = NULL;
    s->alen = s->acap = 0;
    return FS_OK;
}

/* Drops the bytes of records no longer kept (memory mode). */
static int compact(fs_lines_wsample *s)
{
    size_t total = 0;
    for (uint64_t i = 0; i < s->n; i++)
        total += s->heap[i].len;
    unsigned char *na = malloc(total ? total : 1);
    if (na == NULL)
        return FS_ENOMEM;
    size_t o = 0;
    for (uint64_t i = 0; i < s->n; i++) {
        memcpy(na + o, s->arena + s->heap[i].off, s->heap[i].len);
        s->heap[i].off = o;
        o += s->heap[i].len;
    }
    free(s->arena);
    s->arena = na;
    s->alen = s->acap = o;
    return FS_OK;
}

static int store(fs_lines_wsample *s, const unsigned char *rec, size_t len,
                 uint64_t *off)
{
    if (s->fd < 0 && s->alen + len > s->acap &&
        s->alen > 2 * s->live + (1u << 20) && compact(s) != FS_OK)
        return FS_ENOMEM;
    if (s->fd < 0 && s->alen + len > s->memory / 2) { /* past the budget */
        int rc = to_file(s);
        if (rc != FS_OK)
            return rc;
    }
    if (s->fd < 0 && s->alen + len > s->acap) {
        size_t nc = s->acap ? s->acap * 2 : 65536;
        while (nc < s->alen + len)
            nc *= 2;
        unsigned char *na = realloc(s->arena, nc);
        if (na == NULL) { /* less memory than hoped: to disk */
            int rc = to_file(s);
            if (rc != FS_OK)
                return rc;
        } else {
            s->arena = na;
            s->acap = nc;
        }
    }
    if (s->fd >= 0)
        return file_put(s, rec, len, off);
    memcpy(s->arena + s->alen, rec, len);
    *off = s->alen;
    s->alen += len;
    return FS_OK;
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
    unsigned char *buf = NULL;
    size_t cap = 0;
    if (s->fd >= 0 && file_flush(s) != FS_OK)
        rc = FS_EIO;
    for (uint64_t i = 0; rc == FS_OK && i < s->n; i++) {
        const cand *c = &s->heap[i];
        if (s->fd < 0) {
            rc = emit(arg, s->arena + c->off, c->len);
            continue;
        }
        if ((rc = fs__reserve(&buf, &cap, c->len ? c->len : 1)) != FS_OK)
            break;
        size_t got;
        if (fs__pread_full(s->fd, buf, c->len, (off_t)c->off, &got) !=
                FS_OK || got != c->len) {
            rc = io_fail(s);
            break;
        }
        rc = emit(arg, buf, c->len);
    }
    free(buf);
    if (err)
        *err = s->err;
    return rc;
}

uint64_t fs_lines_wsample_kept(const fs_lines_wsample *s)
{
    return s->n;
}

int fs_lines_wsample_on_disk(const fs_lines_wsample *s)
{
    return s->fd >= 0;
}
