/* test_playlist.c -- shuffle play (<fairshuf/playlist.h>): every item once
 * per cycle, previous walks back through what was played across cycles,
 * the boundary window (with raw orders as the control that breaks it),
 * seek/position, and the state text round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/keyed.h"
#include "fairshuf/playlist.h"

static const uint64_t sizes[] = {1, 2, 3, 4, 7, 10, 12, 40, 101, 1000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void each_item_once_per_cycle(void **s)
{
    (void)s;
    for (size_t z = 0; z < NSIZES; z++) {
        uint64_t n = sizes[z];
        fs_playlist pl;
        assert_int_equal(fs_playlist_from_seed(&pl, n, "cycles",
                                               FS_PLAYLIST_WINDOW_DEFAULT), FS_OK);
        unsigned char *seen = malloc(n);
        assert_non_null(seen);
        for (uint64_t c = 0; c < 5; c++) {
            memset(seen, 0, n);
            for (uint64_t i = 0; i < n; i++) {
                uint64_t item, cyc, pos;
                assert_int_equal(fs_playlist_next(&pl, &item), FS_OK);
                assert_true(item < n);
                assert_false(seen[item]);
                seen[item] = 1;
                fs_playlist_position(&pl, &cyc, &pos);
                assert_true(cyc == c && pos == i);
            }
        }
        free(seen);
    }
}

static void prev_walks_back_across_cycles(void **s)
{
    (void)s;
    for (size_t z = 0; z < NSIZES; z++) {
        uint64_t n = sizes[z], steps = 3 * n + 5, item;
        uint64_t *played = malloc(steps * sizeof *played);
        assert_non_null(played);
        fs_playlist pl;
        assert_int_equal(fs_playlist_from_seed(&pl, n, "back",
                                               FS_PLAYLIST_WINDOW_DEFAULT), FS_OK);
        assert_int_equal(fs_playlist_prev(&pl, &item), FS_ERANGE);
        assert_int_equal(fs_playlist_current(&pl, &item), FS_ERANGE);
        for (uint64_t i = 0; i < steps; i++)
            assert_int_equal(fs_playlist_next(&pl, &played[i]), FS_OK);
        for (uint64_t i = steps - 1; i-- > 0;) {
            assert_int_equal(fs_playlist_prev(&pl, &item), FS_OK);
            assert_true(item == played[i]);
            assert_int_equal(fs_playlist_current(&pl, &item), FS_OK);
            assert_true(item == played[i]);
        }
        assert_int_equal(fs_playlist_prev(&pl, &item), FS_ERANGE);
        assert_true(pl.step == 1);
        /* and forwards again: the same items */
        for (uint64_t i = 1; i < steps; i++) {
            assert_int_equal(fs_playlist_next(&pl, &item), FS_OK);
            assert_true(item == played[i]);
        }
        free(played);
    }
}

/* Number of cycle boundaries c -> c+1 (c < cycles) where one of the last w
 * of cycle c is among the first w of cycle c+1. */
static unsigned boundary_violations(const fs_playlist *pl, uint64_t w,
                                    unsigned cycles)
{
    unsigned bad = 0;
    for (uint64_t c = 0; c < cycles; c++) {
        int hit = 0;
        for (uint64_t a = 0; a < w; a++)
            for (uint64_t b = 0; b < w; b++) {
                uint64_t x, y;
                assert_int_equal(fs_playlist_item_at(pl, c, pl->n - w + a, &x), FS_OK);
                assert_int_equal(fs_playlist_item_at(pl, c + 1, b, &y), FS_OK);
                hit |= x == y;
            }
        bad += (unsigned)hit;
    }
    return bad;
}

static void boundary_window_honoured(void **s)
{
    (void)s;
    const uint64_t ns[] = {4, 8, 12, 40, 100, 1000};
    for (size_t z = 0; z < sizeof ns / sizeof ns[0]; z++) {
        fs_playlist pl;
        assert_int_equal(fs_playlist_from_seed(&pl, ns[z], "window",
                                               FS_PLAYLIST_WINDOW_DEFAULT), FS_OK);
        uint64_t w = ns[z] / 4 < 10 ? ns[z] / 4 : 10;
        assert_true(pl.window == w);
        assert_int_equal(boundary_violations(&pl, w, 60), 0);
    }
    /* a configured window, clamped to n/3 */
    fs_playlist pl;
    assert_int_equal(fs_playlist_from_seed(&pl, 30, "window", 9), FS_OK);
    assert_true(pl.window == 9);
    assert_int_equal(boundary_violations(&pl, 9, 60), 0);
    assert_int_equal(fs_playlist_from_seed(&pl, 30, "window", 500), FS_OK);
    assert_true(pl.window == 10);
}

