/* scripted.c -- see scripted.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"
#include "scripted.h"

typedef struct script {
    unsigned char *bytes;
    size_t len, at;
} script;

static void refill(fs_rng *rng)
{
    script *s = rng->ext;
    fs_stream *st = rng->s;
    size_t n = s->len - s->at;
    if (n == 0) {
        fs_rng_set_error(rng, FS_EEOF);
        memset(st->buf, 0, FS_RNG_BUF);
        n = FS_RNG_BUF;
    } else {
        if (n > FS_RNG_BUF)
            n = FS_RNG_BUF;
        memcpy(st->buf, s->bytes + s->at, n);
        s->at += n;
    }
    st->pos = 0;
    st->end = n;
}

static const fs_rng_info info = {"scripted", "test replay", 64, 0, 0, 0, 1};
static const fs_rng_vtable vt = {&info, refill, NULL, NULL, NULL};

fs_rng *scripted_new(void)
{
    fs_rng *rng = calloc(1, sizeof *rng);
    script *s = calloc(1, sizeof *s);
    assert_non_null(rng);
    assert_non_null(s);
    rng->vt = &vt;
    rng->s = &rng->own;
    rng->ext = s;
    return rng;
}

void scripted_free(fs_rng *rng)
{
    script *s = rng->ext;
    free(s->bytes);
    free(s);
    free(rng);
}

void scripted_set(fs_rng *rng, const void *bytes, size_t len)
{
    script *s = rng->ext;
    free(s->bytes);
    s->bytes = malloc(len ? len : 1);
    assert_non_null(s->bytes);
    memcpy(s->bytes, bytes, len);
    s->len = len;
    s->at = 0;
    rng->s->pos = rng->s->end = 0;
    rng->error = FS_OK;
}

size_t scripted_left(const fs_rng *rng)
{
    const script *s = rng->ext;
    return (s->len - s->at) + (rng->s->end - rng->s->pos);
}

uint64_t word_for_below(uint64_t j, uint64_t n)
{
    /* floor((2j+1) * 2^64 / (2n)): x*n lands mid-interval of result j. */
    fs_u128 num = ((fs_u128)(2 * j + 1)) << 64;
    return (uint64_t)(num / ((fs_u128)2 * n));
}

uint32_t word_for_scaled32(uint32_t j, uint32_t n)
{
    uint64_t num = ((uint64_t)(2 * j + 1)) << 32;
    return (uint32_t)(num / (2ULL * n));
}

uint64_t factorial(unsigned n)
{
    uint64_t f = 1;
    for (unsigned i = 2; i <= n; i++)
        f *= i;
    return f;
}

uint64_t perm_rank(const uint64_t *p, size_t n)
{
    uint64_t rank = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t smaller = 0;
        for (size_t k = i + 1; k < n; k++)
            smaller += p[k] < p[i];
        rank = rank * (n - i) + smaller;
    }
    return rank;
}

fs_rng *seeded(const char *name, const char *seed)
{
    fs_rng *rng = NULL;
    assert_int_equal(fs_rng_new(&rng, name, seed), FS_OK);
    return rng;
}

double perm_chi2(fs_algorithm alg, unsigned n, unsigned trials,
                 const char *rng_name, const char *seed)
{
    uint64_t f = factorial(n);
    uint64_t *count = calloc(f, sizeof *count);
    assert_non_null(count);
    fs_rng *rng = seeded(rng_name, seed);
    for (unsigned t = 0; t < trials; t++) {
        uint64_t a[8];
        for (unsigned i = 0; i < n; i++)
            a[i] = i;
        assert_int_equal(fs_shuffle_with(alg, a, n, 8, rng), FS_OK);
        count[perm_rank(a, n)]++;
    }
    double e = (double)trials / (double)f, x2 = 0;
    for (uint64_t r = 0; r < f; r++)
        x2 += ((double)count[r] - e) * ((double)count[r] - e) / e;
    fs_rng_free(rng);
    free(count);
    return x2;
}
