/*
 * fairshuf/keyed.h -- keyed random-access permutations of [0, n) in O(1)
 * memory ("lazy" shuffles), for any n from 1 to 2^64-1.
 *
 * An fs_keyed is a bijection of [0, n) chosen by a 256-bit key:
 * fs_keyed_at(p, i) is the item at position i, fs_keyed_inverse(p, j) the
 * position of item j.  Nothing of size n is ever stored, so a permutation
 * of 10^12 items, or of 2^64-1, costs the same 200 bytes and answers any
 * position at once.  This is what shuffle play (<fairshuf/playlist.h>) and
 * per-epoch data-loader orders are built on.
 *
 * What it is, honestly: a pseudo-random permutation (PRP), not a uniform
 * draw from the n! orders.  There are only 2^256 keys, far fewer than n!
 * for n > 57, so most orders can never occur.  The claim is the
 * cryptographic one: to anyone without the key, the permutation cannot
 * be told from a uniformly random one (the statistical tests in
 * tests/unit/test_keyed.c check the visible consequences).  When an exact
 * uniform draw matters and n fits in memory, use fs_shuffle().
 *
 * Construction (docs/keyed.md is the normative specification):
 *   - domain: 2^b with b the smallest even number >= 2 such that 2^b >= n;
 *   - a balanced Feistel network on two halves of h = b/2 bits; round r is
 *     (L, R) -> (R, L ^ F_r(R)) with F_r = SipHash-2-4 (libsodium
 *     crypto_shorthash) under its own 128-bit round key, truncated to h
 *     bits; then, if the key says so, domain points 0 and 1 swap places
 *     (Feistel rounds on halves of >= 2 bits are even permutations, so
 *     without it half of all orders could never occur -- the cycle test
 *     at n = 50 sees that at once);
 *   - cycle-walking (Black & Rogaway, CT-RSA 2002): re-encrypt while the
 *     value is >= n, which restricts a permutation of [0, 2^b) to one of
 *     [0, n) -- still a bijection, still a PRP.
 *   Round keys are the ChaCha20 keystream under the key with a nonce made
 *   of n, so the permutations for different n under one key are
 *   independent.
 *
 * Rounds: 8 for h >= 5 (n > 256), 12 for h = 3, 4, 24 for h <= 2 (n <= 16).
 * Luby & Rackoff (SIAM J. Comput. 1988) prove 3 rounds a PRP and 4 a
 * strong PRP, but only up to about 2^(h/2) queries -- nothing for small
 * domains.  Patarin (CRYPTO 2003, "Luby-Rackoff: 7 rounds are enough for
 * 2^(n(1-eps)) security"; CRYPTO 2004, 5+ rounds) shows that more rounds
 * push the bound towards 2^h queries, the information-theoretic limit of
 * the construction; 8 rounds (as in FF3-1, NIST SP 800-38G) of a
 * cryptographic round function are our floor.  Tiny halves carry little
 * randomness per round, so small domains get more (as FFX does): with 8
 * rounds on 2-bit halves the all-orders test over 720,000 keys rejects
 * n = 5 and 6 (p ~ 1e-77); with 24 it passes.  With 1 or 2 rounds every
 * test rejects: the suite's negative controls.
 *
 * Cost: fs_keyed_init() computes 385 bytes of ChaCha20 keystream (well
 * under a microsecond); fs_keyed_at()/fs_keyed_inverse() take one SipHash per
 * round per Feistel pass and 2^b / n <= 4 passes on average over positions
 * (expected O(1)); a single position may need more passes (geometric
 * tail).  O(1) memory (sizeof(fs_keyed), under 400 bytes).
 * Thread safety: an initialised fs_keyed is read-only; share it freely.
 */
#ifndef FAIRSHUF_KEYED_H
#define FAIRSHUF_KEYED_H

#include <fairshuf.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FS_KEYED_ROUNDS 8      /* Feistel rounds for n > 256 */
#define FS_KEYED_ROUNDS_MAX 24 /* rounds on 2-bit halves (n <= 16) */

/* A keyed permutation.  Fill it with fs_keyed_init() or
 * fs_keyed_from_seed(); the fields are private (they may change between
 * versions, the outputs may not: docs/keyed.md). */
typedef struct fs_keyed {
    uint64_t n;         /* the size: a bijection of [0, n) */
    uint64_t mask;      /* 2^(b/2) - 1 */
    unsigned half;      /* b/2, half-width in bits (1..32) */
    unsigned rounds;    /* 24, 12 or FS_KEYED_ROUNDS by half-width */
    unsigned odd;       /* 1: swap domain points 0 and 1 after the rounds */
    unsigned char rk[FS_KEYED_ROUNDS_MAX][16]; /* SipHash round keys */
} fs_keyed;

/* Prepares the permutation of [0, n) selected by a 256-bit key.
 * Errors: FS_EINVAL for n == 0 or NULL arguments.  O(1). */
