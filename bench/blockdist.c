/* blockdist.c -- a prototype of a parallel, thread-count-independent
 * in-place distribution for the bucket shuffle, measured against the
 * library's (docs/performance.md, "Threads").  Not part of the library.
 *
 * The library's distribution (lib/shuffle/bucket.c) is American-flag
 * cycle leading: one thread, because the order it leaves inside each bucket
 * depends on the order of its moves.  This prototype makes every phase
 * parallel while the result stays a fixed function of the input and the
 * labels:
 *
 *   classify  per chunk of 2^20 positions, in place: each element goes
 *             to its bucket's 64-element buffer (its label from the chunk's
 *             stream, as the library's); a full buffer is written back as
 *             a block at the chunk's front (its bucket in tag[]); what is
 *             left (the tails, < 64 per bucket and chunk) goes to the
 *             chunk's part of a side store.  The labels are counted on the
 *             way: no counting pass;
 *   dest      per chunk: every block's destination, fixed: the k-th block
 *             of bucket b (chunks in order, blocks in order) goes to the
 *             k-th block-aligned slot inside b's range, or to b's overflow
 *             block if it would cross the range's end (at most one per
 *             bucket);
 *   permute   the block moves form paths and cycles, each path done
 *             backwards from its end (pull(), below); threads take
 *             different path ends and never meet: no locks or atomics,
 *             and the result is the same for every schedule;
 *   cleanup   per bucket: the positions outside its block slots get the
 *             overflow block, then the tails in chunk order;
 *   buckets   per bucket: read once, Durstenfeld with batched draws
 *             (fs_shuffle on the bucket with its own generator).
 *
 * Extra memory: the tails (under 1% of the array on average at 256
 * buckets, 1.5% at most), 5 bytes per 64-element block (1% of an array of
 * 8-byte elements), 128 KiB of buffers per thread.
 *
 *   make -C bench blockdist BUILD=$PWD/build
 *   build/bench/blockdist [N [ROUNDS [both|library|prototype]]]
 *                                       (default 1e8 5 both)
 *
 * Each round shuffles a fresh iota array with the library (fs_shuffle_threads,
 * chacha20) and with the prototype, each with 1 and 2 threads, in turn, and
 * prints ns per 8-byte element and the prototype's phases; with both, the
 * first round checks that the prototype's result is a permutation with
 * every element in its label's bucket, and up to n = 2e7 that the
 * arrangement before the bucket shuffles is the one defined below
 * (check_arrangement(), from the definition alone).  `library` or
 * `prototype` alone gives that one's peak RSS. */

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <fairshuf.h>
#include <pthread.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define NB 256                     /* buckets */
#define CHUNK ((size_t)1 << 20)    /* positions per label stream */
#define BS ((size_t)64)            /* elements per block */
#define NONE UINT32_MAX            /* no block comes here */
#define DONE (UINT32_MAX - 1)      /* this slot's block has left */
#define MAXT 64
#define TCAP ((size_t)NB * (BS - 1)) /* tail room per chunk */

typedef struct ctx {
    uint64_t *a;
    size_t n, nch, nslots;
    unsigned char key[32];
    size_t *cnt;            /* nch x NB */
    size_t *pre;            /* nch x NB: full blocks of bucket b before chunk c */
    uint64_t *tails;        /* nch x TCAP: chunk c's tails, bucket by bucket */
    unsigned char *tag;     /* per slot: the bucket of its block */
    size_t *full;           /* nch: full blocks of chunk c (its first slots) */
    uint32_t *inv;          /* per slot: the slot whose block goes here
                             * (NONE), DONE once its own block has left:
                             * the only per-block metadata, 4 bytes */
    size_t cycles, ntails;
    int check_arrangement;  /* check step 2's result from its definition */
    size_t S[NB + 1], A[NB], F[NB];
    uint32_t ovfsrc[NB];    /* the block of b that goes to its overflow */
    uint64_t *ovf;          /* NB x BS */
    int hasovf[NB];
    unsigned T;
} ctx;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static const unsigned char zeros[4096];

/* Bytes [off, off + len) of chunk c's label stream: ChaCha20-IETF
 * keystream, nonce = c, as the library's bucket path. */
