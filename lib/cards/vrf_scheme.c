/* vrf_scheme.c -- scheme fairshuf-vrf-1: a hand's alpha, its proof and
 * deal, the check of one hand alone, and the records of its log (the one
 * reader and the one writer).  docs/provably-fair.md, "Scheme
 * fairshuf-vrf-1"; the VRF is lib/vrf/ecvrf.c. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/vrf.h"
#include "json_flat.h"

void fs_vrf_seed_commitment(const char *seed, uint8_t out[32])
{
    crypto_hash_sha256(out, (const unsigned char *)seed, strlen(seed));
}

/* The table name and the client seeds follow pf-2's client seed rule. */
static int name_ok(const char *s)
{
    return fs_fair_client_seed_ok(FS_FAIR_SCHEME, s, NULL);
}

static int dealer_for(const fs_vrf_record *r, fs_dealer *d)
{
    const fs_game *g = fs_game_find(r->game);
    if (g == NULL)
        return FS_EINVAL;
    return fs_dealer_init(d, g, r->players, r->decks, FS_ALG_DURSTENFELD) ==
                   FS_OK
               ? FS_OK
               : FS_EINVAL;
}

int fs_vrf_alpha(const fs_vrf_record *r, uint8_t *alpha, size_t cap,
                 size_t *len)
{
    if (r == NULL || alpha == NULL || len == NULL || r->nseeds == 0 ||
        r->nseeds > FS_VRF_SEATS_MAX || !name_ok(r->table) ||
        fs_game_find(r->game) == NULL)
        return FS_EINVAL;
    char pk[65], num[3][24];
    fs_hex_encode(r->public_key, 32, pk);
    snprintf(num[0], sizeof num[0], "%u", r->players);
    snprintf(num[1], sizeof num[1], "%u", r->decks);
    snprintf(num[2], sizeof num[2], "%llu", (unsigned long long)r->hand);
    /* Fields joined by NUL, seeds by TAB: no field can hold either byte
     * (the client seed rule forbids control characters). */
    const char *field[7] = {FS_VRF_SCHEME, pk, r->table, r->game,
                            num[0], num[1], num[2]};
    size_t n = 0;
    for (size_t i = 0; i < 7 + r->nseeds; i++) {
        const char *f = i < 7 ? field[i] : r->client_seeds[i - 7];
        if (i >= 7 && !name_ok(f))
            return FS_EINVAL;
        size_t k = strlen(f);
        if (n + k + 1 > cap)
            return FS_ERANGE;
        memcpy(alpha + n, f, k);
        n += k;
        if (i + 1 < 7 + r->nseeds)
            alpha[n++] = i < 7 ? '\0' : '\t';
    }
    *len = n;
    return FS_OK;
}

/* The deal of beta: the pf-2 pipeline keyed with beta's first 32 bytes. */
static int deal_of(const uint8_t beta[64], fs_dealer *d, fs_deal *out,
                   char *tsv, size_t cap)
{
    int rc = fs_fair_deal_key(beta, d, out);
    if (rc != FS_OK)
        return rc;
    int n = fs_fair_deal_tsv(out, d, tsv, cap);
    return n < 0 ? n : FS_OK;
}

int fs_vrf_hand(const uint8_t sk[32], fs_vrf_record *r, fs_dealer *d,
                fs_deal *out)
{
    if (sk == NULL || r == NULL || d == NULL || out == NULL)
        return FS_EINVAL;
    const fs_game *g = fs_game_find(r->game);
    if (g == NULL)
        return FS_EINVAL;
    if (r->players == 0)
        r->players = g->players;
    if (r->decks == 0)
        r->decks = g->decks;
    uint8_t beta[64];
    int rc = dealer_for(r, d);
    if (rc == FS_OK)
        rc = fs_vrf_public_key(sk, r->public_key);
    if (rc == FS_OK)
        rc = fs_vrf_alpha(r, r->alpha, sizeof r->alpha, &r->alpha_len);
    if (rc == FS_OK)
        rc = fs_vrf_prove(sk, r->alpha, r->alpha_len, r->pi, beta);
    if (rc == FS_OK)
        rc = deal_of(beta, d, out, r->deal, sizeof r->deal);
    r->event = FS_VRF_HAND;
    sodium_memzero(beta, sizeof beta);
    return rc;
}

