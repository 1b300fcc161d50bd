/* fair_log.c -- the period log of the provably-fair scheme: one JSON
 * object per line (commit, deal, reveal), and the check of a whole log:
 * one commitment, one client seed, nonces 0, 1, 2, ... per period
 * (docs/provably-fair.md, "Periods").  Only flat objects of strings and
 * plain integers are read: that is all the log holds. */
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/cards.h"

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
    if (fs_hex_decode(h, out, 32) != FS_OK)
        return fail(x, "a seed or commitment must be 64 hex digits");
    return 0;
}

enum { K_SCHEME, K_EVENT, K_COMMITMENT, K_SEED, K_NONCE, K_CLIENT, K_GAME,
       K_PLAYERS, K_DECKS, K_DEAL, K_N };
static const char *const key_name[K_N] = {
    "scheme", "event", "commitment", "server_seed", "nonce",
    "client_seed", "game", "players", "decks", "deal"};

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
        if (seen & 1u << k) {
            fail(&x, "a key given twice");
            goto bad;
        }
        seen |= 1u << k;
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
    unsigned want = 1u << K_SCHEME | 1u << K_EVENT;
    if (strcmp(event, "commit") == 0) {
        r->event = FS_FAIR_COMMIT;
        want |= 1u << K_COMMITMENT;
    } else if (strcmp(event, "reveal") == 0) {
        r->event = FS_FAIR_REVEAL;
        want |= 1u << K_SEED;
    } else if (strcmp(event, "deal") == 0) {
        r->event = FS_FAIR_DEAL;
        want |= 1u << K_NONCE | 1u << K_CLIENT | 1u << K_GAME |
                1u << K_PLAYERS | 1u << K_DECKS | 1u << K_DEAL;
    } else if (seen & 1u << K_EVENT) {
        fail(&x, "event must be commit, deal or reveal");
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

typedef struct span {
    size_t line, off, len;
} span;

typedef struct walk {
    fs_fair_note *note;
    void *ctx;
    fs_fair_log_result *res;
    fs_fair_record *rec;
    fs_dealer *dealer;
    fs_deal *claim;
    char msg[512];
} walk;

static void say(walk *w, size_t line, fs_fair_finding kind, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));
static void say(walk *w, size_t line, fs_fair_finding kind, const char *fmt,
                ...)
{
    if (kind == FS_FAIR_DISHONEST)
        w->res->dishonest++;
    if (w->note == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg, sizeof w->msg, fmt, ap);
    va_end(ap);
    w->note(w->ctx, line, kind, w->msg);
}

/* Recomputes the deals of a revealed period. */
static int check_deals(walk *w, const char *text, const span *deals,
                       size_t n, const uint8_t seed[32],
                       const uint8_t commitment[32])
{
    for (size_t k = 0; k < n; k++) {
        const char *why = NULL;
        fs_fair_record *r = w->rec;
        size_t where;
        /* Parsed once already: cannot fail now. */
        fs_fair_record_parse(text + deals[k].off, deals[k].len, r, &why);
        const fs_game *g = fs_game_find(r->game);
        int rc = fs_dealer_init(w->dealer, g, r->players, r->decks,
                                FS_ALG_DURSTENFELD);
        if (rc == FS_OK)
            rc = fs_deal_parse(w->dealer, r->deal, strlen(r->deal), w->claim,
                               &why, &where);
        if (rc != FS_OK) {
            say(w, deals[k].line, FS_FAIR_MALFORMED,
                "the deal is not a deal of %s for %u players, %u decks: %s "
                "(at byte %zu)", r->game, r->players, r->decks,
                why ? why : fs_strerror(rc), where);
            return FS_EINVAL;
        }
        int v;
        long part;
        rc = fs_fair_check(seed, commitment, w->dealer, r->client_seed,
                           r->nonce, w->claim, &v, &part);
        if (rc != FS_OK)
            return rc;
        w->res->checked++;
        if (v & FS_FAIR_BAD_DEAL) {
            const fs_deal_part *p = &w->dealer->layout.part[part];
            char label[48];
            if (p->seat >= 0 && (unsigned)p->seat < w->dealer->players)
                snprintf(label, sizeof label, "hand %d", p->seat + 1);
            else
                snprintf(label, sizeof label, "%s", p->key);
            say(w, deals[k].line, FS_FAIR_DISHONEST,
                "nonce %llu: %s is not the one the seeds give",
                (unsigned long long)r->nonce, label);
        }
    }
    return FS_OK;
}