static void labels(const ctx *x, size_t c, size_t off, unsigned char *out,
                   size_t len)
{
    unsigned char nonce[12] = {0};
    for (int i = 0; i < 8; i++)
        nonce[4 + i] = (unsigned char)((uint64_t)c >> (8 * i));
    crypto_stream_chacha20_ietf_xor_ic(out, zeros, len, nonce,
                                       (uint32_t)(off / 64), x->key);
}

/* One block, 16 bytes at a time (gcc -O2 makes memcpy of 512 bytes a `rep
 * movsq`, which cost a third of the classify phase). */
static inline void copy_block(uint64_t *dst, const uint64_t *src)
{
#if defined(__SSE2__)
    for (size_t i = 0; i < BS; i += 8) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 2));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 4));
        __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 6));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), a);
        _mm_storeu_si128((__m128i *)(void *)(dst + i + 2), b);
        _mm_storeu_si128((__m128i *)(void *)(dst + i + 4), c);
        _mm_storeu_si128((__m128i *)(void *)(dst + i + 6), d);
    }
#else
    memcpy(dst, src, BS * 8);
#endif
}

static size_t chunk_len(const ctx *x, size_t c)
{
    size_t lo = c * CHUNK;
    return x->n - lo < CHUNK ? x->n - lo : CHUNK;
}

/* Chunk c, in place: full blocks to its front (their buckets in tag[]),
 * the tails to the chunk's part of the side store; counts its labels on the
 * way (no separate counting pass).  buf: NB * BS elements, 4 KiB aligned. */
static void classify_chunk(ctx *x, size_t c, uint64_t *buf)
{
    unsigned char lb[4096];
    size_t lo = c * CHUNK, len = chunk_len(x, c), w = lo;
    uint64_t *wp[NB];
    size_t blocks[NB] = {0};
    for (int b = 0; b < NB; b++)
        wp[b] = buf + b * BS;
    for (size_t off = 0; off < len; off += sizeof lb) {
        size_t m = len - off < sizeof lb ? len - off : sizeof lb;
        labels(x, c, off, lb, (m + 63) & ~(size_t)63);
        const uint64_t *src = x->a + lo + off;
        for (size_t i = 0; i < m; i++) {
            unsigned l = lb[i];
            uint64_t *q = wp[l];
            *q++ = src[i];
            if (((uintptr_t)q & (BS * 8 - 1)) == 0) {
                q -= BS;
                copy_block(x->a + w, q);
                x->tag[w / BS] = (unsigned char)l;
                blocks[l]++;
                w += BS;
            }
            wp[l] = q;
        }
    }
    uint64_t *t = x->tails + c * TCAP;
    x->full[c] = (w - lo) / BS;
    for (int b = 0; b < NB; b++) {
        size_t m = (size_t)(wp[b] - (buf + b * BS));
        memcpy(t, buf + b * BS, m * 8);
        t += m;
        x->cnt[c * NB + b] = blocks[b] * BS + m;
    }
}

/* Chunk c's blocks get their destinations: the k-th block of bucket b
 * (chunks in order, blocks in order) goes to the k-th block-aligned slot
 * of b's range, or to b's overflow block. */
static void dest_chunk(ctx *x, size_t c)
{
    size_t k[NB];
    for (int b = 0; b < NB; b++)
        k[b] = x->pre[c * NB + b];
    size_t g0 = c * (CHUNK / BS);
    for (size_t g = g0; g < g0 + x->full[c]; g++) {
        unsigned l = x->tag[g];
        size_t d = x->A[l] + k[l]++ * BS;
        if (d + BS <= x->S[l + 1])
            x->inv[d / BS] = (uint32_t)g;
        else
            x->ovfsrc[l] = (uint32_t)g; /* one per bucket */
    }
}

/* The moves of the blocks form paths and cycles: slot g's block goes to
 * its destination (fixed by dest_chunk(); inv[] holds the reverse map); a path
 * ends at a slot that held no block (a tail slot) or at an
 * overflow block and starts at a block slot that is no block's
 * destination; a cycle has only block slots.  A path is done backwards,
 * from its end: fill the end from its source inv[end], then that slot from
 * its own source, and so on.  Each copy writes the slot read just before
 * (in cache) and reads a block whose address the metadata gives ahead of
 * time (prefetched 8 blocks ahead).  Every slot is on one path or cycle,
 * so threads that take different path ends never meet: no locks or
 * atomics, and the result is the same for every schedule.
 *
 * Fills dst (a free slot or an overflow block) from slot s and on down the
 * path, to its start or to slot `stop` (a cycle's first slot); returns the
 * last slot emptied. */
