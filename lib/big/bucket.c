/* bucket.c -- the bucket shuffle for arrays beyond cache, in place
 * (Rao 1961; Sanders, "Random permutations on distributed, external and
 * hierarchical memory", IPL 1998; Penschuck, "Engineering shared-memory
 * parallel shuffling to generate random permutations in-place", SEA 2023;
 * the distribution is McIlroy, Bostic & McIlroy's "American flag sort"
 * cycle leading, Computing Systems 1993).
 *
 * 1. Every element draws a uniform bucket label in [0, B), B = 2^L, kept
 *    in a label array (2 bytes per element: L <= 11).
 * 2. The elements are permuted in place into their buckets (distribute()
 *    below: each bucket has a write head; an element taken from a hole
 *    is swapped into the head of its bucket, the element found there is
 *    carried on, until one belongs to the bucket of the hole).
 * 3. Each bucket, now small enough for cache, is shuffled in place by
 *    Durstenfeld with batched draws.
 *
 * Why it is exactly uniform.  The labels are i.i.d. uniform, so the bucket
 * sizes are multinomial and, given the sizes, the set of elements in each
 * bucket is a uniform random subset of that size, independent across the
 * ways of cutting.  Step 2 puts each bucket's elements into the bucket's
 * range in SOME order -- a deterministic function of the input and the
 * labels, which we need not analyse: step 3 applies to each bucket an
 * independent uniform permutation (its own child generator, never used by
 * steps 1-2), and a uniform permutation composed with any fixed or
 * independent arrangement is uniform.  So given the sizes, every
 * arrangement of each bucket's subset is equally likely, every subset is
 * equally likely, and summing over the sizes every one of the n! orders
 * has the same probability.  (The within-bucket order of step 2 matters
 * only for reproducibility, which is why it is specified exactly.)
 *
 * Threads never change the output: labels of chunk c (FS_BUCKET_CHUNK
 * elements) come from child generator number c, bucket b is shuffled by
 * child nchunks + b, the children are keyed by 32 bytes drawn from the
 * caller's generator (lib/rng/child.h), and step 2 -- the only step whose
 * result depends on the order of work -- always runs in one thread.
 * Threads share the label chunks (step 1) and the buckets (step 3).
 *
 * Cost: step 1 writes 2n bytes of labels; step 2 reads and writes each
 * element once (and reads its label) with 2^L write streams that stay in
 * L2; step 3 works in cache.  Memory: 2 bytes per element plus counters --
 * no copy of the array (the earlier out-of-place scatter needed n*size). */
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
    unsigned char *base;
    uint16_t *lab;       /* n labels */
    size_t n, size;
    unsigned L;          /* B = 2^L buckets */
    size_t B, chunk, nchunks;
    size_t *cnt;         /* nchunks x B label counts */
    size_t *start;       /* B + 1: bucket b is [start[b], start[b+1]) */
    int crypto;
    unsigned char key[32];
} plan;

enum { LABEL, BUCKETS };

/* Step 1 for chunk c: its elements, in order, take labels from child c;
 * each 64-bit word gives floor(64 / L) labels, most significant bits
 * first.  Counts go to this chunk's row (no sharing between threads). */
static void label_chunk(plan *p, size_t c)
{
    fs__child ch;
    fs__rng_child(&ch, p->crypto, p->key, c);
    size_t lo = c * p->chunk;
    size_t hi = lo + p->chunk < p->n ? lo + p->chunk : p->n;
    unsigned per = 64 / p->L, sh = 64 - p->L, L = p->L;
    size_t *h = p->cnt + c * p->B;
    uint16_t *lab = p->lab;
    size_t e = lo;
    while (e < hi) {
        uint64_t w = fs__u64(&ch.rng);
        size_t stop = hi - e < per ? hi : e + per;
        for (; e < stop; e++) {
            unsigned b = (unsigned)(w >> sh);
            w <<= L;
            lab[e] = (uint16_t)b;
            h[b]++;
        }
    }
    fs__rng_child_wipe(&ch);
}

