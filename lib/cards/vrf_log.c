/* vrf_log.c -- the check of a whole fairshuf-vrf-1 log against the
 * dealer's public key: the records, the rules of a table and across tables,
 * every hand's alpha, proof and deal, then the hands the player received
 * (docs/provably-fair.md, "Scheme fairshuf-vrf-1").  The first finding is
 * the one on the smallest line, ties going to the earlier rule of `rank`. */
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/vrf.h"
#include "finding.h"

_Static_assert(sizeof((fs_vrf_log_result *)0)->message == FS__FINDING_MSG,
               "finding.c copies FS__FINDING_MSG bytes of message");

static const char *const rank[] = {
    "malformed", "other-key", "order", "table-reused", "abandoned",
    "table-changed", "seed-not-committed", "hand-number", "bad-alpha",
    "bad-proof", "bad-deal", "hand-differs", "hand-missing", "empty-log"};
#define NRANK (sizeof rank / sizeof rank[0])

typedef struct table {
    size_t line;
    char name[FS_VRF_NAME_MAX + 1], game[32];
    unsigned players, decks;
    size_t ncommit;
    uint8_t commit[FS_VRF_SEATS_MAX][32];
    uint64_t next;  /* the hand number due */
    size_t records; /* hand and void records */
    int replaced;   /* a later table record has the same name */
} table;

/* Where a hand record is, to find the player's hands in it. */
typedef struct seen_hand {
    size_t line, table;
    uint64_t hand;
    uint8_t pi[80];
    uint8_t deal_hash[32];
} seen_hand;

typedef struct walk {
    fs__finder find;
    fs_vrf_log_result *res;
    const uint8_t *pk;
    fs_vrf_record *rec;
    fs_dealer *dealer;
    fs_deal *deal;
    table *tab;
    size_t ntab, ctab;
    seen_hand *hands;
    size_t nhands, chands;
    char esc[4 * FS_VRF_NAME_MAX + 4];
} walk;