static uint64_t *pull(ctx *x, uint64_t *dst, uint32_t s, uint32_t stop)
{
    enum { AHEAD = 8 };
    uint32_t w = s;
    for (int j = 0; j < AHEAD + 1 && w < DONE && w != stop; j++) {
        const char *p = (const char *)(x->a + (size_t)w * BS);
        for (size_t q = 0; q < BS * 8; q += 64)
            __builtin_prefetch(p + q, 0, 3);
        w = x->inv[w];
    }
    while (s < DONE && s != stop) {
        if (w < DONE && w != stop) {
            const char *p = (const char *)(x->a + (size_t)w * BS);
            for (size_t q = 0; q < BS * 8; q += 64)
                __builtin_prefetch(p + q, 0, 3);
            w = x->inv[w];
        }
        uint64_t *src = x->a + (size_t)s * BS;
        copy_block(dst, src);
        dst = src;
        uint32_t next = x->inv[s];
        x->inv[s] = DONE;
        s = next;
    }
    return dst;
}

/* Is slot g one of its chunk's full blocks (classify puts them first)? */
static int is_block(const ctx *x, size_t g)
{
    size_t c = g * BS / CHUNK;
    return g - c * (CHUNK / BS) < x->full[c];
}

/* A cycle through block slot c (one thread, after the paths): c's block
 * saved, the cycle pulled round to c, the saved block into the last slot
 * emptied. */
static void rotate(ctx *x, size_t c)
{
    uint64_t save[BS];
    memcpy(save, x->a + c * BS, BS * 8);
    uint32_t first = x->inv[c];
    x->inv[c] = DONE;
    memcpy(pull(x, x->a + c * BS, first, (uint32_t)c), save, BS * 8);
}

typedef struct part {
    ctx *x;
    int phase;
    size_t lo, hi;
    uint64_t *buf;
} part;

enum { CLASSIFY, DEST, PATHS, OVERFLOWS, CLEANUP, BUCKETS };

static void cleanup_bucket(ctx *x, size_t b)
{
    size_t S0 = x->S[b], S1 = x->S[b + 1];
    size_t e1 = x->A[b] < S1 ? x->A[b] : S1;
    size_t p2 = x->A[b] + x->F[b] * BS;
    if (p2 < e1)
        p2 = e1;
    size_t p = S0, e = e1;
#define PUT(v)                                                              \
    do {                                                                    \
        if (p == e) {                                                       \
            p = p2;                                                         \
            e = S1;                                                         \
        }                                                                   \
        x->a[p++] = (v);                                                    \
    } while (0)
    if (x->hasovf[b])
        for (size_t i = 0; i < BS; i++)
            PUT(x->ovf[b * BS + i]);
    for (size_t c = 0; c < x->nch; c++) {
        size_t o = c * TCAP;
        for (size_t bb = 0; bb < b; bb++)
            o += x->cnt[c * NB + bb] % BS;
        size_t m = x->cnt[c * NB + b] % BS;
        for (size_t i = 0; i < m; i++)
            PUT(x->tails[o + i]);
    }
#undef PUT
}

static void shuffle_bucket(ctx *x, size_t b)
{
    size_t lo = x->S[b], m = x->S[b + 1] - lo;
    char seed[32];
    snprintf(seed, sizeof seed, "bucket-%zu", b);
    fs_rng *r;
    if (fs_rng_new(&r, "chacha20", seed) != FS_OK)
        abort();
    const unsigned char *q = (const unsigned char *)(x->a + lo);
    unsigned acc = 0;
    for (size_t i = 0; i < m * 8; i += 64)
        acc += q[i];
    __asm__ volatile("" : : "r"(acc));
    fs_shuffle(x->a + lo, m, 8, r);
    fs_rng_free(r);
}

static void *work(void *arg)
{
    part *p = arg;
    ctx *x = p->x;
    for (size_t i = p->lo; i < p->hi; i++) {
        switch (p->phase) {
        case DEST:
            dest_chunk(x, i);
            break;
        case CLASSIFY:
            classify_chunk(x, i, p->buf);
            break;
        case PATHS:
            /* path ends: a slot that held no block but receives one */
            if (!is_block(x, i) && x->inv[i] != NONE)
                pull(x, x->a + i * BS, x->inv[i], NONE);
            break;
        case OVERFLOWS:
            /* the other path ends: bucket i's overflow block */
            if (x->ovfsrc[i] != NONE) {
                x->hasovf[i] = 1;
                pull(x, x->ovf + i * BS, x->ovfsrc[i], NONE);
            }
            break;
        case CLEANUP:
            cleanup_bucket(x, i);
            break;
        default:
            shuffle_bucket(x, i);
        }
    }
    return NULL;
}

