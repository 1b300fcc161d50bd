/* gnurand.c -- a random source that spends bytes exactly like GNU
 * coreutils' randint_genmax (gl/lib/randint.c, coreutils 9.1), so that
 * `shuf --random-source=F` and fairshuf give the same output for the same
 * bytes.  The accumulator (randnum, randmax) carries leftover entropy from
 * one draw to the next; that is what makes the byte consumption match. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fairshuf/lines.h"
#include "internal.h"
#include "io.h"

#define GR_BUF 4096

struct fs_gnurand {
    int fd;                  /* < 0: memory source */
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    int error;               /* sticky */
    int err_no;
    uint64_t randnum, randmax;
    uint64_t used;
    size_t pos, end;
    unsigned char buf[GR_BUF];
};

int fs_gnurand_new(fs_gnurand **out, int fd, const void *buf, size_t len)
{
    fs_gnurand *g = calloc(1, sizeof *g);
    *out = g;
    if (g == NULL)
        return FS_ENOMEM;
    g->fd = fd;
    g->mem = buf;
    g->mem_len = len;
    return FS_OK;
}

void fs_gnurand_free(fs_gnurand *g)
{
    free(g);
}

uint64_t fs_gnurand_used(const fs_gnurand *g)
{
    return g->used;
}

/* Next byte, or -1 with g->error set.  Like GNU's randread, bytes are only
 * demanded when a draw needs them, so a short source fails at the same
 * draw as GNU's. */
static int next_byte(fs_gnurand *g)
{
    if (g->pos == g->end) {
        if (g->fd < 0) {
            size_t n = g->mem_len - g->mem_pos;
            if (n == 0) {
                g->error = FS_EEOF;
                return -1;
            }
            if (n > GR_BUF)
                n = GR_BUF;
            memcpy(g->buf, g->mem + g->mem_pos, n);
            g->mem_pos += n;
            g->pos = 0;
            g->end = n;
        } else {
            size_t r;
            if (fs__read_some(g->fd, g->buf, GR_BUF, &r) != FS_OK) {
                g->error = FS_EIO;
                g->err_no = errno;
                return -1;
            }
            if (r == 0) {
                g->error = FS_EEOF;
                return -1;
            }
            g->pos = 0;
            g->end = r;
        }
    }
    g->used++;
    return g->buf[g->pos++];
}

int fs_gnurand_below(fs_gnurand *g, uint64_t n, uint64_t *out)
{
    if (n == 0)
        return FS_EINVAL;
    if (g->error) {
        errno = g->err_no;
        return g->error;
    }
    uint64_t genmax = n - 1;
    uint64_t randnum = g->randnum, randmax = g->randmax;
    for (;;) {
        if (randmax < genmax) {
            /* GNU first computes how many bytes it needs and reads them all
             * at once; reading them one by one consumes the same bytes,
             * but a short source must fail before any is used. */
            unsigned need = 0;
            uint64_t rmax = randmax;
            do {
                rmax = (rmax << 8) + 0xff;
                need++;
            } while (rmax < genmax);
            unsigned char b[8] = {0};
            for (unsigned i = 0; i < need; i++) {
                int c = next_byte(g);
                if (c < 0) {
                    errno = g->err_no;
                    return g->error;
                }
                b[i] = (unsigned char)c;
            }
            unsigned i = 0;
            do {
                randnum = (randnum << 8) + b[i++];
                randmax = (randmax << 8) + 0xff;
            } while (randmax < genmax);
        }
        if (randmax == genmax) {
            g->randnum = g->randmax = 0;
            *out = randnum;
            return FS_OK;
        }
        /* genmax < randmax: accept randnum below the largest multiple of
         * n that fits in [0, randmax]; keep the quotient as entropy. */
        uint64_t excess = randmax - genmax;
        uint64_t unusable = excess % n;
        uint64_t last_usable = randmax - unusable;
        uint64_t reduced = randnum % n;
        if (randnum <= last_usable) {
            g->randnum = randnum / n;
            g->randmax = excess / n;
            *out = reduced;
            return FS_OK;
        }
        randnum = reduced;
        randmax = unusable - 1;
    }
}

int fs_draws_below(const fs_draws *d, uint64_t n, uint64_t *out)
{
    if (d->gnu)
        return fs_gnurand_below(d->gnu, n, out);
    if (n == 0)
        return FS_EINVAL;
    fs_rng *rng = fs__rng(d->rng);
    if (rng == NULL)
        return FS_ERANDOM;
    *out = fs__below(rng, n);
    return rng->error;
}
