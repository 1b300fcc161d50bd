/* json.c -- the one JSON string writer (see json.h). */
#include <stdio.h>
#include <string.h>

#include "json.h"

void json_string_to(void (*put)(void *ctx, const char *p, size_t n),
                    void *ctx, const char *s)
{
    put(ctx, "\"", 1);
    const char *run = s; /* bytes that need no escape, written together */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        put(ctx, run, (size_t)(s - run));
        char esc[8];
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof esc, "\\%c", c);
        else
            snprintf(esc, sizeof esc, "\\u%04x", c);
        put(ctx, esc, strlen(esc));
        run = s + 1;
    }
    put(ctx, run, (size_t)(s - run));
    put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t n)
{
    fwrite(p, 1, n, (FILE *)ctx);
}

void json_string(FILE *f, const char *s)
{
    json_string_to(put_file, f, s);
}
