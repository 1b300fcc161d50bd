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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "io.h"
#include "lanes.h"

#define NB 64
#define NB_BITS 6
#define MAX_DEPTH 9

/* A loaded region's disk space is freed (its file closed, or its range
 * punched out) on a thread of its own, while the region is sorted: the
 * page cache's freeing is otherwise serial time (0.1-0.2 s at 5e7 lines). */
typedef struct dropper {
    int fd, own;
    uint64_t off, size;
    pthread_t tid;
    int running;
} dropper;

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
    dropper drop;
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

/* ------------------------------------------------------------ the intake
 *
 * Lines go to the 64 top-level bucket files through one or two lanes: with
 * two threads each chunk read is cut at a line near 55 % of it, this
 * thread takes the first part and a helper the second (it counts the
 * first part's lines to number its own, hence the larger first part).  A lane buffers records per
 * bucket and writes a full buffer to a range of the bucket's file that it
 * reserves under a mutex (pwrite), so the lanes' blocks interleave in the
 * file; the order of records inside a bucket does not matter (a loaded
 * bucket is sorted by key, ties by full keys and indices).  The lanes also
 * count the next FINE_BITS key bits of each bucket and keep some block
 * starts (record boundaries with the number of records before them), so
 * that a loaded bucket needs no counting pass and two threads can scatter
 * it (fs__sort_emit's fs__counts). */

#define SHORT_LINE 16  /* lines this short are copied as 16 bytes */
#define FINE_BITS 12 /* key bits below the top 6 counted by the intake */
#define NCUT 64      /* block starts kept per bucket */

typedef struct cut {
    uint64_t off, before;
} cut;

typedef struct bucketset {
    int fd[NB];
    uint64_t size[NB], count[NB]; /* bytes and records reserved so far */
    cut cuts[NB][NCUT];
    unsigned ncut[NB];
    uint64_t step[NB];            /* least distance between kept cuts */
    pthread_mutex_t mu;           /* all of the above, and w->res */
} bucketset;

typedef struct lane {
    spill *sp;
    bucketset *bs;
    fs__intake *in;     /* the first lane: sp->in (header lines) */
    fs__intake own;     /* the helper's (no header) */
    unsigned char *buf[NB];
    size_t len[NB];
    uint64_t n[NB];     /* records in buf[b] */
    uint32_t *fine;     /* NB << FINE_BITS counts */
} lane;

/* Keeps block starts spread over the file: at most NCUT, at least
 * step[b] apart (when full, every other one goes and the step grows). */
static void add_cut(bucketset *bs, int b, uint64_t off, uint64_t before)
{
    unsigned n = bs->ncut[b];
    if (off == 0 || (n > 0 && off - bs->cuts[b][n - 1].off < bs->step[b]))
        return;
    if (n == NCUT) {
        for (unsigned i = 0; i < NCUT / 2; i++)
            bs->cuts[b][i] = bs->cuts[b][2 * i + 1];
        n = NCUT / 2;
        bs->step[b] = off / (NCUT / 2);
    }
    bs->cuts[b][n].off = off;
    bs->cuts[b][n].before = before;
    bs->ncut[b] = n + 1;
}

/* Writes p1[0..n1) p2[0..n2) (recs records) at the end of bucket b. */
static int lane_write(lane *ln, int b, const void *p1, size_t n1,
                      const void *p2, size_t n2, uint64_t recs)
{
    spill *sp = ln->sp;
    bucketset *bs = ln->bs;
    int rc = FS_OK;
    uint64_t off = 0;
    pthread_mutex_lock(&bs->mu);
    if (bs->fd[b] < 0)
        rc = temp_open(sp, &bs->fd[b]);
    int fd = bs->fd[b];
    if (rc == FS_OK) {
        off = bs->size[b];
        add_cut(bs, b, off, bs->count[b]);
        bs->size[b] += n1 + n2;
        bs->count[b] += recs;
        sp->w->res->spilled += n1 + n2;
    }
    pthread_mutex_unlock(&bs->mu);
    if (rc == FS_OK &&
        (fs__pwrite_all(fd, p1, n1, (off_t)off) != FS_OK ||
         (n2 > 0 &&
          fs__pwrite_all(fd, p2, n2, (off_t)(off + n1)) != FS_OK))) {
        int e = errno;
        pthread_mutex_lock(&bs->mu);
        rc = temp_error(sp, e);
        pthread_mutex_unlock(&bs->mu);
    }
    return rc;
}

