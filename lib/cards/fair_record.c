/* fair_record.c -- the records of the provably-fair log: the one reader
 * (fs_fair_record_parse: flat JSON objects of strings and plain integers,
 * all the log holds), the one writer (fs_fair_record_write) and the client
 * seed's encoding rule (docs/provably-fair.md, "Records"). */
#include <stdio.h>

#include "../internal.h"
#include "fairshuf/cards.h"
#include "json_flat.h"

typedef struct lex {
    const char *s;
    size_t i, len;
    const char *why;
} lex;

static void ws(lex *x)
{
    while (x->i < x->len && (x->s[x->i] == ' ' || x->s[x->i] == '\t' ||
                             x->s[x->i] == '\r'))
        x->i++;
}

static int fail(lex *x, const char *why)
{
    if (x->why == NULL)
        x->why = why;
    return -1;
}

/* The next byte must be c: skips it, or fails with why. */
static int expect(lex *x, char c, const char *why)
{
    if (x->i >= x->len || x->s[x->i] != c)
        return fail(x, why);
    x->i++;
    return 0;
}

static int u4(lex *x, unsigned *v)
{
    char h[5] = {0};
    uint8_t b[2];
    if (x->len - x->i >= 4)
        memcpy(h, x->s + x->i, 4);
    if (fs_hex_decode(h, b, 2) != FS_OK)
        return fail(x, "a \\u escape needs four hex digits");
    x->i += 4;
    *v = (unsigned)b[0] << 8 | b[1];
    return 0;
}

/* A JSON string into out[0..cap) (NUL-terminated); returns its length. */
static long string(lex *x, char *out, size_t cap)
{
    size_t n = 0;
    if (x->i >= x->len || x->s[x->i] != '"')
        return fail(x, "expected a string");
    x->i++;
    for (;;) {
        if (x->i >= x->len)
            return fail(x, "unterminated string");
        unsigned char c = (unsigned char)x->s[x->i++];
        unsigned cp;
        char buf[4];
        size_t k = 0;
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(x, "a control character inside a string");
        if (c != '\\') {
            buf[k++] = (char)c;
        } else {
            if (x->i >= x->len)
                return fail(x, "unterminated string");
            char e = x->s[x->i++];
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *at = e ? strchr(from, e) : NULL;
            if (at) {
                buf[k++] = to[at - from];
            } else if (e == 'u') {
                if (u4(x, &cp) != 0)
                    return -1;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    unsigned lo;
                    if (x->len - x->i < 2 || x->s[x->i] != '\\' ||
                        x->s[x->i + 1] != 'u')
                        return fail(x, "a lone surrogate in a \\u escape");
                    x->i += 2;
                    if (u4(x, &lo) != 0)
                        return -1;
                    if (lo < 0xdc00 || lo >= 0xe000)
                        return fail(x, "a lone surrogate in a \\u escape");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp < 0xe000)
                    return fail(x, "a lone surrogate in a \\u escape");
                if (cp == 0)
                    return fail(x, "a NUL byte inside a string");
                if (cp < 0x80)
                    buf[k++] = (char)cp;
                else if (cp < 0x800) {
                    buf[k++] = (char)(0xc0 | cp >> 6);
                    buf[k++] = (char)(0x80 | (cp & 0x3f));
                } else if (cp < 0x10000) {
                    buf[k++] = (char)(0xe0 | cp >> 12);
                    buf[k++] = (char)(0x80 | (cp >> 6 & 0x3f));
                    buf[k++] = (char)(0x80 | (cp & 0x3f));
                } else {
                    buf[k++] = (char)(0xf0 | cp >> 18);
                    buf[k++] = (char)(0x80 | (cp >> 12 & 0x3f));
                    buf[k++] = (char)(0x80 | (cp >> 6 & 0x3f));
                    buf[k++] = (char)(0x80 | (cp & 0x3f));
                }
            } else
                return fail(x, "an unknown escape inside a string");
        }
        if (n + k >= cap)
            return fail(x, "a string is too long");
        memcpy(out + n, buf, k);
        n += k;
    }
    out[n] = '\0';
    return (long)n;
}

