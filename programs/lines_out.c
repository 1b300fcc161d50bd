/* lines_out.c -- the output of `fairshuf lines`: standard output, or -o
 * FILE replaced only on success (see lines_out.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "lines_out.h"
#include "outfile.h"
#include "lines_quote.h"
#include "pending.h"

void lines_out_init(lines_out *o, const char *path, unsigned char delim)
{
    memset(o, 0, offsetof(lines_out, b));
    o->path = path;
    o->delim = delim;
    o->fd = -1;
}

_Noreturn static void die_path(const char *path, int err)
{
    cli_die(CLI_FAIL, "%s: %s", lines_quotef(path), strerror(err));
}

int lines_out_open(lines_out *o)
{
    if (o->fd >= 0)
        return o->fd;
    if (o->path == NULL)
        return o->fd = 1;
    fs__outfile_init(&o->file, o->path, pending_on_temp, NULL);
    int rc = fs__outfile_open(&o->file);
    if (rc == FS_ENOMEM)
        cli_die(CLI_FAIL, "memory exhausted");
    if (rc != FS_OK)
        die_path(o->path, errno);
    return o->fd = o->file.fd;
}

_Noreturn void lines_out_failed(lines_out *o, uint64_t bytes_so_far, int err)
{
    /* One message with the reason.  (GNU shuf, writing through stdio,
     * says "write error" a second time, without one, when the failure
     * comes in mid-output: issue 30 counts that as noise, not a promise.) */
    (void)o;
    (void)bytes_so_far;
    cli_error("write error: %s", strerror(err));
    exit(CLI_FAIL); /* the new file, if any, goes at exit (pending.h) */
}

void lines_out_flush(lines_out *o)
{
    o->total += o->len;
    if (fs__write_all(o->fd, o->b, o->len) != FS_OK)
        lines_out_failed(o, o->total, errno);
    o->len = 0;
}

void lines_out_put(lines_out *o, const void *p, size_t n)
{
    if (o->len + n > sizeof o->b) {
        lines_out_flush(o);
        if (n > sizeof o->b) {
            o->total += n;
            if (fs__write_all(o->fd, p, n) != FS_OK)
                lines_out_failed(o, o->total, errno);
            return;
        }
    }
    memcpy(o->b + o->len, p, n);
    o->len += n;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

/* Two digits per division. */
void lines_out_num(lines_out *o, uint64_t v)
{
    char tmp[24];
    int i = 24;
    tmp[--i] = (char)o->delim;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        tmp[--i] = digit_pairs[d + 1];
        tmp[--i] = digit_pairs[d];
    }
    if (v >= 10) {
        tmp[--i] = digit_pairs[v * 2 + 1];
        tmp[--i] = digit_pairs[v * 2];
    } else {
        tmp[--i] = (char)('0' + v);
    }
    if (o->len + 24 > sizeof o->b)
        lines_out_flush(o);
    memcpy(o->b + o->len, tmp + i, (size_t)(24 - i));
    o->len += (size_t)(24 - i);
}

void lines_out_commit(lines_out *o)
{
    if (o->fd < 0)
        return;
    lines_out_flush(o);
    int replace = o->file.replace;
    if (o->path != NULL && fs__outfile_commit(&o->file) != FS_OK) {
        /* the new file is gone; FILE is as it was */
        if (replace && errno != ENOSPC && errno != EIO && errno != EDQUOT)
            die_path(o->path, errno);
        cli_die(CLI_FAIL, "write error: %s", strerror(errno));
    }
    o->fd = -1;
}