static void phase(ctx *x, int ph, size_t items, uint64_t **bufs)
{
    part ps[MAXT];
    pthread_t tid[MAXT];
    unsigned T = x->T;
    for (unsigned t = 0; t < T; t++)
        ps[t] = (part){x, ph, items * t / T, items * (t + 1) / T, bufs[t]};
    for (unsigned t = 1; t < T; t++)
        if (pthread_create(&tid[t], NULL, work, &ps[t]) != 0)
            abort();
    work(&ps[0]);
    for (unsigned t = 1; t < T; t++)
        pthread_join(tid[t], NULL);
}

/* The prototype shuffle; ph[5] gets the phase times in ns. */
/* The arrangement before the per-bucket shuffles, from its definition
 * alone, for an iota input (a[i] = i, so an element is its input
 * position): bucket b holds its elements in input order cut into runs of BS
 * per chunk; the k-th full run (chunks in order) is at A_b + k*BS for
 * k < F_b; the positions left, in increasing order, hold the one full run
 * more if there is one (the overflow), then the chunks' tails in chunk
 * order.  1 if the array matches, 0 if not, -1 without memory. */
static int check_arrangement(const ctx *x)
{
    size_t n = x->n;
    unsigned char *lab = malloc(n + 4096);
    size_t *idx = malloc(n * sizeof *idx), *first = calloc(NB + 1, sizeof *first);
    uint64_t *e = malloc(n * 8);
    unsigned char *taken = calloc(n, 1);
    int ok = lab && idx && first && e && taken ? 1 : -1;
    if (ok < 0)
        goto out;
    for (size_t c = 0; c < x->nch; c++)
        for (size_t off = 0; off < chunk_len(x, c); off += 4096)
            labels(x, c, off, lab + c * CHUNK + off, 4096);
    /* positions grouped by bucket, in input order (a counting sort) */
    for (size_t p = 0; p < n; p++)
        first[lab[p] + 1]++;
    for (int b = 0; b < NB; b++)
        first[b + 1] += first[b];
    {
        size_t fill[NB];
        memcpy(fill, first, sizeof fill);
        for (size_t p = 0; p < n; p++)
            idx[fill[lab[p]]++] = p;
    }
    for (size_t b = 0; b < NB && ok == 1; b++) {
        /* bucket b is [S0, S1); its block slots from A on; F of them */
        size_t lo = first[b], hi = first[b + 1], S0 = lo, S1 = hi;
        size_t A = (S0 + BS - 1) / BS * BS, runs = 0;
        for (size_t i = lo; i < hi;) {
            size_t c = idx[i] / CHUNK, j = i;
            while (j < hi && idx[j] / CHUNK == c)
                j++;
            runs += (j - i) / BS;
            i = j;
        }
        size_t room = A < S1 ? (S1 - A) / BS : 0, F = runs < room ? runs : room;
        if (runs > F + 1) {
            ok = 0;
            break;
        }
        /* the full runs, chunk by chunk: the first F to the block slots,
         * the one more (if any) first into the positions left */
        size_t pos = S0, k = 0;
        for (size_t i = lo; i < hi;) {
            size_t c = idx[i] / CHUNK, j = i;
            while (j < hi && idx[j] / CHUNK == c)
                j++;
            for (size_t r = i; r + BS <= j; r += BS, k++)
                for (size_t q = 0; q < BS; q++) {
                    size_t at = A + k * BS + q;
                    if (k < F) {
                        e[at] = idx[r + q];
                        taken[at] = 1;
                    }
                }
            i = j;
        }
        k = 0;
        for (size_t i = lo; i < hi;) {
            size_t c = idx[i] / CHUNK, j = i;
            while (j < hi && idx[j] / CHUNK == c)
                j++;
            for (size_t r = i; r + BS <= j; r += BS, k++)
                if (k == F)
                    for (size_t q = 0; q < BS; q++) {
                        while (taken[pos])
                            pos++;
                        e[pos++] = idx[r + q];
                    }
            i = j;
        }
        for (size_t i = lo; i < hi;) {
            size_t c = idx[i] / CHUNK, j = i;
            while (j < hi && idx[j] / CHUNK == c)
                j++;
            for (size_t r = i + (j - i) / BS * BS; r < j; r++) {
                while (taken[pos])
                    pos++;
                e[pos++] = idx[r];
            }
            i = j;
        }
        for (size_t p = S0; p < S1; p++)
            if (e[p] != x->a[p]) {
                ok = 0;
                break;
            }
    }
out:
    free(lab);
    free(idx);
    free(first);
    free(e);
    free(taken);
    return ok;
}

