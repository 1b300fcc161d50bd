/* source.c -- the input of `fairshuf lines` as the engine should see it:
 * gzip or zstd input (found by its magic bytes, on a file or a pipe) is
 * decompressed, and CSV records are framed as NUL-terminated items, by a
 * thread that writes into a pipe the engine reads.  Plain input that needs
 * no framing is handed over as it is (the magic bytes are looked at with
 * pread on a file and tee(2) on a pipe, so nothing is consumed). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "csv.h"
#include "io.h"

#define IN_CHUNK ((size_t)1 << 20)

struct fs_lines_source {
    int fd;                 /* the input */
    int rfd, wfd;           /* the pipe: the engine reads rfd */
    unsigned char pre[4];   /* bytes consumed to look at the input */
    size_t npre;
    fs_lines_codec codec;
    int csv;
    fs_lines_source_opts o;
    unsigned char *carry;   /* a record split across chunks (hook) */
    size_t clen, ccap;
    uint64_t nrec;
    fs__codec *dec;
    fs__csv_framer fr;
    unsigned char *fbuf;    /* framed bytes */
    pthread_t tid;
    int running, ended;
    int rc, err;
    const char *why;
};

/* Looks at up to 4 bytes without consuming them where the input allows:
 * returns 1 when they were consumed (then they must be passed on). */
static int peek(int fd, unsigned char *pk, size_t *got)
{
    struct stat st;
    *got = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t off = lseek(fd, 0, SEEK_CUR);
        if (off >= 0 && fs__pread_full(fd, pk, 4, off, got) == FS_OK)
            return 0;
        *got = 0;
    } else if (S_ISFIFO(st.st_mode)) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) == 0) {
            ssize_t t;
            do
                t = tee(fd, p[1], 4, 0);
            while (t < 0 && errno == EINTR);
            size_t have = 0;
            if (t > 0)
                (void)fs__read_full(p[0], pk, (size_t)t, &have);
            close(p[0]);
            close(p[1]);
            /* decided: end of input, 4 bytes, or gzip's 2 */
            if (t == 0 || (t > 0 && have == (size_t)t &&
                           (t == 4 || fs_lines_codec_sniff(pk, have) ==
                                          FS_CODEC_GZIP))) {
                *got = have;
                return 0;
            }
        }
    }
    (void)fs__read_full(fd, pk, 4, got); /* errors: the reader sees them */
    return 1;
}

static int fail(fs_lines_source *s, int rc, const char *why)
{
    if (s->rc == FS_OK) {
        s->rc = rc;
        s->err = errno;
        s->why = why;
    }
    return rc;
}

/* Hands every whole record of p[0..n) to the hook (a record split across
 * calls is put together in s->carry). */
static int records(fs_lines_source *s, const unsigned char *p, size_t n)
{
    unsigned char end = s->csv ? '\0' : s->o.delim;
    while (n > 0) {
        const unsigned char *e = memchr(p, end, n);
        size_t len = e ? (size_t)(e - p) + 1 : n;
        if (e && s->clen == 0) {
            if (s->o.record(s->o.record_arg, s->nrec++, p, len) != FS_OK)
                return fail(s, FS_EINVAL, s->o.why ? *s->o.why : NULL);
        } else {
            if (s->clen + len > s->ccap) {
                size_t nc = s->ccap ? s->ccap : 4096;
                while (nc < s->clen + len)
                    nc *= 2;
                unsigned char *nb = realloc(s->carry, nc);
                if (nb == NULL)
                    return fail(s, FS_ENOMEM, NULL);
                s->carry = nb;
                s->ccap = nc;
            }
            memcpy(s->carry + s->clen, p, len);
            s->clen += len;
            if (e) {
                if (s->o.record(s->o.record_arg, s->nrec++, s->carry,
                                s->clen) != FS_OK)
                    return fail(s, FS_EINVAL, s->o.why ? *s->o.why : NULL);
                s->clen = 0;
            }
        }
        p += len;
        n -= len;
    }
    return FS_OK;
}

/* The engine's bytes: to the pipe (unless the hook takes everything), and
 * record by record to the hook. */
static int out(fs_lines_source *s, const unsigned char *p, size_t n)
{
    if (s->o.record && records(s, p, n) != FS_OK)
        return s->rc;
    if (s->o.no_pipe)
        return FS_OK;
    return fs__write_all(s->wfd, p, n) == FS_OK ? FS_OK
                                                : fail(s, FS_EIO, NULL);
}

static int put(void *arg, const unsigned char *p, size_t n)
{
    fs_lines_source *s = arg;
    if (!s->csv)
        return out(s, p, n);
    while (n > 0) { /* framing may double the bytes: IN_CHUNK at a time */
        size_t k = n < IN_CHUNK ? n : IN_CHUNK, o;
        if (fs__csv_frame(&s->fr, p, k, 0, s->fbuf, &o) != FS_OK)
            return fail(s, FS_EIO, s->fr.why);
        if (out(s, s->fbuf, o) != FS_OK)
            return s->rc;
        p += k;
        n -= k;
    }
    return FS_OK;
}

