/* bucket.c -- the bucket shuffle for arrays beyond cache, in place, with
 * no per-element memory beyond 5 bytes per block of 64 elements (Rao 1961;
 * Sanders, "Random permutations on distributed, external and hierarchical
 * memory", IPL 1998; Penschuck, "Engineering shared-memory parallel
 * shuffling to generate random permutations in-place", SEA 2023, whose
 * in-place scatter also moves blocks).  docs/stream.md §4 specifies it.
 *
 * 1. Every input position p gets a uniform bucket label in [0, B), B =
 *    2^L <= 256: the top L bits of one byte of a seekable label stream
 *    (chunk c = p / chunk has its own: ChaCha20 keystream with a block
 *    counter, or a SplitMix64 counter; position o of the chunk reads byte
 *    o).  Labels are never stored: classify generates them as it reads.
 * 2. The elements are moved in place into their buckets by a block
 *    distribution whose result is a fixed function of the input and the
 *    labels (not of an order of moves), so every phase runs on threads:
 *    - classify (per unit of consecutive chunks, in place): each element
 *      goes through a BS-element buffer of its bucket; full buffers are
 *      written back to the unit's front as blocks, the leftovers (tails)
 *      go to a side store; the labels are counted on the way;
 *    - dest: the k-th block of bucket b goes to the k-th block-aligned
 *      slot of b's range, or to b's one overflow block;
 *    - the block moves form paths and cycles; paths are pulled backwards
 *      from their ends (threads take different ends: no locks), the few
 *      cycles left run in one thread;
 *    - cleanup: each bucket's remaining positions get its overflow block,
 *      then the tails, units in order.
 * 3. Each bucket, now small enough for cache, is shuffled in place by
 *    Durstenfeld with batched draws.
 *
 * Why it is exactly uniform.  The labels are i.i.d. uniform, so the bucket
 * sizes are multinomial and, given the sizes, the set of elements in each
 * bucket is a uniform random subset of that size.  Step 2 puts each
 * bucket's elements into the bucket's range in SOME order -- a
 * deterministic function of the input and the labels: step 3 applies to
 * each bucket an independent uniform permutation (its own child generator,
 * never used by steps 1-2), and a uniform permutation composed with any
 * independent arrangement is uniform.  So given the sizes, every
 * arrangement of each bucket's subset is equally likely, every subset is
 * equally likely, and summing over the sizes every one of the n! orders
 * has the same probability.  (The within-bucket order of step 2 matters
 * only for reproducibility, which is why it is specified exactly.)
 *
 * Threads never change the output: labels depend on the position only,
 * step 2's arrangement is defined without an order of work, bucket b is
 * shuffled by child nchunks + b, and the streams are keyed by 32 bytes
 * drawn from the caller's generator (lib/rng/child.h).
 *
 * Cost: one byte of label keystream per element; step 2 reads and writes
 * each element about twice (classify, then the block moves) and the tails
 * once more; step 3 works in cache.  Memory (docs/performance.md, "Arrays"): per
 * block slot a 4-byte source, whose top byte holds the slot's tag until
 * the sources are known (below 2^24 - 1 slots, n < about 10^9 of 8 bytes;
 * beyond, a separate tag byte per slot); the tails, fewer than
 * U * B * BS elements (BS is capped so that is at most n / 32; about
 * n / 400 are used at n = 1e8); per thread B * BS elements of buffer. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <unistd.h>

#include "../rng/child.h"
#include "../rng/generators.h"
#include "../rng/keystream.h"
#include "batch.h"
#include "bucket.h"
#include "shuffle.h"

fs__bucket_params fs__bucket_test_params;

static size_t p_min_bytes(void)
{
    return fs__bucket_test_params.min_bytes ? fs__bucket_test_params.min_bytes
                                            : FS_BUCKET_MIN_BYTES;
}

int fs__bucket_wanted(size_t n, size_t size)
{
    return n >= 2 && n * size >= p_min_bytes();
}

/* Label bytes classify generates at a time (64 ChaCha20 blocks). */
#define LABEL_BYTES 4096
_Static_assert(LABEL_BYTES <= FS_RNG_BUF, "label blocks fit fs__zeros");

