/* test_vrf_scheme.c -- scheme fairshuf-vrf-1 (include/fairshuf/vrf.h):
 * alpha's bytes, the hand's record (write, parse, round trip), the check of
 * one hand, and the log rules, one test per threat of docs/provably-fair.md
 * "Scheme fairshuf-vrf-1" (each fails when its rule is removed: the rules'
 * mutants in lib/vrf/MUTANTS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fairshuf/vrf.h"

static uint8_t sk[32], pk[32], sk2[32], pk2[32];
static fs_vrf_record rec, mine[4];
static fs_dealer dealer;
static fs_deal deal;
static char line[FS_VRF_LINE_MAX + 1];
static char logbuf[1 << 17];
static size_t loglen;
static fs_vrf_log_result res;

static int setup(void **state)
{
    (void)state;
    /* RFC 9381 Example 16's key: the vectors in the docs use it. */
    assert_int_equal(fs_hex_decode("9d61b19deffd5a60ba844af492ec2cc44449c5697"
                                   "b326919703bac031cae7f60", sk, 32), FS_OK);
    assert_int_equal(fs_vrf_public_key(sk, pk), FS_OK);
    assert_int_equal(fs_vrf_keygen(sk2, pk2), FS_OK);
    return 0;
}

static void add(const char *l)
{
    size_t n = strlen(l);
    assert_true(loglen + n + 1 < sizeof logbuf);
    memcpy(logbuf + loglen, l, n);
    logbuf[loglen + n] = '\n';
    loglen += n + 1;
}

static void reset(void)
{
    loglen = 0;
}

static const char *seeds2[] = {"alice", "bob"};

/* A table record for name with the given seeds committed. */
static void table_rec(const uint8_t *key, const char *name, size_t n,
                      const char *const *seeds)
{
    memset(&rec, 0, sizeof rec);
    rec.event = FS_VRF_TABLE;
    memcpy(rec.public_key, key, 32);
    strcpy(rec.table, name);
    strcpy(rec.game, "holdem");
    rec.players = 2;
    rec.decks = 1;
    rec.nseeds = n;
    for (size_t i = 0; i < n; i++)
        fs_vrf_seed_commitment(seeds[i], rec.commitments[i]);
    assert_true(fs_vrf_record_write(&rec, line, sizeof line) > 0);
    add(line);
}

/* Proves hand h of table name with seeds under key k into rec. */
static void hand_rec(const uint8_t *k, const char *name, uint64_t h,
                     size_t n, const char *const *seeds)
{
    memset(&rec, 0, sizeof rec);
    strcpy(rec.table, name);
    strcpy(rec.game, "holdem");
    rec.players = 2;
    rec.hand = h;
    rec.nseeds = n;
    for (size_t i = 0; i < n; i++)
        strcpy(rec.client_seeds[i], seeds[i]);
    assert_int_equal(fs_vrf_hand(k, &rec, &dealer, &deal), FS_OK);
}

static void put_hand(void)
{
    assert_true(fs_vrf_record_write(&rec, line, sizeof line) > 0);
    add(line);
}

static const char *check_mine(size_t nmine)
{
    assert_int_equal(fs_vrf_log_check(logbuf, loglen, pk, mine, nmine, NULL,
                                      NULL, &res),
                     FS_OK);
    return res.rule ? res.rule : "honest";
}

static const char *check(void)
{
    return check_mine(0);
}

/* The honest table: a table record and hands 0..n-1. */
static void honest(uint64_t n)
{
    reset();
    table_rec(pk, "t1", 2, seeds2);
    for (uint64_t h = 0; h < n; h++) {
        hand_rec(sk, "t1", h, 2, seeds2);
        put_hand();
    }
}

/* The golden hand of the docs: alpha's bytes, its proof and deal are
 * pinned (a change to any byte of the scheme breaks it). */
static void golden(void **state)
{
    (void)state;
    hand_rec(sk, "t1", 0, 2, seeds2);
    const char want_alpha[] =
        "fairshuf-vrf-1\0d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af02"
        "1a68f707511a\0t1\0holdem\0" "2\0" "1\0" "0\0alice\tbob";
    assert_int_equal(rec.alpha_len, sizeof want_alpha - 1);
    assert_memory_equal(rec.alpha, want_alpha, sizeof want_alpha - 1);
    char pih[161];
    fs_hex_encode(rec.pi, 80, pih);
    assert_string_equal(pih, "4c05d4c2722fd26acd50d89769b137bd5ef4c971fe9f"
                             "bb83ff21f89fbb05b2f18ad09e00ce5e41197fce1d1c"
                             "f68d9d0b2dff6fd2340f899bd94b27e63a7d0b11dc21"
                             "8559e636f8878b357188eb05b902");
    assert_string_equal(rec.deal, "5h Qs\t7d Ks\tTh As 7h\t3c\t6c");
}

