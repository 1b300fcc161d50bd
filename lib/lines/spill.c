/* spill.c -- the out-of-core path.  Lines go to 64 bucket files by the
 * next 6 bits of their key ([key][index][line] records); buckets are then
 * taken in key order: one that fits the budget is loaded and sorted by
 * fs__sort_emit, a larger one is split again by the next 6 bits.  The
 * order is therefore the same total key order as in memory.  Temporary
 * files are created with O_TMPFILE (or unlinked right after mkstemp), so
 * they vanish with the process whatever kills it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "io.h"

#define NB 64
#define NB_BITS 6
#define MAX_DEPTH 9

typedef struct bucketset {
    int fd[NB];
    uint64_t size[NB], count[NB];
    unsigned char *buf[NB];
    size_t len[NB];
    size_t bsz;
    unsigned depth;
} bucketset;

typedef struct spill {
    fs__writer *w;
    const fs_lines_config *c;
    size_t budget;      /* for a loaded bucket: bytes + sort overhead */
    const char *dir;
    fs__intake in;      /* header lines, line numbers and keys */
    size_t bsz;         /* a bucket's write buffer */
    size_t io_buf;      /* read buffer of a scan */
    int *files;         /* the files splits made (closed at the end) */
    size_t nfiles, files_cap;
} spill;

static int temp_error(spill *sp, int e)
{
    sp->w->res->where = FS_LINES_TEMP;
    sp->w->res->err = e;
    errno = e;
    return FS_EIO;
}

static int temp_open(spill *sp, int *out)
{
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(sp->dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
#endif
    if (fd < 0) {
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/fairshuf-XXXXXX",
                             sp->dir) >= sizeof path)
            return temp_error(sp, ENAMETOOLONG);
        fd = mkstemp(path);
        if (fd < 0)
            return temp_error(sp, errno);
        unlink(path); /* nothing can outlive us, even after SIGKILL */
    }
    *out = fd;
    return FS_OK;
}

static int bs_init(bucketset *bs, unsigned depth, size_t bsz)
{
    memset(bs, 0, sizeof *bs);
    bs->depth = depth;
    bs->bsz = bsz;
    for (int b = 0; b < NB; b++)
        bs->fd[b] = -1;
    return FS_OK;
}

static void bs_free(bucketset *bs)
{
    for (int b = 0; b < NB; b++) {
        free(bs->buf[b]);
        bs->buf[b] = NULL;
        if (bs->fd[b] >= 0)
            close(bs->fd[b]);
        bs->fd[b] = -1;
    }
}

static int bs_write(spill *sp, bucketset *bs, int b, const void *p, size_t n)
{
    if (bs->fd[b] < 0) {
        int rc = temp_open(sp, &bs->fd[b]);
        if (rc != FS_OK)
            return rc;
    }
    if (fs__write_all(bs->fd[b], p, n) != FS_OK)
        return temp_error(sp, errno);
    sp->w->res->spilled += n;
    return FS_OK;
}

static int bs_flush(spill *sp, bucketset *bs, int b)
{
    int rc = bs->len[b] ? bs_write(sp, bs, b, bs->buf[b], bs->len[b]) : FS_OK;
    bs->len[b] = 0;
    return rc;
}

static int bs_add(spill *sp, bucketset *bs, uint64_t key, uint64_t idx,
                  const unsigned char *line, size_t l)
{
    int b = (int)((key << (NB_BITS * bs->depth)) >> (64 - NB_BITS));
    size_t need = FS__REC_HDR + l;
    int rc;
    if (bs->buf[b] == NULL && (bs->buf[b] = malloc(bs->bsz)) == NULL)
        return FS_ENOMEM;
    if (bs->len[b] + need > bs->bsz && (rc = bs_flush(sp, bs, b)) != FS_OK)
        return rc;
    bs->size[b] += need;
    bs->count[b]++;
    unsigned char h[FS__REC_HDR];
    memcpy(h, &key, 8);
    memcpy(h + 8, &idx, 8);
    if (need > bs->bsz) {
        if ((rc = bs_write(sp, bs, b, h, sizeof h)) != FS_OK)
            return rc;
        return bs_write(sp, bs, b, line, l);
    }
    memcpy(bs->buf[b] + bs->len[b], h, sizeof h);
    memcpy(bs->buf[b] + bs->len[b] + sizeof h, line, l);
    bs->len[b] += need;
    return FS_OK;
}

static int bs_finish(spill *sp, bucketset *bs)
{
    for (int b = 0; b < NB; b++) {
        int rc = bs_flush(sp, bs, b);
        if (rc != FS_OK)
            return rc;
        free(bs->buf[b]);
        bs->buf[b] = NULL;
    }
    return FS_OK;
}

