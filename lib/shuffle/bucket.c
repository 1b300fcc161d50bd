/* bucket.c -- the bucket shuffle for arrays beyond cache, in place, with
 * no per-element memory (Rao 1961; Sanders, "Random permutations on
 * distributed, external and hierarchical memory", IPL 1998; Penschuck,
 * "Engineering shared-memory parallel shuffling to generate random
 * permutations in-place", SEA 2023; the distribution is McIlroy, Bostic &
 * McIlroy's "American flag sort" cycle leading, Computing Systems 1993).
 *
 * 1. Every input position p gets a uniform bucket label in [0, B), B =
 *    2^L <= 256: the top L bits of one byte of a seekable label stream
 *    (chunk c = p / chunk has its own: ChaCha20 keystream with a block
 *    counter, or a SplitMix64 counter; position o of the chunk reads byte
 *    o).  Labels are never stored: a counting pass generates them once to
 *    size the buckets, and the distribution generates them again where it
 *    needs them.
 * 2. The elements are permuted in place into their buckets (distribute()
 *    below: each bucket has a write head; an element taken from a hole
 *    is swapped into the head of its bucket, the element found there is
 *    carried on, until one belongs to the bucket of the hole).  A
 *    position is read only before it is first written, so the element
 *    read there is the input's element at that position and its label is
 *    the label of the position.  Each write head and the hole scanner move
 *    forward one position at a time, so each bucket keeps a cursor into
 *    the label stream (8 ChaCha blocks of look-ahead) instead of a label
 *    array: O(B) memory instead of 2 bytes per element.  One byte per
 *    label makes a cursor a pointer (no bit unpacking, a refill every 512
 *    labels); that is why B stops at 256.
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
 * bucket b is shuffled by child nchunks + b, the streams are keyed by 32
 * bytes drawn from the caller's generator (lib/rng/child.h), and step 2
 * -- the only step whose result depends on the order of work -- always
 * runs in one thread.  Threads share the counting (by chunk) and the
 * buckets (step 3).
 *
 * Cost: step 1 generates the labels twice (count, distribute: 2 bytes of
 * keystream per element) and writes nothing per element; step 2 reads and
 * writes each element once with 2^L write streams; step 3 works in cache.
 * Memory: counters and label cursors, B * (chunks words + 512 bytes) --
 * no copy of the array and no label array (the earlier versions needed
 * n*size, then 2n bytes). */
#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <unistd.h>

#include "../rng/child.h"
#include "../rng/generators.h"
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

/* Bytes a label cursor holds: 8 ChaCha20 blocks (libsodium's AVX2 code
 * does 8 blocks per step). */
#define CUR_BYTES 512
/* Bytes the counting pass generates at a time (>= CUR_BYTES). */
#define COUNT_BYTES 4096
_Static_assert(COUNT_BYTES <= FS_RNG_BUF, "label blocks fit fs__zeros");

typedef struct plan {
    unsigned char *base;
    size_t n, size;
    unsigned L;          /* B = 2^L buckets, L <= 8 */
    size_t B, chunk, nchunks;
    size_t *cnt;         /* nchunks x B label counts */
    size_t *start;       /* B + 1: bucket b is [start[b], start[b+1]) */
    int crypto;
    unsigned char key[32];
    uint64_t lkey;       /* key word 1: the SplitMix64 label streams */
} plan;

enum { COUNT, BUCKETS };

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
        /* the keystream: the cipher XORed onto zeros (len <= COUNT_BYTES) */
        unsigned char nonce[12] = {0};
        for (int i = 0; i < 8; i++)
            nonce[4 + i] = (unsigned char)((uint64_t)c >> (8 * i));
        crypto_stream_chacha20_ietf_xor_ic(out, fs__zeros, len, nonce,
                                           (uint32_t)(off / 64), p->key);
        return;
    }
    uint64_t x = (p->lkey ^ ((uint64_t)c * 0x9e3779b97f4a7c15ULL)) +
                 off / 8 * 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = fs__splitmix64_next(&x);
        memcpy(out + i, &w, 8); /* little-endian hosts only (rng.c) */
    }
}

static size_t chunk_len(const plan *p, size_t c)
{
    size_t lo = c * p->chunk;
    return p->n - lo < p->chunk ? p->n - lo : p->chunk;
}

/* Step 1a for chunk c: count its labels into this chunk's row (no sharing
 * between threads).  The byte values are counted in four interleaved
 * tables (consecutive equal bytes would otherwise wait on each other's
 * increment), then folded into the 2^L buckets. */