typedef struct plan {
    unsigned char *base;
    size_t n, size;
    unsigned L;          /* B = 2^L buckets, L <= 8 */
    size_t B, chunk, nchunks;
    size_t nunits;       /* classify units: runs of consecutive chunks */
    size_t *cnt;         /* nunits x B label counts */
    size_t *start;       /* B + 1: bucket b is [start[b], start[b+1]) */
    int crypto;
    unsigned char key[32];
    uint64_t lkey;       /* key word 1: the SplitMix64 label streams */
    /* step 2 */
    size_t bs, nslots;   /* block length (elements), blocks in the array */
    size_t tcap;         /* tail room per unit (elements): B * (bs - 1) */
    size_t *pre;         /* nunits x B: blocks of bucket b before unit u */
    size_t *full;        /* nunits: blocks of unit u (its first slots) */
    unsigned char *tag;  /* slot g's tag (its block's bucket): tag[g * ts] */
    size_t ts;           /* 4: tags are byte TAG_AT of inv's entries */
    unsigned char *tagmem; /* 1: the separate tag array (many slots) */
    uint32_t *inv;       /* per slot: the slot whose block comes here */
    unsigned char *tails, *ovf; /* tail store; B overflow blocks */
    size_t *A, *F;       /* B: first block slot of bucket b, block count */
    uint32_t *ovfsrc;    /* B: the block of b bound for its overflow */
    unsigned char **bufs; /* per thread: B * bs * size bytes */
} plan;

enum { CLASSIFY, DEST, PATHS, OVERFLOWS, CLEANUP, BUCKETS };

/* ---- the label streams ---- */

/* Bytes [off, off + len) of chunk c's label stream into out (off and len
 * multiples of 64).  Crypto: the keystream of ChaCha20 with the plan's
 * key, nonce = 4 zero bytes and c little-endian, block counter off / 64.
 * Otherwise: SplitMix64 started at K_1 XOR (c * golden), its outputs as
 * little-endian bytes (a counter: word w is mix(start + (w + 1) * golden)).
 * Position o of the chunk has label byte o >> (8 - L). */
static void label_bytes(const plan *p, size_t c, uint64_t off,
                        unsigned char *out, size_t len)
{
    if (p->crypto) {
        /* the keystream: the cipher XORed onto zeros (len <= LABEL_BYTES) */
        unsigned char nonce[12] = {0};
        for (int i = 0; i < 8; i++)
            nonce[4 + i] = (unsigned char)((uint64_t)c >> (8 * i));
        fs__chacha20(out, len, p->key, nonce, (uint32_t)(off / 64));
        return;
    }
    uint64_t x = (p->lkey ^ ((uint64_t)c * 0x9e3779b97f4a7c15ULL)) +
                 off / 8 * 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = fs__splitmix64_next(&x);
        memcpy(out + i, &w, 8); /* little-endian hosts only (rng.c) */
    }
}

/* ---- step 2: the block distribution (stream version 4) ----
 *
 * Every phase is divided among threads and its result never depends on
 * how: the arrangement step 2 leaves is a fixed function of the input and
 * the labels (docs/stream.md §4).  The chunks are grouped into at most
 * FS_BUCKET_UNITS classify units of consecutive chunks; blocks are BS
 * elements, a power of two dividing the chunk, so every unit starts on a
 * block boundary. */

/* Copies a block of len bytes, 64 at a time when it can: memcpy with a
 * length unknown at compile time is a libc call (12% of a 1e7 shuffle in
 * perf), and gcc -O2 made a 512-byte one `rep movsq`. */
static inline void copy_block(unsigned char *dst, const unsigned char *src,
                              size_t len)
{
#if defined(__SSE2__)
    if (len % 64 == 0) {
        for (size_t i = 0; i < len; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 32));
            __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 48));
            _mm_storeu_si128((__m128i *)(void *)(dst + i), a);
            _mm_storeu_si128((__m128i *)(void *)(dst + i + 16), b);
            _mm_storeu_si128((__m128i *)(void *)(dst + i + 32), c);
            _mm_storeu_si128((__m128i *)(void *)(dst + i + 48), d);
        }
        return;
    }
#endif
    memcpy(dst, src, len);
}

/* Unit u is chunks [unit_chunk(u), unit_chunk(u + 1)). */
static size_t unit_chunk(const plan *p, size_t u)
{
    return u * p->nchunks / p->nunits;
}

/* Unit u's element positions [unit_lo, unit_lo of u + 1 or n). */
static size_t unit_lo(const plan *p, size_t u)
{
    return unit_chunk(p, u) * p->chunk;
}