/* One input line (with its delimiter): header or spilled record. */
static int take_line(spill *sp, bucketset *bs, const unsigned char *p,
                     size_t l)
{
    uint64_t key, idx;
    int rc = fs__intake_line(&sp->in, p, l, &key, &idx);
    if (rc != 0)
        return rc > 0 ? FS_OK : rc;
    return bs_add(sp, bs, key, idx, p, l);
}

/* Feeds the complete lines of buf[0..len); returns how many bytes. */
static int feed(spill *sp, bucketset *bs, const unsigned char *buf,
                size_t len, size_t *used)
{
    size_t off = 0;
    unsigned char d = sp->c->delim;
    for (;;) {
        const unsigned char *q = fs__delim(buf + off, buf + len, d);
        if (q == NULL)
            break;
        size_t l = (size_t)(q - (buf + off)) + 1;
        int rc = take_line(sp, bs, buf + off, l);
        if (rc != FS_OK)
            return rc;
        off += l;
    }
    *used = off;
    return FS_OK;
}

/* ------------------------------------------------------------ the plan
 *
 * Every split happens before the first output byte: a bucket too big for
 * the budget is split by the next 6 key bits into ONE new file holding its
 * 64 children one after the other (a counting pass gives their offsets),
 * children too big are split again, and only then is the output opened
 * and each leaf loaded, sorted and written in key order.  So every
 * temporary-file write that can fail (ENOSPC, EMFILE) fails before any
 * output, and at most 64 + (number of splits) temporary files are open. */

typedef struct region {
    int fd;                 /* the file holding it */
    int own;                /* a top-level bucket: the file is all of it */
    uint64_t off, size, count;
    unsigned depth;         /* its records share NB_BITS * (depth + 1) bits */
    struct region *kids;    /* NB children once split, else NULL */
} region;

/* Frees the disk space of a region read for the last time. */
static void region_drop(region *r)
{
    if (r->own) {
        close(r->fd);
        r->own = 0;
    } else if (r->size > 0) {
        (void)fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        (off_t)r->off, (off_t)r->size);
    }
    r->fd = -1;
}

static void region_free(region *r)
{
    if (r->kids) {
        for (int k = 0; k < NB; k++)
            region_free(&r->kids[k]);
        free(r->kids);
        r->kids = NULL;
    }
    if (r->own && r->fd >= 0)
        close(r->fd);
    r->own = 0;
}

typedef int (*rec_fn)(spill *sp, void *ctx, const unsigned char *rec,
                      size_t l);

/* Calls fn on every record [key][index][line] of r, in file order. */
static int region_scan(spill *sp, const region *r, rec_fn fn, void *ctx)
{
    size_t cap = sp->io_buf, len = 0;
    unsigned char *buf = malloc(cap);
    int rc = buf ? FS_OK : FS_ENOMEM;
    uint64_t pos = 0;
    while (rc == FS_OK && (pos < r->size || len > 0)) {
        if (len == cap && (rc = fs__grow_buf(&buf, &cap)) != FS_OK)
            break;
        size_t want = cap - len, got = 0;
        if (want > r->size - pos)
            want = (size_t)(r->size - pos);
        if (want > 0 &&
            fs__pread_full(r->fd, buf + len, want, (off_t)(r->off + pos),
                           &got) != FS_OK) {
            rc = temp_error(sp, errno);
            break;
        }
        if (want > 0 && got == 0) { /* the file is shorter than we wrote */
            rc = temp_error(sp, EIO);
            break;
        }
        pos += got;
        len += got;
        size_t off = 0;
        while (rc == FS_OK && len - off > FS__REC_HDR) {
            const unsigned char *q =
                fs__delim(buf + off + FS__REC_HDR, buf + len, sp->c->delim);
            if (q == NULL)
                break;
            size_t l = (size_t)(q - (buf + off)) + 1;
            rc = fn(sp, ctx, buf + off, l);
            off += l;
        }
        memmove(buf, buf + off, len - off);
        len -= off;
        if (pos >= r->size && off == 0 && len > 0 && rc == FS_OK) {
            rc = temp_error(sp, EIO); /* a record without its delimiter */
            break;
        }
    }
    free(buf);
    return rc;
}

static int kid_of(const unsigned char *rec, unsigned depth)
{
    return (int)((fs__le64(rec) << (NB_BITS * (depth + 1))) >>
                 (64 - NB_BITS));
}

typedef struct splitter {
    region *parent;
    int fd;
    uint64_t pos[NB];        /* next write offset of each child */
    unsigned char *buf[NB];
    size_t len[NB];
} splitter;

