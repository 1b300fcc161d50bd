/* fair.c -- provably-fair dealing, scheme "fairshuf-pf-1": commit to
 * SHA-256(server seed), derive each deal's key with HMAC-SHA256, deal with
 * a pinned Durstenfeld shuffle over ChaCha20 (docs/provably-fair.md).
 * All cryptography is libsodium's. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/cards.h"

int fs_fair_server_seed(uint8_t seed[32])
{
    return seed ? fs_os_random(seed, 32) : FS_EINVAL;
}

void fs_fair_commitment(const uint8_t seed[32], uint8_t out[32])
{
    crypto_hash_sha256(out, seed, 32);
}

int fs_fair_key(const uint8_t seed[32], const fs_dealer *d,
                const char *client_seed, uint64_t nonce, uint8_t key[32])
{
    if (seed == NULL || d == NULL || d->game == NULL || client_seed == NULL ||
        key == NULL)
        return FS_EINVAL;
    char num[3][24];
    snprintf(num[0], sizeof num[0], "%u", d->players);
    snprintf(num[1], sizeof num[1], "%u", d->decks);
    snprintf(num[2], sizeof num[2], "%llu", (unsigned long long)nonce);
    /* Fields joined by NUL bytes: none of them can contain one, so the
     * message is an unambiguous encoding of the tuple. */
    const char *field[] = {FS_FAIR_SCHEME, d->game->name, num[0], num[1],
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

int fs_fair_deal(const uint8_t seed[32], fs_dealer *d,
                 const char *client_seed, uint64_t nonce, fs_deal *out)
{
    if (out == NULL)
        return FS_EINVAL;
    uint8_t key[32];
    int rc = fs_fair_key(seed, d, client_seed, nonce, key);
    if (rc != FS_OK)
        return rc;
    char hex[65];
    fs_hex_encode(key, 32, hex);
    sodium_memzero(key, sizeof key);
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

int fs_fair_check(const uint8_t seed[32], const uint8_t commitment[32],
                  fs_dealer *d, const char *client_seed, uint64_t nonce,
                  const fs_card *claimed, size_t n, int *verdict)
{
    if (commitment == NULL || verdict == NULL || (claimed == NULL && n > 0))
        return FS_EINVAL;
    fs_deal *deal = malloc(sizeof *deal);
    if (deal == NULL)
        return FS_ENOMEM;
    int rc = fs_fair_deal(seed, d, client_seed, nonce, deal);
    if (rc == FS_OK) {
        uint8_t c[32];
        fs_fair_commitment(seed, c);
        int v = 0;
        if (sodium_memcmp(c, commitment, 32) != 0)
            v |= FS_FAIR_BAD_COMMITMENT;
        if (n != deal->ncards ||
            (n > 0 && memcmp(claimed, deal->cards, n * sizeof *claimed) != 0))
            v |= FS_FAIR_BAD_DEAL;
        *verdict = v;
    }
    free(deal);
    return rc;
}
