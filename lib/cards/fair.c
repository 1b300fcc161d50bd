/* fair.c -- provably-fair dealing, schemes "fairshuf-pf-1" and
 * "fairshuf-pf-2" (the same maths, the name in the key): commit to
 * SHA-256(server seed), derive each deal's key with HMAC-SHA256, deal with
 * a pinned Durstenfeld shuffle over ChaCha20 (docs/provably-fair.md).
 * All cryptography is libsodium's. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/cards.h"
#include "fairshuf/vrf.h"

int fs_fair_server_seed(uint8_t seed[32])
{
    return seed ? fs_os_random(seed, 32) : FS_EINVAL;
}

void fs_fair_commitment(const uint8_t seed[32], uint8_t out[32])
{
    crypto_hash_sha256(out, seed, 32);
}

static int known_scheme(const char *scheme)
{
    return scheme && (strcmp(scheme, FS_FAIR_SCHEME) == 0 ||
                      strcmp(scheme, FS_FAIR_SCHEME_V1) == 0);
}

int fs_fair_key_scheme(const char *scheme, const uint8_t seed[32],
                       const fs_dealer *d, const char *client_seed,
                       uint64_t nonce, uint8_t key[32])
{
    if (!known_scheme(scheme) || seed == NULL || d == NULL ||
        d->game == NULL || client_seed == NULL || key == NULL)
        return FS_EINVAL;
    char num[3][24];
    snprintf(num[0], sizeof num[0], "%u", d->players);
    snprintf(num[1], sizeof num[1], "%u", d->decks);
    snprintf(num[2], sizeof num[2], "%llu", (unsigned long long)nonce);
    /* Fields joined by NUL bytes: none of them can contain one, so the
     * message is an unambiguous encoding of the tuple. */
    const char *field[] = {scheme, d->game->name, num[0], num[1],
                           client_seed, num[2]};
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, seed, 32);
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++) {
        if (i)
            crypto_auth_hmacsha256_update(&st, (const unsigned char *)"", 1);
        crypto_auth_hmacsha256_update(&st, (const unsigned char *)field[i],
                                      strlen(field[i]));
    }
    crypto_auth_hmacsha256_final(&st, key);
    sodium_memzero(&st, sizeof st);
    return FS_OK;
}

int fs_fair_key(const uint8_t seed[32], const fs_dealer *d,
                const char *client_seed, uint64_t nonce, uint8_t key[32])
{
    return fs_fair_key_scheme(FS_FAIR_SCHEME_V1, seed, d, client_seed, nonce,
                              key);
}

int fs_fair_deal_scheme(const char *scheme, const uint8_t seed[32],
                        fs_dealer *d, const char *client_seed,
                        uint64_t nonce, fs_deal *out)
{
    if (out == NULL)
        return FS_EINVAL;
    uint8_t key[32];
    int rc = fs_fair_key_scheme(scheme, seed, d, client_seed, nonce, key);
    if (rc == FS_OK)
        rc = fs_fair_deal_key(key, d, out);
    sodium_memzero(key, sizeof key);
    return rc;
}

/* The deal of a 32-byte key: the pinned pipeline every scheme shares
 * (docs/provably-fair.md, "Roles and steps", step 3 from the keystream on). */
