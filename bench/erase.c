/* erase.c -- the cost of fast key erasure per word read: fs_rng_u64's
 * reader (which zeroes each word it hands out, lib/internal.h) against
 * the same read without the zeroing, interleaved rounds, per-round
 * ratios.  `make -C bench erase BUILD=...`; output: ns per word. */
#include <stdio.h>
#include <stdlib.h>

#include "../lib/internal.h"
#include "baseline.h"

/* The reader as it was before erasure (no zeroing). */
static inline uint64_t read_plain(fs_rng *rng)
{
    fs_stream *s = rng->s;
    if (FS_LIKELY(s->end - s->pos >= 8)) {
        uint64_t v;
        memcpy(&v, s->buf + s->pos, 8);
        s->pos += 8;
        return v;
    }
    return fs__rng_take_slow(rng, 8);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *gen = argc > 1 ? argv[1] : "chacha20";
    enum { ROUNDS = 15, WORDS = 1 << 22 };
    double with[ROUNDS], without[ROUNDS], ratio[ROUNDS];
    fs_rng *r;
    if (fs_rng_new(&r, gen, argc > 2 ? argv[2] : NULL) != FS_OK)
        return 1;
    uint64_t acc = 0;
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = baseline_now_ns();
        for (int i = 0; i < WORDS; i++)
            acc += fs__u64(r);
        double t1 = baseline_now_ns();
        for (int i = 0; i < WORDS; i++)
            acc += read_plain(r);
        double t2 = baseline_now_ns();
        with[k] = (t1 - t0) / WORDS;
        without[k] = (t2 - t1) / WORDS;
        ratio[k] = with[k] / without[k];
    }
    qsort(with, ROUNDS, sizeof *with, cmp);
    qsort(without, ROUNDS, sizeof *without, cmp);
    qsort(ratio, ROUNDS, sizeof *ratio, cmp);
    printf("%s (%s): ns per word, median of %d rounds: erasing %.3f, "
           "not erasing %.3f; per-round ratio %.3f (%.3f-%.3f) [%llu]\n",
           gen, argc > 2 ? "seeded" : "OS-keyed", ROUNDS, with[ROUNDS / 2],
           without[ROUNDS / 2], ratio[ROUNDS / 2], ratio[0],
           ratio[ROUNDS - 1], (unsigned long long)(acc & 1));
    fs_rng_free(r);
    return 0;
}