static void blockdist(ctx *x, double ph[5], uint64_t **bufs)
{
    double t0 = now();
    phase(x, CLASSIFY, x->nch, bufs);
    double t1 = now();
    size_t pos = 0;
    x->ntails = 0;
    for (int b = 0; b < NB; b++) {
        x->S[b] = pos;
        x->A[b] = (pos + BS - 1) / BS * BS;
        size_t fb = 0;
        for (size_t c = 0; c < x->nch; c++) {
            x->pre[c * NB + b] = fb;
            fb += x->cnt[c * NB + b] / BS;
            pos += x->cnt[c * NB + b];
            x->ntails += x->cnt[c * NB + b] % BS;
        }
        size_t room = x->A[b] < pos ? (pos - x->A[b]) / BS : 0;
        x->F[b] = fb < room ? fb : room;
        x->hasovf[b] = 0;
        x->ovfsrc[b] = NONE;
    }
    x->S[NB] = pos;
    memset(x->inv, 0xff, x->nslots * sizeof *x->inv); /* NONE */
    phase(x, DEST, x->nch, bufs);
    double t2 = now();
    phase(x, PATHS, x->nslots, bufs);
    phase(x, OVERFLOWS, NB, bufs);
    /* what is left are cycles (few: tail slots end most paths); one
     * thread */
    for (size_t g = 0; g < x->nslots; g++)
        if (x->inv[g] != DONE && is_block(x, g)) {
            rotate(x, g);
            x->cycles++;
        }
    double t3 = now();
    phase(x, CLEANUP, NB, bufs);
    double t4 = now();
    if (x->check_arrangement && check_arrangement(x) != 1) {
        fprintf(stderr, "blockdist: WRONG arrangement (T=%u)\n", x->T);
        exit(1);
    }
    phase(x, BUCKETS, NB, bufs);
    double t5 = now();
    ph[0] = t1 - t0;
    ph[1] = t2 - t1;
    ph[2] = t3 - t2;
    ph[3] = t4 - t3;
    ph[4] = t5 - t4;
}

static int check(const ctx *x)
{
    unsigned char *seen = calloc(x->n, 1), *lab = malloc(x->n + 4096);
    if (seen == NULL || lab == NULL)
        return -1;
    for (size_t c = 0; c < x->nch; c++)
        for (size_t off = 0; off < chunk_len(x, c); off += 4096)
            labels(x, c, off, lab + c * CHUNK + off, 4096);
    int ok = 1;
    for (size_t b = 0; b < NB && ok; b++)
        for (size_t i = x->S[b]; i < x->S[b + 1]; i++) {
            uint64_t v = x->a[i];
            if (v >= x->n || seen[v] || lab[v] != b) {
                ok = 0;
                break;
            }
            seen[v] = 1;
        }
    free(seen);
    free(lab);
    return ok;
}

