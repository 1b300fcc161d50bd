/* test_player_copy.c -- what a front end that drives another player needs
 * (<fairshuf/playlist.h>): fs_player_clone (a copy that steps on its own),
 * fs_player_peek (next's item, the player unchanged: its saved state is
 * byte for byte the same), also after a queue, seek_item, a list change
 * and in spread mode; fs_player_play (a song played out of turn: current,
 * the cycle goes on, nothing twice in it, the queue's order kept);
 * fs_player_field_tag (the state's order= tag) and
 * fs_spread_groups (groups numbered in bytewise order of the values, as
 * `fairshuf playlist --spread` numbers them). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/playlist.h"

static const uint8_t key[32] = {9, 8, 7};
static const uint8_t fp1[32] = {1}, fp2[32] = {2};

static fs_player *player(size_t n, fs_player_order order,
                         const uint64_t *group)
{
    fs_player *p;
    assert_int_equal(fs_player_create(&p, key, FS_PLAYLIST_WINDOW_DEFAULT,
                                      order, 3, NULL), FS_OK);
    uint64_t ids[64];
    for (size_t i = 0; i < n; i++)
        ids[i] = 500 + i;
    assert_int_equal(fs_player_set_list(p, n, ids, fp1, group, NULL, NULL),
                     FS_OK);
    return p;
}

static char *saved(const fs_player *p)
{
    size_t len;
    assert_int_equal(fs_player_save(p, NULL, 0, &len), FS_OK);
    char *t = malloc(len + 1);
    assert_non_null(t);
    assert_int_equal(fs_player_save(p, t, len, &len), FS_OK);
    t[len] = '\0';
    return t;
}

/* peek gives what next then gives, and leaves the state as it was */
static void peek_then_next(fs_player *p, int steps)
{
    for (int k = 0; k < steps; k++) {
        char *before = saved(p);
        size_t a, b;
        assert_int_equal(fs_player_peek(p, &a), FS_OK);
        char *after = saved(p);
        assert_string_equal(before, after);
        assert_int_equal(fs_player_next(p, &b), FS_OK);
        assert_int_equal(a, b);
        free(before);
        free(after);
    }
}

static void peek_is_next(void **state)
{
    (void)state;
    fs_player *p = player(12, FS_PLAYER_PLAIN, NULL);
    peek_then_next(p, 30); /* across two cycle boundaries */
    assert_int_equal(fs_player_queue(p, 3), FS_OK);
    peek_then_next(p, 3);
    assert_int_equal(fs_player_seek_item(p, 7), FS_OK);
    peek_then_next(p, 14);
    /* a changed list: 11 items (500 gone), 600 added */
    uint64_t ids[12];
    for (size_t i = 0; i < 11; i++)
        ids[i] = 501 + i;
    ids[11] = 600;
    assert_int_equal(fs_player_set_list(p, 12, ids, fp2, NULL, NULL, NULL),
                     FS_OK);
    peek_then_next(p, 20);
    fs_player_free(p);
    uint64_t g[12] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4};
    p = player(12, FS_PLAYER_SPREAD, g);
    peek_then_next(p, 30);
    fs_player_free(p);
}

static void clone_steps_alone(void **state)
{
    (void)state;
    fs_player *p = player(10, FS_PLAYER_PLAIN, NULL), *c;
    size_t a, b;
    for (int k = 0; k < 4; k++)
        assert_int_equal(fs_player_next(p, &a), FS_OK);
    assert_int_equal(fs_player_queue(p, 2), FS_OK);
    assert_int_equal(fs_player_clone(p, &c), FS_OK);
    char *sp = saved(p), *sc = saved(c);
    assert_string_equal(sp, sc);
    /* the copy steps; the original does not move */
    for (int k = 0; k < 7; k++)
        assert_int_equal(fs_player_next(c, &b), FS_OK);
    char *sp2 = saved(p);
    assert_string_equal(sp, sp2);
    /* the same steps on the original give the same items */
    fs_player *d;
    assert_int_equal(fs_player_clone(p, &d), FS_OK);
    for (int k = 0; k < 7; k++) {
        assert_int_equal(fs_player_next(p, &a), FS_OK);
        assert_int_equal(fs_player_next(d, &b), FS_OK);
        assert_int_equal(a, b);
    }
    assert_int_equal(fs_player_clone(NULL, &c), FS_EINVAL);
    assert_int_equal(fs_player_peek(NULL, &a), FS_EINVAL);
    free(sp);
    free(sc);
    free(sp2);
    fs_player_free(c);
    fs_player_free(d);
    fs_player_free(p);
}

