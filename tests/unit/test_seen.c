/* test_seen.c -- lib/seen.h, the index the provably-fair log check uses to
 * find an earlier period with the same commitment or client seed: every
 * value added is found, a value never added is not, a hash collision never
 * gives a wrong answer, and the key is drawn per index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"
#include "seen.h"

enum { N = 20000 };
static char text[N][16];

static int same_text(void *ctx, size_t v)
{
    return strcmp(text[v], ctx) == 0;
}

static void finds_what_was_added(void **s)
{
    (void)s;
    fs__seen x;
    fs__seen_init(&x);
    for (size_t i = 0; i < N; i++) {
        snprintf(text[i], sizeof text[i], "seed-%zu", i);
        uint64_t h = fs__seen_hash(&x, text[i], strlen(text[i]));
        assert_int_equal(fs__seen_find(&x, h, same_text, text[i]), SIZE_MAX);
        assert_int_equal(fs__seen_add(&x, h, i), FS_OK);
    }
    assert_true(x.cap >= 2 * x.n);
    for (size_t i = 0; i < N; i++) {
        uint64_t h = fs__seen_hash(&x, text[i], strlen(text[i]));
        assert_int_equal(fs__seen_find(&x, h, same_text, text[i]), i);
    }
    const char *absent = "seed-20000";
    assert_int_equal(fs__seen_find(&x, fs__seen_hash(&x, absent,
                                                     strlen(absent)),
                                   same_text, (void *)absent),
                     SIZE_MAX);
    assert_int_equal(fs__seen_add(&x, 1, SIZE_MAX), FS_EINVAL);
    fs__seen_free(&x);
}

/* Every value under one hash: the answers still come from the values. */
static void collisions_are_told_apart(void **s)
{
    (void)s;
    fs__seen x;
    fs__seen_init(&x);
    for (size_t i = 0; i < 500; i++) {
        snprintf(text[i], sizeof text[i], "c%zu", i);
        assert_int_equal(fs__seen_find(&x, 42, same_text, text[i]), SIZE_MAX);
        assert_int_equal(fs__seen_add(&x, 42, i), FS_OK);
    }
    for (size_t i = 0; i < 500; i++)
        assert_int_equal(fs__seen_find(&x, 42, same_text, text[i]), i);
    assert_int_equal(fs__seen_find(&x, 43, same_text, text[7]), SIZE_MAX);
    fs__seen_free(&x);
}

/* The hash is keyed from the OS: two indexes hash one value differently,
 * so a log cannot be written to collide in every checker. */
static void key_is_drawn(void **s)
{
    (void)s;
    fs__seen a, b;
    fs__seen_init(&a);
    fs__seen_init(&b);
    assert_memory_not_equal(a.key, b.key, sizeof a.key);
    assert_true(fs__seen_hash(&a, "alice", 5) != fs__seen_hash(&b, "alice", 5));
    assert_true(fs__seen_hash(&a, "alice", 5) == fs__seen_hash(&a, "alice", 5));
    fs__seen_free(&a);
    fs__seen_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_what_was_added),
        cmocka_unit_test(collisions_are_told_apart),
        cmocka_unit_test(key_is_drawn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