/* Step 2: in-place distribution.  Buckets are completed in order
 * b = 0, 1, ..., B-1.  For bucket b, FS_BUCKET_SLOTS "holes" are opened at
 * its head (positions whose label is already b are skipped: they stay).
 * Each slot carries one element and its label.  Round after round, slot
 * s = 0..SLOTS-1 in turn takes one step: if its element belongs to b it
 * is dropped into the slot's hole and the slot opens the next hole of b
 * (or closes, when b has none left); otherwise it is swapped with the
 * element at the write head of its bucket l, and head[l] advances.
 *
 * Several slots rather than one cycle at a time: each step waits on the
 * label of the element just picked up (a load from L2 at best), so one
 * cycle is a chain of dependent loads; SLOTS independent chains let the
 * core overlap them (8 slots: 3x faster than 1 here, 4 was slower
 * than 8, 16 no faster).  Write heads of buckets < b are complete and no
 * carried element has such a label, so heads never meet holes.  Every
 * step puts one element into its bucket's range for good, so the pass
 * does at most n steps; labels are only read (the label left at a filled
 * position is never read again).
 *
 * Prefetch: a bucket's next visit is ~B steps away; the lines 16
 * elements (64 labels) past the write head are fetched when the head
 * moves, so the dependent loads of later visits hit cache: 3x faster
 * than without at 1e8 (8 or 32 ahead: about the same / slower). */
#define FS_BUCKET_SLOTS 8

#define PF_ELEM 16
#define PF_LAB 64

/* The caller declares `v[FS_BUCKET_SLOTS]` and `t` (carried elements). */
#define DISTRIBUTE(LOAD, STORE, MOVE)                                      \
    do {                                                                   \
        size_t hole[FS_BUCKET_SLOTS];                                      \
        unsigned l[FS_BUCKET_SLOTS];                                       \
        for (size_t b = 0; b < B; b++) {                                   \
            size_t hb = head[b], eb = start[b + 1];                        \
            unsigned live = 0;                                             \
            for (unsigned s = 0; s < FS_BUCKET_SLOTS; s++) {               \
                while (hb < eb && lab[hb] == b)                            \
                    hb++;                                                  \
                if (hb == eb)                                              \
                    break;                                                 \
                hole[s] = hb;                                              \
                LOAD(v[s], hb);                                            \
                l[s] = lab[hb];                                            \
                hb++;                                                      \
                live++;                                                    \
            }                                                              \
            while (live > 0) {                                             \
                for (unsigned s = 0; s < live;) {                          \
                    if (l[s] != b) {                                       \
                        size_t pos = head[l[s]]++;                         \
                        __builtin_prefetch(                                \
                            (void *)(labp + (pos + PF_LAB) * 2), 0, 3);    \
                        __builtin_prefetch(                                \
                            (void *)(al + (pos + PF_ELEM) * ES), 1, 3);    \
                        LOAD(t, pos);                                      \
                        unsigned tl = lab[pos];                            \
                        STORE(pos, v[s]);                                  \
                        MOVE(v[s], t);                                     \
                        l[s] = tl;                                         \
                        s++;                                               \
                        continue;                                          \
                    }                                                      \
                    STORE(hole[s], v[s]);                                  \
                    while (hb < eb && lab[hb] == b)                        \
                        hb++;                                              \
                    if (hb < eb) {                                         \
                        hole[s] = hb;                                      \
                        LOAD(v[s], hb);                                    \
                        l[s] = lab[hb];                                    \
                        hb++;                                              \
                        s++;                                               \
                    } else {                                               \
                        /* close slot s: the last live slot takes its  */  \
                        /* place (its step this round comes next)      */  \
                        if (s != --live) {                                 \
                            hole[s] = hole[live];                          \
                            MOVE(v[s], v[live]);                           \
                            l[s] = l[live];                                \
                        }                                                  \
                    }                                                      \
                }                                                          \
            }                                                              \
            head[b] = eb;                                                  \
        }                                                                  \
    } while (0)

#define LOAD_T(x, i) ((x) = ((const T_ *)(const void *)a)[i])
#define STORE_T(i, x) (((T_ *)(void *)a)[i] = (x))
#define MOVE_T(x, y) ((x) = (y))
#define LOAD_G(x, i) memcpy((x), a + (i) * ES, ES)
#define STORE_G(i, x) memcpy(a + (i) * ES, (x), ES)
#define MOVE_G(x, y) memcpy((x), (y), ES)

/* `buf` holds (FS_BUCKET_SLOTS + 1) * size bytes (slot buffers for
 * elements of any size). */