static int lane_flush(lane *ln, int b)
{
    int rc = ln->len[b] ? lane_write(ln, b, ln->buf[b], ln->len[b], NULL, 0,
                                     ln->n[b])
                        : FS_OK;
    ln->len[b] = 0;
    ln->n[b] = 0;
    return rc;
}

/* line[0..l) is followed by readable bytes up to end. */
static int lane_add(lane *ln, uint64_t key, uint64_t idx,
                    const unsigned char *line, size_t l,
                    const unsigned char *end)
{
    int b = (int)(key >> (64 - NB_BITS)), rc;
    size_t need = FS__REC_HDR + l, bsz = ln->sp->bsz;
    ln->fine[key >> (64 - NB_BITS - FINE_BITS)]++;
    /* SHORT_LINE bytes of slack: a short line is copied as a fixed block */
    if (ln->buf[b] == NULL &&
        (ln->buf[b] = malloc(bsz + SHORT_LINE)) == NULL)
        return FS_ENOMEM;
    if (ln->len[b] + need > bsz && (rc = lane_flush(ln, b)) != FS_OK)
        return rc;
    unsigned char *h = ln->buf[b] + ln->len[b];
    if (need > bsz) { /* a long line: straight to the file */
        unsigned char hdr[FS__REC_HDR];
        memcpy(hdr, &key, 8);
        memcpy(hdr + 8, &idx, 8);
        return lane_write(ln, b, hdr, sizeof hdr, line, l, 1);
    }
    memcpy(h, &key, 8);
    memcpy(h + 8, &idx, 8);
    if (l <= SHORT_LINE && end - line >= SHORT_LINE)
        memcpy(h + FS__REC_HDR, line, SHORT_LINE); /* no call, no branches */
    else
        memcpy(h + FS__REC_HDR, line, l);
    ln->len[b] += need;
    ln->n[b]++;
    return FS_OK;
}

/* Takes the lines of p[0..end), which ends with a delimiter. */
static int lane_feed(lane *ln, const unsigned char *p,
                     const unsigned char *end)
{
    unsigned char d = ln->sp->c->delim;
    while (p < end) {
        size_t l = (size_t)(fs__delim(p, end, d) - p) + 1;
        uint64_t key, idx;
        int rc = fs__intake_line(ln->in, p, l, &key, &idx);
        if (rc < 0)
            return rc;
        if (rc == 0 && (rc = lane_add(ln, key, idx, p, l, end)) != FS_OK)
            return rc;
        p += l;
    }
    return FS_OK;
}

/* Flushes (while rc is FS_OK) and frees a lane's buffers. */
static int lane_finish(lane *ln, int rc)
{
    for (int b = 0; b < NB; b++) {
        if (rc == FS_OK)
            rc = lane_flush(ln, b);
        free(ln->buf[b]);
        ln->buf[b] = NULL;
    }
    return rc;
}

/* The helper's lane: its lines follow `before` lines from h->first. */
typedef struct helper {
    lane ln;
    fs__lanes lanes;
    uint64_t first; /* index of the first shuffled line of the chunk */
} helper;

static int helper_take(void *arg, uint64_t before, const unsigned char *p,
                       const unsigned char *end)
{
    helper *h = arg;
    h->ln.own.next = h->first + before;
    h->ln.own.kpos = h->ln.own.kend = 0;
    return lane_feed(&h->ln, p, end);
}

/* Feeds the complete lines of buf[0..len); *used: how many bytes. */
static int feed(lane *main_ln, helper *h, const unsigned char *buf,
                size_t len, size_t *used)
{
    unsigned char d = main_ln->sp->c->delim;
    const unsigned char *end = len ? memrchr(buf, d, len) : NULL;
    *used = 0;
    if (end == NULL)
        return FS_OK;
    end++;
    *used = (size_t)(end - buf);
    fs__intake *in = main_ln->in;
    const unsigned char *mid =
        in->header_left == 0 ? fs__lanes_cut(&h->lanes, buf, *used) : NULL;
    if (mid == NULL)
        return lane_feed(main_ln, buf, end);
    h->first = in->next;
    fs__lanes_give(&h->lanes, buf, mid, end);
    int rc = lane_feed(main_ln, buf, mid);
    int hrc = fs__lanes_wait(&h->lanes);
    if (rc == FS_OK)
        rc = hrc;
    in->next = h->ln.own.next; /* the helper's lines came after ours */
    in->kpos = in->kend = 0;
    return rc;
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
    const uint32_t *fine;   /* top level: the intake's key counts, or NULL */
    uint64_t mid, mid_off;  /* top level: a record boundary near the middle */
} region;

