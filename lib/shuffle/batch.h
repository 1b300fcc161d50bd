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
 * stream is the same on every machine): the largest k with m^k < 2^64
 * among these steps.  FS_BATCH_MAX is 6. */
#ifndef FS_BATCH_H
#define FS_BATCH_H

#include "../internal.h"

#define FS_BATCH_MAX 6

/* k for a batch whose largest bound is m (m >= 2). */
static inline unsigned fs__batch_k(uint64_t m)
{
    if (m <= (UINT64_C(1) << 10)) return 6;  /* 2^60 */
    if (m <= (UINT64_C(1) << 12)) return 5;  /* 2^60 */
    if (m < (UINT64_C(1) << 16)) return 4;   /* < 2^64 */
    if (m <= (UINT64_C(1) << 21)) return 3;  /* 2^63 */
    if (m < (UINT64_C(1) << 32)) return 2;   /* < 2^64 */
    return 1;
}

/* Bounds b, b-1, ..., b-k+1 (descending; Durstenfeld), k >= 1, b-k+1 >= 1.
 * out[t] is uniform in [0, b-t). */
static inline void fs__batch_down(fs_rng *rng, uint64_t b, unsigned k,
                                  uint64_t *out)
{
    uint64_t p = b;
    for (unsigned t = 1; t < k; t++)
        p *= b - t;
    for (;;) {
        uint64_t lo = fs__u64(rng);
        for (unsigned t = 0; t < k; t++) {
            fs_u128 m = (fs_u128)lo * (b - t);
            out[t] = (uint64_t)(m >> 64);
            lo = (uint64_t)m;
        }
        if (FS_LIKELY(lo >= p) || lo >= fs__lemire_threshold64(p))
            return;
    }
}

/* Bounds b, b+1, ..., b+k-1 (ascending; inside-out), b >= 1. */
static inline void fs__batch_up(fs_rng *rng, uint64_t b, unsigned k,
                                uint64_t *out)
{
    uint64_t p = b;
    for (unsigned t = 1; t < k; t++)
        p *= b + t;
    for (;;) {
        uint64_t lo = fs__u64(rng);
        for (unsigned t = 0; t < k; t++) {
            fs_u128 m = (fs_u128)lo * (b + t);
            out[t] = (uint64_t)(m >> 64);
            lo = (uint64_t)m;
        }
        if (FS_LIKELY(lo >= p) || lo >= fs__lemire_threshold64(p))
            return;
    }
}

/* The batched shuffles (batched.c). */
void fs__durstenfeld_batched(unsigned char *base, size_t n, size_t size,
                             fs_rng *rng);
/* Inside-out from src into dst (no overlap), n >= 1, batched draws. */
void fs__inside_out_batched(unsigned char *dst, const unsigned char *src,
                            size_t n, size_t size, fs_rng *rng);

#endif