static int integer(lex *x, uint64_t *v)
{
    size_t start = x->i;
    *v = 0;
    while (x->i < x->len && x->s[x->i] >= '0' && x->s[x->i] <= '9') {
        unsigned d = (unsigned)(x->s[x->i] - '0');
        if (*v > (UINT64_MAX - d) / 10)
            return fail(x, "a number is too large");
        *v = *v * 10 + d;
        x->i++;
    }
    if (x->i == start)
        return fail(x, "expected a non-negative integer");
    if (x->s[start] == '0' && x->i - start > 1)
        return fail(x, "a number with a leading zero");
    return 0;
}

static int hex32(lex *x, uint8_t out[32])
{
    char h[80];
    if (string(x, h, sizeof h) < 0)
        return -1;
    if (strlen(h) != 64 || strspn(h, "0123456789abcdef") != 64 ||
        fs_hex_decode(h, out, 32) != FS_OK)
        return fail(x, "a seed or commitment must be 64 lower-case hex digits");
    return 0;
}

/* 1 if s[0..n) is valid UTF-8: no overlong forms, no surrogates, at most
 * U+10FFFF. */
static int utf8_ok(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i], cp, need;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            cp = c & 0x07;
        } else
            return 0;
        if (i + need >= n)
            return 0;
        for (unsigned k = 1; k <= need; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (p[i + k] & 0x3f);
        }
        if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
            return 0;
        i += need + 1;
    }
    return 1;
}

enum { K_SCHEME, K_EVENT, K_COMMITMENT, K_SEED, K_NONCE, K_CLIENT, K_GAME,
       K_PLAYERS, K_DECKS, K_DEAL, K_N };
static const char *const key_name[K_N] = {
    "scheme", "event", "commitment", "server_seed", "nonce",
    "client_seed", "game", "players", "decks", "deal"};

#define BIT(k) (1u << (k))
#define TABLE (BIT(K_GAME) | BIT(K_PLAYERS) | BIT(K_DECKS))

static int is_v1(const char *scheme)
{
    return strcmp(scheme, FS_FAIR_SCHEME_V1) == 0;
}

/* The keys of an event under a scheme, 0 for an unknown event. */
static unsigned keys_of(fs_fair_event e, const char *scheme)
{
    unsigned base = BIT(K_SCHEME) | BIT(K_EVENT);
    switch (e) {
    case FS_FAIR_COMMIT:
        return base | BIT(K_COMMITMENT) | (is_v1(scheme) ? 0 : TABLE);
    case FS_FAIR_CLIENT_SEED:
        return is_v1(scheme) ? 0 : base | BIT(K_CLIENT);
    case FS_FAIR_DEAL:
        return base | BIT(K_NONCE) | BIT(K_CLIENT) | TABLE | BIT(K_DEAL);
    case FS_FAIR_REVEAL:
        return base | BIT(K_SEED);
    }
    return 0;
}

static const char *const event_name[] = {NULL, "commit", "deal", "reveal",
                                         "client_seed"};