static void count_chunk(plan *p, size_t c)
{
    unsigned char buf[COUNT_BYTES];
    uint32_t t[4][256] = {{0}};
    size_t len = chunk_len(p, c);
    for (size_t off = 0; off < len; off += COUNT_BYTES) {
        size_t k = len - off < COUNT_BYTES ? len - off : COUNT_BYTES;
        label_bytes(p, c, off, buf, (k + 63) & ~(size_t)63);
        size_t i = 0;
        for (; i + 4 <= k; i += 4) {
            t[0][buf[i]]++;
            t[1][buf[i + 1]]++;
            t[2][buf[i + 2]]++;
            t[3][buf[i + 3]]++;
        }
        for (; i < k; i++)
            t[0][buf[i]]++;
    }
    sodium_memzero(buf, sizeof buf);
    size_t *h = p->cnt + c * p->B;
    unsigned sh = 8 - p->L;
    for (unsigned v = 0; v < 256; v++)
        h[v >> sh] += (size_t)t[0][v] + t[1][v] + t[2][v] + t[3][v];
}

/* A cursor: the labels of consecutive positions from some position on,
 * as the label bytes of CUR_BYTES of a chunk's stream. */
typedef struct lcur {
    const unsigned char *p, *e; /* next byte, end of buf */
    size_t c;                   /* chunk of buf */
    uint64_t next;              /* stream offset of the byte after buf */
    unsigned char *buf;         /* CUR_BYTES */
} lcur;

/* Loads the block of chunk c that starts at offset off (its bytes past
 * the chunk's end, if any, are not labels: e stops there; never so with
 * the production chunk, a multiple of CUR_BYTES). */
static void cur_load(const plan *p, lcur *u, size_t c, uint64_t off)
{
    label_bytes(p, c, off, u->buf, CUR_BYTES);
    u->c = c;
    u->next = off + CUR_BYTES;
    u->p = u->buf;
    u->e = u->buf + (p->chunk - off < CUR_BYTES ? p->chunk - off : CUR_BYTES);
}

/* The cursor at position pos (< n). */
static void cur_seek(const plan *p, lcur *u, size_t pos)
{
    size_t c = pos / p->chunk, o = pos - c * p->chunk;
    size_t off = o & ~(size_t)(CUR_BYTES - 1);
    cur_load(p, u, c, off);
    u->p = u->buf + (o - off);
}

/* The cursor has used its block: the next one (of the next chunk at the
 * chunk's end; never past the array's last position, which is not read
 * beyond). */
__attribute__((noinline)) static void cur_refill(const plan *p, lcur *u)
{
    if (u->next >= p->chunk)
        cur_load(p, u, u->c + 1, 0);
    else
        cur_load(p, u, u->c, u->next);
}

/* The label at the cursor; the cursor moves to the next position. */
static inline unsigned cur_take(const plan *p, lcur *u, unsigned sh)
{
    if (FS_UNLIKELY(u->p == u->e))
        cur_refill(p, u);
    return (unsigned)(*u->p++ >> sh);
}

/* ---- step 2: in-place distribution ---- */

/* Buckets are completed in order b = 0, 1, ..., B-1.  For bucket b,
 * FS_BUCKET_SLOTS "holes" are opened at its head (positions whose label is
 * already b are skipped: they stay).  Each slot carries one element and
 * its label.  Round after round, slot s = 0..SLOTS-1 in turn takes one
 * step: if its element belongs to b it is dropped into the slot's hole and
 * the slot opens the next hole of b (or closes, when b has none left);
 * otherwise it is swapped with the element at the write head of its
 * bucket l, and head[l] advances.
 *
 * Several slots rather than one cycle at a time: each step waits on the
 * element just picked up (and its label), so one cycle is a chain of
 * dependent loads; SLOTS independent chains let the core overlap them (8
 * slots: 3x faster than 1 here, 4 was slower than 8, 16 no faster).
 * Write heads of buckets < b are complete and no carried element has such
 * a label, so heads never meet holes.  Every step puts one element into
 * its bucket's range for good, so the pass does at most n steps.
 *
 * Labels: the write head of bucket l and the hole scanner of bucket b move
 * forward one position at a time through positions never written before,
 * so the label of the element found there is the next label of cursor l
 * (or b).
 *
 * Prefetch: a bucket's next visit is ~B steps away; the line 16 elements
 * past the write head is fetched when the head moves, so the dependent
 * loads of later visits hit cache (3x faster than without at 1e8). */
#define FS_BUCKET_SLOTS 8

#define PF_ELEM 16