static int count_rec(spill *sp, void *ctx, const unsigned char *rec,
                     size_t l)
{
    (void)sp;
    splitter *t = ctx;
    region *k = &t->parent->kids[kid_of(rec, t->parent->depth)];
    k->size += l;
    k->count++;
    return FS_OK;
}

static int kid_flush(spill *sp, splitter *t, int k)
{
    if (t->len[k] == 0)
        return FS_OK;
    if (fs__pwrite_all(t->fd, t->buf[k], t->len[k], (off_t)t->pos[k]) !=
        FS_OK)
        return temp_error(sp, errno);
    sp->w->res->spilled += t->len[k];
    t->pos[k] += t->len[k];
    t->len[k] = 0;
    return FS_OK;
}

static int place_rec(spill *sp, void *ctx, const unsigned char *rec,
                     size_t l)
{
    splitter *t = ctx;
    int k = kid_of(rec, t->parent->depth), rc;
    if (t->buf[k] == NULL && (t->buf[k] = malloc(sp->bsz)) == NULL)
        return FS_ENOMEM;
    if (t->len[k] + l > sp->bsz && (rc = kid_flush(sp, t, k)) != FS_OK)
        return rc;
    if (l > sp->bsz) {
        if (fs__pwrite_all(t->fd, rec, l, (off_t)t->pos[k]) != FS_OK)
            return temp_error(sp, errno);
        sp->w->res->spilled += l;
        t->pos[k] += l;
        return FS_OK;
    }
    memcpy(t->buf[k] + t->len[k], rec, l);
    t->len[k] += l;
    return FS_OK;
}

/* Splits r into r->kids, all in one new file. */
static int region_split(spill *sp, region *r)
{
    splitter t;
    memset(&t, 0, sizeof t);
    t.parent = r;
    t.fd = -1;
    r->kids = calloc(NB, sizeof *r->kids);
    if (r->kids == NULL)
        return FS_ENOMEM;
    int rc = region_scan(sp, r, count_rec, &t);
    if (rc == FS_OK && sp->nfiles == sp->files_cap) {
        size_t nc = sp->files_cap ? 2 * sp->files_cap : 16;
        int *nf = realloc(sp->files, nc * sizeof *nf);
        if (nf == NULL)
            rc = FS_ENOMEM;
        else
            sp->files = nf, sp->files_cap = nc;
    }
    if (rc == FS_OK)
        rc = temp_open(sp, &t.fd);
    if (rc == FS_OK) {
        sp->files[sp->nfiles++] = t.fd; /* closed at the end of the run */
        uint64_t at = 0;
        for (int k = 0; k < NB; k++) {
            r->kids[k].fd = t.fd;
            r->kids[k].off = t.pos[k] = at;
            r->kids[k].depth = r->depth + 1;
            at += r->kids[k].size;
        }
        rc = region_scan(sp, r, place_rec, &t);
    }
    for (int k = 0; k < NB; k++) {
        if (rc == FS_OK)
            rc = kid_flush(sp, &t, k);
        free(t.buf[k]);
    }
    if (rc == FS_OK)
        region_drop(r);
    return rc;
}

/* Splits what must be split, in key order, until `left` lines are
 * covered (later buckets are never written). */
static int plan(spill *sp, region *r, uint64_t *before)
{
    if (r->count == 0 || *before >= sp->w->left)
        return FS_OK;
    uint64_t need = r->size + fs__sort_overhead(r->count, sp->c->threads);
    if (need <= sp->budget || r->depth >= MAX_DEPTH || r->count == 1) {
        *before += r->count;
        return FS_OK;
    }
    int rc = region_split(sp, r);
    if (rc == FS_OK && r->depth + 2 > sp->w->res->depth)
        sp->w->res->depth = r->depth + 2;
    for (int k = 0; k < NB && rc == FS_OK; k++)
        rc = plan(sp, &r->kids[k], before);
    return rc;
}

/* Loads each leaf, sorts it and writes it, in key order. */
static int emit(spill *sp, region *r)
{
    if (r->count == 0 || sp->w->left == 0)
        return FS_OK;
    if (r->kids) {
        for (int k = 0; k < NB; k++) {
            int rc = emit(sp, &r->kids[k]);
            if (rc != FS_OK)
                return rc;
        }
        return FS_OK;
    }
    size_t size = (size_t)r->size, got;
    unsigned char *buf = malloc(size ? size : 1);
    if (buf == NULL)
        return FS_ENOMEM;
    int rc = fs__pread_full(r->fd, buf, size, (off_t)r->off, &got);
    if (rc == FS_OK && got < size) /* the file shrank under us */
        errno = EIO, rc = FS_EIO;
    if (rc != FS_OK) {
        free(buf);
        return temp_error(sp, errno);
    }
    region_drop(r);
    rc = fs__sort_emit(buf, size, r->count, 1, 0, NB_BITS * (r->depth + 1),
                       NULL, sp->w);
    free(buf);
    return rc;
}