/* Control: the raw keyed orders (window 0) break the rule often, so the
 * test above can fail. */
static void boundary_control_fails(void **s)
{
    (void)s;
    fs_playlist pl;
    assert_int_equal(fs_playlist_from_seed(&pl, 12, "window", 0), FS_OK);
    assert_true(pl.window == 0);
    assert_true(boundary_violations(&pl, 3, 60) >= 20);
    assert_int_equal(fs_playlist_from_seed(&pl, 40, "window", 0), FS_OK);
    assert_true(boundary_violations(&pl, 10, 60) >= 20);
}

/* Cycle c is epoch c of the key, changed only in its first 2w positions. */
static void cycles_are_the_keyed_epochs(void **s)
{
    (void)s;
    fs_playlist pl;
    assert_int_equal(fs_playlist_from_seed(&pl, 100, "epochs",
                                           FS_PLAYLIST_WINDOW_DEFAULT), FS_OK);
    uint8_t key[32];
    char hex[65];
    assert_int_equal(fs_seed_to_key("epochs", key), FS_OK);
    fs_hex_encode(key, 32, hex);
    for (uint64_t c = 0; c < 4; c++) {
        fs_keyed p;
        assert_int_equal(fs_keyed_from_seed(&p, 100, hex, c), FS_OK);
        for (uint64_t i = c ? 20 : 0; i < 100; i++) {
            uint64_t item;
            assert_int_equal(fs_playlist_item_at(&pl, c, i, &item), FS_OK);
            assert_true(item == fs_keyed_at(&p, i));
        }
    }
}

/* fs_playlist_items() gives exactly fs_playlist_item_at() for every range
 * (a whole cycle, ranges across the boundary head, empty ones), at sizes
 * where the batch tabulates (4096) and where it does not; and refuses
 * ranges past n. */
static void items_match_item_at(void **s)
{
    (void)s;
    static const uint64_t ns[] = {3, 7, 40, 101, 4096};
    static uint64_t got[4096];
    for (size_t z = 0; z < sizeof ns / sizeof ns[0]; z++) {
        uint64_t n = ns[z];
        for (uint32_t w = 0; w <= 2; w++) {
            fs_playlist pl;
            assert_int_equal(fs_playlist_from_seed(&pl, n, "items",
                                                   w ? (w == 1 ? 1 : 64)
                                                     : 0), FS_OK);
            for (uint64_t c = 0; c < 3; c++) {
                uint64_t from[] = {0, 0, 1, n / 2, n - 1, n};
                uint64_t cnt[] = {n, 1, n - 1, n - n / 2, 1, 0};
                for (size_t r = 0; r < 6; r++) {
                    assert_int_equal(fs_playlist_items(&pl, c, from[r],
                                                       cnt[r], got), FS_OK);
                    for (uint64_t k = 0; k < cnt[r]; k++) {
                        uint64_t item;
                        assert_int_equal(fs_playlist_item_at(&pl, c,
                                                             from[r] + k,
                                                             &item), FS_OK);
                        assert_true(got[k] == item);
                    }
                }
            }
            assert_int_equal(fs_playlist_items(&pl, 0, 1, n, got), FS_EINVAL);
            assert_int_equal(fs_playlist_items(&pl, 0, n + 1, 0, got),
                             FS_EINVAL);
            assert_int_equal(fs_playlist_items(NULL, 0, 0, 1, got), FS_EINVAL);
        }
    }
}

static void seek_position_errors(void **s)
{
    (void)s;
    fs_playlist pl;
    uint64_t item, c, pos, x;
    assert_int_equal(fs_playlist_init(&pl, 0, (uint8_t[32]){0}, 0), FS_EINVAL);
    assert_int_equal(fs_playlist_from_seed(&pl, 5, "", 0), FS_ESEED);
    assert_int_equal(fs_playlist_from_seed(&pl, 5, NULL, 0), FS_ESEED);
    assert_int_equal(fs_playlist_from_seed(&pl, 20, "seek",
                                           FS_PLAYLIST_WINDOW_DEFAULT), FS_OK);
    fs_playlist_position(&pl, &c, &pos);
    assert_true(c == 0 && pos == 0);
    assert_int_equal(fs_playlist_seek(&pl, 20, &item), FS_EINVAL);
    assert_int_equal(fs_playlist_item_at(&pl, 0, 20, &item), FS_EINVAL);
    assert_int_equal(fs_playlist_seek(&pl, 7, &item), FS_OK);
    assert_int_equal(fs_playlist_item_at(&pl, 0, 7, &x), FS_OK);
    assert_true(item == x);
    fs_playlist_position(&pl, &c, &pos);
    assert_true(c == 0 && pos == 7);
    for (int i = 0; i < 20; i++)
        assert_int_equal(fs_playlist_next(&pl, &item), FS_OK);
    fs_playlist_position(&pl, &c, &pos);
    assert_true(c == 1 && pos == 7);
    assert_int_equal(fs_playlist_item_at(&pl, 1, 7, &x), FS_OK);
    assert_true(item == x);
    assert_int_equal(fs_playlist_seek(&pl, 2, &item), FS_OK);
    fs_playlist_position(&pl, &c, &pos);
    assert_true(c == 1 && pos == 2);
    pl.step = UINT64_MAX;
    assert_int_equal(fs_playlist_next(&pl, &item), FS_ERANGE);
    /* n = 1: one item, cycles of one */
    assert_int_equal(fs_playlist_from_seed(&pl, 1, "one", 3), FS_OK);
    assert_true(pl.window == 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fs_playlist_next(&pl, &item), FS_OK);
        assert_true(item == 0);
    }
}

