/* attack.c -- the 1999 ASF poker shuffle and the seed search that breaks
 * it (Arkin, Hill, Marks, Schmid, Walls & McGraw, "How We Learned to Cheat
 * at Online Poker", 1999).
 *
 * The search runs the shuffle backwards.  Step k (k = 0..51) of the ASF
 * loop swaps positions k and j_k, with j_k = (x_{k+1} * 51) >> 32 and
 * x_{k+1} the (k+1)-th Delphi RandSeed.  The card that ends at position p
 * started at the position q reached by undoing the swaps from k = 51 down
 * to 0, and a fresh deck holds card q at q.  So one known card costs 52
 * compare-and-selects and no array, and a seed is dropped at the first
 * known card that does not fit (51 times in 52 at the first card).
 * x_{k+1} = A_k * seed + C_k (mod 2^32) with A_k = a^(k+1), so the 52
 * draws of a seed are independent of each other: 8 seeds go through the
 * same vector lanes at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../internal.h"
#include "fairshuf/cards.h"

#define LCG_A 134775813u
#define LANES 8
/* Seeds between two updates of the shared count (a multiple of LANES). */
#define BLOCK (1u << 20)

typedef uint32_t v8u __attribute__((vector_size(4 * LANES)));

int fs_asf_shoe(uint32_t seed, fs_card shoe[52])
{
    char s[16];
    snprintf(s, sizeof s, "%u", seed);
    fs_rng *rng;
    int rc = fs_rng_new(&rng, "delphi", s);
    if (rc != FS_OK)
        return rc;
    size_t n;
    fs_deck_fill(shoe, 52, FS_DECK_52, 1, &n);
    rc = fs_shuffle_with(FS_ALG_ASF_1999, shoe, 52, sizeof *shoe, rng);
    fs_rng_free(rng);
    return rc;
}

typedef struct job {
    const fs_known_card *known;
    size_t k;
    uint64_t first, last;     /* inclusive */
    uint32_t *found;          /* room for max_found */
    size_t max_found;
    uint64_t nfound;
    uint32_t A[52], C[52];
    _Atomic uint64_t *done;   /* seeds scanned by every thread */
    fs_attack_progress *progress; /* set in the calling thread's job only */
    void *ctx;
    uint64_t total;
} job;

/* The scalar check of every known card for one seed (rare: 1 in 52). */
static int seed_fits(const job *jb, uint32_t seed)
{
    uint32_t j[52];
    for (unsigned k = 0; k < 52; k++)
        j[k] = (uint32_t)(((uint64_t)(jb->A[k] * seed + jb->C[k]) * 51) >> 32);
    for (size_t i = 0; i < jb->k; i++) {
        uint32_t q = jb->known[i].pos;
        for (int k = 51; k >= 0; k--)
            q = q == (uint32_t)k ? j[k] : q == j[k] ? (uint32_t)k : q;
        if (q != jb->known[i].card)
            return 0;
    }
    return 1;
}

static void *scan(void *arg)
{
    job *jb = arg;
    v8u A[52], C[52], K[52];
    for (unsigned k = 0; k < 52; k++)
        for (unsigned l = 0; l < LANES; l++) {
            A[k][l] = jb->A[k];
            C[k][l] = jb->C[k];
            K[k][l] = k;
        }
    v8u p0 = {0}, c0 = {0}, lane = {0};
    for (unsigned l = 0; l < LANES; l++) {
        p0[l] = jb->known[0].pos;
        c0[l] = jb->known[0].card;
        lane[l] = l;
    }
    for (uint64_t b0 = jb->first; b0 <= jb->last; b0 += BLOCK) {
        uint64_t b1 = jb->last - b0 < BLOCK ? jb->last : b0 + BLOCK - 1;
        for (uint64_t s0 = b0; s0 <= b1; s0 += LANES) {
            v8u seed = lane + (uint32_t)s0;
            v8u j[52];
            for (unsigned k = 0; k < 52; k++) {
                v8u x = A[k] * seed + C[k];
                /* (x * 51) >> 32 in 32-bit lanes, exactly: split x in
                 * halves. */
                v8u hi = (x >> 16) * 51, lo = ((x & 0xffff) * 51) >> 16;
                j[k] = (hi + lo) >> 16;
            }
            v8u q = p0;
            for (int k = 51; k >= 0; k--) {
                v8u at_k = (v8u)(q == K[k]);
                v8u at_j = (v8u)(q == j[k]) & ~at_k;
                q = (q & ~(at_k | at_j)) | (j[k] & at_k) | (K[k] & at_j);
            }
            v8u hit = (v8u)(q == c0);
            uint32_t any = 0;
            for (unsigned l = 0; l < LANES; l++)
                any |= hit[l];
            if (FS_LIKELY(any == 0))
                continue;
            for (unsigned l = 0; l < LANES; l++) {
                uint64_t s = s0 + l;
                if (hit[l] && s <= b1 && seed_fits(jb, (uint32_t)s)) {
                    if (jb->nfound < jb->max_found)
                        jb->found[jb->nfound] = (uint32_t)s;
                    jb->nfound++;
                }
            }
        }
        uint64_t n = b1 - b0 + 1, done = atomic_fetch_add(jb->done, n) + n;
        if (jb->progress)
            jb->progress(jb->ctx, done, jb->total);
    }
    return NULL;
}

