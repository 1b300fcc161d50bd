/* buf.c -- a growing byte buffer and the service's JSON error object.
 * Strings go through the project's one JSON string writer (common/json.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "service.h"

void svc_buf_add(svc_buf *b, const char *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void svc_buf_str(svc_buf *b, const char *s)
{
    svc_buf_add(b, s, strlen(s));
}

void svc_buf_printf(svc_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        b->failed = 1; /* callers format short fields only */
        return;
    }
    svc_buf_add(b, tmp, (size_t)n);
}

static void put_buf(void *ctx, const char *p, size_t n)
{
    svc_buf_add(ctx, p, n);
}

void svc_buf_json(svc_buf *b, const char *s)
{
    json_string_to(put_buf, b, s);
}

void svc_buf_hex(svc_buf *b, const uint8_t *p, size_t n)
{
    char hex[2 * 64 + 1];
    if (n > 64) {
        b->failed = 1;
        return;
    }
    fs_hex_encode(p, n, hex);
    svc_buf_add(b, "\"", 1);
    svc_buf_add(b, hex, 2 * n);
    svc_buf_add(b, "\"", 1);
}

void svc_buf_free(svc_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void svc_error_set(svc_error *e, unsigned status, const char *code,
                   const char *fmt, ...)
{
    e->status = status;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

void svc_error_json(const svc_error *e, svc_buf *out)
{
    svc_buf_str(out, "{\"error\":{\"code\":");
    svc_buf_json(out, e->code);
    svc_buf_str(out, ",\"message\":");
    svc_buf_json(out, e->message);
    svc_buf_str(out, "}}\n");
}