int fs__spill_run(int fd, unsigned char *buf, size_t len, size_t cap,
                  fs__writer *w)
{
    const fs_lines_config *c = w->c;
    size_t memory = w->memory; /* resolved once, by fs_lines_shuffle */
    spill sp = {0};
    sp.w = w;
    sp.c = c;
    sp.budget = memory / 4 * 3;
    if (sp.budget > 0xfffffff0u)
        sp.budget = 0xfffffff0u; /* 32-bit offsets in loaded buckets */
    sp.dir = c->tmpdir ? c->tmpdir : getenv("TMPDIR");
    if (sp.dir == NULL || *sp.dir == '\0')
        sp.dir = "/tmp";
    sp.in.header_left = c->header;
    sp.in.key = c->key;
    w->res->depth = 1;

    size_t bsz = memory / 4 / NB;
    if (bsz < 4096)
        bsz = 4096;
    /* 128 KiB: 64 buffers of 1 MiB (64 MiB) spread the copies over
     * memory; 8 MiB in all stays in cache (5e7 lines: 3.0-3.3 s instead
     * of 3.8-4.2 s) */
    if (bsz > (128u << 10))
        bsz = 128u << 10;
    sp.bsz = bsz;
    sp.io_buf = bsz * 16;
    bucketset top;
    bs_init(&top, 0, bsz);
    int rc = FS_OK;
    size_t used;
    /* What was read before the budget ran out, then a smaller buffer. */
    rc = feed(&sp, &top, buf, len, &used);
    if (rc == FS_OK) {
        memmove(buf, buf + used, len - used);
        len -= used;
        size_t want = memory / 8 > (1u << 16) ? memory / 8 : (1u << 16);
        if (want > (16u << 20))
            want = 16u << 20;
        if (want < len + (1u << 16))
            want = len + (1u << 16);
        if (want < cap) {
            unsigned char *nb = realloc(buf, want);
            if (nb) {
                buf = nb;
                cap = want;
            }
        }
    }
    uint64_t total = 0;
    while (rc == FS_OK && fd >= 0) {
        if (len == cap && (rc = fs__grow_buf(&buf, &cap)) != FS_OK)
            break;
        size_t got;
        if (fs__read_some(fd, buf + len, cap - len, &got) != FS_OK) {
            w->res->where = FS_LINES_INPUT;
            w->res->err = errno;
            rc = FS_EIO;
            break;
        }
        if (got == 0)
            break;
        len += got;
        total += got;
        if (c->progress)
            c->progress(c->progress_arg, FS_LINES_SPILLING, total, 0);
        rc = feed(&sp, &top, buf, len, &used);
        memmove(buf, buf + used, len - used);
        len -= used;
    }
    if (rc == FS_OK && len > 0) { /* a last line without delimiter */
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap + 1);
            rc = nb ? FS_OK : FS_ENOMEM;
            if (nb)
                buf = nb;
        }
        if (rc == FS_OK) {
            buf[len++] = c->delim;
            rc = feed(&sp, &top, buf, len, &used);
        }
    }
    free(buf);
    if (rc == FS_OK)
        rc = bs_finish(&sp, &top);
    w->res->lines = sp.in.next;
    w->total = w->left < sp.in.next ? w->left : sp.in.next;
    /* The top-level buckets become regions (their files move over). */
    region tops[NB];
    memset(tops, 0, sizeof tops);
    for (int b = 0; b < NB; b++) {
        tops[b].fd = top.fd[b];
        tops[b].own = top.fd[b] >= 0;
        tops[b].size = top.size[b];
        tops[b].count = top.count[b];
        top.fd[b] = -1;
    }
    uint64_t before = 0;
    for (int b = 0; b < NB && rc == FS_OK; b++)
        rc = plan(&sp, &tops[b], &before);
    /* All input is read and every split made: only now may the output be
     * opened. */
    if (rc == FS_OK)
        rc = fs__writer_open(w);
    if (rc == FS_OK && sp.in.hdr_len)
        rc = fs__writer_put(w, sp.in.hdr, sp.in.hdr_len);
    for (int b = 0; b < NB && rc == FS_OK; b++)
        rc = emit(&sp, &tops[b]);
    for (int b = 0; b < NB; b++)
        region_free(&tops[b]);
    for (size_t i = 0; i < sp.nfiles; i++)
        close(sp.files[i]);
    free(sp.files);
    bs_free(&top);
    free(sp.in.hdr);
    return rc;
}