/* The unit holding slot g: the largest u with unit_chunk(u) <= g's chunk. */
static size_t unit_of_slot(const plan *p, size_t g)
{
    size_t c = g * p->bs / p->chunk;
    return ((c + 1) * p->nunits + p->nchunks - 1) / p->nchunks - 1;
}

/* Runs BODY for each block of label bytes of unit u, chunks in order (each
 * has its own label stream): lb holds m labels, those of positions
 * [first, first + m). */
#define FOR_EACH_LABEL_BLOCK(BODY)                                          \
    for (size_t c = unit_chunk(p, u); c < unit_chunk(p, u + 1); c++) {      \
        size_t clo = c * p->chunk;                                          \
        size_t clen = p->n - clo < p->chunk ? p->n - clo : p->chunk;        \
        for (size_t off = 0; off < clen; off += LABEL_BYTES) {              \
            size_t m = clen - off < LABEL_BYTES ? clen - off : LABEL_BYTES; \
            label_bytes(p, c, off, lb, (m + 63) & ~(size_t)63);             \
            size_t first = clo + off;                                       \
            BODY                                                            \
        }                                                                   \
    }

/* The labels of a block, lb[i] >> sh in place, vectorised, so that the
 * classify loop reads each label as it is (a variable shift there cost two
 * of its dozen instructions per element). */
static void shift_labels(unsigned char *lb, size_t m, unsigned sh)
{
    for (size_t i = 0; i < m; i++)
        lb[i] = (unsigned char)(lb[i] >> sh);
}

/* The classify loop for elements of type T_ (16, 8 or 4 bytes): a write
 * pointer per bucket into buf, whose bucket buffers are aligned to their
 * size (bs * 16, 8 or 4 bytes, a power of two), so a buffer is full when
 * its pointer reaches the next boundary.  It prefetches the input
 * SRC_AHEAD bytes ahead, one 64-byte line at a time: on this project's VM
 * the hardware prefetcher alone left classify 15-20 % slower (1.43-1.47
 * against 1.19-1.25 ns per element at 1e7; docs/performance.md, "Arrays");
 * 1 and 4 KiB ahead gained less, 8 KiB nothing.  An address, not a
 * pointer: near the end it passes the array (a prefetch never faults). */
#define SRC_AHEAD 2048
/* Element i of the label block into its bucket's buffer; a full buffer
 * goes to the unit's front as a block. */
#define CLASSIFY_ONE(T_, i)                                                 \
    do {                                                                    \
        unsigned l = lb[i];                                                 \
        T_ *q = wp[l];                                                      \
        *q++ = src[i];                                                      \
        if (FS_UNLIKELY(((uintptr_t)q & (BB - 1)) == 0)) {                  \
            q -= BS;                                                        \
            copy_block(p->base + w * sizeof(T_), (const unsigned char *)q,  \
                       BB);                                                 \
            *tag = (unsigned char)l;                                        \
            tag += p->ts;                                                   \
            blocks[l]++;                                                    \
            w += BS;                                                        \
        }                                                                   \
        wp[l] = q;                                                          \
    } while (0)
/* The loop runs a 64-byte line of input (E_ elements) per step, unrolled,
 * with one prefetch per step: 4 fewer instructions per element than a
 * test for the line's first element in every step (bench/counts.sh). */
#define CLASSIFY_TYPED(T_)                                                  \
    do {                                                                    \
        const size_t BB = BS * sizeof(T_);                                  \
        enum { E_ = 64 / sizeof(T_) };                                      \
        T_ *wp[256];                                                        \
        for (size_t b = 0; b < p->B; b++)                                   \
            wp[b] = (T_ *)(void *)(buf + b * BB);                           \
        unsigned char *tag = p->tag + w / BS * p->ts; /* the next tag */  \
        FOR_EACH_LABEL_BLOCK({                                              \
            const T_ *src = (const T_ *)(const void *)p->base + first;      \
            if (sh)                                                         \
                shift_labels(lb, m, sh);                                    \
            size_t i = 0;                                                   \
            for (; i + E_ <= m; i += E_) {                                  \
                __builtin_prefetch(                                         \
                    (const void *)((uintptr_t)(src + i) + SRC_AHEAD), 0, 0); \
                FS_UNROLL                                                   \
                for (size_t t = 0; t < E_; t++)                             \
                    CLASSIFY_ONE(T_, i + t);                                \
            }                                                               \
            for (; i < m; i++)                                              \
                CLASSIFY_ONE(T_, i);                                        \
        })                                                                  \
        for (size_t b = 0; b < p->B; b++)                                   \
            fill[b] = (size_t)(wp[b] - (T_ *)(void *)(buf + b * BB));       \
    } while (0)

