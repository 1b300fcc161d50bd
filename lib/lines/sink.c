/* sink.c -- the output of `fairshuf lines` after the engine: a thread reads
 * the shuffled records from a pipe, drops the NUL that frames a CSV record,
 * cuts the stream into parts (--split: the first records[0] records to
 * part 0, the next records[1] to part 1, ...; header records to every
 * part), and writes each part plain, gzip or zstd. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "io.h"
#include "fairshuf/lines.h"

#define CHUNK ((size_t)1 << 20)

#define PART_BUF ((size_t)256 << 10)

typedef struct part_out {
    fs_lines_part p;
    fs__codec *enc;
    uint64_t done;
    struct fs_lines_sink *s;
    unsigned char *buf; /* records gathered for one feed of the encoder */
    size_t len;
} part_out;

struct fs_lines_sink {
    fs_lines_sink_config c;
    part_out *parts;
    int rfd, wfd;
    pthread_t tid;
    int running;
    int rc, err;
    const char *why;
    uint64_t header_left;
    size_t cur;      /* the part of the record being written */
    int in_rec;      /* inside a record (its part chosen) */
    int all;         /* the current record goes to every part (header) */
    uint64_t index;  /* shuffled records seen */
};

static int write_part(void *arg, const unsigned char *p, size_t n)
{
    part_out *po = arg;
    if (fs__write_all(po->p.fd, p, n) != FS_OK) {
        if (po->s->rc == FS_OK) {
            po->s->rc = FS_EIO;
            po->s->err = errno;
        }
        return FS_EIO;
    }
    return FS_OK;
}

/* Feeds what part po has gathered to its encoder. */
static void drain(fs_lines_sink *s, part_out *po)
{
    if (po->len && s->rc == FS_OK &&
        fs__codec_feed(po->enc, po->buf, po->len, 0, write_part, po) !=
            FS_OK &&
        s->rc == FS_OK) {
        s->rc = FS_EIO;
        s->err = errno;
    }
    po->len = 0;
}

/* Gathers p[0..n) for the current part (or every part: a header line);
 * records are fed to the encoder in pieces of up to PART_BUF bytes. */
static void route(fs_lines_sink *s, const unsigned char *p, size_t n)
{
    if (n == 0 || s->rc != FS_OK)
        return; /* after a failure: read on, write nothing */
    for (size_t k = s->all ? 0 : s->cur; k < s->c.nparts; k++) {
        part_out *po = &s->parts[k];
        if (po->len + n > PART_BUF)
            drain(s, po);
        if (n > PART_BUF) {
            if (fs__codec_feed(po->enc, p, n, 0, write_part, po) != FS_OK &&
                s->rc == FS_OK) {
                s->rc = FS_EIO;
                s->err = errno;
            }
        } else {
            memcpy(po->buf + po->len, p, n);
            po->len += n;
        }
        if (!s->all)
            break;
    }
}

/* The part of the next shuffled record. */
static size_t choose(fs_lines_sink *s, const unsigned char *rec, size_t len)
{
    if (s->c.choose)
        return s->c.choose(s->c.choose_arg, s->index, rec, len);
    size_t k = s->cur;
    while (k + 1 < s->c.nparts && s->parts[k].done >= s->parts[k].p.records)
        k++;
    return k;
}

/* Routes p[0..n); returns how much was taken: with a chooser, a record
 * whose end is not in p yet waits for more, unless it alone fills the
 * buffer (full: p holds the whole buffer).  A record cut only because a
 * read happened to fill the buffer must wait too: how much one read
 * returns depends on how far the sink lags, and the chooser must see
 * the same bytes on every run (docs/lines.md, "Split"). */
static size_t take(fs_lines_sink *s, const unsigned char *p, size_t n,
                   int full)
{
    unsigned char end = s->c.csv ? '\0' : s->c.delim;
    size_t n0 = n;
    if (s->c.nparts == 1 && !s->c.csv) {
        s->all = 0;
        s->cur = 0;
        route(s, p, n);
        return n;
    }
    while (n > 0) {
        const unsigned char *e = memchr(p, end, n);
        size_t len = e ? (size_t)(e - p) + 1 : n;
        if (!s->in_rec && !e && s->c.choose && !(full && n == n0))
            return n0 - n;
        if (!s->in_rec) {
            s->in_rec = 1;
            s->all = s->header_left > 0;
            if (s->all)
                s->header_left--;
            else {
                s->cur = choose(s, p, len);
                if (s->cur >= s->c.nparts)
                    s->cur = s->c.nparts - 1;
                s->parts[s->cur].done++;
                s->index++;
            }
        }
        route(s, p, e && s->c.csv ? len - 1 : len);
        if (e)
            s->in_rec = 0;
        p += len;
        n -= len;
    }
    return n0;
}

