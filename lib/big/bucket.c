/* bucket.c -- the scatter ("bucket") shuffle for arrays beyond cache
 * (Rao 1961; Sanders, "Random permutations on distributed, external and
 * hierarchical memory", IPL 1998; Penschuck, "Engineering shared-memory
 * parallel shuffling to generate random permutations in-place", SEA 2023).
 *
 * Every element draws a uniform bucket label in [0, B), B = 2^L; elements
 * are scattered, stably, into their buckets (out of place, into a scratch
 * array of n*size bytes); then each bucket, now small enough for cache, is
 * shuffled back into its range of the array (inside-out with batched
 * draws).  Why it is exactly uniform: the labels are i.i.d. uniform, so
 * given the bucket sizes (multinomial) the set of elements in each bucket
 * is a uniform subset of that size; each bucket then gets a uniform
 * permutation, independently.  Every permutation of the n elements arises
 * from exactly one (labelling, per-bucket order) with the same
 * probability for each bucket-size vector, hence n! equally likely orders.
 *
 * Threads never change the output: the array is cut into fixed chunks
 * (FS_BUCKET_CHUNK elements) whose labels come from child generator number
 * `chunk`, and bucket b is shuffled by child number nchunks + b; the
 * children are keyed by 32 bytes drawn from the caller's generator
 * (lib/rng/child.h).  Threads only decide who does which chunk or bucket;
 * the scatter offsets come from a prefix sum over (bucket, chunk).
 *
 * Cost: 3 passes over memory (label count: no data; scatter: read n,
 * write n scattered over B streams; bucket shuffle: read n, write n in
 * cache), memory n*size scratch + nchunks*B counters. */
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../rng/child.h"
#include "../shuffle/batch.h"
#include "../shuffle/shuffle.h"
#include "bucket.h"

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

typedef struct plan {
    unsigned char *base, *scratch;
    size_t n, size;
    unsigned L;          /* B = 2^L buckets */
    size_t B, chunk, nchunks;
    size_t *off;         /* nchunks x B: counts, then scatter offsets */
    size_t *start;       /* B + 1: bucket b is [start[b], start[b+1]) */
    int crypto;
    unsigned char key[32];
} plan;

enum { COUNT, SCATTER, BUCKETS };

/* Labels of chunk c, in element order: each 64-bit word of child c gives
 * floor(64 / L) labels, from its most significant bits down. */
#define FOR_LABELS(P, C, BODY)                                            \
    do {                                                                  \
        fs__child ch_;                                                    \
        fs__rng_child(&ch_, (P)->crypto, (P)->key, (C));                  \
        size_t lo_ = (C) * (P)->chunk;                                    \
        size_t hi_ = lo_ + (P)->chunk < (P)->n ? lo_ + (P)->chunk         \
                                               : (P)->n;                  \
        unsigned per_ = 64 / (P)->L, sh_ = 64 - (P)->L, left_ = 0;        \
        uint64_t w_ = 0;                                                  \
        for (size_t e = lo_; e < hi_; e++) {                              \
            if (left_ == 0) {                                             \
                w_ = fs__u64(&ch_.rng);                                   \
                left_ = per_;                                             \
            }                                                             \
            size_t b = (size_t)(w_ >> sh_);                               \
            w_ <<= (P)->L;                                                \
            left_--;                                                      \
            BODY;                                                         \
        }                                                                 \
        fs__rng_child_wipe(&ch_);                                         \
    } while (0)

static void count_chunk(plan *p, size_t c)
{
    size_t *h = p->off + c * p->B;
    FOR_LABELS(p, c, h[b]++);
}

/* Software write-combining for the scatter: elements bound for bucket b
 * collect in a 64-byte line buffer and go out a whole cache line at a
 * time with non-temporal stores, so memory sees full-line writes instead
 * of a read-for-ownership per element (the classic radix-sort scatter).
 * The lines at either end of this chunk's run of a bucket are shared with
 * the neighbouring runs (possibly another thread's): those slots are
 * written with ordinary stores, and only the chunk's own slots. */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline void line_out(void *dst, const void *src)
{
    const __m128i *s = src;
    __m128i *d = dst;
    _mm_stream_si128(d, _mm_load_si128(s));
    _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
}
static inline void stores_done(void)
{
    _mm_sfence(); /* NT stores are weakly ordered: finish before join */
}
#else
static inline void line_out(void *dst, const void *src)
{
    memcpy(dst, src, 64);
}
static inline void stores_done(void)
{
}
#endif

#define SCATTER_WC(T)                                                     \
    do {                                                                  \
        enum { PER = 64 / sizeof(T) };                                    \
        const T *a = (const void *)p->base;                               \
        T *d = (void *)p->scratch;                                        \
        T *wc = (T *)(void *)lines;                                       \
        memcpy(first, o, p->B * sizeof *o);                               \
        FOR_LABELS(p, c, {                                                \
            size_t x = o[b]++;                                            \
            T *line = wc + b * PER;                                       \
            line[x % PER] = a[e];                                         \
            if ((x + 1) % PER == 0) {                                     \
                size_t g = x + 1 - PER;                                   \
                if (g >= first[b])                                        \
                    line_out(d + g, line);                                \
                else                                                      \
                    memcpy(d + first[b], line + (first[b] - g),           \
                           (x + 1 - first[b]) * sizeof(T));               \
            }                                                             \
        });                                                               \
        for (size_t q = 0; q < p->B; q++) {                               \
            size_t x = o[q], g = x - x % PER;                             \
            size_t lo = g > first[q] ? g : first[q];                      \
            if (x > lo)                                                   \
                memcpy(d + lo, wc + q * PER + (lo - g),                   \
                       (x - lo) * sizeof(T));                             \
        }                                                                 \
        stores_done();                                                    \
    } while (0)