/* A song played out of turn mid-cycle: it is current, the cycle goes on
 * (not a new one: every item once in it), the queue keeps its order. */
static void play_out_of_turn(void **state)
{
    (void)state;
    fs_player *p = player(12, FS_PLAYER_PLAIN, NULL);
    int seen[12] = {0};
    size_t x, cur, next;
    for (int k = 0; k < 4; k++) {
        assert_int_equal(fs_player_next(p, &x), FS_OK);
        seen[x]++;
    }
    /* an item not played yet and not the next */
    assert_int_equal(fs_player_peek(p, &next), FS_OK);
    size_t pick = 0;
    while (seen[pick] || pick == next)
        pick++;
    assert_int_equal(fs_player_play(p, pick), FS_OK);
    assert_int_equal(fs_player_current(p, &cur), FS_OK);
    assert_int_equal(cur, pick);
    seen[pick]++;
    for (int k = 0; k < 7; k++) { /* the rest of the cycle */
        assert_int_equal(fs_player_next(p, &x), FS_OK);
        seen[x]++;
    }
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(seen[i], 1);
    /* two steps into the next cycle, then two unplayed items queued, q1
     * then q2; q2 plays out of turn: q1 is still next, q2 not again */
    memset(seen, 0, sizeof seen);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(fs_player_next(p, &x), FS_OK);
        seen[x]++;
    }
    size_t q1 = 0, q2;
    while (seen[q1])
        q1++;
    q2 = q1 + 1;
    while (seen[q2])
        q2++;
    assert_int_equal(fs_player_queue(p, q1), FS_OK);
    assert_int_equal(fs_player_queue(p, q2), FS_OK);
    assert_int_equal(fs_player_play(p, q2), FS_OK);
    assert_int_equal(fs_player_current(p, &cur), FS_OK);
    assert_int_equal(cur, q2);
    assert_int_equal(fs_player_next(p, &x), FS_OK);
    assert_int_equal(x, q1);
    seen[q1]++;
    seen[q2]++;
    for (int k = 0; k < 8; k++) {
        assert_int_equal(fs_player_next(p, &x), FS_OK);
        seen[x]++;
    }
    for (size_t i = 0; i < 12; i++)
        assert_int_equal(seen[i], 1);
    /* errors leave the state as it was */
    char *before = saved(p);
    assert_int_equal(fs_player_play(p, 12), FS_EINVAL);
    for (int k = 0; k < FS_PLAYER_QUEUE_MAX; k++)
        assert_int_equal(fs_player_queue(p, 1), FS_OK);
    char *full = saved(p);
    assert_int_equal(fs_player_play(p, 2), FS_ERANGE);
    char *after = saved(p);
    assert_string_equal(full, after);
    assert_string_not_equal(before, full);
    free(before);
    free(full);
    free(after);
    fs_player_free(p);
}

static void field_tag(void **state)
{
    (void)state;
    /* `fairshuf playlist --spread=folder --state` writes
     * order=spread-675a35a6aa2927ae */
    assert_true(fs_player_field_tag("folder") == 0x675a35a6aa2927aeULL);
    assert_true(fs_player_field_tag("artist") !=
                fs_player_field_tag("album"));
}

static void spread_groups(void **state)
{
    (void)state;
    const char *text[] = {"b", "a", "b", NULL, "c", "ab", "a"};
    size_t len[] = {1, 1, 1, 0, 1, 2, 1};
    uint64_t g[7];
    assert_int_equal(fs_spread_groups(7, text, len, g), FS_OK);
    /* "" < "a" < "ab" < "b" < "c" */
    const uint64_t want[] = {3, 1, 3, 0, 4, 2, 1};
    for (int i = 0; i < 7; i++)
        assert_true(g[i] == want[i]);
    assert_int_equal(fs_spread_groups(0, NULL, NULL, NULL), FS_OK);
    assert_int_equal(fs_spread_groups(2, NULL, len, g), FS_EINVAL);
    const char *bad[] = {NULL};
    size_t one = 1;
    assert_int_equal(fs_spread_groups(1, bad, &one, g), FS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peek_is_next),
        cmocka_unit_test(clone_steps_alone),
        cmocka_unit_test(play_out_of_turn),
        cmocka_unit_test(field_tag),
        cmocka_unit_test(spread_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