fs_fair_verdict fs_vrf_hand_check(const uint8_t *pk, const fs_vrf_record *r,
                                  fs_dealer *d, fs_deal *out,
                                  const char **rule, const char **why)
{
    const char *dr, *dw;
    uint8_t alpha[FS_VRF_ALPHA_MAX], beta[64];
    char tsv[FS_FAIR_TSV_MAX + 1];
    size_t n;
    if (rule == NULL)
        rule = &dr;
    if (why == NULL)
        why = &dw;
    *rule = *why = NULL;
    if (r == NULL || d == NULL || out == NULL ||
        (r->event != FS_VRF_HAND && r->event != FS_VRF_VOID)) {
        *rule = "malformed";
        *why = "not a hand record";
    } else if (pk && sodium_memcmp(pk, r->public_key, 32) != 0) {
        *rule = "other-key";
        *why = "the record is of another public key";
    } else if (dealer_for(r, d) != FS_OK) {
        *rule = "malformed";
        *why = "a table the game does not allow";
    } else if (fs_vrf_alpha(r, alpha, sizeof alpha, &n) != FS_OK ||
               n != r->alpha_len || memcmp(alpha, r->alpha, n) != 0) {
        *rule = "bad-alpha";
        *why = "alpha is not the encoding of the hand's fields";
    } else if (fs_vrf_verify(r->public_key, r->alpha, r->alpha_len, r->pi,
                             beta) != FS_OK) {
        *rule = "bad-proof";
        *why = "pi is not a valid proof of alpha under the public key";
    } else if (deal_of(beta, d, out, tsv, sizeof tsv) != FS_OK ||
               strcmp(tsv, r->deal) != 0) {
        *rule = "bad-deal";
        *why = "the deal is not the deal of beta";
    }
    return *rule ? FS_FAIR_DISHONEST : FS_FAIR_HONEST;
}

/* --- the records ------------------------------------------------------ */

enum { K_SCHEME, K_EVENT, K_PK, K_TABLE, K_HAND, K_SEEDS, K_COMMITS,
       K_GAME, K_PLAYERS, K_DECKS, K_ALPHA, K_PI, K_DEAL, K_N };

#define BIT(k) (1u << (k))
#define COMMON (BIT(K_SCHEME) | BIT(K_EVENT) | BIT(K_PK) | BIT(K_TABLE) | \
                BIT(K_GAME) | BIT(K_PLAYERS) | BIT(K_DECKS))
#define TABLE_KEYS (COMMON | BIT(K_COMMITS))
#define HAND_KEYS (COMMON | BIT(K_HAND) | BIT(K_SEEDS) | BIT(K_ALPHA) | \
                   BIT(K_PI) | BIT(K_DEAL))

static const char *const event_name[] = {NULL, "table", "hand", "void"};

/* Lower-case hex of exactly n bytes. */
static int lhex(const char *h, uint8_t *out, size_t n)
{
    return strlen(h) == 2 * n && strspn(h, "0123456789abcdef") == 2 * n &&
           fs_hex_decode(h, out, n) == FS_OK;
}

/* s split on sep into at most FS_VRF_SEATS_MAX non-empty pieces; each
 * piece handed to take(). */
static int split(char *s, char sep, fs_vrf_record *r,
                 int (*take)(fs_vrf_record *, const char *))
{
    r->nseeds = 0;
    for (char *p = s;;) {
        char *e = strchr(p, sep);
        if (e)
            *e = '\0';
        if (r->nseeds == FS_VRF_SEATS_MAX || take(r, p) != 0)
            return -1;
        r->nseeds++;
        if (e == NULL)
            return 0;
        p = e + 1;
    }
}

static int take_commit(fs_vrf_record *r, const char *h)
{
    return lhex(h, r->commitments[r->nseeds], 32) ? 0 : -1;
}

