/* fair_period.c -- the period state machine of the provably-fair scheme
 * (docs/provably-fair.md, "The server side"): each step computes the
 * record the caller stores durably; only fs_fair_period_applied advances
 * the period, so a record that could not be stored changes nothing. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/cards.h"

static void base(fs_fair_record *r, const fs_fair_period *p,
                 fs_fair_event e)
{
    memset(r, 0, sizeof *r);
    r->event = e;
    memcpy(r->scheme, p->scheme, sizeof r->scheme);
    r->scheme[sizeof r->scheme - 1] = '\0';
}

/* Writes r, wiping the heap copy (it may hold the seed). */
static int emit(fs_fair_record *r, char *line, size_t cap)
{
    int n = fs_fair_record_write(r, line, cap);
    sodium_memzero(r, sizeof *r);
    free(r);
    return n < 0 ? n : FS_OK;
}

int fs_fair_period_begin(fs_fair_period *next, const char *game,
                         unsigned players, unsigned decks, char *line,
                         size_t cap)
{
    if (next == NULL || game == NULL || line == NULL)
        return FS_EINVAL;
    const fs_game *g = fs_game_find(game);
    if (g == NULL)
        return FS_ENOTFOUND;
    fs_dealer *d = malloc(sizeof *d);
    fs_fair_record *r = malloc(sizeof *r);
    fs_fair_period *p = malloc(sizeof *p);
    int rc = d && r && p ? FS_OK : FS_ENOMEM;
    if (rc == FS_OK)
        rc = fs_dealer_init(d, g, players, decks, FS_ALG_DURSTENFELD);
    if (rc == FS_OK) {
        memset(p, 0, sizeof *p);
        snprintf(p->scheme, sizeof p->scheme, "%s", FS_FAIR_SCHEME);
        snprintf(p->game, sizeof p->game, "%s", g->name);
        p->players = d->players;
        p->decks = d->decks;
        rc = fs_fair_server_seed(p->server_seed);
    }
    if (rc == FS_OK) {
        fs_fair_commitment(p->server_seed, p->commitment);
        base(r, p, FS_FAIR_COMMIT);
        memcpy(r->value, p->commitment, 32);
        memcpy(r->game, p->game, sizeof r->game);
        r->players = p->players;
        r->decks = p->decks;
        rc = emit(r, line, cap);
        r = NULL;
    }
    if (rc == FS_OK)
        *next = *p;
    if (p)
        sodium_memzero(p, sizeof *p);
    free(p);
    free(r);
    free(d);
    return rc;
}

int fs_fair_period_client_seed(const fs_fair_period *p,
                               const char *client_seed, char *line,
                               size_t cap, const char **why)
{
    const char *dummy;
    if (why == NULL)
        why = &dummy;
    *why = NULL;
    if (p == NULL || client_seed == NULL || line == NULL)
        return FS_EINVAL;
    if (strcmp(p->scheme, FS_FAIR_SCHEME) != 0) {
        *why = "a " FS_FAIR_SCHEME_V1 " period has no client_seed record";
        return FS_EINVAL;
    }
    if (p->revealed) {
        *why = "the period is revealed: the next period needs a new "
               "commitment first";
        return FS_EINVAL;
    }
    if (p->has_client_seed) {
        *why = "the period already has its client seed (one per period)";
        return FS_EINVAL;
    }
    if (!fs_fair_client_seed_ok(p->scheme, client_seed, why))
        return FS_EINVAL;
    fs_fair_record *r = malloc(sizeof *r);
    if (r == NULL)
        return FS_ENOMEM;
    base(r, p, FS_FAIR_CLIENT_SEED);
    memcpy(r->client_seed, client_seed, strlen(client_seed) + 1);
    return emit(r, line, cap);
}

int fs_fair_period_deal(const fs_fair_period *p, fs_dealer *d, fs_deal *out,
                        uint64_t *nonce, char *line, size_t cap)
{
    if (p == NULL || d == NULL || out == NULL || nonce == NULL ||
        line == NULL || p->revealed || !p->has_client_seed ||
        p->next_nonce == UINT64_MAX - 1)
        return FS_EINVAL;
    const fs_game *g = fs_game_find(p->game);
    if (g == NULL)
        return FS_EINVAL;
    int rc = fs_dealer_init(d, g, p->players, p->decks, FS_ALG_DURSTENFELD);
    if (rc != FS_OK)
        return rc;
    rc = fs_fair_deal_scheme(p->scheme, p->server_seed, d, p->client_seed,
                             p->next_nonce, out);
    if (rc != FS_OK)
        return rc;
    fs_fair_record *r = malloc(sizeof *r);
    if (r == NULL)
        return FS_ENOMEM;
    base(r, p, FS_FAIR_DEAL);
    r->nonce = p->next_nonce;
    memcpy(r->client_seed, p->client_seed, sizeof r->client_seed);
    memcpy(r->game, p->game, sizeof r->game);
    r->players = p->players;
    r->decks = p->decks;
    int n = fs_fair_deal_tsv(out, d, r->deal, sizeof r->deal);
    if (n < 0) {
        free(r);
        return n;
    }
    rc = emit(r, line, cap);
    if (rc == FS_OK)
        *nonce = p->next_nonce;
    return rc;
}