int fs_fair_log_check(const char *text, size_t len, const uint8_t *commitment,
                      const char *client_seed, fs_fair_note *note, void *ctx,
                      fs_fair_log_result *out)
{
    if (text == NULL || out == NULL)
        return FS_EINVAL;
    memset(out, 0, sizeof *out);
    walk w = {note, ctx, out, NULL, NULL, NULL, {0}};
    w.rec = malloc(sizeof *w.rec);
    w.dealer = malloc(sizeof *w.dealer);
    w.claim = malloc(sizeof *w.claim);
    span *deals = NULL;
    size_t ndeals = 0, cap = 0, commit_line = 0, other_client = 0;
    int rc = FS_OK;
    if (w.rec == NULL || w.dealer == NULL || w.claim == NULL) {
        rc = FS_ENOMEM;
        goto done;
    }
    fs_fair_record *r = w.rec;
    size_t line = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        span sp = {++line, i, end - i};
        i = nl ? end + 1 : len;
        const char *why;
        if (fs_fair_record_parse(text + sp.off, sp.len, r, &why) != FS_OK) {
            say(&w, sp.line, FS_FAIR_MALFORMED, "not a record of the log: %s",
                why);
            rc = FS_EINVAL;
            goto done;
        }
        if (strcmp(r->scheme, FS_FAIR_SCHEME) != 0) {
            say(&w, sp.line, FS_FAIR_MALFORMED,
                "scheme '%.31s' is not one this fairshuf verifies (it "
                "verifies " FS_FAIR_SCHEME ")", r->scheme);
            rc = FS_EINVAL;
            goto done;
        }
        switch (r->event) {
        case FS_FAIR_COMMIT:
            if (out->open)
                say(&w, sp.line, FS_FAIR_DISHONEST,
                    "a new commitment before the seed committed at line %zu "
                    "was revealed: its deals can never be checked",
                    commit_line);
            out->open = 1;
            out->periods++;
            commit_line = sp.line;
            memcpy(out->commitment, r->value, 32);
            out->next_nonce = 0;
            out->client_seed[0] = out->game[0] = '\0';
            ndeals = 0;
            if (commitment && sodium_memcmp(r->value, commitment, 32) == 0)
                out->matched++; /* un-counted below if the client differs */
            break;
        case FS_FAIR_DEAL:
            if (!out->open) {
                say(&w, sp.line, FS_FAIR_DISHONEST,
                    "a deal outside a period (no open commitment before it)");
                break;
            }
            if (ndeals == 0) { /* the first deal fixes the period's */
                memcpy(out->client_seed, r->client_seed,
                       sizeof out->client_seed);
                memcpy(out->game, r->game, sizeof out->game);
                out->players = r->players;
                out->decks = r->decks;
                if (commitment && client_seed &&
                    sodium_memcmp(out->commitment, commitment, 32) == 0 &&
                    strcmp(client_seed, r->client_seed) != 0) {
                    out->matched--;
                    other_client++;
                    say(&w, sp.line, FS_FAIR_DISHONEST,
                        "the period of your commitment uses another client "
                        "seed than yours");
                }
            } else if (strcmp(r->client_seed, out->client_seed) != 0) {
                say(&w, sp.line, FS_FAIR_DISHONEST,
                    "the client seed changed inside a period (committed at "
                    "line %zu)", commit_line);
            } else if (strcmp(r->game, out->game) != 0 ||
                       r->players != out->players || r->decks != out->decks) {
                say(&w, sp.line, FS_FAIR_DISHONEST,
                    "the game, players or decks changed inside a period "
                    "(committed at line %zu)", commit_line);
            }
            if (r->nonce != out->next_nonce)
                say(&w, sp.line, FS_FAIR_DISHONEST,
                    "nonce %llu where %llu is due: nonces run 0, 1, 2, ... "
                    "in order (a server that skips nonces can choose deals)",
                    (unsigned long long)r->nonce,
                    (unsigned long long)out->next_nonce);
            if (r->nonce == UINT64_MAX) {
                say(&w, sp.line, FS_FAIR_MALFORMED, "nonce out of range");
                rc = FS_EINVAL;
                goto done;
            }
            out->next_nonce = r->nonce + 1;
            out->deals++;
            if (ndeals == cap) {
                size_t nc = cap ? 2 * cap : 64;
                span *nd = realloc(deals, nc * sizeof *nd);
                if (nd == NULL) {
                    rc = FS_ENOMEM;
                    goto done;
                }
                deals = nd;
                cap = nc;
            }
            deals[ndeals++] = sp;
            break;
        case FS_FAIR_REVEAL: {
            if (!out->open) {
                say(&w, sp.line, FS_FAIR_DISHONEST,
                    "a reveal outside a period (no open commitment)");
                break;
            }
            uint8_t seed[32], c[32];
            memcpy(seed, r->value, 32);
            fs_fair_commitment(seed, c);
            out->open = 0;
            if (sodium_memcmp(c, out->commitment, 32) != 0) {
                say(&w, sp.line, FS_FAIR_DISHONEST,
                    "the revealed server seed is not the one committed at "
                    "line %zu", commit_line);
                break;
            }
            rc = check_deals(&w, text, deals, ndeals, seed, c);
            sodium_memzero(seed, sizeof seed);
            if (rc != FS_OK)
                goto done;
            ndeals = 0;
            break;
        }
        }
    }
    if (out->open && ndeals > 0) { /* an empty open period hides nothing */
        out->unrevealed++;
        say(&w, commit_line, FS_FAIR_UNREVEALED,
            "the period committed here is not revealed yet: its %llu deals "
            "are not checked", (unsigned long long)out->next_nonce);
    }
    if (commitment && out->matched == 0 && other_client == 0)
        say(&w, 0, FS_FAIR_DISHONEST,
            client_seed ? "no period has your commitment and your client seed"
                        : "no period has your commitment");
done:
    free(deals);
    free(w.rec);
    free(w.dealer);
    free(w.claim);
    return rc;
}
