/* test_cards_cut.c -- fs_shoe_cut is exactly a rotation: for every shoe
 * size up to 12 (odd and even, so both middles of the three reversals are
 * exercised), every cut point and every number of cards already dealt,
 * the top `at` cards go to the bottom in order and nothing else moves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fairshuf.h"
#include "fairshuf/cards.h"

static void cut_is_rotation(void **state)
{
    (void)state;
    for (size_t n = 1; n <= 12; n++)
        for (size_t dealt = 0; dealt < n; dealt++)
            for (size_t at = 0; at <= n - dealt; at++) {
                fs_card cards[12];
                for (size_t i = 0; i < n; i++)
                    cards[i] = (fs_card)i;
                fs_shoe s;
                assert_int_equal(fs_shoe_init_cards(&s, cards, n), FS_OK);
                assert_int_equal(fs_shoe_burn(&s, dealt), FS_OK);
                assert_int_equal(fs_shoe_cut(&s, at), FS_OK);
                size_t left = n - dealt;
                assert_int_equal(fs_shoe_left(&s), left);
                const fs_card *top = fs_shoe_peek(&s);
                for (size_t i = 0; i < left; i++)
                    assert_int_equal(top[i], dealt + (i + at) % left);
                assert_int_equal(fs_shoe_cut(&s, left + 1), FS_EINVAL);
                fs_shoe_free(&s);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cut_is_rotation),
    };
    return cmocka_run_group_tests_name("cards_cut", tests, NULL, NULL);
}
