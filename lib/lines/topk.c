/* topk.c -- `-n K` with small K: only the K lines of smallest key can be
 * written, so the input is streamed and a line is kept only while its key
 * is at most a threshold T; whenever 2K + 4096 lines are kept, T drops to
 * the K-th smallest kept key and larger ones are dropped.  The survivors
 * (spill-format records: key, index, line) are sorted by fs__sort_emit, so
 * the output is exactly the head of the full keyed order, in O(K) memory. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "io.h"

uint64_t fs__topk_max = (uint64_t)1 << 20;

typedef struct topk {
    fs__writer *w;
    const fs_lines_config *c;
    uint64_t k, threshold, kept;
    unsigned char *rec;   /* kept records */
    size_t len, cap;
    uint64_t *scratch;
    fs__intake in;        /* header lines, line numbers and keys */
} topk;

/* The k-th smallest (0-based) of a[0..n): quickselect with a three-way
 * partition (keys are random, so the middle element is a fine pivot). */
static uint64_t select_kth(uint64_t *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint64_t pivot = a[lo + (hi - lo) / 2], t;
        size_t lt = lo, i = lo, gt = hi; /* <: [lo,lt) =: [lt,i) >: [gt,hi) */
        while (i < gt) {
            if (a[i] < pivot) {
                t = a[lt], a[lt] = a[i], a[i] = t;
                lt++, i++;
            } else if (a[i] > pivot) {
                gt--;
                t = a[gt], a[gt] = a[i], a[i] = t;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return a[lo];
}

static int compact(topk *t)
{
    size_t n = 0, off = 0;
    while (off < t->len) {
        t->scratch[n++] = fs__le64(t->rec + off);
        const unsigned char *q = fs__delim(t->rec + off + FS__REC_HDR,
                                           t->rec + t->len, t->c->delim);
        off = (size_t)(q - t->rec) + 1;
    }
    t->threshold = select_kth(t->scratch, n, (size_t)t->k - 1);
    size_t out = 0;
    off = 0;
    t->kept = 0;
    while (off < t->len) { /* keep keys <= T, ties included */
        const unsigned char *q = fs__delim(t->rec + off + FS__REC_HDR,
                                           t->rec + t->len, t->c->delim);
        size_t l = (size_t)(q - t->rec) + 1 - off;
        if (fs__le64(t->rec + off) <= t->threshold) {
            memmove(t->rec + out, t->rec + off, l);
            out += l;
            t->kept++;
        }
        off += l;
    }
    t->len = out;
    return FS_OK;
}

static int take(topk *t, const unsigned char *p, size_t l)
{
    uint64_t key, idx;
    int rc = fs__intake_line(&t->in, p, l, &key, &idx);
    if (rc != 0)
        return rc > 0 ? FS_OK : rc;
    if (key > t->threshold)
        return FS_OK;
    rc = fs__reserve(&t->rec, &t->cap, t->len + FS__REC_HDR + l);
    if (rc != FS_OK)
        return rc;
    memcpy(t->rec + t->len, &key, 8);
    memcpy(t->rec + t->len + 8, &idx, 8);
    memcpy(t->rec + t->len + FS__REC_HDR, p, l);
    t->len += FS__REC_HDR + l;
    if (++t->kept >= 2 * t->k + 4096)
        return compact(t);
    return FS_OK;
}

/* A data line longer than the read buffer buf[0..cap) (which it fills,
 * with no end in it): its key is that of the next index, known before its
 * end, so the line is either dropped as it is read or read straight into
 * the kept records -- held once, never also grown in the buffer.  On
 * return buf[0..*len) holds what followed its end. */
static int long_line(topk *t, int fd, unsigned char *buf, size_t *len,
                     size_t cap, uint64_t *total)
{
    const fs_lines_config *c = t->c;
    uint64_t key = fs_lines_key(t->in.key, t->in.next, 0), idx;
    int keep = key <= t->threshold && key >= t->in.lo && key <= t->in.hi;
    size_t start = t->len, n = *len, rest = 0;
    int rc = keep ? fs__reserve(&t->rec, &t->cap, start + FS__REC_HDR + n)
                  : FS_OK;
    size_t end = start + FS__REC_HDR; /* where the line's next bytes go */
    for (int eof = 0; rc == FS_OK;) {
        const unsigned char *q = n ? fs__delim(buf, buf + n, c->delim) : NULL;
        size_t l = q ? (size_t)(q - buf) + 1 : n;
        if (eof && q == NULL) { /* the last line lacks its delimiter */
            buf[l++] = c->delim;
            q = buf;
        }
        if (keep && (rc = fs__reserve(&t->rec, &t->cap, end + l)) == FS_OK) {
            memcpy(t->rec + end, buf, l);
            end += l;
        }
        if (q != NULL || rc != FS_OK) {
            rest = n - (eof ? n : l);
            memmove(buf, buf + l, rest);
            break;
        }
        size_t r;
        if (fs__read_some(fd, buf, cap - 1, &r) != FS_OK) {
            t->w->res->where = FS_LINES_INPUT;
            t->w->res->err = errno;
            return FS_EIO;
        }
        n = r;
        eof = r == 0;
        *total += (uint64_t)r;
        if (c->progress)
            c->progress(c->progress_arg, FS_LINES_READING, *total, 0);
    }
    *len = rest;
    if (rc != FS_OK)
        return rc;
    unsigned char d = c->delim;
    if (fs__intake_line(&t->in, &d, 1, &key, &idx) != 0 || !keep)
        return FS_OK; /* outside the slice: counted only */
    memcpy(t->rec + start, &key, 8);
    memcpy(t->rec + start + 8, &idx, 8);
    t->len = end;
    if (++t->kept >= 2 * t->k + 4096)
        return compact(t);
    return FS_OK;
}

/* Takes the whole lines of buf[0..*len); what is left (a line's start)
 * moves to the front. */
static int take_lines(topk *t, unsigned char *buf, size_t *len)
{
    size_t off = 0;
    int rc = FS_OK;
    for (;;) {
        const unsigned char *q = fs__delim(buf + off, buf + *len,
                                           t->c->delim);
        if (q == NULL)
            break;
        size_t l = (size_t)(q - (buf + off)) + 1;
        if ((rc = take(t, buf + off, l)) != FS_OK)
            break;
        off += l;
    }
    memmove(buf, buf + off, *len - off);
    *len -= off;
    return rc;
}

int fs__topk_run(int fd, fs__writer *w)
{
    const fs_lines_config *c = w->c;
    topk t;
    memset(&t, 0, sizeof t);
    t.w = w;
    t.c = c;
    t.k = c->head;
    t.in.header_left = c->header;
    fs__intake_init(&t.in, w);
    t.threshold = UINT64_MAX;
    t.scratch = malloc((size_t)(2 * t.k + 4096) * sizeof *t.scratch);
    size_t cap = 1u << 20, len = 0;
    unsigned char *buf = malloc(cap);
    int rc = (t.scratch && buf) ? FS_OK : FS_ENOMEM;
    uint64_t total = 0;
    while (rc == FS_OK) {
        if (len == cap && t.in.header_left == 0) { /* a long data line */
            rc = long_line(&t, fd, buf, &len, cap, &total);
            if (rc == FS_OK)
                rc = take_lines(&t, buf, &len);
            continue;
        }
        /* a header line longer than the buffer: grow it */
        if (len == cap && (rc = fs__grow_buf(&buf, &cap)) != FS_OK)
            break;
        size_t r;
        if (fs__read_some(fd, buf + len, cap - len, &r) != FS_OK) {
            w->res->where = FS_LINES_INPUT;
            w->res->err = errno;
            rc = FS_EIO;
            break;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        total += (uint64_t)r;
        if (c->progress)
            c->progress(c->progress_arg, FS_LINES_READING, total, 0);
        rc = take_lines(&t, buf, &len);
    }
    if (rc == FS_OK && len > 0) { /* the last line lacks its delimiter */
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap + 1);
            rc = nb ? FS_OK : FS_ENOMEM;
            if (nb)
                buf = nb;
        }
        if (rc == FS_OK) {
            buf[len++] = c->delim;
            rc = take(&t, buf, len);
        }
    }
    free(buf);
    /* a slice: its first K kept, of which the ranks before K are written */
    uint64_t mine = t.in.next - t.in.below - t.in.above;
    w->seen = t.in.next;
    w->res->lines = mine;
    fs__writer_below(w, t.in.below);
    w->total = w->left < mine ? w->left : mine;
    if (rc == FS_OK)
        rc = fs__writer_open(w); /* all input read */
    if (rc == FS_OK)
        rc = fs__writer_header(w, t.in.hdr, t.in.hdr_len);
    if (rc == FS_OK)
        rc = fs__sort_emit(t.rec, t.len, t.kept, 1, 0, 0, NULL, w);
    free(t.rec);
    free(t.in.hdr);
    free(t.scratch);
    return rc;
}