static void distribute(plan *p, size_t *head, unsigned char *buf)
{
    const uint16_t *lab = p->lab;
    const size_t *start = p->start;
    size_t B = p->B;
    unsigned char *a = p->base;
    /* prefetch addresses as integers: they may lie past the end */
    uintptr_t al = (uintptr_t)a, labp = (uintptr_t)lab;
    if (p->size == 8 && (al & 7) == 0) {
        typedef uint64_t T_;
        enum { ES = 8 };
        T_ v[FS_BUCKET_SLOTS], t;
        DISTRIBUTE(LOAD_T, STORE_T, MOVE_T);
    } else if (p->size == 4 && (al & 3) == 0) {
        typedef uint32_t T_;
        enum { ES = 4 };
        T_ v[FS_BUCKET_SLOTS], t;
        DISTRIBUTE(LOAD_T, STORE_T, MOVE_T);
    } else {
        /* any size: the same moves, elements held in slot buffers (v[s]
         * points at its own buffer; `t` is the last one) */
        const size_t ES = p->size;
        typedef unsigned char *T_;
        T_ v[FS_BUCKET_SLOTS], t = buf + FS_BUCKET_SLOTS * ES;
        for (unsigned s = 0; s < FS_BUCKET_SLOTS; s++)
            v[s] = buf + s * ES;
        DISTRIBUTE(LOAD_G, STORE_G, MOVE_G);
    }
}

/* Step 3 for bucket b: Durstenfeld with batched draws, in place, from
 * child nchunks + b. */
static void shuffle_bucket(plan *p, size_t b)
{
    size_t lo = p->start[b], m = p->start[b + 1] - lo;
    if (m < 2)
        return;
    /* The bucket comes from memory cold: read it once sequentially (the
     * hardware prefetcher streams it at full bandwidth) so that the
     * random accesses of the shuffle hit cache instead of each waiting
     * for DRAM. */
    const unsigned char *q = p->base + lo * p->size;
    size_t bytes = m * p->size;
    unsigned acc = 0;
    for (size_t i = 0; i < bytes; i += 64)
        acc += q[i];
    __asm__ volatile("" : : "r"(acc));
    fs__child ch;
    fs__rng_child(&ch, p->crypto, p->key, p->nchunks + b);
    fs__durstenfeld_batched(p->base + lo * p->size, m, p->size, &ch.rng);
    fs__rng_child_wipe(&ch);
}

/* The label array.  Large ones are mapped with MAP_POPULATE: the kernel
 * faults the pages in one call instead of a trap per 4 KiB page inside
 * step 1 (measured for the former scratch copy: 480 -> 300 ms for 800 MB). */
#define LABELS_MMAP ((size_t)4 << 20)

static void *labels_alloc(size_t bytes, int *mapped)
{
    *mapped = 0;
    if (bytes >= LABELS_MMAP) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) {
            *mapped = 1;
            return p;
        }
    }
    return malloc(bytes);
}

static void labels_free(void *p, size_t bytes, int mapped)
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
        if (j->phase == LABEL)
            label_chunk(j->p, i);
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
    /* sizes no real array reaches, but the products below must not wrap */
    if (n > SIZE_MAX / sizeof *p.lab ||
        size > SIZE_MAX / (FS_BUCKET_SLOTS + 1))
        return FS_ENOMEM;
    int mapped;
    p.lab = labels_alloc(n * sizeof *p.lab, &mapped);
    p.cnt = calloc(p.nchunks * p.B, sizeof *p.cnt);
    p.start = malloc((p.B + 1) * sizeof *p.start);
    size_t *head = malloc(p.B * sizeof *head);
    unsigned char *buf = malloc((FS_BUCKET_SLOTS + 1) * size);
    if (p.lab == NULL || p.cnt == NULL || p.start == NULL || head == NULL ||
        buf == NULL) {
        if (p.lab)
            labels_free(p.lab, n * sizeof *p.lab, mapped);
        free(p.cnt);
        free(p.start);
        free(head);
        free(buf);
        return FS_ENOMEM;
    }
    /* The only draw from the caller's generator: 32 bytes, as 4 words. */
    for (int i = 0; i < 4; i++) {
        uint64_t w = fs__u64(rng);
        memcpy(p.key + 8 * i, &w, 8);
    }
    p.crypto = rng->vt->info->cryptographic;

    run_phase(&p, LABEL, p.nchunks, threads);
    size_t pos = 0;
    for (size_t b = 0; b < p.B; b++) {
        p.start[b] = head[b] = pos;
        for (size_t c = 0; c < p.nchunks; c++)
            pos += p.cnt[c * p.B + b];
    }
    p.start[p.B] = pos;
    distribute(&p, head, buf);
    run_phase(&p, BUCKETS, p.B, threads);

    sodium_memzero(p.key, sizeof p.key);
    labels_free(p.lab, n * sizeof *p.lab, mapped);
    free(p.cnt);
    free(p.start);
    free(head);
    free(buf);
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