static int decode(fs_lines_source *s, const unsigned char *p, size_t n,
                  int fin)
{
    int rc = fs__codec_feed(s->dec, p, n, fin, put, s);
    if (rc != FS_OK && s->rc == FS_OK)
        fail(s, rc, errno == EBADMSG ? fs__codec_why(s->dec) : NULL);
    return rc;
}

static void *source_run(void *arg)
{
    fs_lines_source *s = arg;
    unsigned char *buf = malloc(IN_CHUNK);
    int rc = buf ? FS_OK : fail(s, FS_ENOMEM, NULL);
    if (rc == FS_OK && s->npre)
        rc = decode(s, s->pre, s->npre, 0);
    while (rc == FS_OK) {
        size_t got;
        if (fs__read_some(s->fd, buf, IN_CHUNK, &got) != FS_OK) {
            rc = fail(s, FS_EIO, NULL);
            break;
        }
        rc = decode(s, buf, got, got == 0);
        if (got == 0)
            break;
    }
    if (rc == FS_OK && s->csv) {
        size_t o;
        if (fs__csv_frame(&s->fr, NULL, 0, 1, s->fbuf, &o) != FS_OK)
            fail(s, FS_EIO, s->fr.why);
        else
            (void)out(s, s->fbuf, o);
    } else if (rc == FS_OK && s->o.record && s->clen > 0) {
        /* a last line without its delimiter: as the engine reads it */
        unsigned char d = s->o.delim;
        (void)records(s, &d, 1);
    }
    free(buf);
    close(s->wfd); /* the engine sees the end of input */
    s->wfd = -1;
    return NULL;
}

int fs_lines_source_open(int fd, const fs_lines_source_opts *o,
                         fs_lines_source **out, int *rfd)
{
    if (o == NULL || out == NULL || rfd == NULL || fd < 0)
        return FS_EINVAL;
    int csv = o->csv;
    *out = NULL;
    *rfd = fd;
    unsigned char pk[4];
    size_t got;
    int consumed = peek(fd, pk, &got);
    fs_lines_codec codec = fs_lines_codec_sniff(pk, got);
    if (codec == FS_CODEC_PLAIN && !csv && !consumed && !o->record)
        return FS_OK; /* as it is */
    fs_lines_source *s = calloc(1, sizeof *s);
    if (s == NULL)
        return FS_ENOMEM;
    s->o = *o;
    s->fd = fd;
    s->csv = csv;
    s->codec = codec;
    if (consumed) {
        memcpy(s->pre, pk, got);
        s->npre = got;
    }
    int p[2] = {-1, -1};
    int rc = fs__codec_new(&s->dec, codec, 0);
    if (rc == FS_OK && csv && (s->fbuf = malloc(2 * IN_CHUNK + 3)) == NULL)
        rc = FS_ENOMEM;
    if (rc == FS_OK && pipe2(p, O_CLOEXEC) != 0)
        rc = FS_EIO;
    if (rc == FS_OK) {
#ifdef F_SETPIPE_SZ
        (void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20); /* fewer switches */
#endif
        s->rfd = p[0];
        s->wfd = p[1];
        if (pthread_create(&s->tid, NULL, source_run, s) != 0) {
            rc = FS_ENOMEM;
            close(p[0]);
            close(p[1]);
        }
    }
    if (rc != FS_OK) {
        fs__codec_free(s->dec);
        free(s->fbuf);
        free(s);
        return rc;
    }
    s->running = 1;
    *out = s;
    *rfd = s->rfd;
    return FS_OK;
}

int fs_lines_source_end(fs_lines_source *s, int *err, const char **why)
{
    if (s == NULL)
        return FS_OK;
    if (!s->ended) {
        /* what the reader left (e.g. after a header) is read to the end,
         * so that a damaged stream is found whatever was used of it */
        unsigned char drain[65536];
        size_t got;
        while (fs__read_some(s->rfd, drain, sizeof drain, &got) == FS_OK &&
               got > 0)
            ;
        pthread_join(s->tid, NULL);
        s->running = 0;
        s->ended = 1;
    }
    if (err)
        *err = s->err;
    if (why)
        *why = s->why;
    return s->rc;
}

fs_lines_codec fs_lines_source_codec(const fs_lines_source *s)
{
    return s ? s->codec : FS_CODEC_PLAIN;
}

void fs_lines_source_free(fs_lines_source *s)
{
    if (s == NULL)
        return;
    (void)fs_lines_source_end(s, NULL, NULL);
    close(s->rfd);
    fs__codec_free(s->dec);
    free(s->fbuf);
    free(s->carry);
    free(s);
}