int fs_fair_period_reveal(const fs_fair_period *p, char *line, size_t cap)
{
    if (p == NULL || line == NULL || p->revealed)
        return FS_EINVAL;
    fs_fair_record *r = malloc(sizeof *r);
    if (r == NULL)
        return FS_ENOMEM;
    base(r, p, FS_FAIR_REVEAL);
    memcpy(r->value, p->server_seed, 32);
    return emit(r, line, cap);
}

int fs_fair_period_applied(fs_fair_period *p, const char *line)
{
    if (p == NULL || line == NULL)
        return FS_EINVAL;
    fs_fair_record *r = malloc(sizeof *r);
    if (r == NULL)
        return FS_ENOMEM;
    int rc = fs_fair_record_parse(line, strlen(line), r, NULL);
    if (rc == FS_OK && (strcmp(r->scheme, p->scheme) != 0 || p->revealed))
        rc = FS_EINVAL;
    if (rc == FS_OK) {
        switch (r->event) {
        case FS_FAIR_COMMIT:
            if (memcmp(r->value, p->commitment, 32) != 0)
                rc = FS_EINVAL;
            break;
        case FS_FAIR_CLIENT_SEED:
            if (p->has_client_seed)
                rc = FS_EINVAL;
            else {
                memcpy(p->client_seed, r->client_seed,
                       sizeof p->client_seed);
                p->has_client_seed = 1;
            }
            break;
        case FS_FAIR_DEAL:
            if (r->nonce != p->next_nonce || !p->has_client_seed ||
                strcmp(r->client_seed, p->client_seed) != 0)
                rc = FS_EINVAL;
            else
                p->next_nonce++;
            break;
        case FS_FAIR_REVEAL:
            if (memcmp(r->value, p->server_seed, 32) != 0)
                rc = FS_EINVAL;
            else
                p->revealed = 1;
            break;
        }
    }
    sodium_memzero(r, sizeof *r);
    free(r);
    return rc;
}

int fs_fair_period_resume(fs_fair_period *p, const uint8_t seed[32],
                          const fs_fair_log_result *r)
{
    if (p == NULL || seed == NULL || r == NULL || !r->open)
        return FS_EINVAL;
    uint8_t c[32];
    fs_fair_commitment(seed, c);
    if (sodium_memcmp(c, r->commitment, 32) != 0)
        return FS_EINVAL;
    memset(p, 0, sizeof *p);
    memcpy(p->scheme, r->scheme, sizeof p->scheme);
    memcpy(p->game, r->game, sizeof p->game);
    p->players = r->players;
    p->decks = r->decks;
    memcpy(p->server_seed, seed, 32);
    memcpy(p->commitment, c, 32);
    p->has_client_seed = r->has_client_seed;
    memcpy(p->client_seed, r->client_seed, sizeof p->client_seed);
    p->next_nonce = r->next_nonce;
    return FS_OK;
}

int fs_fair_client_seed_used(const char *text, size_t len,
                             const char *client_seed, size_t *line)
{
    if (line != NULL)
        *line = 0;
    if (client_seed == NULL || (text == NULL && len > 0))
        return FS_EINVAL;
    fs_fair_record *r = malloc(sizeof *r);
    if (r == NULL)
        return FS_ENOMEM;
    int rc = 0;
    size_t at = 0;
    for (size_t pos = 0; pos < len && rc == 0;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        at++;
        if (end > pos) {
            if (fs_fair_record_parse(text + pos, end - pos, r, NULL) != FS_OK)
                rc = FS_EINVAL;
            else if ((r->event == FS_FAIR_CLIENT_SEED ||
                      r->event == FS_FAIR_DEAL) &&
                     strcmp(r->client_seed, client_seed) == 0) {
                rc = 1;
                if (line != NULL)
                    *line = at;
            }
        }
        pos = end + 1;
    }
    sodium_memzero(r, sizeof *r);
    free(r);
    return rc;
}