static void *sink_run(void *arg)
{
    fs_lines_sink *s = arg;
    unsigned char *buf = malloc(CHUNK);
    if (buf == NULL)
        s->rc = FS_ENOMEM;
    size_t keep = 0; /* a record's start, waiting for its end */
    for (;;) {
        size_t got;
        unsigned char b1[4096];
        unsigned char *b = buf ? buf + keep : b1; /* read on regardless */
        if (fs__read_some(s->rfd, b, buf ? CHUNK - keep : sizeof b1,
                          &got) != FS_OK) {
            if (s->rc == FS_OK) {
                s->rc = FS_EIO;
                s->err = errno;
            }
            break;
        }
        if (got == 0) {
            if (buf && keep)
                take(s, buf, keep, 1);
            break;
        }
        if (buf) {
            size_t have = keep + got;
            size_t used = take(s, buf, have, have == CHUNK);
            keep = have - used;
            memmove(buf, buf + used, keep);
        }
    }
    for (size_t k = 0; k < s->c.nparts; k++)
        drain(s, &s->parts[k]);
    for (size_t k = 0; k < s->c.nparts && s->rc == FS_OK; k++)
        if (fs__codec_feed(s->parts[k].enc, NULL, 0, 1, write_part,
                           &s->parts[k]) != FS_OK && s->rc == FS_OK) {
            s->rc = FS_EIO;
            s->err = errno;
        }
    free(buf);
    return NULL;
}

int fs_lines_sink_open(const fs_lines_sink_config *c, fs_lines_sink **out,
                       int *wfd)
{
    if (c == NULL || out == NULL || wfd == NULL || c->nparts == 0 ||
        c->parts == NULL)
        return FS_EINVAL;
    fs_lines_sink *s = calloc(1, sizeof *s);
    if (s == NULL)
        return FS_ENOMEM;
    s->c = *c;
    s->header_left = c->header;
    s->parts = calloc(c->nparts, sizeof *s->parts);
    int rc = s->parts ? FS_OK : FS_ENOMEM;
    for (size_t k = 0; rc == FS_OK && k < c->nparts; k++) {
        s->parts[k].p = c->parts[k];
        s->parts[k].s = s;
        s->parts[k].buf = malloc(PART_BUF);
        rc = s->parts[k].buf ? fs__codec_new(&s->parts[k].enc,
                                             c->parts[k].codec, 1)
                             : FS_ENOMEM;
    }
    int p[2] = {-1, -1};
    if (rc == FS_OK && pipe2(p, O_CLOEXEC) != 0)
        rc = FS_EIO;
    if (rc == FS_OK) {
#ifdef F_SETPIPE_SZ
        (void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
#endif
        s->rfd = p[0];
        s->wfd = p[1];
        if (pthread_create(&s->tid, NULL, sink_run, s) != 0) {
            close(p[0]);
            close(p[1]);
            rc = FS_ENOMEM;
        }
    }
    if (rc != FS_OK) {
        for (size_t k = 0; s->parts && k < c->nparts; k++) {
            fs__codec_free(s->parts[k].enc);
            free(s->parts[k].buf);
        }
        free(s->parts);
        free(s);
        return rc;
    }
    s->running = 1;
    *out = s;
    *wfd = s->wfd;
    return FS_OK;
}

int fs_lines_sink_end(fs_lines_sink *s, int *err, uint64_t *counts)
{
    if (s == NULL)
        return FS_OK;
    if (s->running) {
        close(s->wfd);
        pthread_join(s->tid, NULL);
        s->running = 0;
        close(s->rfd);
    }
    if (err)
        *err = s->err;
    for (size_t k = 0; counts && k < s->c.nparts; k++)
        counts[k] = s->parts[k].done;
    return s->rc;
}

void fs_lines_sink_free(fs_lines_sink *s)
{
    if (s == NULL)
        return;
    (void)fs_lines_sink_end(s, NULL, NULL);
    for (size_t k = 0; k < s->c.nparts; k++) {
        fs__codec_free(s->parts[k].enc);
        free(s->parts[k].buf);
    }
    free(s->parts);
    free(s);
}
