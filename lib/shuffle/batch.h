/* batch.h -- several exactly uniform bounded indices from one 64-bit word
 * (Brackett-Rozinsky & Lemire, "Batched ranged random integer generation",
 * Software: Practice and Experience 2024), as the shuffles use it.
 *
 * For bounds b[0..k) with product P < 2^64 and a uniform word x, the
 * mixed-radix digits of floor(x*P / 2^64) are read off by successive
 * multiplications of the low half: out[t] = hi(lo*b[t]), lo = lo(lo*b[t]).
 * The final lo equals x*P mod 2^64, so accepting x iff lo >= 2^64 mod P is
 * exactly Lemire's method on P: every k-tuple is equally likely.  A
 * rejected word is discarded and the whole batch redrawn.
 *
 * Batch sizes depend only on the largest bound m in the batch (so the
 * stream is the same on every machine): k is the largest with m^k <= 2^60
 * in the table of fs__batch_k().  Why 2^60 and not 2^64: the cheap check
 * "lo >= P" fails with probability P/2^64, and then the threshold
 * 2^64 mod P costs a 64-bit division; with P <= 2^60 that happens in at
 * most 1 batch in 16.  (With products near 2^64 it happened nearly every
 * time and made batching slower than single draws.)  FS_BATCH_MAX is 6.
 */
#ifndef FS_BATCH_H
#define FS_BATCH_H

#include "../internal.h"

#define FS_BATCH_MAX 6

/* A 16-byte element as one type (rows of two doubles, pairs of words):
 * the typed loops of batched.c and bucket.c's classify move it with two
 * loads and two stores instead of the generic byte-size paths. */
typedef struct fs__e16 {
    uint64_t w[2];
} fs__e16;

/* Full unrolling of the short constant loops (gcc and clang). */
#define FS_UNROLL _Pragma("GCC unroll 8")

/* k for a batch whose largest bound is m (m >= 2). */
static inline unsigned fs__batch_k(uint64_t m)
{
    if (m <= (UINT64_C(1) << 10)) return 6;
    if (m <= (UINT64_C(1) << 12)) return 5;
    if (m <= (UINT64_C(1) << 15)) return 4;
    if (m <= (UINT64_C(1) << 20)) return 3;
    if (m <= (UINT64_C(1) << 30)) return 2;
    return 1;
}

/* A word source over the generator's buffer, held in locals by the hot
 * loops: the compiler cannot keep rng->s->pos in a register across the
 * element stores of a shuffle (they might alias it), so the loops read
 * words through this copy and write the position back before any refill.
 * The words taken are exactly those fs__u64() would return, in order.
 * Closing zeroes the words taken since opening (fast key erasure, as every
 * reader does; internal.h): one memset per buffer, not a store per word. */
typedef struct fs__wsrc {
    const unsigned char *p, *e;
    fs_rng *rng;
    size_t from; /* buffer offset at opening */
} fs__wsrc;

static inline void fs__wsrc_open(fs__wsrc *w, fs_rng *rng)
{
    fs_stream *s = rng->s;
    w->rng = rng;
    w->from = s->pos;
    w->p = s->buf + s->pos;
    w->e = w->p + ((s->end - s->pos) & ~(size_t)7);
}

static inline void fs__wsrc_close(fs__wsrc *w)
{
    fs_stream *s = w->rng->s;
    s->pos = (size_t)(w->p - s->buf);
    memset(s->buf + w->from, 0, s->pos - w->from);
}

static inline uint64_t fs__wsrc_u64(fs__wsrc *w)
{
    uint64_t v;
    if (FS_LIKELY(w->p < w->e)) {
        memcpy(&v, w->p, 8);
        w->p += 8;
        return v;
    }
    fs__wsrc_close(w);
    v = fs__u64(w->rng); /* refills; handles a partial word at the end */
    fs__wsrc_open(w, w->rng);
    return v;
}

/* Bounds b, b-1, ..., b-k+1 (descending; Durstenfeld), k >= 1, b-k+1 >= 1.
 * out[t] is uniform in [0, b-t). */
static inline void fs__batch_down(fs__wsrc *w, uint64_t b, unsigned k,
                                  uint64_t *out)
{
    uint64_t p = b;
    FS_UNROLL
    for (unsigned t = 1; t < k; t++)
        p *= b - t;
    for (;;) {
        uint64_t lo = fs__wsrc_u64(w);
        FS_UNROLL
        for (unsigned t = 0; t < k; t++) {
            fs_u128 m = (fs_u128)lo * (b - t);
            out[t] = (uint64_t)(m >> 64);
            lo = (uint64_t)m;
        }
        /* a failed generator yields zeros forever: stop on its error */
        if (FS_LIKELY(lo >= p) || lo >= fs__lemire_threshold64(p) ||
            w->rng->error != FS_OK)
            return;
    }
}

/* The batched shuffle (batched.c). */
void fs__durstenfeld_batched(unsigned char *base, size_t n, size_t size,
                             fs_rng *rng);
/* The same shuffle (the same draws and swaps) that also prefetches the
 * pflen bytes at pf, one 64-byte line per batch, for what runs next. */
void fs__durstenfeld_batched_pf(unsigned char *base, size_t n, size_t size,
                                fs_rng *rng, const void *pf, size_t pflen);

#endif