static int take_seed(fs_vrf_record *r, const char *s)
{
    if (!name_ok(s))
        return -1;
    memcpy(r->client_seeds[r->nseeds], s, strlen(s) + 1);
    return 0;
}

int fs_vrf_record_parse(const char *line, size_t len, fs_vrf_record *r,
                        const char **why)
{
    const char *dummy;
    if (why == NULL)
        why = &dummy;
    if (line == NULL || r == NULL) {
        *why = "no record";
        return FS_EINVAL;
    }
    memset(r, 0, sizeof *r);
    char sch[32], ev[16], pkh[80], pih[2 * FS_VRF_PROOF_BYTES + 2];
    /* the two long strings on the heap: a record is up to 32 KiB */
    char *sd = malloc(FS_VRF_LINE_MAX), *al = malloc(2 * FS_VRF_ALPHA_MAX + 2);
    if (sd == NULL || al == NULL) {
        free(sd);
        free(al);
        *why = "out of memory";
        return FS_ENOMEM;
    }
    fs__jfield f[K_N] = {
        {"scheme", sch, sizeof sch, 0, 0},
        {"event", ev, sizeof ev, 0, 0},
        {"public_key", pkh, sizeof pkh, 0, 0},
        {"table", r->table, sizeof r->table, 0, 0},
        {"hand", NULL, 0, 0, 0},
        {"client_seeds", sd, FS_VRF_LINE_MAX, 0, 0},
        {"commitments", sd, FS_VRF_LINE_MAX, 0, 0},
        {"game", r->game, sizeof r->game, 0, 0},
        {"players", NULL, 0, 0, 0},
        {"decks", NULL, 0, 0, 0},
        {"alpha", al, 2 * FS_VRF_ALPHA_MAX + 2, 0, 0},
        {"pi", pih, sizeof pih, 0, 0},
        {"deal", r->deal, sizeof r->deal, 0, 0},
    };
    int rc = FS_EINVAL;
    unsigned seen = 0, want = 0;
    *why = NULL;
    if (len > FS_VRF_LINE_MAX)
        *why = "the line is too long";
    else if (fs__json_flat(line, len, f, K_N, why) != FS_OK)
        goto out;
    if (*why)
        goto out;
    for (int k = 0; k < K_N; k++)
        seen |= f[k].seen ? BIT(k) : 0;
    for (int e = FS_VRF_TABLE; e <= FS_VRF_VOID; e++)
        if ((seen & BIT(K_EVENT)) && strcmp(ev, event_name[e]) == 0)
            r->event = (fs_vrf_event)e;
    want = r->event == FS_VRF_TABLE ? TABLE_KEYS
           : r->event               ? HAND_KEYS
                                    : 0;
    if (!(seen & BIT(K_SCHEME)) || strcmp(sch, FS_VRF_SCHEME) != 0)
        *why = "scheme must be " FS_VRF_SCHEME;
    else if (want == 0)
        *why = "event must be table, hand or void";
    else if (seen != want)
        *why = (seen & ~want) ? "a key that does not belong to this event"
                              : "a key of this event is missing";
    else if (!lhex(pkh, r->public_key, 32))
        *why = "public_key must be 64 lower-case hex digits";
    else if (!name_ok(r->table))
        *why = "the table name breaks the client seed rule";
    else if (f[K_PLAYERS].num == 0 || f[K_PLAYERS].num > 1000 ||
             f[K_DECKS].num == 0 || f[K_DECKS].num > 1000)
        *why = "players and decks must be 1 to 1000";
    else if (r->event == FS_VRF_TABLE && split(sd, ' ', r, take_commit) != 0)
        *why = "commitments must be 1 to 10 hex SHA-256s joined by spaces";
    else if (r->event != FS_VRF_TABLE && split(sd, '\t', r, take_seed) != 0)
        *why = "client_seeds must be 1 to 10 seeds joined by tabs, each "
               "following the client seed rule";
    else if (r->event != FS_VRF_TABLE &&
             (strlen(al) % 2 != 0 || strlen(al) / 2 > FS_VRF_ALPHA_MAX ||
              !lhex(al, r->alpha, strlen(al) / 2)))
        *why = "alpha must be lower-case hex";
    else if (r->event != FS_VRF_TABLE && !lhex(pih, r->pi, 80))
        *why = "pi must be 160 lower-case hex digits";
    else {
        r->players = (unsigned)f[K_PLAYERS].num;
        r->decks = (unsigned)f[K_DECKS].num;
        r->hand = f[K_HAND].num;
        r->alpha_len = strlen(al) / 2;
        rc = FS_OK;
    }
out:
    free(sd);
    free(al);
    if (rc != FS_OK && *why == NULL)
        *why = "not a record";
    return rc;
}