/* Classify unit u in place: each element goes to its bucket's buffer (BS
 * elements); a full buffer goes back to the unit's front as a block (its
 * bucket in tag[]); what is left at the end (the tails: < BS per bucket)
 * goes to the unit's part of the tail store.  Counts the labels on the
 * way.  buf: B * BS * size bytes. */
static void classify_unit(plan *p, size_t u, unsigned char *buf)
{
    unsigned char lb[LABEL_BYTES];
    const size_t ES = p->size, BS = p->bs, lo = unit_lo(p, u);
    const unsigned sh = 8 - p->L;
    size_t fill[256] = {0}, blocks[256] = {0}, w = lo;
    uintptr_t al = (uintptr_t)p->base;
    if (ES == 8 && (al & 7) == 0) {
        CLASSIFY_TYPED(uint64_t);
    } else if (ES == 4 && (al & 3) == 0) {
        CLASSIFY_TYPED(uint32_t);
    } else if (ES == 16 && (al & 7) == 0) {
        CLASSIFY_TYPED(fs__e16);
    } else {
        FOR_EACH_LABEL_BLOCK({
            const unsigned char *src = p->base + first * ES;
            for (size_t i = 0; i < m; i++) {
                unsigned l = lb[i] >> sh;
                fs__copy_elem(buf + (l * BS + fill[l]) * ES, src + i * ES, ES);
                if (++fill[l] == BS) {
                    copy_block(p->base + w * ES, buf + l * BS * ES, BS * ES);
                    p->tag[w / BS * p->ts] = (unsigned char)l;
                    blocks[l]++;
                    fill[l] = 0;
                    w += BS;
                }
            }
        })
    }
    sodium_memzero(lb, sizeof lb);
    p->full[u] = (w - lo) / BS;
    unsigned char *t = p->tails + u * p->tcap * ES;
    for (size_t b = 0; b < p->B; b++) {
        memcpy(t, buf + b * BS * ES, fill[b] * ES);
        t += fill[b] * ES;
        p->cnt[u * p->B + b] = blocks[b] * BS + fill[b];
    }
}

/* Slot g's block has left (its slot then filled from inv[g]). */
#define GONE (UINT32_MAX - 1)
#define NOBLOCK UINT32_MAX

/* Tags inside inv[] (p->ts == 4): entry g's bytes 0..2 are its source,
 * little-endian, 0xFFFFFF for none (so fewer than 2^24 - 1 slots), and
 * byte TAG_AT its tag; unpack_sources() then makes them plain sources.
 * Bytes, not masks: a thread writing slot d's source never touches the
 * tag another thread reads (distinct objects, no data race). */
#define TAG_AT 3
#define PACKED_SLOTS ((size_t)0xFFFFFF)

static inline void set_source(plan *p, size_t d, size_t g)
{
    if (p->ts == 1) {
        p->inv[d] = (uint32_t)g;
        return;
    }
    unsigned char *e = (unsigned char *)&p->inv[d];
    e[0] = (unsigned char)g;
    e[1] = (unsigned char)(g >> 8);
    e[2] = (unsigned char)(g >> 16);
}

/* After DEST: every entry its plain source (NOBLOCK for none); the tags
 * (label bits) are gone. */
static void unpack_sources(plan *p)
{
    for (size_t g = 0; g < p->nslots; g++) {
        const unsigned char *e = (const unsigned char *)&p->inv[g];
        uint32_t x = e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16;
        p->inv[g] = x == 0xFFFFFF ? NOBLOCK : x;
    }
}

/* The destinations of unit u's blocks: the k-th block of bucket b (units
 * in order, blocks in order) goes to the k-th block-aligned slot inside
 * b's range, or, if it would cross the range's end, to b's overflow block
 * (at most one per bucket). */