static int cmpd(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtod(argv[1], NULL) : (size_t)1e8;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    const char *which = argc > 3 ? argv[3] : "both";
    int run_lib = strcmp(which, "prototype") != 0;
    int run_blk = strcmp(which, "library") != 0;
    if (n < CHUNK || rounds < 1 || rounds > 99 || sodium_init() < 0 ||
        (!run_lib && !run_blk) ||
        (strcmp(which, "both") != 0 && run_lib && run_blk)) {
        fprintf(stderr, "usage: blockdist [N >= 2^20 [ROUNDS 1..99 "
                        "[both|library|prototype]]]\n");
        return 2;
    }
    ctx x = {.n = n};
    x.nch = (n + CHUNK - 1) / CHUNK;
    x.nslots = (n + BS - 1) / BS;
    x.a = malloc(n * 8);
    x.cnt = calloc(x.nch * NB, sizeof *x.cnt);
    x.pre = calloc(x.nch * NB, sizeof *x.pre);
    x.tails = malloc(x.nch * TCAP * 8); /* the worst case; pages are
                                         * only touched as used */
    x.tag = malloc(x.nslots);
    x.full = calloc(x.nch, sizeof *x.full);
    x.inv = malloc(x.nslots * sizeof *x.inv);
    x.ovf = malloc(NB * BS * 8);
    uint64_t *bufs[MAXT];
    for (int t = 0; t < 2; t++)
        bufs[t] = aligned_alloc(4096, NB * BS * 8);
    fs_rng *r;
    if (x.a == NULL || x.cnt == NULL || x.pre == NULL || x.tag == NULL ||
        x.tails == NULL || x.full == NULL || x.inv == NULL || x.ovf == NULL || bufs[0] == NULL ||
        bufs[1] == NULL || fs_rng_new(&r, "chacha20", "blockdist") != FS_OK) {
        fprintf(stderr, "blockdist: out of memory\n");
        return 1;
    }
    randombytes_buf(x.key, sizeof x.key);
    double lib[2][99] = {{0}}, blk[2][99] = {{0}}, phs[2][5][99] = {{{0}}};
    for (int k = 0; k < rounds; k++) {
        for (unsigned T = 1; T <= 2; T++) {
            for (size_t i = 0; i < n; i++)
                x.a[i] = i;
            double t0 = now();
            if (run_lib) {
                fs_shuffle_threads(x.a, n, 8, T, r);
                lib[T - 1][k] = (now() - t0) / (double)n;
                for (size_t i = 0; i < n; i++)
                    x.a[i] = i;
            }
            if (!run_blk)
                continue;
            x.T = T;
            double ph[5];
            /* the arrangement check (slow, n bytes x 18) in the first
             * round of a checked run up to 2e7 */
            x.check_arrangement = k == 0 && run_lib && n <= 20000000;
            t0 = now();
            blockdist(&x, ph, bufs);
            blk[T - 1][k] = (now() - t0) / (double)n;
            for (int j = 0; j < 5; j++)
                phs[T - 1][j][k] = ph[j] / (double)n;
            if (k == 0 && run_lib && !check(&x)) {
                fprintf(stderr, "blockdist: WRONG result (T=%u)\n", T);
                return 1;
            }
        }
    }
    printf("n = %zu, %d rounds, ns per element, median (min-max); "
           "tails %.2f%% of n\n", n, rounds,
           100.0 * (double)x.ntails / (double)n);
    const char *pn[5] = {"classify", "dest", "permute", "cleanup", "buckets"};
    for (int T = 0; T < 2; T++) {
        qsort(lib[T], (size_t)rounds, sizeof(double), cmpd);
        qsort(blk[T], (size_t)rounds, sizeof(double), cmpd);
        printf("T=%d  library %.2f (%.2f-%.2f)  prototype %.2f (%.2f-%.2f)  "
               "ratio of medians %.2f\n     phases:", T + 1,
               lib[T][rounds / 2], lib[T][0], lib[T][rounds - 1],
               blk[T][rounds / 2], blk[T][0], blk[T][rounds - 1],
               blk[T][rounds / 2] / lib[T][rounds / 2]);
        for (int j = 0; j < 5; j++) {
            qsort(phs[T][j], (size_t)rounds, sizeof(double), cmpd);
            printf(" %s %.2f", pn[j], phs[T][j][rounds / 2]);
        }
        printf("\n");
    }
    printf("cycles left to one thread: %.1f per shuffle\n",
           (double)x.cycles / (2.0 * rounds));
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.3f x the array (%s)\n",
           (double)ru.ru_maxrss * 1024.0 / (double)(n * 8), which);
    if (run_lib && run_blk)
        printf("result checked: a permutation, every element in its "
               "label's bucket%s\n",
               n <= 20000000 ? "; the arrangement before the bucket "
                               "shuffles as defined" : "");
    fs_rng_free(r);
    for (int t = 0; t < 2; t++)
        free(bufs[t]);
    free(x.a);
    free(x.cnt);
    free(x.pre);
    free(x.tails);
    free(x.tag);
    free(x.full);
    free(x.inv);
    free(x.ovf);
    return 0;
}
