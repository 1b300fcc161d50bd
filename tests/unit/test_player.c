/* test_player.c -- the player a music player ships (fs_player,
 * <fairshuf/playlist.h>): the plain order is fs_playlist's; a save/load
 * round trip continues the same; queue (play next) and seek_item (start
 * from this song), also across a cycle end and after prev; list edits
 * (nothing replayed, added items later, removed skipped); spread and
 * weights over 3 cycles with the window rule (plain order as the control
 * that fails the spread bound); and the state text refused when damaged,
 * truncated, of another version or holding a NUL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/playlist.h"
#include "support/library.h"

static const uint8_t key[32] = {1, 2, 3, 4, 5, 6, 7, 8};
static const uint8_t fp1[32] = {1}, fp2[32] = {2}, fp3[32] = {3};

/* A player over items with ids base+0 .. base+n-1 (any distinct ids do). */
static fs_player *player(size_t n, fs_player_order order,
                         const uint64_t *group, const double *weight)
{
    fs_player *p;
    assert_int_equal(fs_player_create(&p, key, FS_PLAYLIST_WINDOW_DEFAULT,
                                      order, 7, NULL), FS_OK);
    uint64_t *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++)
        ids[i] = 1000 + i;
    assert_int_equal(fs_player_set_list(p, n, ids, fp1, group, weight, NULL),
                     FS_OK);
    free(ids);
    return p;
}

/* Saves and loads p; gives it its list again first (the one it was saved
 * with, which a player needs to tell what was played if the list changed),
 * then the new one. */
static const uint64_t *saved_ids, *saved_group;
static size_t saved_n;
static const uint8_t *saved_fp;

static fs_player *reload(fs_player *p, size_t n, const uint64_t *ids,
                         const uint8_t *fp, const uint64_t *group,
                         const double *weight, int *changed)
{
    size_t len;
    assert_int_equal(fs_player_save(p, NULL, 0, &len), FS_OK);
    char *text = malloc(len);
    assert_int_equal(fs_player_save(p, text, len, &len), FS_OK);
    fs_player_free(p);
    const char *why;
    assert_int_equal(fs_player_load(&p, text, len, &why), FS_OK);
    free(text);
    if (saved_ids && memcmp(saved_fp, fp, 32) != 0) {
        /* without the saved list the player cannot tell what was played */
        assert_int_equal(fs_player_set_list(p, n, ids, fp, group, weight,
                                            changed), FS_ENOTFOUND);
        assert_int_equal(fs_player_set_list(p, saved_n, saved_ids, saved_fp,
                                            saved_group, weight, NULL), FS_OK);
    }
    assert_int_equal(fs_player_set_list(p, n, ids, fp, group, weight, changed),
                     FS_OK);
    saved_ids = ids;
    saved_n = n;
    saved_fp = fp;
    saved_group = group;
    return p;
}

static size_t next(fs_player *p)
{
    size_t x = SIZE_MAX;
    assert_int_equal(fs_player_next(p, &x), FS_OK);
    return x;
}

static void plain_is_the_keyed_order(void **s)
{
    (void)s;
    const size_t n = 37;
    uint64_t ids[37];
    for (size_t i = 0; i < n; i++)
        ids[i] = 1000 + i;
    fs_player *p = player(n, FS_PLAYER_PLAIN, NULL, NULL);
    fs_playlist pl;
    assert_int_equal(fs_playlist_init(&pl, n, key, FS_PLAYLIST_WINDOW_DEFAULT),
                     FS_OK);
    for (size_t k = 0; k < 3 * n; k++) {
        uint64_t want;
        assert_int_equal(fs_playlist_next(&pl, &want), FS_OK);
        assert_true(next(p) == want);
        if (k % 10 == 3) /* a save/load round trip changes nothing */
            p = reload(p, n, ids, fp1, NULL, NULL, NULL);
    }
    fs_player_free(p);
}

static int seen_once(const size_t *x, size_t m, size_t n)
{
    unsigned char *seen = calloc(n, 1);
    int ok = 1;
    for (size_t i = 0; i < m; i++) {
        ok &= x[i] < n && !seen[x[i]];
        if (x[i] < n)
            seen[x[i]] = 1;
    }
    free(seen);
    return ok;
}