static const char *esc(walk *w, const char *s)
{
    return fs__escape(w->esc, sizeof w->esc, s);
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

/* The open table of that name (the last table record with it), or -1. */
static long find_table(const walk *w, const char *name)
{
    for (size_t i = w->ntab; i-- > 0;)
        if (!w->tab[i].replaced && strcmp(w->tab[i].name, name) == 0)
            return (long)i;
    return -1;
}

static int table_record(walk *w, size_t line)
{
    const fs_vrf_record *r = w->rec;
    long old = find_table(w, r->table);
    if (old >= 0) {
        say(w, line, FS_FAIR_DISHONEST, "table-reused",
            "table '%s' was opened before (line %zu): its hand numbers "
            "would start again", esc(w, r->table), w->tab[old].line);
        w->tab[old].replaced = 1;
    }
    if (fs__grow_array((void **)&w->tab, &w->ctab, w->ntab, sizeof *w->tab,
                       16) != FS_OK)
        return FS_ENOMEM;
    table *t = &w->tab[w->ntab++];
    memset(t, 0, sizeof *t);
    t->line = line;
    memcpy(t->name, r->table, sizeof t->name);
    memcpy(t->game, r->game, sizeof t->game);
    t->players = r->players;
    t->decks = r->decks;
    t->ncommit = r->nseeds;
    memcpy(t->commit, r->commitments, sizeof t->commit);
    w->res->tables++;
    return FS_OK;
}

static int hand_record(walk *w, size_t line)
{
    const fs_vrf_record *r = w->rec;
    fs_vrf_log_result *res = w->res;
    if (r->event == FS_VRF_VOID)
        res->voids++;
    else
        res->hands++;
    long ti = find_table(w, r->table);
    if (ti < 0) {
        say(w, line, FS_FAIR_DISHONEST, "order",
            "hand %llu of table '%s' comes before any table record of that "
            "name: its client seeds were never committed",
            (unsigned long long)r->hand, esc(w, r->table));
        return FS_OK;
    }
    table *t = &w->tab[ti];
    t->records++;
    if (strcmp(r->game, t->game) != 0 || r->players != t->players ||
        r->decks != t->decks)
        say(w, line, FS_FAIR_DISHONEST, "table-changed",
            "hand %llu is not dealt for the table's game (line %zu)",
            (unsigned long long)r->hand, t->line);
    int committed = r->nseeds == t->ncommit;
    for (size_t i = 0; committed && i < r->nseeds; i++) {
        uint8_t c[32];
        fs_vrf_seed_commitment(r->client_seeds[i], c);
        committed = sodium_memcmp(c, t->commit[i], 32) == 0;
    }
    if (!committed)
        say(w, line, FS_FAIR_DISHONEST, "seed-not-committed",
            "hand %llu's client seeds are not the ones committed at line "
            "%zu", (unsigned long long)r->hand, t->line);
    if (r->hand != t->next)
        say(w, line, FS_FAIR_DISHONEST, "hand-number",
            "hand %llu where hand %llu is due: a hand number %s",
            (unsigned long long)r->hand, (unsigned long long)t->next,
            r->hand < t->next ? "used twice" : "skipped (a hand never proven)");
    t->next = r->hand + 1;
    const char *rule, *why;
    if (fs_vrf_hand_check(w->pk, r, w->dealer, w->deal, &rule, &why) !=
        FS_FAIR_HONEST)
        say(w, line, FS_FAIR_DISHONEST, rule, "hand %llu: %s",
            (unsigned long long)r->hand, why);
    else
        res->proven++;
    if (fs__grow_array((void **)&w->hands, &w->chands, w->nhands,
                       sizeof *w->hands, 16) !=
        FS_OK)
        return FS_ENOMEM;
    seen_hand *h = &w->hands[w->nhands++];
    h->line = line;
    h->table = (size_t)ti;
    h->hand = r->hand;
    memcpy(h->pi, r->pi, 80);
    crypto_hash_sha256(h->deal_hash, (const unsigned char *)r->deal,
                       strlen(r->deal));
    return FS_OK;
}

/* FS_EINVAL: the check stops (a malformed line). */
static int record(walk *w, size_t line, const char *s, size_t len)
{
    const char *why;
    if (len > 0 && s[len - 1] == '\r')
        len--;
    if (fs_vrf_record_parse(s, len, w->rec, &why) != FS_OK) {
        say(w, line, FS_FAIR_DISHONEST, "malformed", "not a %s record: %s",
            FS_VRF_SCHEME, why);
        return FS_EINVAL;
    }
    const fs_game *g = fs_game_find(w->rec->game);
    if (g == NULL || fs_dealer_init(w->dealer, g, w->rec->players,
                                    w->rec->decks, FS_ALG_DURSTENFELD) !=
                         FS_OK) {
        say(w, line, FS_FAIR_DISHONEST, "malformed", "not a %s record: %s",
            FS_VRF_SCHEME, g ? "a table the game does not allow"
                             : "an unknown game");
        return FS_EINVAL;
    }
    if (sodium_memcmp(w->rec->public_key, w->pk, 32) != 0) {
        say(w, line, FS_FAIR_DISHONEST, "other-key",
            "the record is of another public key than the dealer's");
        return FS_OK;
    }
    return w->rec->event == FS_VRF_TABLE ? table_record(w, line)
                                         : hand_record(w, line);
}

/* Every hand the player received is in the log, the same. */
static void player_check(walk *w, const fs_vrf_record *mine, size_t nmine)
{
    for (size_t m = 0; m < nmine; m++) {
        const fs_vrf_record *r = &mine[m];
        const seen_hand *h = NULL;
        for (size_t i = 0; i < w->nhands && h == NULL; i++)
            if (w->hands[i].hand == r->hand &&
                strcmp(w->tab[w->hands[i].table].name, r->table) == 0)
                h = &w->hands[i];
        if (h == NULL) {
            say(w, 0, FS_FAIR_DISHONEST, "hand-missing",
                "your hand %llu of table '%s' is not in the log",
                (unsigned long long)r->hand, esc(w, r->table));
            continue;
        }
        uint8_t dh[32];
        crypto_hash_sha256(dh, (const unsigned char *)r->deal,
                           strlen(r->deal));
        if (memcmp(h->pi, r->pi, 80) != 0 || memcmp(h->deal_hash, dh, 32))
            say(w, h->line, FS_FAIR_DISHONEST, "hand-differs",
                "the log's hand %llu is not the one you received",
                (unsigned long long)r->hand);
    }
}

int fs_vrf_log_check(const char *text, size_t len, const uint8_t pk[32],
                     const fs_vrf_record *mine, size_t nmine,
                     fs_fair_note *note, void *ctx, fs_vrf_log_result *out)
{
    if (text == NULL || pk == NULL || out == NULL ||
        (mine == NULL && nmine > 0))
        return FS_EINVAL;
    memset(out, 0, sizeof *out);
    walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        return FS_ENOMEM;
    w->find = FS__FINDER(out, rank, NRANK, note, ctx);
    w->res = out;
    w->pk = pk;
    w->rec = malloc(sizeof *w->rec);
    w->dealer = malloc(sizeof *w->dealer);
    w->deal = malloc(sizeof *w->deal);
    int rc = FS_OK, stopped = 0;
    if (!w->rec || !w->dealer || !w->deal) {
        rc = FS_ENOMEM;
        goto done;
    }
    size_t line = 0;
    for (size_t i = 0; i < len && !stopped;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t off = i;
        i = nl ? end + 1 : len;
        rc = record(w, ++line, text + off, end - off);
        if (rc == FS_EINVAL) {
            rc = FS_OK;
            stopped = 1;
        } else if (rc != FS_OK)
            goto done;
    }
    if (!stopped) {
        /* A table with no hand before a later table: abandoned after its
         * seeds were seen (the last table may still be waiting). */
        for (size_t i = 0; i + 1 < w->ntab; i++)
            if (w->tab[i].records == 0)
                say(w, w->tab[i].line, FS_FAIR_DISHONEST, "abandoned",
                    "table '%s' was opened and never dealt a hand before "
                    "the next table", esc(w, w->tab[i].name));
        player_check(w, mine, nmine);
        if (out->hands + out->voids == 0)
            say(w, 0, FS_FAIR_INCONCLUSIVE, "empty-log",
                "the log has no hand: nothing was checked");
    }
    if (out->rule == NULL)
        out->verdict = FS_FAIR_HONEST;
done:
    free(w->tab);
    free(w->hands);
    free(w->rec);
    free(w->dealer);
    free(w->deal);
    free(w);
    return rc;
}