static void dest_unit(plan *p, size_t u)
{
    size_t k[256];
    for (size_t b = 0; b < p->B; b++)
        k[b] = p->pre[u * p->B + b];
    size_t g0 = unit_lo(p, u) / p->bs;
    for (size_t g = g0; g < g0 + p->full[u]; g++) {
        unsigned l = p->tag[g * p->ts];
        size_t d = p->A[l] + k[l]++ * p->bs;
        if (d + p->bs <= p->start[l + 1])
            set_source(p, d / p->bs, g);
        else
            p->ovfsrc[l] = (uint32_t)g;
    }
}


/* The block moves form paths and cycles: a path ends at a slot that held
 * no block (or at an overflow block) and starts at a block slot that is no
 * block's destination; a cycle has only block slots.  A path is done
 * backwards from its end -- fill the end from its source inv[end], then
 * that slot from its own source, ... -- so each copy writes the slot read
 * just before (in cache) and reads a block the metadata names ahead of
 * time (prefetched).  Every slot is on one path or cycle: threads taking
 * different path ends never meet, with no locks.  Fills dst from slot s
 * on down the path, to its start or to slot `stop` (a cycle's first
 * slot); returns the last slot emptied. */
typedef struct walker {
    unsigned char *dst; /* what the next copy fills */
    uint32_t s, w;      /* the next slot to empty; the next to prefetch */
} walker;

static inline void prefetch_block(const unsigned char *q, size_t BB)
{
    for (size_t o = 0; o < BB; o += 64)
        __builtin_prefetch(q + o, 0, 3);
}

/* Starts the walk of a path at slot s (filling dst first), prefetching
 * the first `ahead` + 1 blocks. */
static inline void walk_start(const plan *p, walker *k, unsigned char *dst,
                              uint32_t s, uint32_t stop, int ahead)
{
    const size_t BB = p->bs * p->size;
    uint32_t w = s;
    for (int j = 0; j < ahead + 1 && w < GONE && w != stop; j++) {
        prefetch_block(p->base + (size_t)w * BB, BB);
        w = p->inv[w];
    }
    *k = (walker){dst, s, w};
}

/* One copy of the walk; 0 when the path has ended (k->dst is then the
 * last slot emptied). */
static inline int walk_step(plan *p, walker *k, uint32_t stop)
{
    const size_t BB = p->bs * p->size;
    unsigned char *base = p->base;
    uint32_t *inv = p->inv;
    uint32_t s = k->s, w = k->w;
    if (s >= GONE || s == stop)
        return 0;
    if (w < GONE && w != stop) {
        prefetch_block(base + (size_t)w * BB, BB);
        w = inv[w];
    }
    unsigned char *src = base + (size_t)s * BB;
    copy_block(k->dst, src, BB);
    uint32_t next = inv[s];
    inv[s] = GONE;
    *k = (walker){src, next, w};
    return 1;
}

static unsigned char *pull(plan *p, unsigned char *dst, uint32_t s,
                           uint32_t stop)
{
    walker k;
    walk_start(p, &k, dst, s, stop, 8);
    while (walk_step(p, &k, stop))
        ;
    return k.dst;
}

/* Is slot g one of its unit's blocks (classify puts them first)? */
static int is_block(const plan *p, size_t g)
{
    size_t u = unit_of_slot(p, g);
    return g - unit_lo(p, u) / p->bs < p->full[u];
}

/* The path ends among slots [lo, hi): the slots that held no block (past
 * their unit's blocks) but get one; each path pulled from its end.  Paths
 * share no slot, so WALKERS of them are pulled a step each in turn: the
 * metadata reads of one (inv[], a cache miss each) overlap the others'
 * instead of all waiting in one chain.  The result is the same in any
 * order. */
static void paths(plan *p, size_t lo, size_t hi)
{
    enum { WALKERS = 4, AHEAD = 4 };
    walker k[WALKERS];
    int live = 0;
    size_t u = unit_of_slot(p, lo);
    size_t first = unit_lo(p, u) / p->bs, next = unit_lo(p, u + 1) / p->bs;
    size_t g = lo;
    for (;;) {
        while (live < WALKERS && g < hi) { /* the next path end */
            if (g == next) {
                u++;
                first = next;
                next = unit_lo(p, u + 1) / p->bs;
            }
            if (g - first >= p->full[u] && p->inv[g] != NOBLOCK)
                walk_start(p, &k[live++], p->base + g * p->bs * p->size,
                           p->inv[g], NOBLOCK, AHEAD);
            g++;
        }
        if (live == 0)
            return;
        for (int i = 0; i < live; i++)
            if (!walk_step(p, &k[i], NOBLOCK))
                k[i--] = k[--live];
    }
}