static void state_round_trip(void **s)
{
    (void)s;
    fs_playlist pl, back;
    char text[FS_PLAYLIST_STATE_MAX];
    assert_int_equal(fs_playlist_from_seed(&pl, 1234, "state",
                                           FS_PLAYLIST_WINDOW_DEFAULT), FS_OK);
    memset(pl.fingerprint, 0xab, 32);
    uint64_t item;
    for (int i = 0; i < 2000; i++)
        assert_int_equal(fs_playlist_next(&pl, &item), FS_OK);
    fs_playlist_save(&pl, text);
    assert_true(strlen(text) < FS_PLAYLIST_STATE_MAX);
    assert_int_equal(fs_playlist_load(&back, text), FS_OK);
    assert_memory_equal(&pl, &back, sizeof pl);
    /* with a newline too */
    char nl[FS_PLAYLIST_STATE_MAX + 1];
    strcpy(nl, text);
    strcat(nl, "\n");
    assert_int_equal(fs_playlist_load(&back, nl), FS_OK);
    /* every truncation and a few corruptions are rejected, untouched */
    memset(&back, 0x5a, sizeof back);
    fs_playlist keep = back;
    for (size_t len = 0; len < strlen(text); len++) {
        char cut[FS_PLAYLIST_STATE_MAX];
        memcpy(cut, text, len);
        cut[len] = '\0';
        assert_int_equal(fs_playlist_load(&back, cut), FS_EINVAL);
        assert_memory_equal(&back, &keep, sizeof back);
    }
    const char *bad[] = {
        "fairshuf-playlist 2 n=5 window=1 step=0 key=" "00000000000000000000000000000000"
        "00000000000000000000000000000000 list=00000000000000000000000000000000"
        "00000000000000000000000000000000",
        "fairshuf-playlist 1 n=0 window=0 step=0 key=" "00000000000000000000000000000000"
        "00000000000000000000000000000000 list=00000000000000000000000000000000"
        "00000000000000000000000000000000",
        "fairshuf-playlist 1 n=5 window=2 step=0 key=" "00000000000000000000000000000000"
        "00000000000000000000000000000000 list=00000000000000000000000000000000"
        "00000000000000000000000000000000",
        "fairshuf-playlist 1 n=5 window=1 step=0 key=" "00000000000000000000000000000000"
        "00000000000000000000000000000000 list=00000000000000000000000000000000"
        "00000000000000000000000000000000 extra=1",
        "fairshuf-playlist 1 n=5 window=1 step=99999999999999999999 key="
        "0000000000000000000000000000000000000000000000000000000000000000 list="
        "0000000000000000000000000000000000000000000000000000000000000000",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(fs_playlist_load(&back, bad[i]), FS_EINVAL);
    const char *good = "fairshuf-playlist 1 n=5 window=1 step=0 key="
        "0000000000000000000000000000000000000000000000000000000000000000 list="
        "0000000000000000000000000000000000000000000000000000000000000000";
    assert_int_equal(fs_playlist_load(&back, good), FS_OK);
}

/* Item ids: keyed, deterministic, told apart by text and occurrence. */
static void item_ids(void **s)
{
    (void)s;
    fs_playlist a, b;
    assert_int_equal(fs_playlist_from_seed(&a, 10, "ids", 0), FS_OK);
    assert_int_equal(fs_playlist_from_seed(&b, 10, "other", 0), FS_OK);
    uint64_t x, y, z, w, e;
    assert_int_equal(fs_playlist_item_id(&a, "song", 4, 0, &x), FS_OK);
    assert_int_equal(fs_playlist_item_id(&a, "song", 4, 0, &y), FS_OK);
    assert_true(x == y);
    assert_int_equal(fs_playlist_item_id(&a, "song", 4, 1, &z), FS_OK);
    assert_int_equal(fs_playlist_item_id(&b, "song", 4, 0, &w), FS_OK);
    assert_int_equal(fs_playlist_item_id(&a, NULL, 0, 0, &e), FS_OK);
    assert_true(x != z && x != w && x != e);
    assert_int_equal(fs_playlist_item_id(&a, "songs", 4, 0, &y), FS_OK);
    assert_true(x == y); /* only len bytes count */
    assert_int_equal(fs_playlist_item_id(NULL, "s", 1, 0, &x), FS_EINVAL);
    assert_int_equal(fs_playlist_item_id(&a, NULL, 1, 0, &x), FS_EINVAL);
    assert_int_equal(fs_playlist_item_id(&a, "s", 1, 0, NULL), FS_EINVAL);
}

/* The rest after a change: exactly the items not played, each once; an
 * item's relative place does not depend on which other items are there;
 * the order depends on the cycle and the fingerprint. */
static void rest_after_change(void **s)
{
    (void)s;
    enum { N = 60 };
    fs_playlist pl;
    assert_int_equal(fs_playlist_from_seed(&pl, N, "rest", 0), FS_OK);
    uint64_t ids[N], played[20], rest[N], rest2[N], rest3[N];
    for (uint64_t i = 0; i < N; i++) {
        char t[16];
        int len = snprintf(t, sizeof t, "song%llu", (unsigned long long)i);
        assert_int_equal(fs_playlist_item_id(&pl, t, (size_t)len, 0, &ids[i]),
                         FS_OK);
    }
    for (int k = 0; k < 20; k++)
        played[k] = ids[3 * k]; /* 0, 3, ..., 57 */
    played[19] = 12345;         /* a played item since removed */
    size_t m;
    assert_int_equal(fs_playlist_rest(&pl, 2, played, 20, ids, N, rest, &m),
                     FS_OK);
    assert_int_equal(m, N - 19);
    unsigned char seen[N] = {0};
    for (size_t k = 0; k < m; k++) {
        assert_true(rest[k] < N);
        assert_false(seen[rest[k]]);
        seen[rest[k]] = 1;
        assert_true(rest[k] % 3 != 0 || rest[k] == 57);
    }
    /* the same items without the first half of the list: the survivors
     * keep their relative order */
    size_t m2;
    assert_int_equal(fs_playlist_rest(&pl, 2, played, 20, ids + 30, N - 30,
                                      rest2, &m2), FS_OK);
    size_t j = 0;
    for (size_t k = 0; k < m; k++)
        if (rest[k] >= 30) {
            assert_true(j < m2);
            assert_int_equal(rest2[j] + 30, rest[k]);
            j++;
        }
    assert_int_equal(j, m2);
    /* another cycle or another list fingerprint: another order */
    size_t m3;
    assert_int_equal(fs_playlist_rest(&pl, 3, played, 20, ids, N, rest3, &m3),
                     FS_OK);
    assert_int_equal(m3, m);
    assert_true(memcmp(rest, rest3, m * sizeof *rest) != 0);
    pl.fingerprint[0] ^= 1;
    assert_int_equal(fs_playlist_rest(&pl, 2, played, 20, ids, N, rest3, &m3),
                     FS_OK);
    assert_true(memcmp(rest, rest3, m * sizeof *rest) != 0);
    /* nothing played: everything; errors */
    assert_int_equal(fs_playlist_rest(&pl, 0, NULL, 0, ids, N, rest, &m),
                     FS_OK);
    assert_int_equal(m, N);
    assert_int_equal(fs_playlist_rest(&pl, 0, NULL, 1, ids, N, rest, &m),
                     FS_EINVAL);
    assert_int_equal(fs_playlist_rest(&pl, 0, NULL, 0, NULL, N, rest, &m),
                     FS_EINVAL);
    assert_int_equal(fs_playlist_rest(&pl, 0, NULL, 0, NULL, 0, NULL, &m),
                     FS_OK);
    assert_int_equal(m, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_item_once_per_cycle),
        cmocka_unit_test(prev_walks_back_across_cycles),
        cmocka_unit_test(boundary_window_honoured),
        cmocka_unit_test(boundary_control_fails),
        cmocka_unit_test(cycles_are_the_keyed_epochs),
        cmocka_unit_test(items_match_item_at),
        cmocka_unit_test(seek_position_errors),
        cmocka_unit_test(state_round_trip),
        cmocka_unit_test(item_ids),
        cmocka_unit_test(rest_after_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