int fs_fair_deal_key(const uint8_t key[32], fs_dealer *d, fs_deal *out)
{
    if (key == NULL || d == NULL || out == NULL)
        return FS_EINVAL;
    int rc;
    char hex[65];
    fs_hex_encode(key, 32, hex);
    fs_rng *rng;
    rc = fs_rng_new(&rng, "chacha20", hex);
    sodium_memzero(hex, sizeof hex);
    if (rc != FS_OK)
        return rc;
    /* Pinned by the scheme: Durstenfeld from the back with fs_below. */
    fs_card *a = d->work;
    memcpy(a, d->fresh, d->n * sizeof *a);
    for (size_t i = d->n - 1; i > 0; i--) {
        size_t j = (size_t)fs_below(rng, (uint64_t)i + 1);
        fs_card t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    rc = fs_rng_error(rng);
    fs_rng_free(rng);
    if (rc != FS_OK)
        return rc;
    fs_dealer_layout(d, a, out);
    return FS_OK;
}

int fs_fair_deal(const uint8_t seed[32], fs_dealer *d,
                 const char *client_seed, uint64_t nonce, fs_deal *out)
{
    return fs_fair_deal_scheme(FS_FAIR_SCHEME_V1, seed, d, client_seed, nonce,
                               out);
}

/* Strict TSV of `fair deal --format=tsv`: parts separated by one tab, cards
 * by one space, an optional final newline.  Anything else is malformed, so
 * a claim states which cards went to which part, not only their order. */
int fs_deal_parse(const fs_dealer *d, const char *s, size_t len,
                  fs_deal *out, const char **why, size_t *where)
{
    const char *dummy_why;
    size_t dummy_where;
    if (why == NULL)
        why = &dummy_why;
    if (where == NULL)
        where = &dummy_where;
    *why = NULL;
    *where = 0;
    if (d == NULL || d->game == NULL || s == NULL || out == NULL)
        return FS_EINVAL;
    if (len > 0 && s[len - 1] == '\n')
        len--;
    if (len > 0 && s[len - 1] == '\r')
        len--;
    int tiles = d->game->deck >= FS_DECK_TILES_136;
    out->nparts = out->ncards = out->cut = 0;
    size_t i = 0;
    for (;;) {
        if (out->nparts == d->layout.nparts) {
            *why = "more tab-separated parts than the game's layout has";
            *where = i;
            return FS_EINVAL;
        }
        fs_deal_part *p = &out->part[out->nparts];
        *p = d->layout.part[out->nparts];
        p->offset = out->ncards;
        p->count = 0;
        for (;;) { /* one card code, then a space, a tab or the end */
            size_t k = i;
            while (k < len && s[k] != ' ' && s[k] != '\t')
                k++;
            fs_card c;
            if (fs_card_parse(s + i, k - i, tiles, &c) != FS_OK) {
                *why = k == i ? "expected a card code (cards are separated "
                                "by one space, parts by one tab)"
                              : "not a card code of this game";
                *where = i;
                return FS_EINVAL;
            }
            if (out->ncards == FS_DEAL_MAX_CARDS) {
                *why = "too many cards";
                *where = i;
                return FS_ERANGE;
            }
            out->cards[out->ncards++] = c;
            p->count++;
            i = k;
            if (i == len || s[i] == '\t')
                break;
            i++; /* the space */
        }
        out->nparts++;
        if (i == len)
            break;
        i++; /* the tab */
    }
    if (out->nparts < d->layout.nparts) {
        *why = "fewer tab-separated parts than the game's layout has";
        *where = len;
        return FS_EINVAL;
    }
    return FS_OK;
}

long fs_deal_diff(const fs_deal *a, const fs_deal *b)
{
    size_t n = a->nparts < b->nparts ? a->nparts : b->nparts;
    for (size_t p = 0; p < n; p++) {
        const fs_deal_part *x = &a->part[p], *y = &b->part[p];
        if (x->count != y->count ||
            memcmp(a->cards + x->offset, b->cards + y->offset,
                   x->count * sizeof(fs_card)) != 0)
            return (long)p;
    }
    return a->nparts == b->nparts ? -1 : (long)n;
}

int fs_fair_check_scheme(const char *scheme, const uint8_t seed[32],
                         const uint8_t commitment[32], fs_dealer *d,
                         const char *client_seed, uint64_t nonce,
                         const fs_deal *claimed, int *verdict, long *part)
{
    if (commitment == NULL || verdict == NULL || claimed == NULL)
        return FS_EINVAL;
    fs_deal *deal = malloc(sizeof *deal);
    if (deal == NULL)
        return FS_ENOMEM;
    int rc = fs_fair_deal_scheme(scheme, seed, d, client_seed, nonce, deal);
    if (rc == FS_OK) {
        uint8_t c[32];
        fs_fair_commitment(seed, c);
        int v = 0;
        if (sodium_memcmp(c, commitment, 32) != 0)
            v |= FS_FAIR_BAD_COMMITMENT;
        long diff = fs_deal_diff(claimed, deal);
        if (diff >= 0)
            v |= FS_FAIR_BAD_DEAL;
        if (part)
            *part = diff;
        *verdict = v;
    }
    free(deal);
    return rc;
}

int fs_fair_check(const uint8_t seed[32], const uint8_t commitment[32],
                  fs_dealer *d, const char *client_seed, uint64_t nonce,
                  const fs_deal *claimed, int *verdict, long *part)
{
    return fs_fair_check_scheme(FS_FAIR_SCHEME_V1, seed, commitment, d,
                                client_seed, nonce, claimed, verdict, part);
}

/* The two-character code of every card value (fs_card_code's, as a table
 * so that a deal becomes text at memory speed); "" for the unused values. */
static const char code[FS_TILE_END][3] = {
    "As", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs",
    "Ks", "Ah", "2h", "3h", "4h", "5h", "6h", "7h", "8h", "9h", "Th", "Jh",
    "Qh", "Kh", "Ad", "2d", "3d", "4d", "5d", "6d", "7d", "8d", "9d", "Td",
    "Jd", "Qd", "Kd", "Ac", "2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c",
    "Tc", "Jc", "Qc", "Kc", "BJ", "RJ", "", "", "", "", "", "", "", "", "",
    "", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p",
    "3p", "4p", "5p", "6p", "7p", "8p", "9p", "1s", "2s", "3s", "4s", "5s",
    "6s", "7s", "8s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z", "1f",
    "2f", "3f", "4f", "5f", "6f", "7f", "8f"};

int fs_fair_deal_tsv(const fs_deal *d, const fs_dealer *dl, char *buf,
                     size_t cap)
{
    (void)dl; /* the deal carries its parts */
    if (d == NULL || buf == NULL || cap == 0)
        return FS_EINVAL;
    size_t n = 0;
    for (size_t p = 0; p < d->nparts; p++) {
        const fs_deal_part *part = &d->part[p];
        const fs_card *c = d->cards + part->offset;
        if (n + 3 * part->count + 1 >= cap)
            return FS_ERANGE;
        if (p)
            buf[n++] = '\t';
        for (size_t i = 0; i < part->count; i++) {
            if (c[i] >= FS_TILE_END || code[c[i]][0] == '\0')
                return FS_EINVAL;
            if (i)
                buf[n++] = ' ';
            buf[n++] = code[c[i]][0];
            buf[n++] = code[c[i]][1];
        }
    }
    buf[n] = '\0';
    return (int)n;
}
