/* shuffle.c -- fs_lines_shuffle: read into memory while the budget allows,
 * hand over to the spill path when it does not. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "io.h"

/* The budget after an allocation failed with `held` bytes in hand: the
 * spill path's buckets must fit in what the process really has. */
static size_t fit_budget(size_t memory, size_t held)
{
    if (held < (1u << 20))
        held = 1u << 20;
    return held < memory ? held : memory;
}

#define READ_PIECE ((size_t)8 << 20)

/* The keys of slice `slice` of `slices`: those with (k slices) >> 64 ==
 * slice, i.e. [ceil(slice 2^64 / slices), the next slice's start). */
static uint64_t slice_start(unsigned slice, unsigned slices)
{
    return (uint64_t)((((unsigned __int128)slice << 64) + slices - 1) /
                      slices);
}

static void writer_init(fs__writer *w, const fs_lines_config *c,
                        fs_lines_result *res, unsigned slice, unsigned slices)
{
    memset(res, 0, sizeof *res);
    memset(w, 0, sizeof *w);
    w->c = c;
    w->res = res;
    w->fd = -1;
    w->left = c->head;
    w->slice = slice;
    w->slices = slices;
    w->lo = slice_start(slice, slices);
    w->hi = slice + 1 < slices ? slice_start(slice + 1, slices) - 1
                               : UINT64_MAX;
}

static int writer_end(fs__writer *w, int rc)
{
    if (rc == FS_OK)
        rc = fs__writer_open(w); /* even for empty output: -o F is made */
    if (rc == FS_OK)
        rc = fs__writer_flush(w);
    if (rc == FS_OK && w->c->progress)
        fs__writer_progress(w);
    free(w->buf);
    return rc;
}

/* A slice in memory: the n lines of buf[0..len) whose keys are in it,
 * as records [key][index << 16 | length][line] (FS__STORED_LEN) in a new
 * buffer *out (*olen bytes, *m records); *below: the lines before it. */
static int slice_records(const unsigned char *buf, size_t len, uint64_t n,
                         const fs__writer *w, unsigned char **out,
                         size_t *olen, uint64_t *m, uint64_t *below)
{
    unsigned char *rec = NULL, d = w->c->delim;
    size_t cap = 0, rl = 0, off = 0;
    uint64_t keys[512], kept = 0, under = 0;
    int rc = fs__reserve(&rec, &cap, (len + FS__REC_HDR * n) / w->slices +
                                         (1u << 16));
    for (uint64_t i = 0; i < n && rc == FS_OK; i++) {
        if (i % 512 == 0)
            fs_lines_keys(w->c->key, i, 0, keys,
                          n - i < 512 ? (size_t)(n - i) : 512);
        uint64_t k = keys[i % 512];
        size_t l = (size_t)(fs__delim(buf + off, buf + len, d) - (buf + off)) + 1;
        if (k < w->lo) {
            under++;
        } else if (k <= w->hi &&
                   (rc = fs__reserve(&rec, &cap, rl + FS__REC_HDR + l)) ==
                       FS_OK) {
            uint64_t il = i << 16 | (l < FS__LEN_LOOK ? l : FS__LEN_LOOK);
            memcpy(rec + rl, &k, 8);
            memcpy(rec + rl + 8, &il, 8);
            memcpy(rec + rl + FS__REC_HDR, buf + off, l);
            rl += FS__REC_HDR + l;
            kept++;
        }
        off += l;
    }
    if (rc == FS_OK && rl >= 0xfffffff0u) /* 32-bit offsets: go to disk */
        rc = FS_ENOMEM;
    if (rc != FS_OK) {
        free(rec);
        return rc;
    }
    *out = rec;
    *olen = rl;
    *m = kept;
    *below = under;
    return FS_OK;
}

/* In memory: buf[0..len) ends with delim; n lines in all.  ph: the key
 * histogram counted while reading (or NULL; never for a slice). */
