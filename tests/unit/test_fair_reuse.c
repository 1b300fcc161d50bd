/* test_fair_reuse.c -- fs_fair_client_seed_used: the rule a server asks
 * before it records a client seed (no client seed in two periods of a
 * table's log), over pf-2 client_seed records, deals and pf-1 logs. */
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
static char logbuf[1 << 15];
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
}

/* A pf-2 period: commit, client seed, n deals, reveal. */
static void period(const char *client, int n)
{
    static fs_fair_period p;
    assert_int_equal(fs_fair_period_begin(&p, "bridge", 0, 0, line,
                                          sizeof line), FS_OK);
    add(line);
    assert_int_equal(fs_fair_period_client_seed(&p, client, line, sizeof line,
                                                NULL), FS_OK);
    add(line);
    assert_int_equal(fs_fair_period_applied(&p, line), FS_OK);
    for (int i = 0; i < n; i++) {
        uint64_t nonce;
        assert_int_equal(fs_fair_period_deal(&p, &dealer, &deal, &nonce, line,
                                             sizeof line), FS_OK);
        add(line);
        assert_int_equal(fs_fair_period_applied(&p, line), FS_OK);
    }
    assert_int_equal(fs_fair_period_reveal(&p, line, sizeof line), FS_OK);
    add(line);
}

static void test_used(void **state)
{
    (void)state;
    size_t at = 99;
    loglen = 0;
    assert_int_equal(fs_fair_client_seed_used(NULL, 0, "alice", &at), 0);
    assert_int_equal(at, 0);
    period("alice", 2);          /* lines 1-5 */
    period("bob", 1);            /* lines 6-9 */
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "alice", &at),
                     1);
    assert_int_equal(at, 2);
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "bob", &at), 1);
    assert_int_equal(at, 7);
    /* a prefix, a suffix, another case: different seeds */
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "alic", &at), 0);
    assert_int_equal(at, 0);
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "alicee", NULL),
                     0);
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "Alice", NULL),
                     0);
    /* the last line without its '\n', and empty lines, are read */
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen - 1, "bob", &at),
                     1);
    static char gap[sizeof logbuf + 2];
    gap[0] = '\n';
    memcpy(gap + 1, logbuf, loglen);
    assert_int_equal(fs_fair_client_seed_used(gap, loglen + 1, "bob", &at), 1);
    assert_int_equal(at, 8);
    /* the commitment's hex or a game name is no client seed */
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "bridge", NULL),
                     0);
}

/* Only the deal records of a pf-1 period carry its client seed. */
static void test_deal_only(void **state)
{
    (void)state;
    loglen = 0;
    period("carol", 1);
    /* keep the commit and the deal, drop the client_seed record */
    char *first = memchr(logbuf, '\n', loglen) + 1;
    char *second = memchr(first, '\n', loglen - (size_t)(first - logbuf)) + 1;
    memmove(first, second, loglen - (size_t)(second - logbuf));
    loglen -= (size_t)(second - first);
    size_t at;
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "carol", &at),
                     1);
    assert_int_equal(at, 2);
    add("{\"scheme\":\"fairshuf-pf-1\",\"event\":\"deal\",\"nonce\":0,"
        "\"client_seed\":\"dave\",\"game\":\"bridge\",\"players\":4,"
        "\"decks\":1,\"deal\":\"x\"}");
    assert_int_equal(fs_fair_client_seed_used(logbuf, loglen, "dave", &at),
                     1);
    assert_int_equal(at, 4);
}

static void test_errors(void **state)
{
    (void)state;
    size_t at = 5;
    assert_int_equal(fs_fair_client_seed_used(NULL, 3, "a", &at), FS_EINVAL);
    assert_int_equal(at, 0);
    assert_int_equal(fs_fair_client_seed_used("", 0, NULL, NULL), FS_EINVAL);
    static const char junk[] = "{\"scheme\":\"fairshuf-pf-2\",\"event\":"
                               "\"client_seed\",\"client_seed\":\"a\"}\nnot a "
                               "record\n";
    /* a used seed before the bad line is found; after it, an error */
    assert_int_equal(fs_fair_client_seed_used(junk, sizeof junk - 1, "a", NULL),
                     1);
    assert_int_equal(fs_fair_client_seed_used(junk, sizeof junk - 1, "b", NULL),
                     FS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_used),
        cmocka_unit_test(test_deal_only),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
