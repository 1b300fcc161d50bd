/* test_player_copy.c -- what a front end that drives another player needs
 * (<fairshuf/playlist.h>): fs_player_clone (a copy that steps on its own),
 * fs_player_peek (next's item, the player unchanged: its saved state is
 * byte for byte the same), also after a queue, seek_item, a list change
 * and in spread mode; fs_player_field_tag (the state's order= tag) and
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
        cmocka_unit_test(field_tag),
        cmocka_unit_test(spread_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
