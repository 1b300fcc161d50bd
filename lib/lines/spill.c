/* spill.c -- the out-of-core path.  Lines go to 64 bucket files by the
 * next 6 bits of their key ([key][index][line] records); buckets are then
 * taken in key order: one that fits the budget is loaded and sorted by
 * fs__sort_emit, a larger one is split again by the next 6 bits.  The
 * order is therefore the same total key order as in memory.  Temporary
 * files are created with O_TMPFILE (or unlinked right after mkstemp), so
 * they vanish with the process whatever kills it. */
#include <errno.h>
#include <fcntl.h>
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
        const unsigned char *q = memchr(buf + off, d, len - off);
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

static int process(spill *sp, bucketset *bs);

/* Splits bucket b of bs (a file too big for the budget) by the next bits. */
static int split_bucket(spill *sp, bucketset *bs, int b)
{
    bucketset child;
    bs_init(&child, bs->depth + 1, bs->bsz);
    size_t cap = bs->bsz * 16, len = 0;
    unsigned char *buf = malloc(cap);
    int rc = buf ? FS_OK : FS_ENOMEM;
    if (rc == FS_OK && lseek(bs->fd[b], 0, SEEK_SET) < 0)
        rc = temp_error(sp, errno);
    while (rc == FS_OK) {
        /* one record larger than the buffer: grow it */
        if (len == cap && (rc = fs__grow_buf(&buf, &cap)) != FS_OK)
            break;
        size_t got;
        if (fs__read_full(bs->fd[b], buf + len, cap - len, &got) != FS_OK) {
            rc = temp_error(sp, errno);
            break;
        }
        len += got;
        size_t off = 0;
        while (len - off > FS__REC_HDR) {
            const unsigned char *q =
                memchr(buf + off + FS__REC_HDR, sp->c->delim,
                       len - off - FS__REC_HDR);
            if (q == NULL)
                break;
            size_t l = (size_t)(q - (buf + off)) + 1 - FS__REC_HDR;
            rc = bs_add(sp, &child, fs__le64(buf + off),
                        fs__le64(buf + off + 8), buf + off + FS__REC_HDR, l);
            if (rc != FS_OK)
                break;
            off += FS__REC_HDR + l;
        }
        memmove(buf, buf + off, len - off);
        len -= off;
        if (got == 0)
            break;
    }
    free(buf);
    close(bs->fd[b]);
    bs->fd[b] = -1;
    if (rc == FS_OK)
        rc = bs_finish(sp, &child);
    if (rc == FS_OK)
        rc = process(sp, &child);
    bs_free(&child);
    return rc;
}

static int load_bucket(spill *sp, bucketset *bs, int b)
{
    size_t size = (size_t)bs->size[b];
    unsigned char *buf = malloc(size ? size : 1);
    if (buf == NULL)
        return FS_ENOMEM;
    size_t got;
    int rc = fs__pread_full(bs->fd[b], buf, size, 0, &got);
    if (rc == FS_OK && got < size) /* the file shrank under us */
        errno = EIO, rc = FS_EIO;
    if (rc != FS_OK) {
        free(buf);
        return temp_error(sp, errno);
    }
    close(bs->fd[b]);
    bs->fd[b] = -1;
    rc = fs__sort_emit(buf, size, bs->count[b], 1, 0,
                           NB_BITS * (bs->depth + 1), sp->w);
    free(buf);
    return rc;
}

static int process(spill *sp, bucketset *bs)
{
    for (int b = 0; b < NB && sp->w->left > 0; b++) {
        if (bs->count[b] == 0)
            continue;
        uint64_t need = bs->size[b] +
                        fs__sort_overhead(bs->count[b], sp->c->threads);
        int rc;
        if (need <= sp->budget || bs->depth >= MAX_DEPTH ||
            bs->count[b] == 1)
            rc = load_bucket(sp, bs, b);
        else
            rc = split_bucket(sp, bs, b);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
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
    if (bsz > (1u << 20))
        bsz = 1u << 20;
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
    /* All input is read: only now may the output be opened. */
    if (rc == FS_OK)
        rc = fs__writer_open(w);
    if (rc == FS_OK && sp.in.hdr_len)
        rc = fs__writer_put(w, sp.in.hdr, sp.in.hdr_len);
    if (rc == FS_OK)
        rc = process(&sp, &top);
    bs_free(&top);
    free(sp.in.hdr);
    return rc;
}