static void drop_space(int fd, int own, uint64_t off, uint64_t size)
{
    if (own)
        close(fd);
    else if (size > 0)
        (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                        (off_t)off, (off_t)size);
}

/* Frees the disk space of a region read for the last time. */
static void region_drop(region *r)
{
    drop_space(r->fd, r->own, r->off, r->size);
    r->own = 0;
    r->fd = -1;
}

static void *drop_run(void *arg)
{
    dropper *d = arg;
    drop_space(d->fd, d->own, d->off, d->size);
    return NULL;
}

static void drop_wait(spill *sp)
{
    if (sp->drop.running)
        pthread_join(sp->drop.tid, NULL);
    sp->drop.running = 0;
}

/* region_drop on a thread (the previous drop is waited for first); where
 * no thread can be made, here. */
static void region_drop_async(spill *sp, region *r)
{
    dropper *d = &sp->drop;
    drop_wait(sp);
    d->fd = r->fd;
    d->own = r->own;
    d->off = r->off;
    d->size = r->size;
    r->own = 0;
    r->fd = -1;
    if (sp->c->threads >= 2 && pthread_create(&d->tid, NULL, drop_run, d) == 0)
        d->running = 1;
    else
        drop_space(d->fd, d->own, d->off, d->size);
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

/* A part of a leaf to load: pread of p[0..n) at off. */
typedef struct load {
    int fd;
    unsigned char *p;
    size_t n, got;
    off_t off;
    int rc, err;
} load;

static void *load_run(void *arg)
{
    load *l = arg;
    l->rc = fs__pread_full(l->fd, l->p, l->n, l->off, &l->got);
    l->err = errno;
    if (l->rc == FS_OK && l->got < l->n) /* the file shrank under us */
        l->rc = FS_EIO, l->err = EIO;
    return NULL;
}

/* Reads r's bytes into buf: with two threads, a helper reads the second
 * half (the copy from the page cache is a third of a 5e7-line run's
 * serial time otherwise). */
static int load_region(spill *sp, const region *r, unsigned char *buf)
{
    size_t size = (size_t)r->size, half = sp->c->threads >= 2 &&
                                                 size >= ((size_t)1 << 20)
                                             ? size / 2
                                             : size;
    load a = {r->fd, buf, half, 0, (off_t)r->off, FS_OK, 0};
    load b = {r->fd, buf + half, size - half, 0, (off_t)(r->off + half),
              FS_OK, 0};
    pthread_t tid;
    int made = half < size && pthread_create(&tid, NULL, load_run, &b) == 0;
    load_run(&a);
    if (made)
        pthread_join(tid, NULL);
    else if (half < size)
        load_run(&b);
    if (a.rc != FS_OK || b.rc != FS_OK)
        return temp_error(sp, a.rc != FS_OK ? a.err : b.err);
    return FS_OK;
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
    size_t size = (size_t)r->size;
    unsigned char *buf = malloc(size ? size : 1);
    if (buf == NULL)
        return FS_ENOMEM;
    int rc = load_region(sp, r, buf);
    if (rc != FS_OK) {
        free(buf);
        return rc;
    }
    region_drop_async(sp, r);
    fs__counts fc = {r->fine, FINE_BITS, r->mid, (size_t)r->mid_off};
    rc = fs__sort_emit(buf, size, r->count, 1, 0, NB_BITS * (r->depth + 1),
                       r->fine ? &fc : NULL, sp->w);
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
    fs__intake_init(&sp.in, w);
    w->res->depth = 1;

    unsigned lanes = c->threads >= 2 ? 2 : 1;
    size_t bsz = memory / 4 / NB / lanes;
    if (bsz < 4096)
        bsz = 4096;
    /* 128 KiB for one lane, 64 KiB each for two: 64 buffers of 1 MiB
     * (64 MiB) spread the copies over memory; 8 MiB in all stays in cache
     * (5e7 lines: 3.0-3.3 s instead of 3.8-4.2 s) */
    if (bsz > (128u << 10) / lanes)
        bsz = (128u << 10) / lanes;
    sp.bsz = bsz;
    sp.io_buf = bsz * 16;
    int rc = FS_OK;
    bucketset *top = calloc(1, sizeof *top);
    helper *h = calloc(1, sizeof *h);
    lane *ln = calloc(1, sizeof *ln);
    uint32_t *fine = calloc((size_t)NB << FINE_BITS, sizeof *fine);
    if (top == NULL || h == NULL || ln == NULL || fine == NULL) {
        free(top), free(h), free(ln), free(fine), free(buf);
        return FS_ENOMEM;
    }
    for (int b = 0; b < NB; b++)
        top->fd[b] = -1;
    pthread_mutex_init(&top->mu, NULL);
    ln->sp = &sp;
    ln->bs = top;
    ln->in = &sp.in;
    ln->fine = fine;
    if (lanes == 2) { /* no helper (no memory, no thread): one lane */
        h->ln.sp = &sp;
        h->ln.bs = top;
        h->ln.in = &h->ln.own;
        fs__intake_init(&h->ln.own, w);
        h->ln.fine = calloc((size_t)NB << FINE_BITS, sizeof *fine);
        if (h->ln.fine)
            fs__lanes_start(&h->lanes, helper_take, h, c->delim);
    }
    size_t used;
    /* What was read before the budget ran out, then a smaller buffer. */
    rc = feed(ln, h, buf, len, &used);
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
        rc = feed(ln, h, buf, len, &used);
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
            rc = feed(ln, h, buf, len, &used);
        }
    }
    free(buf);
    fs__lanes_stop(&h->lanes);
    rc = lane_finish(ln, rc);
    rc = lane_finish(&h->ln, rc);
    if (h->ln.fine)
        for (size_t i = 0; i < ((size_t)NB << FINE_BITS); i++)
            fine[i] += h->ln.fine[i];
    free(h->ln.fine);
    /* a slice: the lines of its keys, after `below` lines of other slices */
    uint64_t below = sp.in.below + h->ln.own.below,
             mine = sp.in.next - below - sp.in.above - h->ln.own.above;
    w->res->lines = mine;
    w->seen = sp.in.next;
    fs__writer_below(w, below);
    w->total = w->left < mine ? w->left : mine;
    /* The top-level buckets become regions (their files move over). */
    region tops[NB];
    memset(tops, 0, sizeof tops);
    for (int b = 0; b < NB; b++) {
        tops[b].fd = top->fd[b];
        tops[b].own = top->fd[b] >= 0;
        tops[b].size = top->size[b];
        tops[b].count = top->count[b];
        tops[b].fine = fine + ((size_t)b << FINE_BITS);
        /* the block start nearest the middle */
        uint64_t best = UINT64_MAX, half = top->size[b] / 2;
        for (unsigned k = 0; k < top->ncut[b]; k++) {
            const cut *ct = &top->cuts[b][k];
            uint64_t dist = ct->off > half ? ct->off - half : half - ct->off;
            if (dist < best) {
                best = dist;
                tops[b].mid = ct->before;
                tops[b].mid_off = ct->off;
            }
        }
        top->fd[b] = -1;
    }
    pthread_mutex_destroy(&top->mu);
    free(top);
    free(h);
    free(ln);
    uint64_t before = 0;
    for (int b = 0; b < NB && rc == FS_OK; b++)
        rc = plan(&sp, &tops[b], &before);
    /* All input is read and every split made: only now may the output be
     * opened. */
    if (rc == FS_OK)
        rc = fs__writer_open(w);
    if (rc == FS_OK)
        rc = fs__writer_header(w, sp.in.hdr, sp.in.hdr_len);
    for (int b = 0; b < NB && rc == FS_OK; b++)
        rc = emit(&sp, &tops[b]);
    drop_wait(&sp); /* before the files it may punch are closed */
    for (int b = 0; b < NB; b++)
        region_free(&tops[b]);
    for (size_t i = 0; i < sp.nfiles; i++)
        close(sp.files[i]);
    free(sp.files);
    free(fine);
    free(sp.in.hdr);
    return rc;
}