/* The positions of bucket b outside its block slots, in increasing order,
 * get the overflow block, then the tails of units 0, 1, ... */
static void cleanup_bucket(plan *p, size_t b)
{
    const size_t ES = p->size, BS = p->bs;
    size_t S0 = p->start[b], S1 = p->start[b + 1];
    size_t e1 = p->A[b] < S1 ? p->A[b] : S1;
    size_t p2 = p->A[b] + p->F[b] * BS;
    if (p2 < e1)
        p2 = e1;
    size_t at = S0, end = e1;
#define PUT(src)                                                            \
    do {                                                                    \
        if (at == end) {                                                    \
            at = p2;                                                        \
            end = S1;                                                       \
        }                                                                   \
        fs__copy_elem(p->base + at++ * ES, (src), ES);                      \
    } while (0)
    if (p->ovfsrc[b] != NOBLOCK)
        for (size_t i = 0; i < BS; i++)
            PUT(p->ovf + (b * BS + i) * ES);
    for (size_t u = 0; u < p->nunits; u++) {
        size_t o = u * p->tcap;
        for (size_t bb = 0; bb < b; bb++)
            o += p->cnt[u * p->B + bb] % BS;
        size_t m = p->cnt[u * p->B + b] % BS;
        for (size_t i = 0; i < m; i++)
            PUT(p->tails + (o + i) * ES);
    }
#undef PUT
}

/* Buckets of at most this many bytes are brought into cache while the
 * bucket before them is shuffled (two fit a 1 MiB L2); larger ones are
 * read once just before.  Speed only: the output is the same. */
#define PREFETCH_MAX ((size_t)512 << 10)

static size_t bucket_bytes(const plan *p, size_t b)
{
    return (p->start[b + 1] - p->start[b]) * p->size;
}

/* Step 3 for bucket b: Durstenfeld with batched draws, in place, from
 * child nchunks + b.  warm: the bucket was prefetched during the one
 * before; next: bucket b + 1 is this thread's next. */
static void shuffle_bucket(plan *p, size_t b, int warm, int next)
{
    size_t lo = p->start[b], m = p->start[b + 1] - lo;
    const unsigned char *q = p->base + lo * p->size;
    size_t bytes = m * p->size;
    /* The bucket comes from memory cold: read it once sequentially (the
     * hardware prefetcher streams it at full bandwidth) so that the
     * random accesses of the shuffle hit cache instead of each waiting
     * for DRAM -- unless the shuffle of the bucket before prefetched it. */
    if (!warm || bytes > PREFETCH_MAX) {
        unsigned acc = 0;
        for (size_t i = 0; i < bytes; i += 64)
            acc += q[i];
        __asm__ volatile("" : : "r"(acc));
    }
    size_t pflen = next && bytes <= PREFETCH_MAX &&
                           bucket_bytes(p, b + 1) <= PREFETCH_MAX
                       ? bucket_bytes(p, b + 1)
                       : 0;
    if (m < 2)
        return;
    fs__child ch;
    fs__rng_child(&ch, p->crypto, p->key, p->nchunks + b);
    fs__durstenfeld_batched_pf(p->base + lo * p->size, m, p->size, &ch.rng,
                               q + bytes, pflen);
    fs__rng_child_wipe(&ch);
}

typedef struct job {
    plan *p;
    int phase;
    size_t lo, hi;
    unsigned char *buf; /* this thread's classify buffer */
} job;

static void *work(void *arg)
{
    job *j = arg;
    plan *p = j->p;
    if (j->phase == PATHS) {
        paths(p, j->lo, j->hi);
        return NULL;
    }
    for (size_t i = j->lo; i < j->hi; i++) {
        switch (j->phase) {
        case CLASSIFY:
            classify_unit(p, i, j->buf);
            break;
        case DEST:
            dest_unit(p, i);
            break;
        case OVERFLOWS: /* the other path ends: bucket i's overflow block */
            if (p->ovfsrc[i] != NOBLOCK)
                pull(p, p->ovf + i * p->bs * p->size, p->ovfsrc[i], NOBLOCK);
            break;
        case CLEANUP:
            cleanup_bucket(p, i);
            break;
        default:
            shuffle_bucket(p, i, i > j->lo, i + 1 < j->hi);
        }
    }
    return NULL;
}