static void scatter_chunk(plan *p, size_t c)
{
    size_t *o = p->off + c * p->B;
    size_t size = p->size;
    int aligned8 = (((uintptr_t)p->base | (uintptr_t)p->scratch) & 7) == 0;
    int aligned4 = (((uintptr_t)p->base | (uintptr_t)p->scratch) & 3) == 0;
    /* line buffers + this chunk's first offset per bucket; without them
     * (no memory) the plain scatter below does the same moves */
    unsigned char *lines = NULL;
    size_t *first = NULL;
    if ((size == 8 && aligned8) || (size == 4 && aligned4)) {
        lines = aligned_alloc(64, p->B * 64);
        first = malloc(p->B * sizeof *first);
    }
    if (lines && first && ((uintptr_t)p->scratch & 63) == 0) {
        if (size == 8)
            SCATTER_WC(uint64_t);
        else
            SCATTER_WC(uint32_t);
    } else if (size == 8 && aligned8) {
        const uint64_t *a = (const void *)p->base;
        uint64_t *d = (void *)p->scratch;
        FOR_LABELS(p, c, d[o[b]++] = a[e]);
    } else if (size == 4 && aligned4) {
        const uint32_t *a = (const void *)p->base;
        uint32_t *d = (void *)p->scratch;
        FOR_LABELS(p, c, d[o[b]++] = a[e]);
    } else {
        FOR_LABELS(p, c,
                   memcpy(p->scratch + o[b]++ * size, p->base + e * size,
                          size));
    }
    free(lines);
    free(first);
}

static void shuffle_bucket(plan *p, size_t b)
{
    size_t lo = p->start[b], m = p->start[b + 1] - lo;
    if (m == 0)
        return;
    fs__child ch;
    fs__rng_child(&ch, p->crypto, p->key, p->nchunks + b);
    fs__inside_out_batched(p->base + lo * p->size, p->scratch + lo * p->size,
                           m, p->size, &ch.rng);
    fs__rng_child_wipe(&ch);
}

/* Scratch memory, 64-byte aligned (whole lines for line_out()).  Large
 * scratch is mapped with MAP_POPULATE: the kernel faults the pages in one
 * call (~300 ms for 800 MB here against ~480 ms when each 4 KiB page traps
 * on first touch inside the scatter).  Transparent huge pages
 * (MADV_HUGEPAGE) were tried and made first touches stall in direct
 * compaction on this busy machine (docs/performance.md). */
#define SCRATCH_MMAP ((size_t)4 << 20)

static void *scratch_alloc(size_t bytes, int *mapped)
{
    *mapped = 0;
    if (bytes >= SCRATCH_MMAP) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) {
            *mapped = 1;
            return p;
        }
    }
    return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

static void scratch_free(void *p, size_t bytes, int mapped)
{
    if (mapped)
        munmap(p, bytes);
    else
        free(p);
}

typedef struct job {
    plan *p;
    int phase;
    size_t lo, hi;
} job;

static void *work(void *arg)
{
    job *j = arg;
    for (size_t i = j->lo; i < j->hi; i++) {
        if (j->phase == COUNT)
            count_chunk(j->p, i);
        else if (j->phase == SCATTER)
            scatter_chunk(j->p, i);
        else
            shuffle_bucket(j->p, i);
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
        job j = {p, phase, 0, items};
        work(&j);
        return;
    }
    job jobs[MAXT];
    pthread_t tid[MAXT];
    int started[MAXT] = {0};
    for (unsigned t = 0; t < threads; t++)
        jobs[t] = (job){p, phase, items * t / threads,
                        items * (t + 1) / threads};
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
    int mapped;
    p.scratch = scratch_alloc(n * size, &mapped);
    p.off = calloc(p.nchunks * p.B, sizeof *p.off);
    p.start = malloc((p.B + 1) * sizeof *p.start);
    if (p.scratch == NULL || p.off == NULL || p.start == NULL) {
        if (p.scratch)
            scratch_free(p.scratch, n * size, mapped);
        free(p.off);
        free(p.start);
        return FS_ENOMEM;
    }
    /* The only draw from the caller's generator: 32 bytes, as 4 words. */
    for (int i = 0; i < 4; i++) {
        uint64_t w = fs__u64(rng);
        memcpy(p.key + 8 * i, &w, 8);
    }
    p.crypto = rng->vt->info->cryptographic;

    run_phase(&p, COUNT, p.nchunks, threads);
    size_t pos = 0;
    for (size_t b = 0; b < p.B; b++) {
        p.start[b] = pos;
        for (size_t c = 0; c < p.nchunks; c++) {
            size_t k = p.off[c * p.B + b];
            p.off[c * p.B + b] = pos;
            pos += k;
        }
    }
    p.start[p.B] = pos;
    run_phase(&p, SCATTER, p.nchunks, threads);
    run_phase(&p, BUCKETS, p.B, threads);

    sodium_memzero(p.key, sizeof p.key);
    scratch_free(p.scratch, n * size, mapped);
    free(p.off);
    free(p.start);
    return FS_OK;
}

int fs__bucket(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    return fs__bucket_run(base, n, size, 1, rng);
}

int fs_shuffle_threads(void *base, size_t n, size_t size, unsigned threads,
                       fs_rng *rng)
{
    if ((base == NULL && n > 0) || size == 0)
        return FS_EINVAL;
    if (n > SIZE_MAX / size)
        return FS_ERANGE;
    rng = fs__rng(rng);
    if (rng == NULL)
        return FS_ERANDOM;
    if (rng->error != FS_OK || n < 2)
        return rng->error;
    int rc = fs__auto_threads(base, n, size, threads, rng);
    return rc != FS_OK ? rc : rng->error;
}
