/* out.h -- a large output buffer with fast number formatting: no per-item
 * stdio call.  Write errors surface at exit through stdout's error flag. */
#ifndef FS_OUT_H
#define FS_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define OUT_CAP (1u << 16)

typedef struct out_buf {
    FILE *f;
    size_t len;
    char buf[OUT_CAP];
} out_buf;

static inline void out_init(out_buf *o, FILE *f)
{
    o->f = f;
    o->len = 0;
}

static inline void out_flush(out_buf *o)
{
    if (o->len)
        fwrite(o->buf, 1, o->len, o->f);
    o->len = 0;
}

static inline void out_bytes(out_buf *o, const void *p, size_t n)
{
    if (o->len + n > OUT_CAP) {
        out_flush(o);
        if (n > OUT_CAP) {
            fwrite(p, 1, n, o->f);
            return;
        }
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

static inline void out_byte(out_buf *o, char c)
{
    if (o->len == OUT_CAP)
        out_flush(o);
    o->buf[o->len++] = c;
}

static inline void out_str(out_buf *o, const char *s)
{
    out_bytes(o, s, strlen(s));
}

static inline void out_u64(out_buf *o, uint64_t v)
{
    char tmp[20];
    int i = 20;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    out_bytes(o, tmp + i, (size_t)(20 - i));
}

/* cli_check for a record's random draws: on failure the records already
 * made (the buffer holds whole ones only) are written before the error,
 * so the output ends with a whole record, never half of one. */
static inline void out_check(out_buf *o, int rc, const char *what)
{
    if (rc != FS_OK) {
        out_flush(o);
        cli_check(rc, what);
    }
}

#endif
