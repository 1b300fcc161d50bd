/* test_erasure.c -- fast key erasure (docs/entropy.md): after output has
 * been handed out, the generator's state (key, stream buffer, position)
 * holds none of it.  The state is inspected through lib/internal.h (the
 * tests link the static library; nothing is exported for this). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"

/* Does `v` (8 bytes) occur anywhere in [p, p + len)? */
static int occurs(const void *p, size_t len, const void *v, size_t vlen)
{
    const unsigned char *q = p;
    for (size_t i = 0; i + vlen <= len; i++)
        if (memcmp(q + i, v, vlen) == 0)
            return 1;
    return 0;
}

/* The bytes already handed out, buf[0, pos), are all zero (the stream was
 * freshly refilled at the first draw, so they are exactly what was
 * taken since). */
static void assert_consumed_zero(fs_rng *r)
{
    const fs_stream *s = r->s;
    assert_true(s->pos > 0);
    for (size_t i = 0; i < s->pos; i++)
        assert_int_equal(s->buf[i], 0);
}

/* No word handed out can be found in the generator's memory: the stream
 * (buffer, positions), the fs_rng itself and chacha's key/state page. */
static void assert_nowhere(fs_rng *r, const uint64_t *w, size_t k,
                           size_t ext_size)
{
    for (size_t i = 0; i < k; i++) {
        assert_false(occurs(r->s, sizeof *r->s, &w[i], 8));
        assert_false(occurs(r, sizeof *r, &w[i], 8));
        if (r->ext)
            assert_false(occurs(r->ext, ext_size, &w[i], 8));
    }
}

/* The OS-keyed generator's mapping: its 4 stream buffers and the key
 * (chacha20.c, OS_STREAMS; reading past them stays in the mapping). */
#define OS_STATE (4 * sizeof(fs_stream) + 32)

/* The case: 20 draws from the OS-keyed default generator. */
static void os_chacha20_twenty_words(void **state)
{
    (void)state;
    fs_rng *r;
    assert_int_equal(fs_rng_new(&r, "chacha20", NULL), FS_OK);
    uint64_t w[20];
    for (int i = 0; i < 20; i++)
        w[i] = fs_rng_u64(r);
    assert_int_equal(r->s->pos, 160);
    assert_consumed_zero(r);
    /* the OS-keyed state (key, streams) is one mapping (chacha20.c) */
    assert_nowhere(r, w, 20, OS_STATE);
    fs_rng_free(r);
}

/* Across the OS-keyed generator's stream buffers (4 per key-erasure
 * step) and across steps: 5000 words (40 KB), none left anywhere. */
static void os_chacha20_across_buffers(void **state)
{
    (void)state;
    fs_rng *r;
    assert_int_equal(fs_rng_new(&r, "chacha20", NULL), FS_OK);
    static uint64_t w[5000];
    for (int i = 0; i < 5000; i++)
        w[i] = fs_rng_u64(r);
    assert_consumed_zero(r);
    assert_nowhere(r, w, 5000, OS_STATE);
    fs_rng_free(r);
}

/* Every way of reading: 32-bit words, bytes, and the shuffles' own word
 * source (lib/shuffle/batch.h) through a 52-card shuffle. */
static void every_reader_erases(void **state)
{
    (void)state;
    fs_rng *r;
    assert_int_equal(fs_rng_new(&r, "chacha20", NULL), FS_OK);
    uint32_t a = fs_rng_u32(r);
    unsigned char b[13];
    fs_rng_bytes(r, b, sizeof b);
    assert_int_equal(r->s->pos, 17);
    assert_consumed_zero(r);
    assert_false(occurs(r->s->buf, FS_RNG_BUF, &a, 4));
    assert_false(occurs(r->s->buf, FS_RNG_BUF, b, sizeof b));
    size_t before = r->s->pos;
    unsigned char deck[52];
    for (int i = 0; i < 52; i++)
        deck[i] = (unsigned char)i;
    assert_int_equal(fs_shuffle(deck, 52, 1, r), FS_OK);
    assert_true(r->s->pos > before);
    assert_consumed_zero(r);
    /* the same for a typed (8-byte) shuffle: its own fast path */
    uint64_t big[1000];
    for (int i = 0; i < 1000; i++)
        big[i] = (uint64_t)i;
    assert_int_equal(fs_shuffle(big, 1000, 8, r), FS_OK);
    assert_consumed_zero(r);
    fs_rng_free(r);
}

/* Seeded and non-cryptographic generators go through the same readers:
 * consumed output is erased there too (no secret to keep, but one rule). */
static void seeded_generators_erase(void **state)
{
    (void)state;
    const char *names[] = {"chacha20", "xoshiro256ss", "pcg64"};
    for (size_t g = 0; g < sizeof names / sizeof *names; g++) {
        fs_rng *r;
        assert_int_equal(fs_rng_new(&r, names[g], "erase"), FS_OK);
        uint64_t w[5];
        for (int i = 0; i < 5; i++)
            w[i] = fs_rng_u64(r);
        assert_consumed_zero(r);
        assert_false(occurs(r->s->buf, FS_RNG_BUF, &w[4], 8));
        fs_rng_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(os_chacha20_twenty_words),
        cmocka_unit_test(os_chacha20_across_buffers),
        cmocka_unit_test(every_reader_erases),
        cmocka_unit_test(seeded_generators_erase),
    };
    return cmocka_run_group_tests_name("erasure", tests, NULL, NULL);
}
