/* bucket.c -- the bucket shuffle for arrays beyond cache, in place, with
 * no memory beyond a few KiB on the stack (Rao 1961; Sanders, "Random
 * permutations on distributed, external and hierarchical memory", IPL
 * 1998; Penschuck, "Engineering shared-memory parallel shuffling to
 * generate random permutations in-place", SEA 2023, whose scatter this is
 * with the bucket sizes counted first).  docs/stream.md §4 specifies it.
 *
 * 1. A sequence of n labels, uniform in [0, B), B = 2^L <= 256: the top L
 *    bits of the bytes of seekable label streams (one per chunk of 2^20
 *    labels: ChaCha20 keystream with a block counter, or a SplitMix64
 *    counter).  A first pass over the labels alone counts them: bucket b
 *    is the range [start_b, start_(b+1)), as long as b's label count.
 * 2. The scatter, in place, one pass over the array: the first unplaced
 *    element of the first bucket not yet full is "in hand"; each label in
 *    turn sends it to that bucket's next position (where it stays) or,
 *    for another bucket, swaps it with the first unplaced element there,
 *    which comes into hand.  Every element is in hand once and placed by
 *    the label it takes then.
 * 3. Each bucket, now small enough for cache, is shuffled in place by
 *    Durstenfeld with batched draws.
 *
 * Why it is exactly uniform.  Given the label counts (they fix the
 * ranges), which element is in hand when label k is read depends on
 * labels 0 .. k-1 only, and every element takes exactly one label; so for
 * each count vector, reading the labels as a map element -> bucket is a
 * bijection from the label sequences with those counts to the maps with
 * those counts (replaying a map gives its sequence back).  Given the
 * counts the sequences are equally likely, hence so are the maps, and the
 * counts are multinomial: the elements' buckets are i.i.d. uniform.  The bucket sizes are then multinomial and,
 * given the sizes, each bucket's set of elements is a uniform subset of
 * that size.  Step 2 leaves each bucket's elements in SOME order, a
 * deterministic function of the input and the labels; step 3 applies to
 * each bucket an independent uniform permutation (its own child
 * generator, never used by steps 1-2), and a uniform permutation composed
 * with any independent arrangement is uniform.  So every one of the n!
 * orders has the same probability.
 *
 * Threads never change the output: step 2 is one pass in one thread (its
 * order of moves is the arrangement), bucket b is shuffled by child
 * nchunks + b whichever thread takes it, and the streams are keyed by 32
 * bytes drawn from the caller's generator (lib/rng/child.h).
 *
 * Cost: two bytes of label keystream per element (the count, then the
 * scatter: regenerated, not stored); step 2 reads and writes each element
 * once, with the B next positions' lines kept in cache (prefetched one
 * line ahead); step 3 reads each bucket once more and works in cache. */
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

/* Label bytes generated at a time (64 ChaCha20 blocks). */
#define LABEL_BYTES 4096
_Static_assert(LABEL_BYTES <= FS_RNG_BUF, "label blocks fit fs__zeros");

typedef struct plan {
    unsigned char *base;
    size_t n, size;
    unsigned L;          /* B = 2^L buckets, L <= 8 */
    size_t B, chunk, nchunks;
    size_t start[257];   /* bucket b is [start[b], start[b+1]) */
    int crypto;
    unsigned char key[32];
    uint64_t lkey;       /* key word 1: the SplitMix64 label streams */
} plan;

/* ---- the label streams ---- */

/* Bytes [off, off + len) of chunk c's label stream into out (off and len
 * multiples of 64).  Crypto: the keystream of ChaCha20 with the plan's
 * key, nonce = 4 zero bytes and c little-endian, block counter off / 64.
 * Otherwise: SplitMix64 started at K_1 XOR (c * golden), its outputs as
 * little-endian bytes (a counter: word w is mix(start + (w + 1) * golden)).
 * Label c * chunk + o of the sequence is byte o >> (8 - L). */
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

/* ---- the label sequence, read in order ---- */

typedef struct labels {
    const plan *p;
    size_t c, off;       /* the next block: chunk c, offset off */
    unsigned char lb[LABEL_BYTES];
} labels;

/* The labels of a block, lb[i] >> sh in place (vectorised), so that the
 * loops read each label as it is. */
