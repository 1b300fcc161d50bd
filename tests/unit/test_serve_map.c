/* test_serve_map.c -- the service's table map (service/table_map.c,
 * compiled in): random puts, gets and deletes against a plain list, with
 * ids packed together and far apart (1e8, 3e9, 2^62), so that probing
 * runs wrap around the end and deletion's backward shift is exercised. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../service/table_map.c"

enum { NREF = 3000 };
static int64_t ref_key[NREF];
static intptr_t ref_val[NREF]; /* 0: absent */

static uint64_t rnd_state = 0x2545f4914f6cdd1dull; /* fixed: reproducible */
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static void test_random_ops(void **state)
{
    (void)state;
    svc_map m = {0};
    for (int i = 0; i < NREF; i++) /* a few sparse, most dense */
        ref_key[i] = i % 10 == 0 ? (int64_t)(rnd() >> 2) + 1
                     : i % 10 == 1 ? 3000000000ll + i
                     : i % 10 == 2 ? 100000000ll + i
                                   : i + 1;
    for (int step = 0; step < 200000; step++) {
        int i = (int)(rnd() % NREF);
        switch (rnd() % 3) {
        case 0: {
            intptr_t v = (intptr_t)(step + 1);
            assert_int_equal(svc_map_put(&m, ref_key[i], (void *)v), 0);
            ref_val[i] = v;
            break;
        }
        case 1:
            assert_true((intptr_t)svc_map_del(&m, ref_key[i]) == ref_val[i]);
            ref_val[i] = 0;
            break;
        default:
            assert_true((intptr_t)svc_map_get(&m, ref_key[i]) == ref_val[i]);
        }
    }
    size_t n = 0;
    for (int i = 0; i < NREF; i++) {
        assert_true((intptr_t)svc_map_get(&m, ref_key[i]) == ref_val[i]);
        n += ref_val[i] != 0;
    }
    assert_int_equal(m.n, n);
    assert_true(m.cap <= 4 * NREF);   /* memory follows the keys, not ids */
    svc_map_free(&m, NULL);
    assert_int_equal(m.cap, 0);
}

static void test_edges(void **state)
{
    (void)state;
    svc_map m = {0};
    assert_null(svc_map_get(&m, 5));
    assert_null(svc_map_del(&m, 5));
    assert_int_equal(svc_map_put(&m, 0, &m), -1);   /* ids start at 1 */
    assert_int_equal(svc_map_put(&m, -3, &m), -1);
    assert_int_equal(svc_map_put(&m, INT64_MAX, &m), 0);
    assert_ptr_equal(svc_map_get(&m, INT64_MAX), &m);
    assert_int_equal(svc_map_put(&m, INT64_MAX, NULL), 0); /* replaced */
    assert_int_equal(m.n, 1);
    static int values[100];
    for (int i = 0; i < 100; i++)
        assert_int_equal(svc_map_put(&m, i + 1, &values[i]), 0);
    for (int i = 0; i < 100; i += 2)
        assert_ptr_equal(svc_map_del(&m, i + 1), &values[i]);
    for (int i = 0; i < 100; i++)
        assert_ptr_equal(svc_map_get(&m, i + 1), i % 2 ? &values[i] : NULL);
    svc_map_free(&m, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ops),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