static void record_round_trip(void **state)
{
    (void)state;
    static fs_vrf_record back;
    const char *why;
    hand_rec(sk, "table \"7\" \xe9\xbe\x99", 41, 2, seeds2);
    int n = fs_vrf_record_write(&rec, line, sizeof line);
    assert_true(n > 0);
    assert_int_equal(fs_vrf_record_parse(line, (size_t)n, &back, &why), FS_OK);
    assert_int_equal(memcmp(&back.pi, rec.pi, 80), 0);
    assert_string_equal(back.table, rec.table);
    assert_string_equal(back.client_seeds[1], "bob");
    assert_int_equal(back.alpha_len, rec.alpha_len);
    assert_int_equal(fs_vrf_hand_check(pk, &back, &dealer, &deal, NULL, NULL),
                     FS_FAIR_HONEST);
    /* Malformed records. */
    const char *bad[] = {
        "{}", "[]", "{\"scheme\":\"fairshuf-pf-2\",\"event\":\"hand\"}",
        "{\"scheme\":\"fairshuf-vrf-1\",\"event\":\"deal\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(fs_vrf_record_parse(bad[i], strlen(bad[i]), &back,
                                             &why), FS_EINVAL);
    /* a key missing; upper-case hex; an extra key */
    char *p = strstr(line, ",\"deal\"");
    assert_non_null(p);
    assert_int_equal(fs_vrf_record_parse(line, (size_t)(p - line), &back,
                                         &why), FS_EINVAL);
    strcpy(p, "}");
    assert_int_equal(fs_vrf_record_parse(line, strlen(line), &back, &why),
                     FS_EINVAL);
    /* a seed with a control character cannot be proven */
    const char *ctl[] = {"al\x01" "ce"};
    memset(&rec, 0, sizeof rec);
    strcpy(rec.table, "t1");
    strcpy(rec.game, "holdem");
    rec.nseeds = 1;
    strcpy(rec.client_seeds[0], ctl[0]);
    assert_int_equal(fs_vrf_hand(sk, &rec, &dealer, &deal), FS_EINVAL);
}

static void honest_log(void **state)
{
    (void)state;
    honest(5);
    assert_string_equal(check(), "honest");
    assert_int_equal(res.verdict, FS_FAIR_HONEST);
    assert_int_equal(res.hands, 5);
    assert_int_equal(res.proven, 5);
    assert_int_equal(res.tables, 1);
    reset();
    assert_string_equal(check(), "empty-log");
    assert_int_equal(res.verdict, FS_FAIR_INCONCLUSIVE);
    table_rec(pk, "t1", 2, seeds2);
    assert_string_equal(check(), "empty-log");
}

/* Threat: the dealer chooses alpha.  A valid proof of another alpha (here
 * one naming another hand number) under the right key: bad-alpha. */
static void dealer_chooses_alpha(void **state)
{
    (void)state;
    honest(2);
    hand_rec(sk, "t1", 7, 2, seeds2);
    rec.hand = 2; /* the record says hand 2, alpha and proof are hand 7's */
    put_hand();
    assert_string_equal(check(), "bad-alpha");
    assert_int_equal(res.line, 4);
    assert_int_equal(res.verdict, FS_FAIR_DISHONEST);
}

/* Threat: re-dealing after seeing beta.  The same hand number again
 * (another deal needs another alpha: here other seeds) or a skipped one. */
static void redeal_and_skip(void **state)
{
    (void)state;
    honest(3);
    hand_rec(sk, "t1", 2, 2, seeds2);
    put_hand();
    assert_string_equal(check(), "hand-number");
    assert_int_equal(res.line, 5);
    honest(2);
    hand_rec(sk, "t1", 3, 2, seeds2); /* hand 2 never proven */
    put_hand();
    assert_string_equal(check(), "hand-number");
    assert_int_equal(res.line, 4);
}

/* A voided hand is logged with its proof: honest, counted. A void with a
 * bad proof is as dishonest as a hand's. */
static void void_hand(void **state)
{
    (void)state;
    honest(2);
    hand_rec(sk, "t1", 2, 2, seeds2);
    rec.event = FS_VRF_VOID;
    put_hand();
    hand_rec(sk, "t1", 3, 2, seeds2);
    put_hand();
    assert_string_equal(check(), "honest");
    assert_int_equal(res.voids, 1);
    assert_int_equal(res.hands, 3);
    assert_int_equal(res.proven, 4);
    honest(1);
    hand_rec(sk, "t1", 1, 2, seeds2);
    rec.event = FS_VRF_VOID;
    rec.pi[40] ^= 1;
    put_hand();
    assert_string_equal(check(), "bad-proof");
}

/* Threat: a player (with the dealer) picks a seed after seeing the others'.
 * Seeds are committed in the table record first; a hand with any other
 * seed, or a hand before its table record, is dishonest. */