static int check_known(const fs_known_card *known, size_t k)
{
    if (known == NULL || k == 0 || k > 52)
        return FS_EINVAL;
    uint64_t pos_seen = 0, card_seen = 0;
    for (size_t i = 0; i < k; i++) {
        if (known[i].pos >= 52 || known[i].card >= 52)
            return FS_EINVAL;
        uint64_t pb = (uint64_t)1 << known[i].pos,
                 cb = (uint64_t)1 << known[i].card;
        if ((pos_seen & pb) || (card_seen & cb))
            return FS_EINVAL;
        pos_seen |= pb;
        card_seen |= cb;
    }
    return FS_OK;
}

int fs_attack_asf(const fs_known_card *known, size_t k, uint32_t first,
                  uint32_t last, unsigned threads, uint32_t *found,
                  size_t max_found, uint64_t *nfound)
{
    return fs_attack_asf_progress(known, k, first, last, threads, found,
                                  max_found, nfound, NULL, NULL);
}

int fs_attack_asf_progress(const fs_known_card *known, size_t k,
                           uint32_t first, uint32_t last, unsigned threads,
                           uint32_t *found, size_t max_found,
                           uint64_t *nfound, fs_attack_progress *progress,
                           void *ctx)
{
    int rc = check_known(known, k);
    if (rc != FS_OK || first > last || (found == NULL && max_found > 0) ||
        nfound == NULL)
        return rc != FS_OK ? rc : FS_EINVAL;
    if (threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus < 1 ? 1 : cpus > 8 ? 8 : (unsigned)cpus;
    }
    uint64_t span = (uint64_t)last - first + 1;
    /* Small windows are not worth a thread. */
    if (span < 1u << 20)
        threads = 1;
    job *jobs = calloc(threads, sizeof *jobs);
    uint32_t *buf = calloc((size_t)threads * (max_found + 1), sizeof *buf);
    pthread_t *tid = calloc(threads, sizeof *tid);
    if (jobs == NULL || buf == NULL || tid == NULL) {
        free(jobs);
        free(buf);
        free(tid);
        return FS_ENOMEM;
    }
    uint32_t a = 1, c = 0; /* x_{k+1} = a * seed + c */
    for (unsigned kk = 0; kk < 52; kk++) {
        a *= LCG_A;
        c = c * LCG_A + 1;
        jobs[0].A[kk] = a;
        jobs[0].C[kk] = c;
    }
    _Atomic uint64_t done = 0;
    uint64_t chunk = span / threads, start = first;
    unsigned started = 0;
    rc = FS_OK;
    for (unsigned t = 0; t < threads; t++) {
        job *jb = &jobs[t];
        *jb = jobs[0];
        jb->known = known;
        jb->k = k;
        jb->first = start;
        jb->last = t + 1 == threads ? last : start + chunk - 1;
        start = jb->last + 1;
        jb->found = buf + (size_t)t * (max_found + 1);
        jb->max_found = max_found;
        jb->nfound = 0;
        jb->done = &done;
        jb->progress = t + 1 == threads ? progress : NULL;
        jb->ctx = ctx;
        jb->total = span;
        if (t + 1 == threads)
            scan(jb); /* the calling thread takes the last chunk */
        else if (pthread_create(&tid[t], NULL, scan, jb) != 0) {
            rc = FS_ENOMEM;
            break;
        } else
            started++;
    }
    /* The calling thread's chunk is done: report the others' until the
     * whole window is (every chunk was started when rc is FS_OK). */
    while (rc == FS_OK && progress && atomic_load(&done) < span) {
        struct timespec pause = {0, 50000000};
        nanosleep(&pause, NULL);
        progress(ctx, atomic_load(&done), span);
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (rc == FS_OK) {
        uint64_t total = 0;
        for (unsigned t = 0; t < threads; t++) {
            for (uint64_t i = 0; i < jobs[t].nfound && i < jobs[t].max_found;
                 i++)
                if (total + i < max_found)
                    found[total + i] = jobs[t].found[i];
            total += jobs[t].nfound;
        }
        *nfound = total;
    }
    free(jobs);
    free(buf);
    free(tid);
    return rc;
}