static int in_memory(const unsigned char *buf, size_t len, uint64_t n,
                     fs__prehist *ph, fs__writer *w)
{
    size_t hdr = 0;
    uint64_t h = w->c->header < n ? w->c->header : n;
    for (uint64_t i = 0; i < h; i++)
        hdr = (size_t)((const unsigned char *)memchr(buf + hdr, w->c->delim,
                                                     len - hdr) -
                       buf) + 1;
    w->seen = n - h;
    if (w->slices > 1) {
        unsigned char *rec;
        size_t rl;
        uint64_t m, below;
        int rc = slice_records(buf + hdr, len - hdr, n - h, w, &rec, &rl, &m,
                               &below);
        if (rc != FS_OK)
            return rc;
        w->res->lines = m;
        fs__writer_below(w, below);
        w->total = w->left < m ? w->left : m;
        rc = fs__writer_open(w);
        if (rc == FS_OK)
            rc = fs__writer_header(w, buf, hdr);
        if (rc == FS_OK)
            rc = fs__sort_emit(rec, rl, m, FS__STORED_LEN, 0, 0, NULL, w);
        free(rec);
        return rc;
    }
    w->res->lines = n - h;
    w->total = w->left < n - h ? w->left : n - h;
    /* The histogram's thread is joined before the output is opened: the
     * caller's open_output may end the process (the CLI does on damaged
     * input), and no thread of ours may then still be in the keystream
     * library while exit() tears it down (OpenSSL's atexit clean-up). */
    fs__counts fc = {ph ? fs__prehist_end(ph, n - h) : NULL,
                     FS__PREHIST_BITS, 0, 0};
    int rc = fs__writer_open(w);
    if (rc == FS_OK)
        rc = fs__writer_header(w, buf, hdr);
    if (rc == FS_OK)
        rc = fs__sort_emit(buf + hdr, len - hdr, n - h, 0, 0, 0,
                           fc.fine ? &fc : NULL, w);
    return rc;
}

/* -n 0 with a header: reads the header lines only and writes them. */
static int header_only(int fd, fs__writer *w)
{
    size_t cap = 0, len = 0, scanned = 0;
    unsigned char *buf = NULL;
    uint64_t lines = 0;
    int rc = FS_OK;
    while (rc == FS_OK && lines < w->c->header) {
        if ((rc = fs__reserve(&buf, &cap, len + 65536)) != FS_OK)
            break;
        size_t got;
        if (fs__read_some(fd, buf + len, cap - len - 1, &got) != FS_OK) {
            w->res->where = FS_LINES_INPUT;
            w->res->err = errno;
            rc = FS_EIO;
            break;
        }
        if (got == 0) { /* end of input: a last line without delimiter */
            if (len > scanned)
                buf[len++] = w->c->delim, lines++;
            scanned = len;
            break;
        }
        len += got;
        const unsigned char *q;
        while (lines < w->c->header &&
               (q = memchr(buf + scanned, w->c->delim, len - scanned))) {
            scanned = (size_t)(q - buf) + 1;
            lines++;
        }
    }
    if (rc == FS_OK)
        rc = fs__writer_open(w);
    if (rc == FS_OK)
        rc = fs__writer_header(w, buf, scanned);
    free(buf);
    return rc;
}

static int check(const fs_lines_config *c, fs_lines_result *res)
{
    if (c == NULL || res == NULL)
        return FS_EINVAL;
    return FS_OK;
}

int fs__lines_shuffle_counted(const unsigned char *buf, size_t len,
                              uint64_t n, const fs_lines_config *c,
                              fs_lines_result *res)
{
    if (check(c, res) != FS_OK)
        return FS_EINVAL;
    fs__writer w;
    writer_init(&w, c, res, 0, 1);
    if (len > 0 && (buf == NULL || buf[len - 1] != c->delim))
        return FS_EINVAL;
    /* 32-bit offsets: larger inputs belong to fs_lines_shuffle(fd). */
    int rc = len < 0xfffffff0u ? in_memory(buf, len, n, NULL, &w) : FS_ERANGE;
    return writer_end(&w, rc);
}

int fs_lines_shuffle_buf(const unsigned char *buf, size_t len,
                         const fs_lines_config *c, fs_lines_result *res)
{
    /* (what is refused, the counted path refuses: n does not matter) */
    uint64_t n = c != NULL && buf != NULL && len > 0 && buf[len - 1] == c->delim
                     ? fs_lines_count(buf, len, c->delim) : 0;
    return fs__lines_shuffle_counted(buf, len, n, c, res);
}