static void seed_not_committed(void **state)
{
    (void)state;
    const char *other[] = {"alice", "mallory"};
    honest(1);
    hand_rec(sk, "t1", 1, 2, other);
    put_hand();
    assert_string_equal(check(), "seed-not-committed");
    assert_int_equal(res.line, 3);
    const char *one[] = {"alice"};
    honest(1);
    hand_rec(sk, "t1", 1, 1, one);
    put_hand();
    assert_string_equal(check(), "seed-not-committed");
    reset();
    hand_rec(sk, "t1", 0, 2, seeds2);
    put_hand();
    table_rec(pk, "t1", 2, seeds2);
    assert_string_equal(check(), "order");
    assert_int_equal(res.line, 1);
}

/* A table name opened twice would restart its hand numbers; a table left
 * with no hand before the next one was abandoned after its seeds were seen.
 * A hand dealt for another game than its table's. */
static void table_rules(void **state)
{
    (void)state;
    honest(1);
    table_rec(pk, "t1", 2, seeds2);
    hand_rec(sk, "t1", 0, 2, seeds2);
    put_hand();
    assert_string_equal(check(), "table-reused");
    assert_int_equal(res.line, 3);
    reset();
    table_rec(pk, "t1", 2, seeds2);
    table_rec(pk, "t2", 2, seeds2);
    hand_rec(sk, "t2", 0, 2, seeds2);
    put_hand();
    assert_string_equal(check(), "abandoned");
    assert_int_equal(res.line, 1);
    honest(1);
    memset(&rec, 0, sizeof rec);
    strcpy(rec.table, "t1");
    strcpy(rec.game, "poker5");
    rec.hand = 1;
    rec.nseeds = 2;
    strcpy(rec.client_seeds[0], "alice");
    strcpy(rec.client_seeds[1], "bob");
    assert_int_equal(fs_vrf_hand(sk, &rec, &dealer, &deal), FS_OK);
    put_hand();
    assert_string_equal(check(), "table-changed");
    /* a table the game does not allow: malformed, the check stops */
    honest(1);
    hand_rec(sk, "t1", 1, 2, seeds2);
    rec.players = 11; /* holdem: 2 to 10 */
    put_hand();
    hand_rec(sk, "t1", 5, 2, seeds2);
    put_hand();
    assert_string_equal(check(), "malformed");
    assert_int_equal(res.line, 3);
    assert_int_equal(res.findings, 1);
}

/* Threat: a proof for another key.  A log of another key's records; a
 * record naming the dealer's key with another key's proof. */
static void another_key(void **state)
{
    (void)state;
    reset();
    table_rec(pk2, "t1", 2, seeds2);
    hand_rec(sk2, "t1", 0, 2, seeds2);
    put_hand();
    assert_string_equal(check(), "other-key");
    assert_int_equal(res.line, 1);
    honest(1);
    hand_rec(sk2, "t1", 1, 2, seeds2);
    memcpy(rec.public_key, pk, 32);
    fs_vrf_alpha(&rec, rec.alpha, sizeof rec.alpha, &rec.alpha_len);
    put_hand();
    assert_string_equal(check(), "bad-proof");
}

/* The deal must be beta's; any byte of the proof changed is caught. */
static void bad_deal_and_proof(void **state)
{
    (void)state;
    honest(1);
    hand_rec(sk, "t1", 1, 2, seeds2);
    char *c = strchr(rec.deal, ' ');
    assert_non_null(c);
    char t = c[-1]; /* swap two cards of hand 1 */
    c[-1] = c[2];
    c[2] = t;
    put_hand();
    assert_string_equal(check(), "bad-deal");
    for (int i = 0; i < 80; i += 7) {
        honest(1);
        hand_rec(sk, "t1", 1, 2, seeds2);
        rec.pi[i] ^= 0x10;
        put_hand();
        assert_string_equal(check(), "bad-proof");
    }
    honest(2);
    logbuf[loglen - 2] = 'x'; /* the last record's closing brace */
    assert_string_equal(check(), "malformed");
}

/* Threat: a hand never proven.  The player brings the records they
 * received: one missing from the log, one that differs. */
static void player_hands(void **state)
{
    (void)state;
    honest(3);
    hand_rec(sk, "t1", 1, 2, seeds2);
    mine[0] = rec;
    assert_string_equal(check_mine(1), "honest");
    hand_rec(sk, "t1", 3, 2, seeds2); /* dealt to the player, not logged */
    mine[1] = rec;
    assert_string_equal(check_mine(2), "hand-missing");
    assert_int_equal(res.line, 0);
    honest(3);
    hand_rec(sk, "t1", 2, 2, seeds2);
    mine[0] = rec;
    mine[0].deal[0] = mine[0].deal[0] == 'A' ? 'K' : 'A';
    assert_string_equal(check_mine(1), "hand-differs");
    assert_int_equal(res.line, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden),
        cmocka_unit_test(record_round_trip),
        cmocka_unit_test(honest_log),
        cmocka_unit_test(dealer_chooses_alpha),
        cmocka_unit_test(redeal_and_skip),
        cmocka_unit_test(void_hand),
        cmocka_unit_test(seed_not_committed),
        cmocka_unit_test(table_rules),
        cmocka_unit_test(another_key),
        cmocka_unit_test(bad_deal_and_proof),
        cmocka_unit_test(player_hands),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