static void shift_labels(unsigned char *lb, size_t m, unsigned sh)
{
    for (size_t i = 0; i < m; i++)
        lb[i] = (unsigned char)(lb[i] >> sh);
}

/* The next block of labels into s->lb; its length (0 past the last). */
static size_t next_labels(labels *s)
{
    const plan *p = s->p;
    size_t clen = p->n - s->c * p->chunk;
    if (clen > p->chunk)
        clen = p->chunk;
    if (s->off == clen) {
        s->c++;
        s->off = 0;
        if (s->c == p->nchunks)
            return 0;
        clen = p->n - s->c * p->chunk;
        if (clen > p->chunk)
            clen = p->chunk;
    }
    size_t m = clen - s->off < LABEL_BYTES ? clen - s->off : LABEL_BYTES;
    label_bytes(p, s->c, s->off, s->lb, (m + 63) & ~(size_t)63);
    if (p->L < 8)
        shift_labels(s->lb, m, 8 - p->L);
    s->off += m;
    return m;
}

static void labels_open(labels *s, const plan *p)
{
    *s = (labels){.p = p};
}

static void labels_wipe(labels *s)
{
    sodium_memzero(s->lb, sizeof s->lb);
}

/* Step 1: start[] from the label counts.  Four tables, so that equal
 * labels in a row do not wait on each other's increments. */
static void count_labels(plan *p)
{
    size_t cnt[4][256] = {{0}};
    labels s;
    labels_open(&s, p);
    for (size_t m; (m = next_labels(&s)) != 0;) {
        size_t i = 0;
        for (; i + 4 <= m; i += 4) {
            cnt[0][s.lb[i]]++;
            cnt[1][s.lb[i + 1]]++;
            cnt[2][s.lb[i + 2]]++;
            cnt[3][s.lb[i + 3]]++;
        }
        for (; i < m; i++)
            cnt[0][s.lb[i]]++;
    }
    labels_wipe(&s);
    size_t pos = 0;
    for (size_t b = 0; b < p->B; b++) {
        p->start[b] = pos;
        pos += cnt[0][b] + cnt[1][b] + cnt[2][b] + cnt[3][b];
    }
    p->start[p->B] = pos;
}

/* ---- step 2: the scatter (stream version 5) ----
 *
 * head[b]: bucket b's first unplaced position.  cur: the first bucket not
 * yet full, whose position h = head[cur] holds the element in hand (kept
 * in a register by the typed loops: a[h] is written once it is placed).
 * Label l == cur places it at h; any other l swaps it with a[head[l]],
 * which is placed.  The next positions of the other buckets are reached
 * once per 64-byte line each, B streams: each placement prefetches the
 * line after its position (one line ahead is thousands of placements
 * ahead of its use, so the wait for memory is hidden). */
#define SCATTER_AHEAD 64

/* Moves cur to the next bucket with room (head[cur] is not stored back:
 * a full bucket's labels are all read); to done when every bucket is
 * full. */
#define NEXT_BUCKET()                                                       \
    do {                                                                    \
        while (++cur < B && head[cur] == p->start[cur + 1])                 \
            ;                                                               \
        if (cur == B)                                                       \
            goto done;                                                      \
        h = head[cur];                                                      \
        e = p->start[cur + 1];                                              \
    } while (0)

/* One label: the element in hand to bucket l. */
#define SCATTER_ONE(T_, l)                                                  \
    do {                                                                    \
        if (FS_UNLIKELY((l) == cur)) {                                      \
            a[h++] = x;                                                     \
            if (h == e)                                                     \
                NEXT_BUCKET();                                              \
            x = a[h];                                                       \
        } else {                                                            \
            T_ *q = a + head[l]++;                                          \
            __builtin_prefetch((const void *)((uintptr_t)q + SCATTER_AHEAD), \
                               1, 3);                                       \
            T_ y = *q;                                                      \
            *q = x;                                                         \
            x = y;                                                          \
        }                                                                   \
    } while (0)