/* fs_lines_shuffle_slice, its writer (w->seen) left to the caller. */
static int shuffle(int fd, const fs_lines_config *c, unsigned slice,
                   unsigned slices, fs_lines_result *res, fs__writer *w)
{
    if (check(c, res) != FS_OK || slice >= slices)
        return FS_EINVAL;
    writer_init(w, c, res, slice, slices);
    if (c->head == 0) /* like GNU's -n 0: read nothing but the header */
        return writer_end(w, c->header ? header_only(fd, w) : FS_OK);
    if (c->head < fs__topk_max)
        return writer_end(w, fs__topk_run(fd, w));
    /* The budget is resolved here, once, and passed down (w->memory). */
    size_t memory = w->memory =
        c->memory ? c->memory : fs_lines_default_memory();
    size_t limit = memory / 4 * 3; /* the rest: buffers of the spill path */
    fs__passes_plan_t pl;
    if (fs__passes_plan(fd, c, slices, limit, &pl)) {
        int prc = fs__passes_run(fd, &pl, limit, w);
        if (prc != FS__PASSES_DECLINED)
            return writer_end(w, prc);
        if (lseek(fd, pl.start, SEEK_SET) != pl.start) {
            res->where = FS_LINES_INPUT;
            res->err = errno;
            return writer_end(w, FS_EIO);
        }
    }
    size_t cap = 1u << 20;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size + 2 < limit)
        cap = (size_t)st.st_size + 2;
    if (cap > limit)
        cap = limit > 4096 ? limit : 4096;
    unsigned char *buf = malloc(cap);
    if (buf == NULL && cap > (1u << 20)) /* less memory than the budget */
        buf = malloc(cap = 1u << 20);
    if (buf == NULL)
        return writer_end(w, FS_ENOMEM);
    if (cap > (1u << 20)) { /* a regular file's size: it will all be read */
        fs__huge(buf, cap); /* fresh pages are costly on a VM */
        fs__prefault(buf, cap);
    }
    /* With two threads the second counts the keys' histogram while this
     * one reads (prehist.c), so reads come in pieces it can follow.  (With
     * more threads the counting pass is split among them instead.) */
    fs__prehist ph;
    memset(&ph, 0, sizeof ph);
    if (c->threads == 2 && slices == 1) /* (it counts every line) */
        (void)fs__prehist_start(&ph, c->key); /* not started: no matter */
    size_t len = 0;
    uint64_t n = 0;
    int rc = FS_OK;
    for (;;) {
        if (cap - len < 2) {
            size_t ncap = cap * 2 > limit ? limit : cap * 2;
            unsigned char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (nb == NULL) { /* over budget (or no memory): go to disk */
                fs__prehist_free(&ph);
                if (ncap > cap) /* the process has less than the budget */
                    w->memory = fit_budget(w->memory, cap);
                return writer_end(w, fs__spill_run(fd, buf, len, cap, w));
            }
            buf = nb;
            cap = ncap;
        }
        size_t want = cap - len - 1;
        if (ph.running && want > READ_PIECE)
            want = READ_PIECE;
        size_t r;
        if (fs__read_some(fd, buf + len, want, &r) != FS_OK) {
            res->where = FS_LINES_INPUT;
            res->err = errno;
            rc = FS_EIO;
            break;
        }
        if (r == 0)
            break;
        n += fs_lines_count(buf + len, (size_t)r, c->delim) -
             (memchr(buf + len + r - 1, c->delim, 1) ? 0 : 1);
        len += (size_t)r;
        fs__prehist_avail(&ph, n);
        if (c->progress)
            c->progress(c->progress_arg, FS_LINES_READING, len, 0);
        /* a slice: the text, and its records beside it */
        uint64_t need = slices == 1
                            ? fs__sort_overhead(n + 1, c->threads)
                            : (len + FS__REC_HDR * n) / slices +
                                  fs__sort_overhead(n / slices + 1, 1);
        if (len + 1 + need > limit || len >= 0xffff0000u) {
            fs__prehist_free(&ph);
            return writer_end(w, fs__spill_run(fd, buf, len, cap, w));
        }
    }
    if (rc == FS_OK) {
        if (len > 0 && buf[len - 1] != c->delim) {
            buf[len++] = c->delim;
            n++;
        }
        rc = in_memory(buf, len, n, ph.running ? &ph : NULL, w);
        if (rc == FS_ENOMEM && res->out_bytes == 0 && res->written == 0) {
            /* The sort's arrays did not fit after all (a limit the budget
             * did not see): nothing is written yet, so the same order
             * comes from disk.  fd is at its end; buf holds every line. */
            fs__prehist_free(&ph);
            w->len = 0; /* the header lines: the spill path writes them */
            w->left = c->head;
            w->memory = fit_budget(w->memory, cap / 2);
            return writer_end(w, fs__spill_run(fd, buf, len, cap, w));
        }
    }
    fs__prehist_free(&ph);
    free(buf);
    return writer_end(w, rc);
}

int fs_lines_shuffle(int fd, const fs_lines_config *c, fs_lines_result *res)
{
    return fs_lines_shuffle_slice(fd, c, 0, 1, res);
}

int fs_lines_shuffle_slice(int fd, const fs_lines_config *c, unsigned slice,
                           unsigned slices, fs_lines_result *res)
{
    uint64_t seen;
    return fs__lines_shuffle_slice(fd, c, slice, slices, res, &seen);
}

int fs__lines_shuffle_slice(int fd, const fs_lines_config *c, unsigned slice,
                            unsigned slices, fs_lines_result *res,
                            uint64_t *seen)
{
    fs__writer w;
    memset(&w, 0, sizeof w);
    int rc = shuffle(fd, c, slice, slices, res, &w);
    *seen = w.seen;
    return rc;
}
