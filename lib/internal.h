/* internal.h -- what the library's files share and users never see. */
#ifndef FS_INTERNAL_H
#define FS_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "fairshuf.h"

#define FS_LIKELY(x) __builtin_expect(!!(x), 1)
#define FS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A generator is a byte stream served from a buffer; the buffer is refilled
 * by the generator's own function.  Every reader zeroes the bytes it takes
 * (as OpenBSD's arc4random does): a state read later holds only output
 * not yet handed out, never what was (fast key erasure, docs/entropy.md).  For an OS-keyed chacha20 the stream
 * (and the key) live in a MADV_WIPEONFORK page, so a child sees pos == end
 * == 0 and re-keys on its first draw. */
/* 4 KiB: each OS-keyed chacha20 refill also derives the next key (one
 * more ChaCha block and call), which cost 0.68 ns per output byte at 1 KiB
 * refills and 0.56 at 4 KiB (bare keystream 0.53).  No stream depends on
 * it: every generator's bytes are the same for any buffer size. */
#define FS_RNG_BUF 4096

/* FS_RNG_BUF zero bytes: ChaCha20 keystream is the cipher XORed onto
 * them (lib/rng/rng.c; read-only, so no buffer is zeroed per refill). */
extern const unsigned char fs__zeros[FS_RNG_BUF];

typedef struct fs_stream {
    size_t pos, end;
    unsigned char buf[FS_RNG_BUF];
} fs_stream;

struct fs_rng;
typedef struct fs_rng_vtable {
    const fs_rng_info *info;
    /* Refills s->buf[0..s->end) with the next bytes; sets s->pos = 0.  On
     * failure sets rng->error and fills zeros. */
    void (*refill)(struct fs_rng *rng);
    void (*destroy)(struct fs_rng *rng); /* optional */
    /* Seeding (lib/rng/seed.c calls it, so a generator is its own file plus
     * a line in rng.c's registry): seed_u64 takes the integer of
     * docs/stream.md §1 (from the seed string, or 64 bits from the OS);
     * a generator keyed otherwise sets seed_string instead, which gets the
     * seed string itself (NULL: from the OS). */
    int (*seed_u64)(struct fs_rng *rng, uint64_t seed);
    int (*seed_string)(struct fs_rng *rng, const char *seed);
} fs_rng_vtable;

struct fs_rng {
    fs_stream *s;              /* points into `own` or a wipe-on-fork page */
    const fs_rng_vtable *vt;
    int error;
    void *ext;                 /* generator-specific heap state, or NULL */
    union {
        uint64_t u64[4];
        uint32_t u32[4];
        struct { uint64_t hi, lo, inc_hi, inc_lo; } pcg;
    } st;                      /* small generator states */
    fs_stream own;
};

/* Slow path: refill and take n (<= 8) bytes. */
uint64_t fs__rng_take_slow(fs_rng *rng, unsigned n);

static inline uint64_t fs__u64(fs_rng *rng)
{
    fs_stream *s = rng->s;
    if (FS_LIKELY(s->end - s->pos >= 8)) {
        uint64_t v;
        memcpy(&v, s->buf + s->pos, 8);
        memset(s->buf + s->pos, 0, 8); /* erased as handed out */
        s->pos += 8;
        return v; /* little-endian hosts only (checked in rng.c) */
    }
    return fs__rng_take_slow(rng, 8);
}

static inline uint32_t fs__u32(fs_rng *rng)
{
    fs_stream *s = rng->s;
    if (FS_LIKELY(s->end - s->pos >= 4)) {
        uint32_t v;
        memcpy(&v, s->buf + s->pos, 4);
        memset(s->buf + s->pos, 0, 4);
        s->pos += 4;
        return v;
    }
    return (uint32_t)fs__rng_take_slow(rng, 4);
}

/* Resolves NULL to the thread's default generator (may return NULL). */
static inline fs_rng *fs__rng(fs_rng *rng)
{
    return rng ? rng : fs_rng_default();
}

/* Lemire's method, one word at a time.  Written once as a template so that
 * the exhaustive test (tests/unit/test_bounded.c) runs the very same steps
 * on 16-bit words.  W holds a word of BITS bits (W may be wider), DW holds
 * a product of two.
 *
 * LEMIRE_STEP(x, n, t, &res): res = hi(x*n); accepted iff lo(x*n) >= t,
 *   where t = 2^BITS mod n.  (Callers skip computing t while lo >= n,
 *   since t < n.)
 * BATCH_STEP(x, b, out, k): Lemire on the product P of b[0..k), its result
 *   written as mixed-radix digits out[i] in [0, b[i]); returns lo(x*P),
 *   and the draw is accepted iff that is >= 2^BITS mod P. */
#define FS_DEFINE_LEMIRE_STEP(NAME, W, DW, BITS)                          \
    static inline int NAME(W x, W n, W t, W *res)                         \
    {                                                                     \
        DW m = (DW)x * (DW)n;                                             \
        W lo = (W)(m & ((((DW)1) << (BITS)) - 1));                        \
        *res = (W)(m >> (BITS));                                          \
        return lo >= t;                                                   \
    }
#define FS_DEFINE_BATCH_STEP(NAME, W, DW, BITS)                           \
    static inline W NAME(W x, const W *b, W *out, size_t k)               \
    {                                                                     \
        W lo = x;                                                         \
        for (size_t i = 0; i < k; i++) {                                  \
            DW m = (DW)lo * (DW)b[i];                                     \
            out[i] = (W)(m >> (BITS));                                    \
            lo = (W)(m & ((((DW)1) << (BITS)) - 1));                      \
        }                                                                 \
        return lo;                                                        \
    }

__extension__ typedef unsigned __int128 fs_u128;
FS_DEFINE_LEMIRE_STEP(fs__lemire_step64, uint64_t, fs_u128, 64)
FS_DEFINE_BATCH_STEP(fs__batch_step64, uint64_t, fs_u128, 64)

/* The threshold 2^64 mod n, computed as (-n) % n in 64-bit arithmetic. */
static inline uint64_t fs__lemire_threshold64(uint64_t n)
{
    return (uint64_t)(0 - n) % n;
}

/* Uniform in [0, n), n >= 1: the hot form used by every shuffle. */
static inline uint64_t fs__below(fs_rng *rng, uint64_t n)
{
    uint64_t r, x = fs__u64(rng);
    if (FS_LIKELY(fs__lemire_step64(x, n, n, &r))) /* lo >= n >= t */
        return r;
    uint64_t t = fs__lemire_threshold64(n);
    /* A failed generator yields zeros forever: stop on its sticky error. */
    while (!fs__lemire_step64(x, n, t, &r) && rng->error == FS_OK)
        x = fs__u64(rng);
    return r;
}

/* Swap of two elements of `size` bytes, 8 bytes at a time, then 4, then
 * 1 at a time: copies of a constant size, which the compiler makes loads and stores
 * (a memcpy of a variable size is a libc call; three per swap made a
 * 16-byte element cost 7x an 8-byte one in cache; docs/performance.md,
 * "Arrays").  a == b is allowed. */
static inline void fs__swap(unsigned char *a, unsigned char *b, size_t size)
{
    size_t k = 0;
    for (; size - k >= 8; k += 8) {
        uint64_t x, y;
        memcpy(&x, a + k, 8);
        memcpy(&y, b + k, 8);
        memcpy(a + k, &y, 8);
        memcpy(b + k, &x, 8);
    }
    if (size - k >= 4) {
        uint32_t x, y;
        memcpy(&x, a + k, 4);
        memcpy(&y, b + k, 4);
        memcpy(a + k, &y, 4);
        memcpy(b + k, &x, 4);
        k += 4;
    }
    for (; k < size; k++) {
        unsigned char t = a[k];
        a[k] = b[k];
        b[k] = t;
    }
}

/* qsort/bsearch order of uint64_t values. */
static inline int fs__cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Room for item n (0-based) in the array *p of capacity *cap items of
 * `size` bytes, doubling from `first`: FS_OK, or FS_ENOMEM with *p and
 * *cap unchanged. */
static inline int fs__grow_array(void **p, size_t *cap, size_t n, size_t size,
                                 size_t first)
{
    if (n < *cap)
        return FS_OK;
    size_t nc = *cap ? 2 * *cap : first;
    void *q = realloc(*p, nc * size);
    if (q == NULL)
        return FS_ENOMEM;
    *p = q;
    *cap = nc;
    return FS_OK;
}

#endif
