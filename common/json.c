/* json.c -- the one JSON string writer (see json.h). */
#include <stdio.h>
#include <string.h>

#include "json.h"

size_t utf8_valid_len(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    if (s[0] < 0x80)
        return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        if (s[0] == 0xe0)
            lo = 0xa0; /* not overlong */
        if (s[0] == 0xed)
            hi = 0x9f; /* not a surrogate */
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        if (s[0] == 0xf0)
            lo = 0x90;
        if (s[0] == 0xf4)
            hi = 0x8f; /* <= U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

void json_string_to(void (*put)(void *ctx, const char *p, size_t n),
                    void *ctx, const char *s)
{
    put(ctx, "\"", 1);
    const char *run = s; /* bytes that need no escape, written together */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x80) {
            size_t k = utf8_valid_len(s);
            if (k > 0) {
                s += k - 1; /* valid: passes through */
                continue;
            }
        } else if (c != '"' && c != '\\' && c >= 0x20) {
            continue;
        }
        put(ctx, run, (size_t)(s - run));
        char esc[8];
        if (c >= 0x80)
            snprintf(esc, sizeof esc, "\\ufffd"); /* not UTF-8 */
        else if (c == '"' || c == '\\')
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
