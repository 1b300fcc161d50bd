/* test_fair.c -- the provably-fair protocol of the library: the record
 * reader and writer, the client seed rule, the period state machine (a
 * record that was not stored changes nothing) and the log check, rule by
 * rule (fairshuf-pf-2 and fairshuf-pf-1 logs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fairshuf/cards.h"

static char line[FS_FAIR_LINE_MAX + 1];
static char logbuf[1 << 16];
static size_t loglen;
static fs_dealer dealer;
static fs_deal deal;

static void add(const char *l)
{
    size_t n = strlen(l);
    assert_true(loglen + n + 1 < sizeof logbuf);
    memcpy(logbuf + loglen, l, n);
    logbuf[loglen + n] = '\n';
    loglen += n + 1;
    logbuf[loglen] = '\0';
}

static fs_fair_log_result res;

static const char *check(const fs_fair_player *pl)
{
    assert_int_equal(fs_fair_log_check(logbuf, loglen, pl, NULL, NULL, &res),
                     FS_OK);
    return res.rule ? res.rule : "honest";
}

/* A v2 period through the state machine: commit, client seed, n deals,
 * (reveal).  Each record applied as a server would after storing it. */
static void period(fs_fair_period *p, const char *client, int n, int reveal)
{
    assert_int_equal(fs_fair_period_begin(p, "bridge", 0, 0, line,
                                          sizeof line), FS_OK);
    add(line);
    assert_int_equal(fs_fair_period_applied(p, line), FS_OK);
    assert_int_equal(fs_fair_period_client_seed(p, client, line, sizeof line,
                                                NULL), FS_OK);
    add(line);
    assert_int_equal(fs_fair_period_applied(p, line), FS_OK);
    for (int i = 0; i < n; i++) {
        uint64_t nonce;
        assert_int_equal(fs_fair_period_deal(p, &dealer, &deal, &nonce, line,
                                             sizeof line), FS_OK);
        assert_true(nonce == (uint64_t)i);
        add(line);
        assert_int_equal(fs_fair_period_applied(p, line), FS_OK);
    }
    if (reveal) {
        assert_int_equal(fs_fair_period_reveal(p, line, sizeof line), FS_OK);
        add(line);
        assert_int_equal(fs_fair_period_applied(p, line), FS_OK);
    }
}

static void reset(void)
{
    loglen = 0;
    logbuf[0] = '\0';
}