#define SCATTER_TYPED(T_)                                                   \
    do {                                                                    \
        T_ *a = (T_ *)(void *)p->base;                                      \
        T_ x = a[h];                                                        \
        for (size_t m; (m = next_labels(&s)) != 0;) {                       \
            const unsigned char *lb = s.lb;                                 \
            size_t i = 0;                                                   \
            for (; i + 4 <= m; i += 4) {                                    \
                size_t l0 = lb[i], l1 = lb[i + 1], l2 = lb[i + 2],          \
                       l3 = lb[i + 3];                                      \
                SCATTER_ONE(T_, l0);                                        \
                SCATTER_ONE(T_, l1);                                        \
                SCATTER_ONE(T_, l2);                                        \
                SCATTER_ONE(T_, l3);                                        \
            }                                                               \
            for (; i < m; i++) {                                            \
                size_t l = lb[i];                                           \
                SCATTER_ONE(T_, l);                                         \
            }                                                               \
        }                                                                   \
    } while (0)

static void scatter(plan *p)
{
    const size_t B = p->B, ES = p->size;
    size_t head[256];
    memcpy(head, p->start, B * sizeof *head);
    size_t cur = 0;
    while (cur < B && head[cur] == p->start[cur + 1])
        cur++;
    if (cur == B) /* n == 0 */
        return;
    size_t h = head[cur], e = p->start[cur + 1];
    labels s;
    labels_open(&s, p);
    uintptr_t al = (uintptr_t)p->base;
    if (ES == 8 && (al & 7) == 0) {
        SCATTER_TYPED(uint64_t);
    } else if (ES == 4 && (al & 3) == 0) {
        SCATTER_TYPED(uint32_t);
    } else if (ES == 16 && (al & 7) == 0) {
        SCATTER_TYPED(fs__e16);
    } else {
        /* any size: the element in hand stays at a[h] and is swapped */
        unsigned char *a = p->base;
        for (size_t m; (m = next_labels(&s)) != 0;) {
            for (size_t i = 0; i < m; i++) {
                size_t l = s.lb[i];
                if (FS_UNLIKELY(l == cur)) {
                    if (++h == e)
                        NEXT_BUCKET();
                    continue;
                }
                size_t q = head[l]++;
                __builtin_prefetch((const void *)((uintptr_t)(a + q * ES) + ES +
                                                  SCATTER_AHEAD),
                                   1, 3);
                fs__swap(a + h * ES, a + q * ES, ES);
            }
        }
    }
done:
    labels_wipe(&s);
}
#undef NEXT_BUCKET
#undef SCATTER_TYPED

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
    size_t lo, hi; /* buckets [lo, hi) */
} job;

static void *work(void *arg)
{
    job *j = arg;
    for (size_t b = j->lo; b < j->hi; b++)
        shuffle_bucket(j->p, b, b > j->lo, b + 1 < j->hi);
    return NULL;
}

/* Step 3: buckets [0, B) split into `threads` contiguous parts; part 0
 * runs in the calling thread, and a part whose thread cannot start runs
 * here too (same work, same output). */
static void shuffle_buckets(plan *p, unsigned threads)
{
    enum { MAXT = 256 };
    if (threads > p->B)
        threads = (unsigned)p->B;
    if (threads > MAXT)
        threads = MAXT;
    if (threads <= 1) {
        job j = {p, 0, p->B};
        work(&j);
        return;
    }
    job jobs[MAXT];
    pthread_t tid[MAXT];
    int started[MAXT] = {0};
    for (unsigned t = 0; t < threads; t++)
        jobs[t] = (job){p, p->B * t / threads, p->B * (t + 1) / threads};
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
    /* The only draw from the caller's generator: 32 bytes, as 4 words. */
    for (int i = 0; i < 4; i++) {
        uint64_t w = fs__u64(rng);
        memcpy(p.key + 8 * i, &w, 8);
    }
    memcpy(&p.lkey, p.key + 8, 8);
    p.crypto = rng->vt->info->cryptographic;
    int rc = rng->error;
    if (rc == FS_OK) { /* no key: leave the array as it was */
        count_labels(&p);
        scatter(&p);
        shuffle_buckets(&p, threads);
    }
    sodium_memzero(p.key, sizeof p.key);
    sodium_memzero(&p.lkey, sizeof p.lkey);
    return rc;
}

int fs__bucket(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    return fs__bucket_run(base, n, size, 1, rng);
}
