/* fair_log.c -- the check of a whole provably-fair log (schemes
 * fairshuf-pf-1 and fairshuf-pf-2): the rules of a period, the rules
 * across periods, every deal recomputed, then what the player brings: their
 * commitment, client seed and deals (docs/provably-fair.md, "Rules").  The
 * first broken rule is the one on the smallest line, ties going to the
 * earlier rule of `rank` below. */
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "../seen.h"
#include "finding.h"

_Static_assert(sizeof((fs_fair_log_result *)0)->message == FS__FINDING_MSG,
               "finding.c copies FS__FINDING_MSG bytes of message");
#include "fairshuf/cards.h"

/* The rules, in the order that breaks ties on one line. */
static const char *const rank[] = {
    "malformed", "order", "recommitted", "client-seed-reused",
    "client-seed-changed", "table-changed", "nonce", "bad-reveal",
    "empty-period", "bad-deal", "client-seed-mismatch", "deal-differs",
    "commitment-not-found", "deal-missing", "unrevealed", "empty-log",
    "no-commitment"};

typedef struct span {
    size_t line, off, len;
    uint64_t nonce;
} span;

typedef struct period {
    char scheme[32];
    size_t commit_line, client_line; /* client_line 0: no client seed yet */
    uint8_t commitment[32];
    char client[FS_FAIR_CLIENT_SEED_MAX + 1];
    int has_table;
    char game[32];
    unsigned players, decks;
    uint64_t next;
    size_t first, ndeals; /* its deals: spans[first .. first + ndeals) */
    int revealed;
} period;

typedef struct walk {
    fs__finder find;
    fs_fair_log_result *res;
    fs_fair_record *rec;
    fs_dealer *dealer;
    fs_deal *claim, *mine;
    const char *text;
    span *spans;
    size_t nspans, cspans;
    period *per;
    size_t nper, cper;
    fs__seen commits, clients; /* where each commitment, client seed began */
    char esc[4][4 * FS_FAIR_CLIENT_SEED_MAX + 4];
} walk;

/* s escaped (finding.h) in one of 4 slots, for up to 4 in one message. */
static const char *esc(walk *w, int slot, const char *s)
{
    return fs__escape(w->esc[slot], sizeof w->esc[slot], s);
}