static void queue_plays_next_not_again(void **s)
{
    (void)s;
    const size_t n = 30;
    uint64_t ids[30];
    for (size_t i = 0; i < n; i++)
        ids[i] = 1000 + i;
    fs_player *p = player(n, FS_PLAYER_PLAIN, NULL, NULL);
    size_t cyc[30], m = 0;
    for (int k = 0; k < 5; k++)
        cyc[m++] = next(p);
    /* two items not played yet, queued in order */
    size_t a = SIZE_MAX, b = SIZE_MAX;
    for (size_t i = 0; i < n && b == SIZE_MAX; i++) {
        int played = 0;
        for (size_t k = 0; k < m; k++)
            played |= cyc[k] == i;
        if (!played && a == SIZE_MAX)
            a = i;
        else if (!played)
            b = i;
    }
    assert_int_equal(fs_player_queue(p, a), FS_OK);
    assert_int_equal(fs_player_queue(p, b), FS_OK);
    /* the queue is bounded (so is the state): full is refused, unchanged */
    fs_player *full = player(n, FS_PLAYER_PLAIN, NULL, NULL);
    for (int k = 0; k < FS_PLAYER_QUEUE_MAX; k++)
        assert_int_equal(fs_player_queue(full, (size_t)k % n), FS_OK);
    assert_int_equal(fs_player_queue(full, 0), FS_ERANGE);
    size_t full_len;
    assert_int_equal(fs_player_save(full, NULL, 0, &full_len), FS_OK);
    assert_true(full_len < 512 + 17 * (FS_PLAYER_QUEUE_MAX + 64 + n));
    fs_player_free(full);
    p = reload(p, n, ids, fp1, NULL, NULL, NULL);
    assert_true((cyc[m++] = next(p)) == a);
    assert_true((cyc[m++] = next(p)) == b);
    while (m < n)
        cyc[m++] = next(p);
    assert_true(seen_once(cyc, n, n));
    /* across the cycle end: the queued one, then a whole cycle */
    assert_int_equal(fs_player_queue(p, 3), FS_OK);
    assert_true(next(p) == 3);
    for (m = 0; m < n; m++)
        cyc[m] = next(p);
    assert_true(seen_once(cyc, n, n));
    /* after prev: played x1..x4, back to x2; queue q; then q, x3, x4, rest */
    size_t h[4];
    for (int k = 0; k < 4; k++)
        h[k] = next(p);
    size_t x;
    assert_int_equal(fs_player_prev(p, &x), FS_OK);
    assert_int_equal(fs_player_prev(p, &x), FS_OK);
    assert_true(x == h[1]);
    size_t q = SIZE_MAX;
    for (size_t i = 0; i < n && q == SIZE_MAX; i++)
        if (i != h[0] && i != h[1] && i != h[2] && i != h[3])
            q = i;
    assert_int_equal(fs_player_queue(p, q), FS_OK);
    p = reload(p, n, ids, fp1, NULL, NULL, NULL);
    assert_true(next(p) == q);
    assert_true(next(p) == h[2]);
    assert_true(next(p) == h[3]);
    size_t all[31] = {h[0], h[1], q, h[2], h[3]};
    for (m = 5; m < n + 1; m++)
        all[m] = next(p);
    /* this cycle is the 30 items, q once; the 31st opens the next */
    assert_true(seen_once(all, n, n));
    assert_int_equal(fs_player_queue(p, n), FS_EINVAL);
    fs_player_free(p);
}

static void seek_item_starts_a_cycle(void **s)
{
    (void)s;
    const size_t n = 25;
    uint64_t ids[25];
    for (size_t i = 0; i < n; i++)
        ids[i] = 1000 + i;
    fs_player *p = player(n, FS_PLAYER_PLAIN, NULL, NULL);
    for (int k = 0; k < 7; k++)
        next(p);
    assert_int_equal(fs_player_seek_item(p, 11), FS_OK);
    size_t x, cyc[25] = {11};
    assert_int_equal(fs_player_current(p, &x), FS_OK);
    assert_true(x == 11);
    p = reload(p, n, ids, fp1, NULL, NULL, NULL);
    for (size_t m = 1; m < n; m++)
        cyc[m] = next(p);
    assert_true(seen_once(cyc, n, n));
    /* prev walks back to the song, not before it */
    for (size_t m = n - 1; m > 0; m--) {
        assert_int_equal(fs_player_prev(p, &x), FS_OK);
        assert_true(x == cyc[m - 1]);
    }
    assert_int_equal(fs_player_prev(p, &x), FS_ERANGE);
    assert_int_equal(fs_player_seek_item(p, n), FS_EINVAL);
    fs_player_free(p);
}