typedef struct wr {
    char *p;
    size_t n, cap;
    int full;
} wr;

static void put(wr *w, const char *s)
{
    size_t k = strlen(s);
    if (w->full || w->n + k >= w->cap) {
        w->full = 1;
        return;
    }
    memcpy(w->p + w->n, s, k + 1);
    w->n += k;
}

static void jstr(wr *w, const char *s)
{
    long k = w->full ? -1 : fs__json_string(s, w->p + w->n, w->cap - w->n);
    if (k < 0)
        w->full = 1;
    else
        w->n += (size_t)k;
}

static void jhex(wr *w, const uint8_t *v, size_t n)
{
    put(w, "\"");
    if (w->full || w->n + 2 * n + 2 >= w->cap) {
        w->full = 1;
        return;
    }
    fs_hex_encode(v, n, w->p + w->n);
    w->n += 2 * n;
    put(w, "\"");
}

static void jnum(wr *w, uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    put(w, b);
}

int fs_vrf_record_write(const fs_vrf_record *r, char *line, size_t cap)
{
    if (r == NULL || line == NULL || cap == 0 || r->event < FS_VRF_TABLE ||
        r->event > FS_VRF_VOID || r->nseeds == 0 ||
        r->nseeds > FS_VRF_SEATS_MAX)
        return FS_EINVAL;
    wr w = {line, 0, cap, 0};
    line[0] = '\0';
    put(&w, "{\"scheme\":\"" FS_VRF_SCHEME "\",\"event\":\"");
    put(&w, event_name[r->event]);
    put(&w, "\",\"public_key\":");
    jhex(&w, r->public_key, 32);
    put(&w, ",\"table\":");
    jstr(&w, r->table);
    if (r->event == FS_VRF_TABLE) {
        put(&w, ",\"commitments\":\"");
        for (size_t i = 0; i < r->nseeds; i++) {
            char h[65];
            fs_hex_encode(r->commitments[i], 32, h);
            if (i)
                put(&w, " ");
            put(&w, h);
        }
        put(&w, "\"");
    } else {
        char seeds[FS_VRF_SEATS_MAX * (FS_VRF_NAME_MAX + 1)];
        size_t n = 0;
        for (size_t i = 0; i < r->nseeds; i++) {
            size_t k = strnlen(r->client_seeds[i], FS_VRF_NAME_MAX);
            if (i)
                seeds[n++] = '\t';
            memcpy(seeds + n, r->client_seeds[i], k);
            n += k;
        }
        seeds[n] = '\0';
        put(&w, ",\"hand\":");
        jnum(&w, r->hand);
        put(&w, ",\"client_seeds\":");
        jstr(&w, seeds);
    }
    put(&w, ",\"game\":");
    jstr(&w, r->game);
    put(&w, ",\"players\":");
    jnum(&w, r->players);
    put(&w, ",\"decks\":");
    jnum(&w, r->decks);
    if (r->event != FS_VRF_TABLE) {
        put(&w, ",\"alpha\":");
        jhex(&w, r->alpha, r->alpha_len);
        put(&w, ",\"pi\":");
        jhex(&w, r->pi, FS_VRF_PROOF_BYTES);
        put(&w, ",\"deal\":");
        jstr(&w, r->deal);
    }
    put(&w, "}");
    if (w.full || w.n > FS_VRF_LINE_MAX)
        return FS_ERANGE;
    return (int)w.n;
}
