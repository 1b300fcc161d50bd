/* codec.c -- gzip (zlib) and zstd (libzstd) streams, in both directions,
 * behind one feed interface (codec.h).  Decoding accepts concatenated
 * members/frames (as gzip -d and zstd -d do); a damaged or truncated
 * stream is an error with the library's reason, never silent output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "codec.h"

#define OUT_CHUNK ((size_t)256 << 10)

struct fs__codec {
    fs_lines_codec kind;
    int encode;
    int ended;    /* gzip decode: the last member is complete */
    size_t zlast; /* zstd decode: what the last call still expected */
    int started;
    z_stream z;
    ZSTD_DStream *zd;
    ZSTD_CStream *zc;
    unsigned char *out;
    char why[160];
};

fs_lines_codec fs_lines_codec_sniff(const void *p, size_t n)
{
    const unsigned char *b = p;
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return FS_CODEC_GZIP;
    if (n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f &&
        b[3] == 0xfd)
        return FS_CODEC_ZSTD;
    return FS_CODEC_PLAIN;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a > b && strcmp(s + a - b, suffix) == 0;
}

fs_lines_codec fs_lines_codec_of_name(const char *path)
{
    if (path == NULL)
        return FS_CODEC_PLAIN;
    if (ends_with(path, ".gz"))
        return FS_CODEC_GZIP;
    if (ends_with(path, ".zst"))
        return FS_CODEC_ZSTD;
    return FS_CODEC_PLAIN;
}

const char *fs_lines_codec_name(fs_lines_codec c)
{
    return c == FS_CODEC_GZIP ? "gzip" : c == FS_CODEC_ZSTD ? "zstd" : "plain";
}

int fs__codec_new(fs__codec **out, fs_lines_codec kind, int encode)
{
    fs__codec *c = calloc(1, sizeof *c);
    if (c == NULL || (c->out = malloc(OUT_CHUNK)) == NULL) {
        free(c);
        return FS_ENOMEM;
    }
    c->kind = kind;
    c->encode = encode;
    int ok = 1;
    if (kind == FS_CODEC_GZIP)
        ok = (encode ? deflateInit2(&c->z, 6, Z_DEFLATED, 15 + 16, 8,
                                    Z_DEFAULT_STRATEGY)
                     : inflateInit2(&c->z, 15 + 32)) == Z_OK;
    else if (kind == FS_CODEC_ZSTD && encode)
        ok = (c->zc = ZSTD_createCStream()) != NULL &&
             !ZSTD_isError(ZSTD_CCtx_setParameter(c->zc,
                                                  ZSTD_c_compressionLevel, 3));
    else if (kind == FS_CODEC_ZSTD)
        ok = (c->zd = ZSTD_createDStream()) != NULL &&
             !ZSTD_isError(ZSTD_initDStream(c->zd));
    if (!ok) { /* c->started is 0: no zlib stream to end */
        fs__codec_free(c);
        return FS_ENOMEM;
    }
    c->started = kind == FS_CODEC_GZIP;
    *out = c;
    return FS_OK;
}

void fs__codec_free(fs__codec *c)
{
    if (c == NULL)
        return;
    if (c->kind == FS_CODEC_GZIP && c->started)
        (void)(c->encode ? deflateEnd(&c->z) : inflateEnd(&c->z));
    ZSTD_freeCStream(c->zc);
    ZSTD_freeDStream(c->zd);
    free(c->out);
    free(c);
}

const char *fs__codec_why(const fs__codec *c)
{
    return c->why;
}

static int bad(fs__codec *c, const char *what, const char *detail)
{
    snprintf(c->why, sizeof c->why, "%s %s%s%s", fs_lines_codec_name(c->kind),
             what, detail ? ": " : "", detail ? detail : "");
    errno = EBADMSG;
    return FS_EIO;
}

static int gzip_feed(fs__codec *c, const unsigned char *in, size_t n,
                     int fin, fs__emit emit, void *arg)
{
    z_stream *z = &c->z;
    z->next_in = (unsigned char *)in;
    z->avail_in = (uInt)n;
    for (;;) {
        if (!c->encode && c->ended && z->avail_in > 0) {
            inflateReset(z); /* a next member */
            c->ended = 0;
        }
        z->next_out = c->out;
        z->avail_out = (uInt)OUT_CHUNK;
        int r = c->encode ? deflate(z, fin ? Z_FINISH : Z_NO_FLUSH)
                          : inflate(z, Z_NO_FLUSH);
        size_t got = OUT_CHUNK - z->avail_out;
        if (got > 0) {
            int rc = emit(arg, c->out, got);
            if (rc != FS_OK)
                return rc;
        }
        if (r == Z_STREAM_END) {
            if (c->encode)
                return FS_OK;
            c->ended = 1;
            if (z->avail_in == 0)
                break;
            continue;
        }
        if (r == Z_BUF_ERROR || (r == Z_OK && z->avail_in == 0 &&
                                 z->avail_out > 0 && !(c->encode && fin)))
            break; /* needs more input */
        if (r != Z_OK)
            return r == Z_MEM_ERROR ? FS_ENOMEM
                                    : bad(c, "data is corrupt", z->msg);
    }
    if (!c->encode && fin && !c->ended)
        return bad(c, "data is truncated", NULL);
    return FS_OK;
}

static int zstd_feed(fs__codec *c, const unsigned char *in, size_t n,
                     int fin, fs__emit emit, void *arg)
{
    ZSTD_inBuffer ib = {in, n, 0};
    /* decoding: an empty feed asks nothing (after a complete frame the
     * stream would only hint at the next one) */
    for (int more = c->encode || n > 0; more;) {
        ZSTD_outBuffer ob = {c->out, OUT_CHUNK, 0};
        size_t r;
        if (c->encode)
            r = ZSTD_compressStream2(c->zc, &ob, &ib,
                                     fin ? ZSTD_e_end : ZSTD_e_continue);
        else
            r = ZSTD_decompressStream(c->zd, &ob, &ib);
        if (ZSTD_isError(r))
            return bad(c, "data is corrupt", ZSTD_getErrorName(r));
        if (ob.pos > 0) {
            int rc = emit(arg, c->out, ob.pos);
            if (rc != FS_OK)
                return rc;
        }
        if (c->encode) {
            if (fin ? r == 0 : ib.pos == ib.size && ob.pos < ob.size)
                return FS_OK;
            continue;
        }
        c->zlast = r;
        more = !(ib.pos == ib.size && ob.pos < ob.size);
    }
    if (fin && c->zlast != 0)
        return bad(c, "data is truncated", NULL);
    return FS_OK;
}

int fs__codec_feed(fs__codec *c, const unsigned char *in, size_t n, int fin,
                   fs__emit emit, void *arg)
{
    if (c->kind == FS_CODEC_GZIP)
        return gzip_feed(c, in, n, fin, emit, arg);
    if (c->kind == FS_CODEC_ZSTD)
        return zstd_feed(c, in, n, fin, emit, arg);
    return n ? emit(arg, in, n) : FS_OK;
}