static void edits_replay_nothing(void **s)
{
    (void)s;
    const size_t n = 40;
    uint64_t ids[50];
    for (size_t i = 0; i < n; i++)
        ids[i] = 1000 + i;
    for (int order = 0; order < 2; order++) {
        uint64_t group[50];
        for (size_t i = 0; i < 50; i++)
            group[i] = i % 4;
        fs_player *p = player(n, (fs_player_order)order, order ? group : NULL,
                              NULL);
        saved_ids = ids;
        saved_n = n;
        saved_fp = fp1;
        saved_group = order ? group : NULL;
        uint64_t played[50];
        size_t m = 0;
        for (int k = 0; k < 12; k++)
            played[m++] = ids[next(p)];
        /* remove the first 5 items of the list, add 10 new ones */
        uint64_t nid[45];
        size_t nn = 0;
        for (size_t i = 5; i < n; i++)
            nid[nn++] = ids[i];
        for (size_t i = 0; i < 10; i++)
            nid[nn++] = 5000 + i;
        int changed;
        p = reload(p, nn, nid, fp2, order ? group : NULL, NULL, &changed);
        assert_int_equal(changed, 1);
        uint64_t len = fs_player_cycle_length(p);
        size_t rest = 0;
        for (size_t i = 0; i < nn; i++) {
            int was = 0;
            for (size_t k = 0; k < m; k++)
                was |= played[k] == nid[i];
            rest += !was;
        }
        for (size_t k = 0; k < rest; k++) {
            uint64_t id = nid[next(p)];
            for (size_t j = 0; j < m; j++)
                assert_true(played[j] != id); /* nothing replayed */
            played[m++] = id;
        }
        (void)len;
        /* the next cycle: the new list, each once */
        size_t cyc[45];
        for (size_t k = 0; k < nn; k++)
            cyc[k] = next(p);
        assert_true(seen_once(cyc, nn, nn));
        /* the same list again is no change */
        p = reload(p, nn, nid, fp2, order ? group : NULL, NULL, &changed);
        assert_int_equal(changed, 0);
        (void)fp3;
        fs_player_free(p);
        saved_ids = NULL;
    }
}

/* 100 items: 60 of group 0, 40 over groups 1..10. */
static void library(uint64_t *group)
{
    for (size_t i = 0; i < 100; i++)
        group[i] = i < 60 ? 0 : 1 + (i - 60) / 4;
}

static unsigned adjacent(const uint64_t *group, const size_t *x, size_t n)
{
    unsigned a = 0;
    for (size_t i = 1; i < n; i++)
        a += group[x[i]] == group[x[i - 1]];
    return a;
}

static unsigned player_adjacency(fs_player_order order, const uint64_t *group)
{
    fs_player *p = player(100, order, order ? group : NULL, NULL);
    unsigned adj = 0;
    size_t cyc[3][100];
    for (int c = 0; c < 3; c++) {
        for (size_t k = 0; k < 100; k++)
            cyc[c][k] = next(p);
        assert_true(seen_once(cyc[c], 100, 100));
        adj += adjacent(group, cyc[c], 100);
    }
    /* each cycle its own order (beyond the first 2w the window rule moves) */
    for (int c = 0; c < 2; c++) {
        unsigned same = 0;
        for (size_t k = 20; k < 100; k++)
            same += cyc[c][k] == cyc[c + 1][k];
        assert_true(same < 40);
    }
    /* the window rule (w = 10) at both cycle ends */
    for (int c = 0; c < 2; c++)
        for (size_t a = 90; a < 100; a++)
            for (size_t b = 0; b < 10; b++)
                assert_true(cyc[c][a] != cyc[c + 1][b]);
    fs_player_free(p);
    return adj;
}