static void test_period_machine(void **state)
{
    (void)state;
    static fs_fair_period p, before;
    reset();
    period(&p, "alice", 2, 0);
    assert_string_equal(check(NULL), "unrevealed");
    assert_int_equal(res.verdict, FS_FAIR_INCONCLUSIVE);
    assert_int_equal(res.unrevealed, 2);
    assert_int_equal(res.line, 1);
    /* a deal whose record was not stored: the same nonce and record again */
    uint64_t nonce;
    before = p;
    static char again[FS_FAIR_LINE_MAX + 1];
    assert_int_equal(fs_fair_period_deal(&p, &dealer, &deal, &nonce, line,
                                         sizeof line), FS_OK);
    assert_memory_equal(&p, &before, sizeof p);
    assert_int_equal(fs_fair_period_deal(&p, &dealer, &deal, &nonce, again,
                                         sizeof again), FS_OK);
    assert_string_equal(line, again);
    assert_true(nonce == 2);
    /* too small a buffer: an error, nothing changed */
    char small[64];
    assert_int_equal(fs_fair_period_deal(&p, &dealer, &deal, &nonce, small,
                                         sizeof small), FS_ERANGE);
    assert_int_equal(fs_fair_period_reveal(&p, small, 16), FS_ERANGE);
    assert_memory_equal(&p, &before, sizeof p);
    /* a second client seed, a record of another period: refused */
    const char *why = NULL;
    assert_int_equal(fs_fair_period_client_seed(&p, "bob", line, sizeof line,
                                                &why), FS_EINVAL);
    assert_non_null(why);
    static fs_fair_period other;
    period(&other, "zed", 0, 0);
    assert_int_equal(fs_fair_period_applied(&p, line), FS_EINVAL);
    assert_memory_equal(&p, &before, sizeof p);
    /* a deal record applied twice: the second time it is stale */
    assert_int_equal(fs_fair_period_deal(&p, &dealer, &deal, &nonce, again,
                                         sizeof again), FS_OK);
    assert_int_equal(fs_fair_period_applied(&p, again), FS_OK);
    assert_true(p.next_nonce == 3);
    before = p;
    assert_int_equal(fs_fair_period_applied(&p, again), FS_EINVAL);
    assert_memory_equal(&p, &before, sizeof p);
    /* resume from the log gives the same state */
    reset();
    period(&p, "alice", 2, 0);
    check(NULL);
    static fs_fair_period back;
    assert_int_equal(fs_fair_period_resume(&back, p.server_seed, &res),
                     FS_OK);
    assert_memory_equal(&back, &p, sizeof p);
    uint8_t wrong[32] = {1};
    assert_int_equal(fs_fair_period_resume(&back, wrong, &res), FS_EINVAL);
    /* the server's own check of the open period recomputes its deals */
    fs_fair_player own = {0};
    own.server_seed = p.server_seed;
    assert_string_equal(check(&own), "honest");
    assert_int_equal(res.checked, 2);
    /* reveal, rotate: honest; then no more deals or client seeds */
    assert_int_equal(fs_fair_period_reveal(&p, line, sizeof line), FS_OK);
    add(line);
    assert_int_equal(fs_fair_period_applied(&p, line), FS_OK);
    assert_int_equal(fs_fair_period_deal(&p, &dealer, &deal, &nonce, line,
                                         sizeof line), FS_EINVAL);
    assert_int_equal(fs_fair_period_reveal(&p, line, sizeof line), FS_EINVAL);
    period(&p, "bob", 1, 1);
    assert_string_equal(check(NULL), "honest");
    assert_int_equal(res.verdict, FS_FAIR_HONEST);
    assert_int_equal(res.checked, 3);
    assert_int_equal(res.periods, 2);
    /* before its client seed, a period deals nothing */
    period(&p, "carol", 0, 0);
    before = p;
    p.has_client_seed = 0;
    assert_int_equal(fs_fair_period_deal(&p, &dealer, &deal, &nonce, line,
                                         sizeof line), FS_EINVAL);
    /* unknown games and tables the game refuses */
    assert_int_equal(fs_fair_period_begin(&p, "chess", 0, 0, line,
                                          sizeof line), FS_ENOTFOUND);
    assert_int_equal(fs_fair_period_begin(&p, "bridge", 5, 0, line,
                                          sizeof line), FS_EINVAL);
}