/* Items [0, items) split into `threads` contiguous parts; part 0 runs in
 * the calling thread, and a part whose thread cannot start runs here too
 * (same work, same output). */
static void run_phase(plan *p, int phase, size_t items, unsigned threads)
{
    enum { MAXT = 256 };
    if (threads > items)
        threads = (unsigned)items;
    if (threads > MAXT)
        threads = MAXT;
    if (threads <= 1) {
        job j = {p, phase, 0, items, p->bufs[0]};
        work(&j);
        return;
    }
    job jobs[MAXT];
    pthread_t tid[MAXT];
    int started[MAXT] = {0};
    for (unsigned t = 0; t < threads; t++)
        jobs[t] = (job){p, phase, items * t / threads,
                        items * (t + 1) / threads, p->bufs[t]};
    for (unsigned t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, work, &jobs[t]) == 0;
    work(&jobs[0]);
    for (unsigned t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            work(&jobs[t]);
    }
}

int fs__bucket_run(unsigned char *base, size_t n, size_t size,
                   unsigned threads, fs_rng *rng)
{
    const fs__bucket_params *tp = &fs__bucket_test_params;
    size_t bucket_bytes = tp->bucket_bytes ? tp->bucket_bytes : FS_BUCKET_BYTES;
    size_t chunk = tp->chunk ? tp->chunk : FS_BUCKET_CHUNK;
    unsigned max_log2 = tp->max_log2 ? tp->max_log2 : FS_BUCKET_MAX_LOG2;
    if (max_log2 > 8) /* labels are bytes */
        max_log2 = 8;
    plan p = {.base = base, .n = n, .size = size, .chunk = chunk};
    /* L = ceil(log2(n*size / bucket_bytes)), within [1, max_log2]. */
    p.L = 1;
    while (p.L < max_log2 && ((size_t)bucket_bytes << p.L) < n * size)
        p.L++;
    p.B = (size_t)1 << p.L;
    p.nchunks = (n + chunk - 1) / chunk;
    if (threads == 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (unsigned)c : 1;
    }
    /* Classify units: U = min(chunks, FS_BUCKET_UNITS).  Blocks: BS = the
     * largest power of two <= FS_BUCKET_BLOCK and <= n / (32 U B), at least
     * 1 (so the tails, < U B BS elements, are at most n / 32, and so are
     * all the classify buffers), that divides the chunk.  Both depend on
     * n and the plan only, never on the element size alone (§7). */
    p.nunits = p.nchunks < FS_BUCKET_UNITS ? p.nchunks : FS_BUCKET_UNITS;
    p.bs = 1;
    while (p.bs < FS_BUCKET_BLOCK && p.bs * 2 <= n / (32 * p.nunits * p.B) &&
           chunk % (p.bs * 2) == 0)
        p.bs *= 2;
    p.nslots = (n + p.bs - 1) / p.bs;
    p.tcap = p.B * (p.bs - 1);
    unsigned nbuf = threads < p.nunits ? threads : (unsigned)p.nunits;
    if (nbuf > 256)
        nbuf = 256;
    /* sizes no real array reaches, but the products below must not wrap,
     * and slot numbers must fit inv[] */
    if (p.nslots >= GONE || size > SIZE_MAX / (256 * FS_BUCKET_BLOCK) ||
        (p.tcap && p.nunits > SIZE_MAX / p.tcap / size))
        return FS_ENOMEM;
    int rc = FS_ENOMEM;
    /* every allocation before the array is touched; the test hook can
     * refuse the k-th (fail_alloc = k) to check that path */
    unsigned nalloc = 0;
#define ALLOC(e) (++nalloc == tp->fail_alloc ? NULL : (e))
    p.cnt = ALLOC(calloc(p.nunits * p.B, sizeof *p.cnt));
    p.pre = ALLOC(calloc(p.nunits * p.B, sizeof *p.pre));
    p.full = ALLOC(calloc(p.nunits, sizeof *p.full));
    p.start = ALLOC(malloc((p.B + 1) * sizeof *p.start));
    p.A = ALLOC(malloc(p.B * sizeof *p.A));
    p.F = ALLOC(malloc(p.B * sizeof *p.F));
    p.ovfsrc = ALLOC(malloc(p.B * sizeof *p.ovfsrc));
    p.inv = ALLOC(malloc(p.nslots * sizeof *p.inv));
    p.ts = p.nslots < PACKED_SLOTS && !tp->separate_tags ? 4 : 1;
    if (p.ts == 1)
        p.tagmem = ALLOC(malloc(p.nslots));
    /* the tails' worst case; pages are touched only as used (about half) */
    p.tails = ALLOC(malloc(p.tcap ? p.nunits * p.tcap * size : 1));
    p.ovf = ALLOC(malloc(p.B * p.bs * size));
    p.bufs = ALLOC(calloc(256, sizeof *p.bufs));
    if (p.cnt == NULL || p.pre == NULL || p.full == NULL || p.start == NULL ||
        p.A == NULL || p.F == NULL || p.ovfsrc == NULL ||
        (p.ts == 1 && p.tagmem == NULL) || p.inv == NULL ||
        p.tails == NULL || p.ovf == NULL || p.bufs == NULL)
        goto out;
    for (unsigned t = 0; t < nbuf; t++)
        if ((p.bufs[t] = ALLOC(aligned_alloc(
                 4096, (p.B * p.bs * size + 4095) / 4096 * 4096))) == NULL)
            goto out;
#undef ALLOC
    /* The only draw from the caller's generator: 32 bytes, as 4 words. */
    for (int i = 0; i < 4; i++) {
        uint64_t w = fs__u64(rng);
        memcpy(p.key + 8 * i, &w, 8);
    }
    memcpy(&p.lkey, p.key + 8, 8);
    p.crypto = rng->vt->info->cryptographic;
    if (rng->error != FS_OK) { /* no key: leave the array as it was */
        rc = rng->error;
        goto out;
    }

    /* every source NOBLOCK; classify then writes the tags (into inv's
     * entries, or the separate array) */
    memset(p.inv, 0xff, p.nslots * sizeof *p.inv);
    p.tag = p.ts == 1 ? p.tagmem : (unsigned char *)p.inv + TAG_AT;
    run_phase(&p, CLASSIFY, p.nunits, nbuf);
    size_t pos = 0;
    for (size_t b = 0; b < p.B; b++) {
        p.start[b] = pos;
        p.A[b] = (pos + p.bs - 1) / p.bs * p.bs;
        size_t blocks = 0;
        for (size_t u = 0; u < p.nunits; u++) {
            p.pre[u * p.B + b] = blocks;
            blocks += p.cnt[u * p.B + b] / p.bs;
            pos += p.cnt[u * p.B + b];
        }
        size_t room = p.A[b] < pos ? (pos - p.A[b]) / p.bs : 0;
        p.F[b] = blocks < room ? blocks : room;
        p.ovfsrc[b] = NOBLOCK;
    }
    p.start[p.B] = pos;
    run_phase(&p, DEST, p.nunits, threads);
    if (p.ts == 4)
        unpack_sources(&p);
    run_phase(&p, PATHS, p.nslots, threads);
    run_phase(&p, OVERFLOWS, p.B, threads);
    /* What is left are cycles of blocks (a few: tail slots end most
     * paths), one thread: c's block saved, the cycle pulled round, the
     * saved block into the last slot emptied. */
    for (size_t g = 0; g < p.nslots; g++)
        if (p.inv[g] != GONE && is_block(&p, g)) {
            unsigned char *save = p.bufs[0];
            size_t BB = p.bs * size;
            copy_block(save, base + g * BB, BB);
            uint32_t first = p.inv[g];
            p.inv[g] = GONE;
            copy_block(pull(&p, base + g * BB, first, (uint32_t)g), save, BB);
        }
    run_phase(&p, CLEANUP, p.B, threads);
    run_phase(&p, BUCKETS, p.B, threads);
    rc = FS_OK;
out:
    sodium_memzero(p.key, sizeof p.key);
    sodium_memzero(&p.lkey, sizeof p.lkey);
    if (p.tagmem) /* label bits (packed tags are gone in unpack_sources) */
        sodium_memzero(p.tagmem, p.nslots);
    if (p.bufs)
        for (unsigned t = 0; t < 256; t++)
            free(p.bufs[t]);
    free(p.bufs);
    free(p.cnt);
    free(p.pre);
    free(p.full);
    free(p.start);
    free(p.A);
    free(p.F);
    free(p.ovfsrc);
    free(p.tagmem);
    free(p.inv);
    free(p.tails);
    free(p.ovf);
    return rc;
}

int fs__bucket(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    return fs__bucket_run(base, n, size, 1, rng);
}