/* The caller declares `v[FS_BUCKET_SLOTS]` and `t` (carried elements). */
#define DISTRIBUTE(LOAD, STORE, MOVE)                                      \
    do {                                                                   \
        size_t hole[FS_BUCKET_SLOTS];                                      \
        unsigned l[FS_BUCKET_SLOTS];                                       \
        for (size_t b = 0; b < B; b++) {                                   \
            size_t hb = head[b], eb = start[b + 1];                        \
            lcur *ub = cur + b;                                            \
            unsigned live = 0, x = 0;                                      \
            for (unsigned s = 0; s < FS_BUCKET_SLOTS; s++) {               \
                while (hb < eb && (x = cur_take(p, ub, sh)) == b)      \
                    hb++;                                                  \
                if (hb == eb)                                              \
                    break;                                                 \
                hole[s] = hb;                                              \
                LOAD(v[s], hb);                                            \
                l[s] = x;                                                  \
                hb++;                                                      \
                live++;                                                    \
            }                                                              \
            while (live > 0) {                                             \
                for (unsigned s = 0; s < live;) {                          \
                    if (l[s] != b) {                                       \
                        size_t pos = head[l[s]]++;                         \
                        __builtin_prefetch(                                \
                            (void *)(al + (pos + PF_ELEM) * ES), 1, 3);    \
                        LOAD(t, pos);                                      \
                        unsigned tl = cur_take(p, cur + l[s], sh);     \
                        STORE(pos, v[s]);                                  \
                        MOVE(v[s], t);                                     \
                        l[s] = tl;                                         \
                        s++;                                               \
                        continue;                                          \
                    }                                                      \
                    STORE(hole[s], v[s]);                                  \
                    while (hb < eb && (x = cur_take(p, ub, sh)) == b)  \
                        hb++;                                              \
                    if (hb < eb) {                                         \
                        hole[s] = hb;                                      \
                        LOAD(v[s], hb);                                    \
                        l[s] = x;                                          \
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
 * elements of any size); `cur` one cursor per bucket, placed at the
 * bucket's start. */
static void distribute(const plan *p, size_t *head, lcur *cur,
                       unsigned char *buf)
{
    const size_t *start = p->start;
    size_t B = p->B;
    unsigned sh = 8 - p->L;
    unsigned char *a = p->base;
    /* prefetch addresses as integers: they may lie past the end */
    uintptr_t al = (uintptr_t)a;
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
    /* sizes no real array reaches, but the products below must not wrap */
    if (p.nchunks > SIZE_MAX / sizeof(size_t) / p.B ||
        size > SIZE_MAX / (FS_BUCKET_SLOTS + 1))
        return FS_ENOMEM;
    p.cnt = calloc(p.nchunks * p.B, sizeof *p.cnt);
    p.start = malloc((p.B + 1) * sizeof *p.start);
    size_t *head = malloc(p.B * sizeof *head);
    lcur *cur = calloc(p.B, sizeof *cur);
    unsigned char *words = malloc(p.B * CUR_BYTES);
    unsigned char *buf = malloc((FS_BUCKET_SLOTS + 1) * size);
    int rc = FS_ENOMEM;
    if (p.cnt == NULL || p.start == NULL || head == NULL || cur == NULL ||
        words == NULL || buf == NULL)
        goto out;
    /* The only draw from the caller's generator: 32 bytes, as 4 words. */
    for (int i = 0; i < 4; i++) {
        uint64_t w = fs__u64(rng);
        memcpy(p.key + 8 * i, &w, 8);
    }
    memcpy(&p.lkey, p.key + 8, 8);
    p.crypto = rng->vt->info->cryptographic;

    run_phase(&p, COUNT, p.nchunks, threads);
    size_t pos = 0;
    for (size_t b = 0; b < p.B; b++) {
        p.start[b] = head[b] = pos;
        for (size_t c = 0; c < p.nchunks; c++)
            pos += p.cnt[c * p.B + b];
        cur[b].buf = words + b * CUR_BYTES;
        if (pos > p.start[b])
            cur_seek(&p, &cur[b], p.start[b]);
    }
    p.start[p.B] = pos;
    distribute(&p, head, cur, buf);
    run_phase(&p, BUCKETS, p.B, threads);
    rc = FS_OK;
out:
    sodium_memzero(p.key, sizeof p.key);
    sodium_memzero(&p.lkey, sizeof p.lkey);
    if (words)
        sodium_memzero(words, p.B * CUR_BYTES);
    if (cur)
        sodium_memzero(cur, p.B * sizeof *cur);
    free(p.cnt);
    free(p.start);
    free(head);
    free(cur);
    free(words);
    free(buf);
    return rc;
}

int fs__bucket(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    return fs__bucket_run(base, n, size, 1, rng);
}
