/* test_rng_error.c -- fs_rng_error(NULL) is the sticky error of this
 * thread's default generator (issue 30, M11), not a fixed FS_ERANDOM. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fairshuf.h"

static void healthy_default_is_ok(void **s)
{
    (void)s;
    assert_int_equal(fs_rng_error(NULL), FS_OK); /* before any use */
    assert_true(fs_below(NULL, 10) < 10);
    assert_int_equal(fs_rng_error(NULL), FS_OK);
    assert_int_equal(fs_rng_error(fs_rng_default()), FS_OK);
}

/* In a thread of its own, so the main thread's default stays healthy. */
static void *poison(void *arg)
{
    (void)arg;
    fs_rng_set_error(fs_rng_default(), FS_EEOF);
    static int got[2];
    got[0] = fs_rng_error(NULL);
    got[1] = fs_rng_error(fs_rng_default());
    return got;
}

static void default_error_is_seen(void **s)
{
    (void)s;
    pthread_t t;
    void *r;
    assert_int_equal(pthread_create(&t, NULL, poison, NULL), 0);
    assert_int_equal(pthread_join(t, &r), 0);
    assert_int_equal(((int *)r)[0], FS_EEOF);
    assert_int_equal(((int *)r)[1], FS_EEOF);
    assert_int_equal(fs_rng_error(NULL), FS_OK); /* per thread */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(healthy_default_is_ok),
        cmocka_unit_test(default_error_is_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