static void test_client_seed_rule(void **state)
{
    (void)state;
    static const char *const good[] = {"alice", "a b", "\xc3\xa9",
                                       "\xf0\x9f\x82\xa1", "\xe4\xb8\xad",
                                       "\"\\"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_true(fs_fair_client_seed_ok(FS_FAIR_SCHEME, good[i], NULL));
    static const char *const bad[] = {"", "a\tb", "a\nb", "\x1b[2J", "\x7f",
                                      "\xff", "\xc3", "\xc0\xaf",
                                      "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                      "\xe0\x80\xaf", "\x80", "a\x1f", "\xe0\x82\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *why = NULL;
        assert_false(fs_fair_client_seed_ok(FS_FAIR_SCHEME, bad[i], &why));
        assert_non_null(why);
    }
    assert_true(fs_fair_client_seed_ok(FS_FAIR_SCHEME_V1, "", NULL));
    char big[FS_FAIR_CLIENT_SEED_MAX + 2];
    memset(big, 'x', sizeof big);
    big[FS_FAIR_CLIENT_SEED_MAX] = '\0';
    assert_true(fs_fair_client_seed_ok(FS_FAIR_SCHEME, big, NULL));
    big[FS_FAIR_CLIENT_SEED_MAX] = 'x';
    big[FS_FAIR_CLIENT_SEED_MAX + 1] = '\0';
    assert_false(fs_fair_client_seed_ok(FS_FAIR_SCHEME, big, NULL));
}

static void test_record_round_trip(void **state)
{
    (void)state;
    static fs_fair_record r, back;
    memset(&r, 0, sizeof r);
    strcpy(r.scheme, FS_FAIR_SCHEME);
    r.event = FS_FAIR_DEAL;
    r.nonce = 18446744073709551614ull;
    strcpy(r.client_seed, "q\"\\\x7f\x01\xc3\xa9");
    strcpy(r.game, "bridge");
    r.players = 4;
    r.decks = 1;
    strcpy(r.deal, "As\tKs");
    int n = fs_fair_record_write(&r, line, sizeof line);
    assert_true(n > 0);
    assert_string_equal(line,
        "{\"scheme\":\"fairshuf-pf-2\",\"event\":\"deal\","
        "\"nonce\":18446744073709551614,\"client_seed\":"
        "\"q\\\"\\\\\\u007f\\u0001\xc3\xa9\",\"game\":\"bridge\","
        "\"players\":4,\"decks\":1,\"deal\":\"As\\tKs\"}");
    assert_int_equal(fs_fair_record_parse(line, (size_t)n, &back, NULL),
                     FS_OK);
    assert_memory_equal(&r, &back, sizeof r);
    assert_int_equal(fs_fair_record_write(&r, line, (size_t)n), FS_ERANGE);
    /* pf-1 has no client_seed event and no table in its commit */
    strcpy(r.scheme, FS_FAIR_SCHEME_V1);
    r.event = FS_FAIR_CLIENT_SEED;
    assert_int_equal(fs_fair_record_write(&r, line, sizeof line), FS_EINVAL);
    const char *v1c = "{\"scheme\":\"fairshuf-pf-1\",\"event\":\"commit\","
                      "\"commitment\":\"0000000000000000000000000000000000000000000000000000000000000000\","
                      "\"game\":\"bridge\",\"players\":4,\"decks\":1}";
    assert_int_equal(fs_fair_record_parse(v1c, strlen(v1c), &back, NULL),
                     FS_EINVAL);
    static const char *const badlines[] = {
        "", "{}", "[]", "{\"scheme\":\"fairshuf-pf-2\"}",
        "{\"scheme\":\"fairshuf-pf-2\",\"event\":\"commit\"}",
        "{\"scheme\":\"fairshuf-pf-2\",\"scheme\":\"x\",\"event\":\"reveal\"}",
        "{\"scheme\":\"fairshuf-pf-2\",\"event\":\"deal\",\"nonce\":01}",
        "{\"scheme\":\"fairshuf-pf-2\",\"event\":\"reveal\",\"server_seed\":\"00\"}",
        ("{\"scheme\":\"fairshuf-pf-2\",\"event\":\"reveal\",\"server_seed\":"
         "\"000102030405060708090A0B0C0D0E0F101112131415161718191a1b1c1d1e1f\"}"),
        "{\"scheme\":\"fairshuf-pf-2\",\"event\":\"other\"}",
        "{\"scheme\":\"fairshuf-pf-1\",\"event\":\"client_seed\",\"client_seed\":\"a\"}",
        "{\"scheme\":\"fair\\u0000\"}", "{\"scheme\":\"x\"} x"};
    for (size_t i = 0; i < sizeof badlines / sizeof badlines[0]; i++) {
        const char *why = NULL;
        assert_int_equal(fs_fair_record_parse(badlines[i], strlen(badlines[i]),
                                              &back, &why), FS_EINVAL);
        assert_non_null(why);
    }
}

/* Replaces the first `from` after line `at` (1-based) with `to`. */
static void edit(int at, const char *from, const char *to)
{
    char *p = logbuf;
    for (int i = 1; i < at; i++)
        p = strchr(p, '\n') + 1;
    char *q = strstr(p, from);
    assert_non_null(q);
    static char tail[sizeof logbuf];
    strcpy(tail, q + strlen(from));
    strcpy(q, to);
    strcat(q, tail);
    loglen = strlen(logbuf);
}

/* Deletes line `at`. */
static void drop(int at)
{
    char *p = logbuf;
    for (int i = 1; i < at; i++)
        p = strchr(p, '\n') + 1;
    char *e = strchr(p, '\n') + 1;
    memmove(p, e, strlen(e) + 1);
    loglen = strlen(logbuf);
}

static fs_fair_period p1, p2;

/* Two honest periods: lines 1 commit, 2 client seed, 3-4 deals, 5 reveal,
 * 6 commit, 7 client seed, 8-9 deals, 10 reveal. */
static void two_periods(void)
{
    reset();
    period(&p1, "alice", 2, 1);
    period(&p2, "bob", 2, 1);
}

static void expect(const char *rule, size_t at)
{
    assert_string_equal(check(NULL), rule);
    assert_int_equal(res.line, at);
}

static void test_rules(void **state)
{
    (void)state;
    char c1[65], s1[65];
    two_periods();
    expect("honest", 0);
    fs_hex_encode(p1.commitment, 32, c1);
    fs_hex_encode(p1.server_seed, 32, s1);
    two_periods();
    edit(4, "\"nonce\":1", "\"nonce\":2");
    expect("nonce", 4);
    two_periods();
    edit(4, "\"client_seed\":\"alice\"", "\"client_seed\":\"alicf\"");
    expect("client-seed-changed", 4);
    two_periods();
    edit(4, "\"players\":4", "\"players\":5");
    expect("malformed", 4); /* bridge has 4 players */
    two_periods();
    edit(1, "\"decks\":1", "\"decks\":2");
    expect("table-changed", 3);
    two_periods();
    edit(7, "bob", "alice");
    edit(8, "bob", "alice");
    edit(9, "bob", "alice");
    expect("client-seed-reused", 7);
    two_periods();
    fs_hex_encode(p1.server_seed, 32, s1);
    edit(5, s1, "0000000000000000000000000000000000000000000000000000000000000000");
    expect("bad-reveal", 5);
    two_periods();
    edit(3, "\\t", " ");
    edit(3, " ", "\\t");
    expect("bad-deal", 3);
    two_periods();
    drop(3);
    drop(3);
    expect("empty-period", 3);
    two_periods();
    drop(5);
    expect("order", 5);
    two_periods();
    drop(2);
    expect("order", 2);
    two_periods();
    fs_hex_encode(p1.commitment, 32, c1);
    {
        char c2[65];
        fs_hex_encode(p2.commitment, 32, c2);
        edit(6, c2, c1);
    }
    expect("recommitted", 6);
    two_periods();
    edit(8, "fairshuf-pf-2", "fairshuf-pf-1");
    expect("malformed", 8);
    two_periods();
    edit(8, "\"}", "\\n\"}");
    expect("malformed", 8);
    two_periods();
    edit(9, "\"nonce\":1", "\"nonce\":18446744073709551615");
    expect("malformed", 9);
    reset();
    expect("empty-log", 0);
    assert_int_equal(res.verdict, FS_FAIR_INCONCLUSIVE);
    add("{\"scheme\":\"fairshuf-pf-2\",\"event\":\"commit\",\"commitment\":\"00000000000000000000000000000000000000000000000000000000000000ff\",\"game\":\"chess\",\"players\":4,\"decks\":1}");
    assert_string_equal(check(NULL), "malformed");
    assert_non_null(strstr(res.message, "unknown game"));
    /* the player's side */
    two_periods();
    uint8_t c[32];
    fs_fair_player pl = {0};
    pl.commitment = p1.commitment;
    pl.client_seed = "alice";
    assert_string_equal(check(&pl), "honest");
    pl.client_seed = "bob";
    assert_string_equal(check(&pl), "client-seed-mismatch");
    assert_int_equal(res.line, 2);
    pl.commitment = NULL;
    /* bob's own period, but without the commitment nothing ties the log to
     * the table bob was shown (a dealer may have opened many) */
    assert_string_equal(check(&pl), "no-commitment");
    assert_int_equal(res.verdict, FS_FAIR_INCONCLUSIVE);
    assert_int_equal(res.line, 0);
    assert_int_equal(res.player_period, 2);
    pl.client_seed = "mallory";
    assert_string_equal(check(&pl), "client-seed-mismatch");
    assert_int_equal(res.line, 0);
    memset(c, 7, sizeof c);
    pl.commitment = c;
    pl.client_seed = NULL;
    assert_string_equal(check(&pl), "commitment-not-found");
    /* the deals the player saw */
    static char tsv[2][FS_FAIR_TSV_MAX + 1];
    for (int k = 0; k < 2; k++) {
        fs_dealer_init(&dealer, fs_game_find("bridge"), 0, 0, FS_ALG_AUTO);
        fs_fair_deal_scheme(FS_FAIR_SCHEME, p1.server_seed, &dealer, "alice",
                            (uint64_t)k, &deal);
        assert_true(fs_fair_deal_tsv(&deal, &dealer, tsv[k],
                                     sizeof tsv[k]) > 0);
    }
    fs_fair_seen seen[2] = {{0, tsv[0], strlen(tsv[0])},
                            {1, tsv[1], strlen(tsv[1])}};
    pl.commitment = p1.commitment;
    pl.client_seed = "alice";
    pl.deals = seen;
    pl.ndeals = 2;
    assert_string_equal(check(&pl), "honest");
    seen[1].nonce = 2;
    assert_string_equal(check(&pl), "deal-missing");
    seen[1].nonce = 1;
    seen[1].len -= 3; /* the last card left out */
    assert_string_equal(check(&pl), "deal-differs");
    assert_int_equal(res.line, 4);
    assert_int_equal(res.player_period, 1);
    assert_int_equal(res.unseen_before + res.unseen_between, 0);
    /* deals alone: inconclusive without the commitment, and they go to the
     * last period WITH a deal (a rotated log ends with the next commit) */
    pl.commitment = NULL;
    pl.client_seed = NULL;
    fs_fair_period p3;
    assert_int_equal(fs_fair_period_begin(&p3, "bridge", 0, 0, line,
                                          sizeof line), FS_OK);
    add(line);
    seen[0].tsv = tsv[0];
    seen[0].len = strlen(tsv[0]);
    seen[1].len = strlen(tsv[1]);
    pl.ndeals = 1;
    assert_string_equal(check(&pl), "deal-differs"); /* bob's period 2 */
    assert_int_equal(res.line, 8);
    assert_int_equal(res.player_period, 2);
    pl.commitment = p1.commitment;
    assert_string_equal(check(&pl), "honest");
    /* the deals of the period the player did not see (M10): nonce 1 alone
     * leaves nonce 0 before it; nonces 0 and 1 leave none */
    seen[0] = seen[1];
    pl.ndeals = 1;
    assert_string_equal(check(&pl), "honest");
    assert_int_equal(res.unseen_before, 1);
    assert_int_equal(res.unseen_between, 0);
    /* a dishonest finding wins over an inconclusive one on an earlier line:
     * period 3 open with deals (unrevealed, line 11) and a deal missing
     * (line 0) */
    two_periods();
    period(&p1, "carol", 1, 0);
    pl.commitment = p1.commitment;
    pl.client_seed = NULL;
    seen[0].nonce = 5;
    assert_string_equal(check(&pl), "deal-missing");
    assert_int_equal(res.verdict, FS_FAIR_DISHONEST);
    /* the first broken rule is the one on the smallest line */
    two_periods();
    edit(9, "\"nonce\":1", "\"nonce\":3");
    edit(4, "\"nonce\":1", "\"nonce\":5");
    expect("nonce", 4);
    assert_true(res.findings >= 2);
}

/* fairshuf-pf-1 logs still check by their own rules. */
static void test_v1_log(void **state)
{
    (void)state;
    uint8_t seed[32], c[32];
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)i;
    fs_fair_commitment(seed, c);
    static fs_fair_record r;
    reset();
    memset(&r, 0, sizeof r);
    strcpy(r.scheme, FS_FAIR_SCHEME_V1);
    r.event = FS_FAIR_COMMIT;
    memcpy(r.value, c, 32);
    assert_true(fs_fair_record_write(&r, line, sizeof line) > 0);
    add(line);
    fs_dealer_init(&dealer, fs_game_find("bridge"), 0, 0, FS_ALG_AUTO);
    for (int k = 0; k < 3; k++) {
        r.event = FS_FAIR_DEAL;
        r.nonce = (uint64_t)k;
        strcpy(r.client_seed, "a\\\"b");
        strcpy(r.game, "bridge");
        r.players = 4;
        r.decks = 1;
        fs_fair_deal(seed, &dealer, r.client_seed, r.nonce, &deal);
        fs_fair_deal_tsv(&deal, &dealer, r.deal, sizeof r.deal);
        assert_true(fs_fair_record_write(&r, line, sizeof line) > 0);
        add(line);
    }
    assert_string_equal(check(NULL), "unrevealed");
    assert_int_equal(res.unrevealed, 3);
    assert_string_equal(res.client_seed, "a\\\"b");
    r.event = FS_FAIR_REVEAL;
    memcpy(r.value, seed, 32);
    fs_fair_record_write(&r, line, sizeof line);
    add(line);
    fs_fair_player pl = {c, "a\\\"b", NULL, 0, NULL};
    assert_string_equal(check(&pl), "honest");
    assert_int_equal(res.checked, 3);
    pl.client_seed = "ab";
    assert_string_equal(check(&pl), "client-seed-mismatch");
    /* a v1 period committed again: reused client seed, recommitted */
    r.event = FS_FAIR_COMMIT;
    memcpy(r.value, c, 32);
    fs_fair_record_write(&r, line, sizeof line);
    add(line);
    r.event = FS_FAIR_DEAL;
    r.nonce = 0;
    fs_fair_deal(seed, &dealer, r.client_seed, 0, &deal);
    fs_fair_deal_tsv(&deal, &dealer, r.deal, sizeof r.deal);
    fs_fair_record_write(&r, line, sizeof line);
    add(line);
    expect("recommitted", 6);
    /* a v1 period revealed with no deal is allowed (pf-1 rules) */
    reset();
    r.event = FS_FAIR_COMMIT;
    memcpy(r.value, c, 32);
    fs_fair_record_write(&r, line, sizeof line);
    add(line);
    r.event = FS_FAIR_REVEAL;
    memcpy(r.value, seed, 32);
    fs_fair_record_write(&r, line, sizeof line);
    add(line);
    expect("empty-log", 0);
}