int fs_fair_record_parse(const char *line, size_t len, fs_fair_record *r,
                         const char **why)
{
    if (line == NULL || r == NULL)
        return FS_EINVAL;
    lex x = {line, 0, len, NULL};
    unsigned seen = 0;
    uint64_t v;
    char event[16] = "";
    memset(r, 0, sizeof *r);
    if (!utf8_ok(line, len)) {
        fail(&x, "the line is not valid UTF-8");
        goto bad;
    }
    ws(&x);
    if (expect(&x, '{', "expected a JSON object") != 0)
        goto bad;
    ws(&x);
    if (x.i < len && line[x.i] == '}') {
        fail(&x, "an empty object");
        goto bad;
    }
    for (;;) {
        char key[16];
        ws(&x);
        int quoted = x.i < len && line[x.i] == '"';
        if (string(&x, key, sizeof key) < 0) {
            x.why = quoted ? "an unknown key" : "expected a key (a string)";
            goto bad;
        }
        int k = 0;
        while (k < K_N && strcmp(key, key_name[k]) != 0)
            k++;
        if (k == K_N) {
            fail(&x, "an unknown key");
            goto bad;
        }
        if (seen & BIT(k)) {
            fail(&x, "a key given twice");
            goto bad;
        }
        seen |= BIT(k);
        ws(&x);
        if (expect(&x, ':', "expected ':'") != 0)
            goto bad;
        ws(&x);
        int rc = 0;
        switch (k) {
        case K_SCHEME: rc = string(&x, r->scheme, sizeof r->scheme) < 0; break;
        case K_EVENT: rc = string(&x, event, sizeof event) < 0; break;
        case K_COMMITMENT:
        case K_SEED: rc = hex32(&x, r->value); break;
        case K_NONCE: rc = integer(&x, &r->nonce); break;
        case K_CLIENT:
            rc = string(&x, r->client_seed, sizeof r->client_seed) < 0;
            break;
        case K_GAME: rc = string(&x, r->game, sizeof r->game) < 0; break;
        case K_PLAYERS:
        case K_DECKS:
            rc = integer(&x, &v);
            if (rc == 0 && (v == 0 || v > 1000))
                rc = fail(&x, "players and decks must be 1 to 1000");
            if (k == K_PLAYERS)
                r->players = (unsigned)v;
            else
                r->decks = (unsigned)v;
            break;
        case K_DEAL: rc = string(&x, r->deal, sizeof r->deal) < 0; break;
        }
        if (rc)
            goto bad;
        ws(&x);
        if (x.i < len && line[x.i] == ',') {
            x.i++;
            continue;
        }
        if (x.i < len && line[x.i] == '}') {
            x.i++;
            break;
        }
        fail(&x, "expected ',' or '}'");
        goto bad;
    }
    ws(&x);
    if (x.i != len) {
        fail(&x, "text after the object");
        goto bad;
    }
    r->event = 0;
    for (int e = FS_FAIR_COMMIT; e <= FS_FAIR_CLIENT_SEED; e++)
        if (strcmp(event, event_name[e]) == 0)
            r->event = (fs_fair_event)e;
    unsigned want = keys_of(r->event, r->scheme);
    if (want == 0) {
        fail(&x, !(seen & BIT(K_EVENT)) ? "a key of this event is missing"
                 : r->event ? "event client_seed is not one of scheme "
                              FS_FAIR_SCHEME_V1
                            : "event must be commit, client_seed, deal or "
                              "reveal");
        goto bad;
    }
    if (seen != want) {
        fail(&x, (seen & ~want) ? "a key that does not belong to this event"
                                : "a key of this event is missing");
        goto bad;
    }
    if (why)
        *why = NULL;
    return FS_OK;
bad:
    if (why)
        *why = x.why;
    return FS_EINVAL;
}

/* ---------------------------------------------------------------------- */

int fs_fair_client_seed_ok(const char *scheme, const char *s,
                           const char **why)
{
    const char *dummy;
    if (why == NULL)
        why = &dummy;
    *why = NULL;
    if (scheme == NULL || s == NULL) {
        *why = "no client seed";
        return 0;
    }
    size_t n = strlen(s);
    if (n == 0 && !is_v1(scheme)) {
        *why = "the client seed is empty";
        return 0;
    }
    if (n > FS_FAIR_CLIENT_SEED_MAX) {
        *why = "the client seed is longer than 256 bytes";
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
            *why = "the client seed holds a control character";
            return 0;
        }
    if (!utf8_ok(s, n)) {
        *why = "the client seed is not valid UTF-8";
        return 0;
    }
    return 1;
}

/* --- the writer ------------------------------------------------------- */

typedef struct wbuf {
    char *p;
    size_t n, cap;
    int full;
} wbuf;

static void put(wbuf *w, const char *s, size_t n)
{
    if (w->full || w->n + n >= w->cap) {
        w->full = 1;
        return;
    }
    memcpy(w->p + w->n, s, n);
    w->n += n;
}

static void puts_(wbuf *w, const char *s)
{
    put(w, s, strlen(s));
}

/* A JSON string: \" \\ \t \n \r escaped, other C0 bytes and DEL as
 * \u00XX, every other byte as it is. */
static void jstr(wbuf *w, const char *s)
{
    put(w, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char e[8];
        switch (*p) {
        case '"': put(w, "\\\"", 2); break;
        case '\\': put(w, "\\\\", 2); break;
        case '\t': put(w, "\\t", 2); break;
        case '\n': put(w, "\\n", 2); break;
        case '\r': put(w, "\\r", 2); break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                snprintf(e, sizeof e, "\\u%04x", *p);
                put(w, e, 6);
            } else
                put(w, (const char *)p, 1);
        }
    }
    put(w, "\"", 1);
}

