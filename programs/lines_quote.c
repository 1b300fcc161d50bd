/* lines_quote.c -- gnulib's quotearg styles used by shuf's messages
 * (shell_escape for quotef, locale for quoteaf), C locale only: bytes
 * outside printable ASCII are escaped. */
#include <stdlib.h>
#include <string.h>

#include "lines_quote.h"

static int printable(unsigned char c) { return c >= 0x20 && c < 0x7f; }

/* Shell metacharacters: quoted anywhere, at the start only, or alone. */
static int needs_quotes(const unsigned char *s)
{
    if (*s == '\0')
        return 1;
    if ((*s == '#' || *s == '~') ||
        ((*s == '{' || *s == '}') && s[1] == '\0'))
        return 1;
    for (; *s; s++)
        if (!printable(*s) || strchr(" !\"$&'()*:;<=>?[\\^`|", *s))
            return 1;
    return 0;
}

static char *put_escape(char *o, unsigned char c)
{
    static const char named[] = "\aa\bb\ff\nn\rr\tt\vv";
    *o++ = '\\';
    const char *p = c ? memchr(named, c, sizeof named - 1) : NULL;
    if (p && (p - named) % 2 == 0) {
        *o++ = p[1];
    } else {
        *o++ = (char)('0' + (c >> 6));
        *o++ = (char)('0' + ((c >> 3) & 7));
        *o++ = (char)('0' + (c & 7));
    }
    return o;
}

char *lines_quotef(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str);
    char *out = malloc(10 * n + 8), *o = out;
    if (out == NULL)
        return (char *)str;
    if (!needs_quotes(s)) {
        memcpy(out, str, n + 1);
        return out;
    }
    /* With a single quote and nothing a double-quoted string would
     * change, GNU uses double quotes. */
    int dq = strchr(str, '\'') != NULL;
    for (const unsigned char *p = s; *p && dq; p++)
        if (!printable(*p) || strchr("$`\\\"!", *p))
            dq = 0;
    if (dq) {
        *o++ = '"';
        memcpy(o, str, n);
        o += n;
        *o++ = '"';
        *o = '\0';
        return out;
    }
    int esc = 0; /* inside a $'...' segment */
    *o++ = '\'';
    for (const unsigned char *p = s; *p; p++) {
        if (!printable(*p)) {
            if (!esc) {
                memcpy(o, "'$'", 3);
                o += 3;
                esc = 1;
            }
            o = put_escape(o, *p);
            continue;
        }
        if (esc) {
            memcpy(o, "''", 2);
            o += 2;
            esc = 0;
        }
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = (char)*p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

char *lines_quoteaf(const char *str)
{
    size_t n = strlen(str);
    char *out = malloc(4 * n + 3), *o = out;
    if (out == NULL)
        return (char *)str;
    *o++ = '\'';
    for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
        if (*p == '\'' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char)*p;
        } else if (printable(*p)) {
            *o++ = (char)*p;
        } else {
            o = put_escape(o, *p);
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}