static void say(walk *w, size_t line, fs_fair_verdict kind, const char *rule,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void say(walk *w, size_t line, fs_fair_verdict kind, const char *rule,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fs__finding(&w->find, line, kind, rule, fmt, ap);
    va_end(ap);
}

/* The dealer for a table, or a reason it has none. */
static const char *table_ok(walk *w, const char *game, unsigned players,
                            unsigned decks)
{
    const fs_game *g = fs_game_find(game);
    if (g == NULL)
        return "unknown game";
    if (fs_dealer_init(w->dealer, g, players, decks, FS_ALG_DURSTENFELD) !=
        FS_OK)
        return "players or decks the game does not allow";
    return NULL;
}

/* Recomputes the deals of a revealed period. */
static int check_deals(walk *w, const period *p, const uint8_t seed[32])
{
    for (size_t k = 0; k < p->ndeals; k++) {
        const span *sp = &w->spans[p->first + k];
        fs_fair_record *r = w->rec;
        /* Read and checked once already: cannot fail now. */
        fs_fair_record_parse(w->text + sp->off, sp->len, r, NULL);
        int rc = FS_EINVAL;
        if (table_ok(w, r->game, r->players, r->decks) == NULL)
            rc = fs_deal_parse(w->dealer, r->deal, strlen(r->deal), w->claim,
                               NULL, NULL);
        int v = 0;
        long part = -1;
        if (rc == FS_OK)
            rc = fs_fair_check_scheme(p->scheme, seed, p->commitment,
                                      w->dealer, r->client_seed, r->nonce,
                                      w->claim, &v, &part);
        if (rc != FS_OK)
            return rc == FS_ENOMEM ? rc : FS_EINVAL;
        w->res->checked++;
        if (v & FS_FAIR_BAD_DEAL) {
            const fs_deal_part *dp = &w->dealer->layout.part[part];
            char label[48];
            if (dp->seat >= 0 && (unsigned)dp->seat < w->dealer->players)
                snprintf(label, sizeof label, "hand %d", dp->seat + 1);
            else
                snprintf(label, sizeof label, "%s", dp->key);
            say(w, sp->line, FS_FAIR_DISHONEST, "bad-deal",
                "nonce %llu: %s is not the one the seeds give",
                (unsigned long long)r->nonce, label);
        }
    }
    return FS_OK;
}

static int is_v1(const char *scheme)
{
    return strcmp(scheme, FS_FAIR_SCHEME_V1) == 0;
}

/* The index of earlier periods by commitment and by client seed (lookups
 * in O(1), so a log of many periods checks in linear time). */
typedef struct probe {
    const walk *w;
    const void *value;
} probe;

static int same_commitment(void *ctx, size_t i)
{
    const probe *q = ctx;
    return memcmp(q->w->per[i].commitment, q->value, 32) == 0;
}

static int same_client(void *ctx, size_t i)
{
    const probe *q = ctx;
    return strcmp(q->w->per[i].client, q->value) == 0;
}

/* The first period committed to c (32 bytes), or NULL. */
static const period *commitment_used(const walk *w, const uint8_t *c)
{
    probe q = {w, c};
    size_t i = fs__seen_find(&w->commits, fs__seen_hash(&w->commits, c, 32),
                             same_commitment, &q);
    return i == SIZE_MAX ? NULL : &w->per[i];
}

/* The first period with client seed c, or NULL. */
static const period *client_used(const walk *w, const char *c)
{
    probe q = {w, c};
    size_t i = fs__seen_find(&w->clients,
                             fs__seen_hash(&w->clients, c, strlen(c)),
                             same_client, &q);
    return i == SIZE_MAX ? NULL : &w->per[i];
}

/* Sets the client seed of the open period p (w->per[w->nper - 1]). */
static int set_client(walk *w, period *p, size_t line, const char *c)
{
    p->client_line = line;
    memcpy(p->client, c, sizeof p->client);
    if (client_used(w, c))
        return FS_OK;
    return fs__seen_add(&w->clients,
                        fs__seen_hash(&w->clients, c, strlen(c)),
                        w->nper - 1);
}

/* One record; returns FS_OK, FS_EINVAL (malformed: stop) or FS_ENOMEM. */
static int record(walk *w, size_t line, size_t off, size_t len)
{
    fs_fair_record *r = w->rec;
    fs_fair_log_result *res = w->res;
    const char *why = NULL;
    if (fs_fair_record_parse(w->text + off, len, r, &why) != FS_OK) {
        say(w, line, FS_FAIR_DISHONEST, "malformed",
            "not a record of the log: %s", why);
        return FS_EINVAL;
    }
    if (strcmp(r->scheme, FS_FAIR_SCHEME) != 0 && !is_v1(r->scheme)) {
        say(w, line, FS_FAIR_DISHONEST, "malformed",
            "scheme '%s' is not one this fairshuf verifies (it verifies "
            FS_FAIR_SCHEME " and " FS_FAIR_SCHEME_V1 ")",
            esc(w, 0, r->scheme));
        return FS_EINVAL;
    }
    period *p = res->open ? &w->per[w->nper - 1] : NULL;
    if (p && r->event != FS_FAIR_COMMIT && strcmp(r->scheme, p->scheme)) {
        say(w, line, FS_FAIR_DISHONEST, "malformed",
            "a %s record inside a %s period (committed at line %zu): one "
            "scheme per period", r->scheme, p->scheme, p->commit_line);
        return FS_EINVAL;
    }
    if ((r->event == FS_FAIR_DEAL || r->event == FS_FAIR_CLIENT_SEED) &&
        !is_v1(r->scheme) &&
        !fs_fair_client_seed_ok(r->scheme, r->client_seed, &why)) {
        say(w, line, FS_FAIR_DISHONEST, "malformed", "%s", why);
        return FS_EINVAL;
    }
    if (r->event == FS_FAIR_COMMIT && !is_v1(r->scheme) &&
        (why = table_ok(w, r->game, r->players, r->decks)) != NULL) {
        say(w, line, FS_FAIR_DISHONEST, "malformed",
            "the commit's table: %s ('%s', %u players, %u decks)", why,
            esc(w, 0, r->game), r->players, r->decks);
        return FS_EINVAL;
    }
    if (r->event == FS_FAIR_DEAL) {
        size_t where = 0;
        why = table_ok(w, r->game, r->players, r->decks);
        int rc = why ? FS_EINVAL
                     : fs_deal_parse(w->dealer, r->deal, strlen(r->deal),
                                     w->claim, &why, &where);
        char tsv[FS_FAIR_TSV_MAX + 1];
        if (rc == FS_OK &&
            (fs_fair_deal_tsv(w->claim, w->dealer, tsv, sizeof tsv) < 0 ||
             strcmp(tsv, r->deal) != 0)) {
            rc = FS_EINVAL;
            why = "not exactly the TSV 'fair deal --format=tsv' prints "
                  "(no newline, one tab between parts, one space between "
                  "cards)";
        }
        if (rc != FS_OK) {
            say(w, line, FS_FAIR_DISHONEST, "malformed",
                "the deal is not a deal of '%s' for %u players, %u decks: "
                "%s", esc(w, 0, r->game), r->players, r->decks,
                why ? why : fs_strerror(rc));
            return FS_EINVAL;
        }
        if (r->nonce == UINT64_MAX) {
            say(w, line, FS_FAIR_DISHONEST, "malformed",
                "nonce out of range");
            return FS_EINVAL;
        }
    }
    switch (r->event) {
    case FS_FAIR_COMMIT: {
        if (p)
            say(w, line, FS_FAIR_DISHONEST, "order",
                "a new commitment before the seed committed at line %zu "
                "was revealed: its deals can never be checked",
                p->commit_line);
        const period *o = commitment_used(w, r->value);
        if (o)
            say(w, line, FS_FAIR_DISHONEST, "recommitted",
                "this commitment was already committed at line %zu: a "
                "seed committed again is known to the server's "
                "players", o->commit_line);
        if (fs__grow_array((void **)&w->per, &w->cper, w->nper,
                           sizeof *w->per, 64))
            return FS_ENOMEM;
        if (o == NULL &&
            fs__seen_add(&w->commits,
                         fs__seen_hash(&w->commits, r->value, 32),
                         w->nper) != FS_OK)
            return FS_ENOMEM;
        p = &w->per[w->nper++];
        memset(p, 0, sizeof *p);
        memcpy(p->scheme, r->scheme, sizeof p->scheme);
        p->commit_line = line;
        memcpy(p->commitment, r->value, 32);
        if (!is_v1(r->scheme)) {
            p->has_table = 1;
            memcpy(p->game, r->game, sizeof p->game);
            p->players = r->players;
            p->decks = r->decks;
        }
        p->first = w->nspans;
        res->open = 1;
        res->periods++;
        break;
    }
    case FS_FAIR_CLIENT_SEED: {
        if (p == NULL) {
            say(w, line, FS_FAIR_DISHONEST, "order",
                "a client seed outside a period (no open commitment "
                "before it)");
            break;
        }
        if (p->client_line) {
            say(w, line, FS_FAIR_DISHONEST, "order",
                "a second client seed in the period (the first at line "
                "%zu)", p->client_line);
            break;
        }
        const period *o = client_used(w, r->client_seed);
        if (o)
            say(w, line, FS_FAIR_DISHONEST, "client-seed-reused",
                "this client seed was used in the period committed at line "
                "%zu: each period needs a fresh one", o->commit_line);
        if (set_client(w, p, line, r->client_seed) != FS_OK)
            return FS_ENOMEM;
        break;
    }
    case FS_FAIR_DEAL: {
        if (p == NULL) {
            say(w, line, FS_FAIR_DISHONEST, "order",
                "a deal outside a period (no open commitment before it)");
            break;
        }
        int v1 = is_v1(p->scheme);
        if (!v1 && !p->client_line) {
            say(w, line, FS_FAIR_DISHONEST, "order",
                "a deal before the period's client seed");
            break;
        }
        if (v1 && !p->client_line) { /* the first deal fixes them */
            const period *o = client_used(w, r->client_seed);
            if (o)
                say(w, line, FS_FAIR_DISHONEST, "client-seed-reused",
                    "this client seed was used in the period committed at "
                    "line %zu: each period needs a fresh one",
                    o->commit_line);
            if (set_client(w, p, line, r->client_seed) != FS_OK)
                return FS_ENOMEM;
            p->has_table = 1;
            memcpy(p->game, r->game, sizeof p->game);
            p->players = r->players;
            p->decks = r->decks;
        }
        if (strcmp(r->client_seed, p->client) != 0)
            say(w, line, FS_FAIR_DISHONEST, "client-seed-changed",
                "the client seed '%s' is not the period's '%s' (line %zu)",
                esc(w, 0, r->client_seed), esc(w, 1, p->client),
                p->client_line);
        if (strcmp(r->game, p->game) != 0 || r->players != p->players ||
            r->decks != p->decks)
            say(w, line, FS_FAIR_DISHONEST, "table-changed",
                "%s for %u players, %u decks, but the period deals %s for "
                "%u players, %u decks", esc(w, 0, r->game), r->players,
                r->decks, esc(w, 1, p->game), p->players, p->decks);
        if (r->nonce != p->next)
            say(w, line, FS_FAIR_DISHONEST, "nonce",
                "nonce %llu where %llu is due: nonces run 0, 1, 2, ... in "
                "order (a server that skips nonces can choose deals)",
                (unsigned long long)r->nonce, (unsigned long long)p->next);
        p->next = r->nonce + 1;
        if (fs__grow_array((void **)&w->spans, &w->cspans, w->nspans,
                           sizeof *w->spans, 64))
            return FS_ENOMEM;
        w->spans[w->nspans++] = (span){line, off, len, r->nonce};
        p->ndeals++;
        res->deals++;
        break;
    }
    case FS_FAIR_REVEAL: {
        if (p == NULL) {
            say(w, line, FS_FAIR_DISHONEST, "order",
                "a reveal outside a period (no open commitment)");
            break;
        }
        uint8_t seed[32], c[32];
        memcpy(seed, r->value, 32);
        fs_fair_commitment(seed, c);
        res->open = 0;
        p->revealed = 1;
        if (sodium_memcmp(c, p->commitment, 32) != 0) {
            say(w, line, FS_FAIR_DISHONEST, "bad-reveal",
                "the revealed server seed is not the one committed at line "
                "%zu", p->commit_line);
            break;
        }
        if (!is_v1(p->scheme) && p->ndeals == 0)
            say(w, line, FS_FAIR_DISHONEST, "empty-period",
                "the period committed at line %zu is revealed without a "
                "deal: a server that rotates before dealing can choose its "
                "seed", p->commit_line);
        int rc = check_deals(w, p, seed);
        sodium_memzero(seed, sizeof seed);
        if (rc != FS_OK)
            return rc;
        break;
    }
    }
    return FS_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The period's deal records the player did not see: before their first
 * nonce and between their first and last (a dealer that burns deals until
 * one suits it shows the player that one only).  O((deals + seen) log
 * seen).  FS_OK or FS_ENOMEM. */
static int unseen(walk *w, const period *p, const fs_fair_player *pl)
{
    if (pl->ndeals == 0)
        return FS_OK;
    uint64_t *seen = malloc(pl->ndeals * sizeof *seen);
    if (seen == NULL)
        return FS_ENOMEM;
    for (size_t k = 0; k < pl->ndeals; k++)
        seen[k] = pl->deals[k].nonce;
    qsort(seen, pl->ndeals, sizeof *seen, cmp_u64);
    uint64_t lo = seen[0], hi = seen[pl->ndeals - 1];
    for (size_t i = 0; i < p->ndeals; i++) {
        uint64_t n = w->spans[p->first + i].nonce;
        if (bsearch(&n, seen, pl->ndeals, sizeof *seen, cmp_u64))
            continue;
        if (n < lo)
            w->res->unseen_before++;
        else if (n < hi)
            w->res->unseen_between++;
    }
    free(seen);
    return FS_OK;
}

/* The player's side: their commitment, client seed and deals. */
static int player_check(walk *w, const fs_fair_player *pl)
{
    const period *p = NULL;
    if (pl->commitment) {
        for (size_t i = 0; i < w->nper && p == NULL; i++)
            if (sodium_memcmp(w->per[i].commitment, pl->commitment, 32) == 0)
                p = &w->per[i];
        if (p == NULL) {
            say(w, 0, FS_FAIR_DISHONEST, "commitment-not-found",
                "no period of the log has your commitment");
            return FS_OK;
        }
    } else if (pl->client_seed) {
        for (size_t i = 0; i < w->nper && p == NULL; i++)
            if (w->per[i].client_line &&
                strcmp(w->per[i].client, pl->client_seed) == 0)
                p = &w->per[i];
        if (p == NULL) {
            say(w, 0, FS_FAIR_DISHONEST, "client-seed-mismatch",
                "no period of the log has your client seed '%s'",
                esc(w, 0, pl->client_seed));
            return FS_OK;
        }
    } else if (w->nper) { /* the last period with a deal, else the last */
        p = &w->per[w->nper - 1];
        for (size_t i = w->nper; i-- > 0;)
            if (w->per[i].ndeals) {
                p = &w->per[i];
                break;
            }
    }
    /* Without the commitment the player saw, nothing ties this log to the
     * table they were shown (docs/provably-fair.md, "Guarantees and
     * non-guarantees"): a dealer can open many tables with their client
     * seed. */
    if (!pl->commitment && (pl->client_seed || pl->ndeals))
        say(w, 0, FS_FAIR_INCONCLUSIVE, "no-commitment",
            "without the commitment you were shown before you chose your "
            "client seed, this check cannot tell that this log is the table "
            "you were shown: a dealer that opens many tables with your "
            "client seed can show you the one whose deals it likes (give "
            "--commitment)");
    if (p == NULL) {
        if (pl->ndeals)
            say(w, 0, FS_FAIR_DISHONEST, "deal-missing",
                "the log has no period: your deal at nonce %llu is not in it",
                (unsigned long long)pl->deals[0].nonce);
        return FS_OK;
    }
    if (pl->client_seed && (!p->client_line ||
                            strcmp(p->client, pl->client_seed) != 0)) {
        if (p->client_line)
            say(w, p->client_line, FS_FAIR_DISHONEST, "client-seed-mismatch",
                "the period committed at line %zu uses the client seed "
                "'%s', not yours ('%s')", p->commit_line,
                esc(w, 0, p->client), esc(w, 1, pl->client_seed));
        else
            say(w, p->commit_line, FS_FAIR_DISHONEST, "client-seed-mismatch",
                "the period committed here has no client seed, not yours "
                "('%s')", esc(w, 0, pl->client_seed));
    }
    if (pl->commitment || pl->client_seed || pl->ndeals)
        w->res->player_period = (size_t)(p - w->per) + 1;
    if (unseen(w, p, pl) != FS_OK)
        return FS_ENOMEM;
    for (size_t k = 0; k < pl->ndeals; k++) {
        const fs_fair_seen *s = &pl->deals[k];
        const span *sp = NULL;
        for (size_t i = 0; i < p->ndeals && sp == NULL; i++)
            if (w->spans[p->first + i].nonce == s->nonce)
                sp = &w->spans[p->first + i];
        if (sp == NULL) {
            say(w, 0, FS_FAIR_DISHONEST, "deal-missing",
                "your deal at nonce %llu is not in the period committed at "
                "line %zu", (unsigned long long)s->nonce, p->commit_line);
            continue;
        }
        fs_fair_record *r = w->rec;
        fs_fair_record_parse(w->text + sp->off, sp->len, r, NULL);
        int same = table_ok(w, r->game, r->players, r->decks) == NULL &&
                   s->tsv &&
                   fs_deal_parse(w->dealer, r->deal, strlen(r->deal),
                                 w->claim, NULL, NULL) == FS_OK &&
                   fs_deal_parse(w->dealer, s->tsv, s->len, w->mine, NULL,
                                 NULL) == FS_OK &&
                   fs_deal_diff(w->claim, w->mine) < 0;
        if (!same)
            say(w, sp->line, FS_FAIR_DISHONEST, "deal-differs",
                "nonce %llu: the log's deal is not the one you saw",
                (unsigned long long)s->nonce);
    }
    return FS_OK;
}

int fs_fair_log_check(const char *text, size_t len,
                      const fs_fair_player *player, fs_fair_note *note,
                      void *ctx, fs_fair_log_result *out)
{
    if (text == NULL || out == NULL)
        return FS_EINVAL;
    memset(out, 0, sizeof *out);
    walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        return FS_ENOMEM;
    fs__seen_init(&w->commits);
    fs__seen_init(&w->clients);
    w->find = FS__FINDER(out, rank, sizeof rank / sizeof rank[0], note, ctx);
    w->res = out;
    w->text = text;
    w->rec = malloc(sizeof *w->rec);
    w->dealer = malloc(sizeof *w->dealer);
    w->claim = malloc(sizeof *w->claim);
    w->mine = malloc(sizeof *w->mine);
    int rc = FS_OK, stopped = 0;
    if (!w->rec || !w->dealer || !w->claim || !w->mine) {
        rc = FS_ENOMEM;
        goto done;
    }
    size_t line = 0;
    for (size_t i = 0; i < len && !stopped;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t off = i;
        i = nl ? end + 1 : len;
        rc = record(w, ++line, off, end - off);
        if (rc == FS_EINVAL) {
            rc = FS_OK;
            stopped = 1;
        } else if (rc != FS_OK)
            goto done;
    }
    if (!stopped) {
        if (player && (rc = player_check(w, player)) != FS_OK)
            goto done;
        const period *p = w->nper ? &w->per[w->nper - 1] : NULL;
        int own = 0;
        if (p && out->open && player && player->server_seed) {
            uint8_t c[32];
            fs_fair_commitment(player->server_seed, c);
            own = sodium_memcmp(c, p->commitment, 32) == 0;
            if (own && (rc = check_deals(w, p, player->server_seed)) != FS_OK)
                goto done;
        }
        if (p && out->open && p->ndeals > 0 && !own) {
            out->unrevealed = p->ndeals;
            say(w, p->commit_line, FS_FAIR_INCONCLUSIVE, "unrevealed",
                "the period committed here is not revealed yet: its %zu "
                "deal%s not checked", p->ndeals,
                p->ndeals == 1 ? " is" : "s are");
        }
        if (out->deals == 0)
            say(w, 0, FS_FAIR_INCONCLUSIVE, "empty-log",
                "the log has no deal: nothing was checked");
    }
    if (w->nper) {
        const period *p = &w->per[w->nper - 1];
        memcpy(out->scheme, p->scheme, sizeof out->scheme);
        memcpy(out->commitment, p->commitment, 32);
        out->next_nonce = p->next;
        out->has_client_seed = p->client_line != 0;
        memcpy(out->client_seed, p->client, sizeof out->client_seed);
        memcpy(out->game, p->game, sizeof out->game);
        out->players = p->players;
        out->decks = p->decks;
    }
    if (out->rule == NULL)
        out->verdict = FS_FAIR_HONEST;
done:
    fs__seen_free(&w->commits);
    fs__seen_free(&w->clients);
    free(w->spans);
    free(w->per);
    free(w->rec);
    free(w->dealer);
    free(w->claim);
    free(w->mine);
    free(w);
    return rc;
}