/* fs_fair_deal_tsv's code table is fs_card_code's, card by card. */
static void test_deal_tsv_codes(void **state)
{
    (void)state;
    static fs_deal d;
    static char want[FS_FAIR_TSV_MAX + 1], got[FS_FAIR_TSV_MAX + 1];
    memset(&d, 0, sizeof d);
    size_t n = 0, w = 0;
    for (fs_card c = 0; c < FS_TILE_END + 8; c++) {
        char code[3];
        if (fs_card_code(c, code) != FS_OK)
            continue;
        d.cards[n++] = c;
        w += (size_t)sprintf(want + w, "%s%s", w ? (n == 3 ? "\t" : " ") : "",
                             code);
    }
    d.nparts = 2;
    d.part[0].count = 2;
    d.part[1].offset = 2;
    d.part[1].count = n - 2;
    d.ncards = n;
    assert_int_equal(fs_fair_deal_tsv(&d, NULL, got, sizeof got), (int)w);
    assert_string_equal(got, want);
    assert_int_equal(fs_fair_deal_tsv(&d, NULL, got, w), FS_ERANGE);
    d.cards[5] = 60; /* not a card */
    assert_int_equal(fs_fair_deal_tsv(&d, NULL, got, sizeof got), FS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_period_machine),
        cmocka_unit_test(test_client_seed_rule),
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_v1_log),
        cmocka_unit_test(test_deal_tsv_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