static void spread_three_cycles(void **s)
{
    (void)s;
    uint64_t group[100];
    library(group);
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "chacha20", "spread-player"), FS_OK);
    unsigned stateless = 0;
    uint64_t order[100];
    size_t o[100];
    for (int c = 0; c < 3; c++) {
        assert_int_equal(fs_spread_order(group, 100, order, rng), FS_OK);
        for (size_t i = 0; i < 100; i++)
            o[i] = (size_t)order[i];
        stateless += adjacent(group, o, 100);
    }
    fs_rng_free(rng);
    unsigned spread = player_adjacency(FS_PLAYER_SPREAD, group);
    unsigned plain = player_adjacency(FS_PLAYER_PLAIN, group);
    print_message("adjacent pairs over 3 cycles: player %u, stateless %u, "
                  "plain %u (minimum 57)\n", spread, stateless, plain);
    assert_true(spread >= 57);
    assert_true(10 * spread <= 11 * stateless);
    assert_true(10 * plain > 11 * stateless); /* the control fails it */
}

/* The expected adjacent same-group pairs of a uniformly shuffled line of
 * the n items group[idx[0..n)]: sum over groups of c(c-1)/n. */
static double plain_expectation(const uint64_t *group, const size_t *idx,
                                size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            c += group[idx[j]] == group[idx[i]];
        sum += (double)(c - 1) / n; /* each of the c items adds (c-1)/n */
    }
    return sum;
}

/* Adjacent pairs of fs_spread_order (the stateless order) over the items
 * idx[0..n), for the same item set. */
static unsigned stateless_adjacency(const uint64_t *group, const size_t *idx,
                                    size_t n, fs_rng *rng)
{
    uint64_t *g = malloc(n * sizeof *g), *order = malloc(n * sizeof *order);
    size_t *x = malloc(n * sizeof *x);
    assert_true(g != NULL && order != NULL && x != NULL && n > 0);
    for (size_t i = 0; i < n; i++)
        g[i] = group[idx[i]];
    assert_int_equal(fs_spread_order(g, n, order, rng), FS_OK);
    for (size_t i = 0; i < n; i++)
        x[i] = idx[order[i]];
    unsigned a = adjacent(group, x, n);
    free(g);
    free(order);
    free(x);
    return a;
}

/* The realistic library (support/library.c, test_spread.c's: 120 of 300
 * songs by one artist, a Zipf tail of 40): 100 songs of cycle 0, then 20
 * songs not played yet removed and 30 added (10 by the big artist, 20 by
 * 5 new ones), the rest of cycle 0 and 2 more cycles.  Each cycle is its
 * list's songs once.  Spread quality = the share of a plain shuffle's
 * expected adjacent same-artist pairs an order avoids; the player's is
 * within 10% of the stateless order's (fs_spread_order on each cycle's
 * song set), and the plain player, the control, is not. */