static void jnum(wbuf *w, uint64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    put(w, b, (size_t)n);
}

static void jhex(wbuf *w, const uint8_t v[32])
{
    char h[65];
    fs_hex_encode(v, 32, h);
    put(w, "\"", 1);
    put(w, h, 64);
    put(w, "\"", 1);
}

static void table(wbuf *w, const fs_fair_record *r)
{
    puts_(w, ",\"game\":");
    jstr(w, r->game);
    puts_(w, ",\"players\":");
    jnum(w, r->players);
    puts_(w, ",\"decks\":");
    jnum(w, r->decks);
}

int fs_fair_record_write(const fs_fair_record *r, char *line, size_t cap)
{
    if (r == NULL || line == NULL || cap == 0)
        return FS_EINVAL;
    if (strcmp(r->scheme, FS_FAIR_SCHEME) != 0 && !is_v1(r->scheme))
        return FS_EINVAL;
    if (keys_of(r->event, r->scheme) == 0)
        return FS_EINVAL;
    wbuf w = {line, 0, cap, 0};
    puts_(&w, "{\"scheme\":");
    jstr(&w, r->scheme);
    puts_(&w, ",\"event\":");
    jstr(&w, event_name[r->event]);
    switch (r->event) {
    case FS_FAIR_COMMIT:
        puts_(&w, ",\"commitment\":");
        jhex(&w, r->value);
        if (!is_v1(r->scheme))
            table(&w, r);
        break;
    case FS_FAIR_CLIENT_SEED:
        puts_(&w, ",\"client_seed\":");
        jstr(&w, r->client_seed);
        break;
    case FS_FAIR_DEAL:
        puts_(&w, ",\"nonce\":");
        jnum(&w, r->nonce);
        puts_(&w, ",\"client_seed\":");
        jstr(&w, r->client_seed);
        table(&w, r);
        puts_(&w, ",\"deal\":");
        jstr(&w, r->deal);
        break;
    case FS_FAIR_REVEAL:
        puts_(&w, ",\"server_seed\":");
        jhex(&w, r->value);
        break;
    }
    put(&w, "}", 1);
    if (w.full || w.n > FS_FAIR_LINE_MAX)
        return FS_ERANGE;
    line[w.n] = '\0';
    return (int)w.n;
}

/* --- shared with the other schemes' records (json_flat.h) ---------------- */

int fs__json_flat(const char *line, size_t len, fs__jfield *f, size_t nf,
                  const char **why)
{
    lex x = {line, 0, len, NULL};
    for (size_t i = 0; i < nf; i++)
        f[i].seen = 0;
    if (line == NULL || !utf8_ok(line, len))
        fail(&x, "the line is not valid UTF-8");
    else if (ws(&x), expect(&x, '{', "expected a JSON object") == 0) {
        for (;;) {
            char key[32];
            ws(&x);
            if (string(&x, key, sizeof key) < 0) {
                x.why = "expected a key (a known string)";
                break;
            }
            size_t k = 0;
            while (k < nf && strcmp(key, f[k].name) != 0)
                k++;
            if (k == nf) {
                fail(&x, "an unknown key");
                break;
            }
            if (f[k].seen) {
                fail(&x, "a key given twice");
                break;
            }
            f[k].seen = 1;
            ws(&x);
            if (expect(&x, ':', "expected ':'") != 0)
                break;
            ws(&x);
            if (f[k].str ? string(&x, f[k].str, f[k].cap) < 0
                         : integer(&x, &f[k].num) != 0)
                break;
            ws(&x);
            if (x.i < len && line[x.i] == ',') {
                x.i++;
                continue;
            }
            if (expect(&x, '}', "expected ',' or '}'") != 0)
                break;
            ws(&x);
            if (x.i != len)
                fail(&x, "text after the object");
            break;
        }
    }
    if (why)
        *why = x.why;
    return x.why ? FS_EINVAL : FS_OK;
}

long fs__json_string(const char *s, char *out, size_t cap)
{
    wbuf w = {out, 0, cap, 0};
    jstr(&w, s);
    if (w.full)
        return -1;
    out[w.n] = '\0';
    return (long)w.n;
}