FS_API int fs_keyed_init(fs_keyed *p, uint64_t n, const uint8_t key[32]);

/* The key of epoch (or cycle) `epoch` under a seed string: with
 * K = fs_seed_to_key(seed) (64 hex digits as is, else SHA-256 of the
 * string), key = HMAC-SHA-256(K, "fairshuf keyed epoch" || LE64(epoch)).
 * Successive epochs give independent-looking keys; the same (seed, epoch)
 * gives the same key on every platform.  FS_ESEED for an empty or NULL
 * seed, FS_EINVAL for a NULL key. */
FS_API int fs_keyed_epoch_key(const char *seed, uint64_t epoch,
                              uint8_t key[32]);

/* fs_keyed_epoch_key() then fs_keyed_init(): the permutation of [0, n)
 * for epoch `epoch` of `seed`.  Same errors as both. */
FS_API int fs_keyed_from_seed(fs_keyed *p, uint64_t n, const char *seed,
                              uint64_t epoch);

/* The item at position i, for i < p->n (a value in [0, n)).  For i >= n
 * the result is i itself (not a position; callers check bounds).
 * Expected O(1): see above. */
FS_API uint64_t fs_keyed_at(const fs_keyed *p, uint64_t i);

/* The position of item j: fs_keyed_at(p, fs_keyed_inverse(p, j)) == j and
 * fs_keyed_inverse(p, fs_keyed_at(p, i)) == i for all i, j < n.  For
 * j >= n the result is j.  Same cost as fs_keyed_at(). */
FS_API uint64_t fs_keyed_inverse(const fs_keyed *p, uint64_t j);

/* The size n the permutation was made for. */
FS_API uint64_t fs_keyed_size(const fs_keyed *p);

/* Wipes the round keys (sodium_memzero).  NULL is a no-op. */
FS_API void fs_keyed_wipe(fs_keyed *p);


/* ---- Many positions at once ------------------------------------------
 *
 * The same permutation, evaluated for an array of positions: the results
 * are exactly fs_keyed_at()/fs_keyed_inverse() of each element (the
 * output does not depend on the path taken), only faster.  For half-widths
 * up to FS_KEYED_TABLE_HALF (n <= 2^40) a batch tabulates each round
 * function once -- rounds x 2^half 32-bit words, SipHash computed
 * 2^half times per round instead of once per round per position -- and
 * then runs the Feistel rounds over blocks of positions as table look-ups
 * (round-major, so independent positions overlap in the CPU); beyond that
 * it falls back to the per-call path.  Measured gain: bench/keyed.sh. */

#define FS_KEYED_TABLE_HALF 20 /* largest half-width that is tabulated */

/* A prepared batch evaluator of one fs_keyed (a private copy: p may be
 * wiped after this call).  `expected` is how many positions the caller
 * means to map with it (n for a whole epoch); the round tables are built
 * only when that pays, i.e. the half-width is at most FS_KEYED_TABLE_HALF
 * and expected >= 2^half / 4.  Memory: rounds * 2^half * 4 bytes when
 * tabulated (32 KB at n = 10^6, 1 MB at n = 10^9, 32 MB at n = 2^40), else
 * under 1 KB.  Cost: rounds * 2^half SipHash calls (about 8 ms at
 * n = 10^9).  Errors: FS_EINVAL (NULL arguments, uninitialised p),
 * FS_ENOMEM.  An initialised batch is read-only: share it between
 * threads. */
typedef struct fs_keyed_batch fs_keyed_batch;
FS_API int fs_keyed_batch_new(fs_keyed_batch **out, const fs_keyed *p,
                              uint64_t expected);

/* 1 if the batch built its round tables (the fast path), else 0. */
FS_API int fs_keyed_batch_tabulated(const fs_keyed_batch *b);

/* Wipes (sodium_memzero) and frees a batch; NULL is a no-op. */
FS_API void fs_keyed_batch_free(fs_keyed_batch *b);

/* out[k] = fs_keyed_at(p, in[k]) for k < count (so positions >= n come
 * back unchanged).  in and out may be the same array (in place), but must
 * not otherwise overlap.  O(count) expected; no allocation; never fails. */
FS_API void fs_keyed_batch_at(const fs_keyed_batch *b, const uint64_t *in,
                              uint64_t *out, size_t count);

/* out[k] = fs_keyed_inverse(p, in[k]); as fs_keyed_batch_at(). */
FS_API void fs_keyed_batch_inverse(const fs_keyed_batch *b,
                                   const uint64_t *in, uint64_t *out,
                                   size_t count);

/* One-shot forms: a batch for `count` positions, used once and freed.
 * When memory for the tables cannot be had they fall back to the per-call
 * path, so they never fail (same output either way). */
FS_API void fs_keyed_at_many(const fs_keyed *p, const uint64_t *in,
                             uint64_t *out, size_t count);
FS_API void fs_keyed_inverse_many(const fs_keyed *p, const uint64_t *in,
                                  uint64_t *out, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_KEYED_H */