static double realistic_quality(fs_player_order order, double *stateless_q)
{
    enum { N0 = LIBRARY_N, N1 = LIBRARY_N - 20 + 30 };
    uint64_t group[N0], ids0[N0], ids1[N1], g1[N1];
    library_artists(group);
    for (size_t i = 0; i < N0; i++)
        ids0[i] = 1000 + i;
    fs_player *p = player(N0, order, order ? group : NULL, NULL);
    saved_ids = ids0;
    saved_n = N0;
    saved_fp = fp1;
    saved_group = order ? group : NULL;
    size_t cyc0[N1 + 100], m = 0;
    unsigned char played[N0] = {0};
    for (; m < 100; m++)
        played[cyc0[m] = next(p)] = 1;
    /* the new list: the old minus 20 unplayed (every 7th), plus 30 new */
    size_t nn = 0, removed = 0, old_of[N1];
    for (size_t i = 0; i < N0; i++) {
        if (!played[i] && i % 7 == 0 && removed < 20) {
            removed++;
            continue;
        }
        old_of[nn] = i;
        g1[nn] = group[i];
        ids1[nn++] = ids0[i];
    }
    assert_true(removed == 20);
    for (size_t k = 0; k < 30; k++) {
        old_of[nn] = SIZE_MAX;
        g1[nn] = k < 10 ? 0 : 41 + (k - 10) / 4;
        ids1[nn++] = 5000 + k;
    }
    assert_true(nn == N1);
    int changed;
    p = reload(p, N1, ids1, fp2, order ? g1 : NULL, NULL, &changed);
    assert_int_equal(changed, 1);
    /* cycle 0 goes on: the new list's songs not played yet (210), each
     * once, none of the 100 played; its songs in the new list's groups */
    uint64_t gall[N1 + 100]; /* group of cyc0[k] (old index, then new) */
    size_t idx[N1 + 100];
    for (size_t k = 0; k < 100; k++) {
        gall[k] = group[cyc0[k]];
        idx[k] = k;
    }
    size_t rest = N1 - 100; /* none of the 100 played was removed */
    unsigned char seen[N1] = {0};
    for (size_t k = 0; k < rest; k++, m++) {
        size_t x = next(p);
        assert_true(x < N1 && !seen[x]);
        seen[x] = 1;
        assert_true(old_of[x] == SIZE_MAX || !played[old_of[x]]);
        gall[m] = g1[x];
        idx[m] = m;
    }
    fs_rng *rng;
    assert_int_equal(fs_rng_new(&rng, "chacha20", "realistic-stateless"),
                     FS_OK);
    double plain = plain_expectation(gall, idx, m);
    unsigned got = adjacent(gall, idx, m);
    unsigned base = stateless_adjacency(gall, idx, m, rng);
    /* cycles 1 and 2: the new list, each song once */
    size_t all[N1];
    for (size_t i = 0; i < N1; i++)
        all[i] = i;
    for (int c = 1; c < 3; c++) {
        size_t x[N1];
        for (size_t k = 0; k < N1; k++)
            x[k] = next(p);
        assert_true(seen_once(x, N1, N1));
        plain += plain_expectation(g1, all, N1);
        got += adjacent(g1, x, N1);
        base += stateless_adjacency(g1, all, N1, rng);
    }
    fs_rng_free(rng);
    fs_player_free(p);
    saved_ids = NULL;
    *stateless_q = 1 - base / plain;
    print_message("realistic library, 3 cycles with an edit: %s player %u "
                  "adjacent pairs, stateless %u, plain expectation %.1f\n",
                  order ? "spread" : "plain", got, base, plain);
    return 1 - got / plain;
}

static void spread_realistic_library(void **s)
{
    (void)s;
    double stateless, plain_stateless;
    double q = realistic_quality(FS_PLAYER_SPREAD, &stateless);
    double control = realistic_quality(FS_PLAYER_PLAIN, &plain_stateless);
    print_message("spread quality: player %.3f, stateless %.3f, plain "
                  "player %.3f\n", q, stateless, control);
    assert_true(stateless > 0.9);
    assert_true(q >= 0.9 * stateless);
    assert_false(control >= 0.9 * plain_stateless); /* the control fails */
}

static void weights_three_cycles(void **s)
{
    (void)s;
    double w[12] = {1e300, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    fs_player *p = player(12, FS_PLAYER_WEIGHTS, NULL, w);
    for (int c = 0; c < 3; c++) {
        size_t cyc[11];
        for (size_t k = 0; k < 11; k++) {
            cyc[k] = next(p);
            assert_true(cyc[k] != 1); /* weight 0: never */
        }
        assert_true(seen_once(cyc, 11, 12));
        assert_true(cyc[0] == 0);
    }
    fs_player_free(p);
    double zero[2] = {0, 0};
    uint64_t ids[2] = {1, 2};
    assert_int_equal(fs_player_create(&p, key, 0, FS_PLAYER_WEIGHTS, 1, NULL),
                     FS_OK);
    assert_int_equal(fs_player_set_list(p, 2, ids, fp1, NULL, zero, NULL),
                     FS_EINVAL);
    fs_player_free(p);
}

static void bad_states_refused(void **s)
{
    (void)s;
    fs_player *p = player(20, FS_PLAYER_SPREAD,
                          (uint64_t[20]){0, 1, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8,
                                         9, 9, 1, 1, 2, 3, 4, 5},
                          NULL);
    for (int k = 0; k < 7; k++)
        next(p);
    assert_int_equal(fs_player_queue(p, 3), FS_OK);
    size_t len;
    assert_int_equal(fs_player_save(p, NULL, 0, &len), FS_OK);
    char *text = malloc(len + 1);
    assert_int_equal(fs_player_save(p, text, 10, &len), FS_ERANGE);
    assert_int_equal(fs_player_save(p, text, len, &len), FS_OK);
    text[len] = '\0';
    fs_player *q;
    const char *why;
    assert_int_equal(fs_player_load(&q, text, len, &why), FS_OK);
    fs_player_free(q);
    /* no text at all: refused, without touching the NULL (UBSan) */
    assert_int_equal(fs_player_load(&q, NULL, 0, &why), FS_EINVAL);
    assert_null(q);
    /* every truncation but the one-line prefix (an older fairshuf's
     * format, read for compatibility) is refused */
    size_t line1 = (size_t)(strchr(text, '\n') - text) + 1;
    for (size_t k = 0; k < len; k++) {
        if (k == line1 || k == line1 - 1)
            continue;
        assert_int_equal(fs_player_load(&q, text, k, &why), FS_EINVAL);
        assert_null(q);
    }
    /* one flipped character anywhere: refused */
    for (size_t k = 0; k < len; k++) {
        char c = text[k];
        text[k] = c == 'a' ? 'b' : 'a';
        if (text[k] != c)
            assert_int_equal(fs_player_load(&q, text, len, &why), FS_EINVAL);
        text[k] = c;
    }
    char keep = text[40];
    text[40] = 'x';
    assert_int_equal(fs_player_load(&q, text, len, &why), FS_EINVAL);
    assert_string_equal(why, "damaged (checksum mismatch)");
    text[40] = '\0';
    assert_int_equal(fs_player_load(&q, text, len, &why), FS_EINVAL);
    assert_non_null(strstr(why, "NUL"));
    text[40] = keep;
    char *v = strdup(text);
    memcpy(v, "fairshuf-playlist 9", 19);
    assert_int_equal(fs_player_load(&q, v, len, &why), FS_EINVAL);
    assert_non_null(strstr(why, "another version"));
    free(v);
    free(text);
    fs_player_free(p);
}

/* fs_player_matches: a loaded state names its seed, list and order. */
static void matches_seed_list_order(void **s)
{
    (void)s;
    const uint8_t tag[16] = {9}, other_tag[16] = {8};
    uint8_t other_key[32] = {1, 2, 3, 4, 5, 6, 7, 9};
    fs_player *p;
    assert_int_equal(fs_player_create(&p, key, 0, FS_PLAYER_SPREAD, 77, tag),
                     FS_OK);
    uint64_t ids[3] = {1, 2, 3}, g[3] = {0, 0, 1};
    assert_int_equal(fs_player_set_list(p, 3, ids, fp1, g, NULL, NULL), FS_OK);
    next(p);
    size_t len;
    char text[1024];
    assert_int_equal(fs_player_save(p, text, sizeof text, &len), FS_OK);
    fs_player_free(p);
    const char *why;
    assert_int_equal(fs_player_load(&p, text, len, &why), FS_OK);
    assert_int_equal(fs_player_matches(p, key, tag, FS_PLAYER_SPREAD, 77, &why),
                     FS_OK);
    assert_int_equal(fs_player_matches(p, NULL, tag, FS_PLAYER_SPREAD, 77,
                                       &why), FS_OK);
    assert_int_equal(fs_player_matches(p, other_key, tag, FS_PLAYER_SPREAD, 77,
                                       &why), FS_EINVAL);
    assert_string_equal(why, "made with another seed");
    assert_int_equal(fs_player_matches(p, key, other_tag, FS_PLAYER_SPREAD, 77,
                                       &why), FS_EINVAL);
    assert_string_equal(why, "made for another list");
    assert_int_equal(fs_player_matches(p, key, tag, FS_PLAYER_PLAIN, 0, &why),
                     FS_EINVAL);
    assert_string_equal(why, "made with another order");
    assert_int_equal(fs_player_matches(p, key, tag, FS_PLAYER_SPREAD, 78,
                                       &why), FS_EINVAL);
    assert_string_equal(why, "made with another order");
    fs_player_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_is_the_keyed_order),
        cmocka_unit_test(queue_plays_next_not_again),
        cmocka_unit_test(seek_item_starts_a_cycle),
        cmocka_unit_test(edits_replay_nothing),
        cmocka_unit_test(spread_three_cycles),
        cmocka_unit_test(spread_realistic_library),
        cmocka_unit_test(weights_three_cycles),
        cmocka_unit_test(bad_states_refused),
        cmocka_unit_test(matches_seed_list_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
