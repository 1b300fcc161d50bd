/*
 * fairshuf.h -- fair, fast and verifiable shuffling.
 *
 * This header is the manual of libfairshuf.  Every public function states
 * what it does, how it fails, what it costs, and -- because randomness is
 * the product -- exactly what is uniform and what is not.
 *
 * Layers, bottom up:
 *   generators (fs_rng)       bytes and 64-bit words
 *   bounded integers          exactly unbiased values in [0, n)
 *   shuffles and sampling     permutations of (base, n, size) arrays
 *   products                  cards, lines, statistics (sub-headers below)
 *
 * Conventions
 *   - Functions that can fail return an int: FS_OK (0) or a negative
 *     fs_status.  fs_strerror() names it.  The library never prints, never
 *     exits and never aborts on bad input.
 *   - A NULL fs_rng* means "this thread's default generator": ChaCha20
 *     keyed from the operating system (see fs_rng_default()).
 *   - Generators carry a sticky error (fs_rng_error()).  A generator that
 *     could not be seeded, or whose re-seeding failed, yields zeros and
 *     keeps the error; every shuffle checks it on return, so a result built
 *     from a failed generator is never reported as FS_OK ("fails closed").
 *   - Names are `fs_` + noun + verb.  Thread safety: an fs_rng is not
 *     shared between threads without a lock; distinct generators are
 *     independent.  The default generator is per thread.
 *
 * Products have their own headers, each including this one:
 *   <fairshuf/lines.h>  line shuffling, GNU shuf compatible, out of core
 *   <fairshuf/cards.h>  cards, tiles, game presets, provably-fair dealing,
 *                       the 1999 ASF shuffle and the attack on it
 *   <fairshuf/stats.h>  fairness tests, p-values, multiple-testing rule
 *   <fairshuf/keyed.h>  keyed random-access permutations in O(1) memory
 *   <fairshuf/playlist.h> shuffle play: next, previous, seek, cycles
 *   <fairshuf/weighted.h> weighted order, weighted sampling without replacement
 *
 * Link with -lfairshuf (pkg-config fairshuf); it depends on libsodium.
 */
#ifndef FAIRSHUF_H
#define FAIRSHUF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the public API: libfairshuf.so is built with -fvisibility=hidden and
 * exports exactly the functions declared with FS_API in these headers
 * (tests/cli/abi.bats compares `nm -D` with them). */
#if defined(__GNUC__) || defined(__clang__)
#define FS_API __attribute__((visibility("default")))
#else
#define FS_API
#endif

#define FS_VERSION_MAJOR 0
#define FS_VERSION_MINOR 1
#define FS_VERSION_PATCH 0
#define FS_VERSION_STRING "0.1.0"
/* Version of the seeded-stream specification (docs/stream.md).  Any change
 * to what a (generator, seed, algorithm, input) produces bumps it. */
#define FS_STREAM_VERSION 5

/* Version of the library actually linked (may differ from the header). */
FS_API const char *fs_version(void);

/* ------------------------------------------------------------------------
 * Errors
 * ---------------------------------------------------------------------- */
typedef enum fs_status {
    FS_OK = 0,
    FS_EINVAL = -1,    /* an argument is out of its documented range */
    FS_ENOMEM = -2,    /* allocation failed; nothing was changed */
    FS_ERANDOM = -3,   /* the OS refused randomness (getrandom failed) */
    FS_ENOTFOUND = -4, /* unknown generator, algorithm or game name */
    FS_EIO = -5,       /* read or write failed; errno says why */
    FS_ERANGE = -6,    /* a value does not fit (overflow, too large) */
    FS_EEOF = -7,      /* a finite random source ran out */
    FS_ESEED = -8,     /* a seed string is empty or malformed */
    FS_EUNSUPPORTED = -9 /* valid request this build or generator can't do */
} fs_status;

/* A short English description of an fs_status ("invalid argument"...).
 * Never NULL; unknown codes give "unknown error". */
FS_API const char *fs_strerror(int status);

/* ------------------------------------------------------------------------
 * Generators
 *
 * Every generator is a stream of bytes: its native outputs written as
 * little-endian words in order (ChaCha20: its keystream bytes in order).
 * fs_rng_u64() takes the next 8 bytes, fs_rng_u32() the next 4, so for a
 * 32-bit generator such as mt19937 one u32 is one native output and one u64
 * is two outputs, the first in the low half.  A generator with fewer bits
 * per output (rand: 31) is packed without gaps: its outputs' bits are
 * concatenated, least significant first, so every bit of every word is
 * drawn from it.  docs/stream.md pins this.
 *
 * Names (fs_rng_list() gives them with descriptions):
 *   chacha20      default; cryptographic (libsodium ChaCha20, RFC 8439)
 *   xoshiro256ss  xoshiro256** (Blackman & Vigna); fast, not cryptographic
 *   pcg64         PCG XSL RR 128/64 (O'Neill); fast, not cryptographic
 *   mt19937       32-bit Mersenne Twister, == C++ std::mt19937
 *   mt19937_64    64-bit Mersenne Twister, == C++ std::mt19937_64
 *   splitmix64    SplitMix64 (Steele, Lea & Flood); seeding helper
 *   rand          LEGACY: glibc's rand()/srand() (TYPE_3), for demos only
 *   delphi        LEGACY: Borland Delphi Random (the 1999 ASF poker LCG)
 *
 * Seeds (a NUL-terminated string; NULL means "from the OS"):
 *   chacha20: 64 hex digits are the 256-bit key; any other non-empty
 *     string is hashed with SHA-256 to the key.  Nonce 0, block counter
 *     from 0 (RFC 8439 vectors apply).
 *   integer-seeded generators: a decimal integer 0..2^64-1 is taken as is
 *     (truncated to the generator's seed width: 32 bits for mt19937, rand
 *     and delphi); any other non-empty string becomes the first 8 bytes,
 *     little-endian, of SHA-256(string).  xoshiro256ss is filled with four
 *     successive splitmix64 outputs from that integer; pcg64 uses it as
 *     initstate with initseq 54 (pcg-c's check-pcg64 stream).
 *   An empty seed is FS_ESEED.
 *   With a NULL seed, chacha20 takes a 256-bit key from the OS; the other
 *   generators take a 64-bit seed from the OS (never time or pid).
 * ---------------------------------------------------------------------- */
typedef struct fs_rng fs_rng;

typedef struct fs_rng_info {
    const char *name;        /* as accepted by fs_rng_new() */
    const char *description; /* one line */
    unsigned native_bits;    /* bits of one native output: 64, 32, or 31
                              * (rand; the stream packs them, no gaps) */
    unsigned state_bits;     /* size of the internal state in bits */
    unsigned seed_bits;      /* distinct seeds: log2 of their number */
    int cryptographic;       /* 1 for chacha20 only */
    int legacy;              /* 1: a known-bad generator, demos only */
} fs_rng_info;

/* All generators, default first.  *count receives their number. */
FS_API const fs_rng_info *fs_rng_list(size_t *count);

/* Looks a generator up by name; NULL if unknown. */
FS_API const fs_rng_info *fs_rng_find(const char *name);

/* Creates a generator.  name NULL means "chacha20".  seed as above.
 * Errors: FS_ENOTFOUND (name), FS_ESEED (seed), FS_ENOMEM,
 * FS_ERANDOM (seed NULL and the OS refused).  On error *out is NULL.
 * An OS-seeded chacha20 is fork-safe: a child process never repeats its
 * parent's output, not even a word buffered before fork() (its state
 * lives in MADV_WIPEONFORK memory, or, where the kernel refuses that, is
 * emptied by a pthread_atfork() handler; the child re-keys from the OS on
 * its first draw).  Error FS_ENOMEM also when that handler cannot be
 * registered (fails closed).  It also erases each
 * key after use (fast key erasure) and mixes in fresh OS entropy every
 * 1 MiB of output. */
FS_API int fs_rng_new(fs_rng **out, const char *name, const char *seed);

/* Frees a generator and wipes its state.  NULL is a no-op. */
FS_API void fs_rng_free(fs_rng *rng);

/* This thread's default generator (OS-keyed chacha20), created on first
 * use and freed at thread exit.  NULL if the OS refused randomness. */
FS_API fs_rng *fs_rng_default(void);

/* The info of a generator (never NULL for a valid rng). */
FS_API const fs_rng_info *fs_rng_info_of(const fs_rng *rng);

/* The sticky error of a generator: FS_OK, or why its output is not to be
 * trusted (FS_ERANDOM, FS_EEOF, FS_EINVAL from fs_below(.., 0)).  NULL is
 * this thread's default generator (created if need be, as by any call
 * with NULL): FS_ERANDOM when the OS refused to key it. */
FS_API int fs_rng_error(const fs_rng *rng);

/* Sets the sticky error (used by sources that run dry; rarely needed). */
FS_API void fs_rng_set_error(fs_rng *rng, int status);

/* Next 64 / 32 bits of the stream, uniform over all values (for a sound
 * generator).  O(1) amortised. */
FS_API uint64_t fs_rng_u64(fs_rng *rng);
FS_API uint32_t fs_rng_u32(fs_rng *rng);

/* Next n bytes of the stream into buf. */
FS_API void fs_rng_bytes(fs_rng *rng, void *buf, size_t n);

/* Parses a seed string into the 64-bit integer an integer-seeded generator
 * uses (decimal as is, else SHA-256 as above).  FS_ESEED if empty. */
FS_API int fs_seed_to_u64(const char *seed, uint64_t *out);

/* Parses a seed string into a 256-bit key (64 hex digits as is, else
 * SHA-256 of the string).  FS_ESEED if empty. */
FS_API int fs_seed_to_key(const char *seed, uint8_t key[32]);

/* Hex: lower-case encoding of n bytes into out (2n+1 bytes with the NUL),
 * and strict decoding of exactly 2n hex digits (either case) into n bytes;
 * FS_EINVAL when the text is not that. */
FS_API void fs_hex_encode(const uint8_t *bytes, size_t n, char *out);
FS_API int fs_hex_decode(const char *hex, uint8_t *bytes, size_t n);

/* Fills buf with n bytes from the operating system (getrandom).  Never
 * falls back to anything weaker.  FS_ERANDOM if the OS refuses. */
FS_API int fs_os_random(void *buf, size_t n);

/* ------------------------------------------------------------------------
 * Bounded integers
 * ---------------------------------------------------------------------- */

/* A uniform integer in [0, n), exactly unbiased for every n in
 * 1..2^64-1 (Lemire's nearly-divisionless multiply-and-reject: accepts a
 * 64-bit word x iff the low half of x*n is >= 2^64 mod n; a division is
 * needed only when the low half is < n).  Expected draws < 2.
 * n == 0 sets the generator's sticky error to FS_EINVAL and returns 0. */
FS_API uint64_t fs_below(fs_rng *rng, uint64_t n);

/* The checked form: FS_EINVAL for n == 0, or the generator's sticky error. */
FS_API int fs_uniform(fs_rng *rng, uint64_t n, uint64_t *out);

/* Batched draws (Brackett-Rozinsky & Lemire 2024): k independent uniform
 * integers out[i] in [0, bounds[i]) from as few 64-bit words as possible.
 * Exact: bounds are grouped while their product fits in 64 bits and each
 * group is one Lemire draw on the product, decoded in mixed radix, so every
 * tuple of results is exactly equally likely.  Any bound 0 is FS_EINVAL.
 * Note: consumes the stream differently from k calls of fs_below(). */
FS_API int fs_below_batch(fs_rng *rng, const uint64_t *bounds, uint64_t *out,
                   size_t k);

/* ------------------------------------------------------------------------
 * Shuffles
 *
 * All work on an array of n elements of `size` bytes at `base` (any size;
 * 4-, 8- and 16-byte elements on 4-, 8- and 8-byte boundaries have typed
 * fast paths, other sizes are moved in word-sized pieces; the output never
 * depends on which path ran).  "Fair" means every one of the
 * n! orders is exactly equally likely given an ideal generator; the
 * generator's own limits (seed space, state size) still apply -- see
 * fs_rng_info.seed_bits against log2(n!).
 * ---------------------------------------------------------------------- */
typedef enum fs_algorithm {
    FS_ALG_AUTO = 0,      /* the library's choice for the size (default) */
    FS_ALG_DURSTENFELD,   /* in place, from the back: O(n) */
    FS_ALG_INSIDE_OUT,    /* shuffled copy, original kept: O(n) */
    FS_ALG_FISHER_YATES,  /* original draw-and-remove: O(n^2), reference */
    FS_ALG_SATTOLO,       /* uniform over the (n-1)! single cycles only */
    FS_ALG_REJECTION,     /* random empty slot, retry if taken: O(n log n) */
    FS_ALG_SORT_KEY,      /* sort by random 64-bit keys, ties re-drawn */
    FS_ALG_BUCKET,        /* in-place bucket shuffle for large n */
    /* Negative controls: deliberately biased, for demonstration and to
     * prove that the statistical tests have power.  Never for real use. */
    FS_ALG_NAIVE_SWAP,    /* swap two random positions r%1023 times */
    FS_ALG_SWAP_ANY,      /* swap each i with any position: n^n paths */
    FS_ALG_MOD_BIAS,      /* Durstenfeld with 15-bit r % (i+1) */
    FS_ALG_ASF_1999,      /* the 1999 ASF poker loop, with its off-by-one */
    FS_ALG_RANDOM_COMPARATOR, /* merge sort, comparator answers at random */
    FS_ALG_COUNT
} fs_algorithm;

typedef struct fs_algorithm_info {
    fs_algorithm id;
    const char *name;        /* "durstenfeld", "inside-out", ... */
    const char *description; /* one line */
    int fair;                /* 1 fair, 0 negative control */
    int cyclic;              /* 1: uniform over single cycles (sattolo) */
    int quadratic;           /* 1: O(n^2) or worse; keep n small */
} fs_algorithm_info;

/* All algorithms (FS_ALG_AUTO excluded), fair ones first. */
FS_API const fs_algorithm_info *fs_algorithm_list(size_t *count);

/* Looks an algorithm up by name ("auto" too); NULL if unknown. */
FS_API const fs_algorithm_info *fs_algorithm_find(const char *name);

/* Shuffles in place with the library's choice for n (Durstenfeld with
 * batched bounded draws below 16 MiB of data, the in-place bucket shuffle
 * from there; fixed rule, so a seed gives the same output everywhere).
 * Uniform.  O(n).  In place: neither path allocates (rng NULL: the
 * thread's default generator, created on first use).  Errors: FS_EINVAL
 * (base NULL with n > 0, size 0), FS_ERANGE (n * size overflows),
 * FS_ERANDOM (rng NULL and no default generator), the generator's sticky
 * error (the array is then still a permutation of its input; on the
 * bucket path, whose only draw is a 32-byte key taken before the array
 * is touched, it is untouched).  n = 0 and 1 draw nothing. */
FS_API int fs_shuffle(void *base, size_t n, size_t size, fs_rng *rng);

/* Shuffles in place with a named algorithm.  Same errors; algorithms that
 * need scratch memory (inside-out, fisher-yates, rejection, sort-key,
 * random-comparator) may return FS_ENOMEM. */
FS_API int fs_shuffle_with(fs_algorithm alg, void *base, size_t n, size_t size,
                    fs_rng *rng);

/* NEGATIVE CONTROL with a parameter (posts 000 and 001): `swaps` times,
 * swap two positions drawn uniformly and independently (exactly unbiased
 * draws).  Never uniform for any finite swaps and n > 1 -- the chance that
 * no swap touched a given element is (1 - 2/n + 1/n^2)^swaps > 0, so an
 * element stays home more often than 1/n -- but the bias shrinks
 * geometrically; `fairshuf verify --swaps=LIST` measures it.  Errors: as
 * fs_shuffle_with (rng NULL: the thread's default).  O(swaps). */
FS_API int fs_shuffle_swaps(void *base, size_t n, size_t size, uint64_t swaps,
                            fs_rng *rng);

/* Inside-out (Durstenfeld's copy form): writes a uniformly shuffled copy
 * of src to dst, src untouched.  dst and src must not overlap.  O(n). */
FS_API int fs_shuffle_copy(void *dst, const void *src, size_t n, size_t size,
                    fs_rng *rng);

/* Partial shuffle: afterwards base[0..k) holds the first k elements of a
 * uniform random permutation (uniform over ordered k-tuples), in O(k)
 * draws and swaps.  k > n is FS_EINVAL. */
FS_API int fs_shuffle_partial(void *base, size_t n, size_t size, size_t k,
                       fs_rng *rng);

/* Sattolo's algorithm: a uniform random cyclic permutation (one cycle of
 * length n).  Not a uniform shuffle: fixed points never occur. */
FS_API int fs_shuffle_sattolo(void *base, size_t n, size_t size, fs_rng *rng);

/* fs_shuffle() with up to `threads` threads (0 = one per online CPU):
 * the same choice by size and the same output for the same seed -- the
 * output never depends on `threads`.  Threads are used on the bucket
 * path (n * size >= 16 MiB) for its last step, the shuffles of the
 * buckets; the scatter into buckets before it is one pass in one thread.
 * Errors as fs_shuffle(); in place, with no memory of its own beyond the
 * threads (a thread that cannot start leaves its buckets to the caller's
 * thread: same output).
 * docs/stream.md §4 specifies the stream ("auto", "The bucket shuffle"). */
FS_API int fs_shuffle_threads(void *base, size_t n, size_t size, unsigned threads,
                       fs_rng *rng);

/* ------------------------------------------------------------------------
 * Sampling
 * ---------------------------------------------------------------------- */

/* k distinct indices of [0, n) without replacement, in uniformly random
 * order (a uniform ordered k-tuple).  Uses a partial shuffle of an index
 * array when k is a large share of n, and Floyd's algorithm with a hash
 * set (O(k) memory, whatever n) otherwise.  k > n is FS_EINVAL. */
FS_API int fs_sample(uint64_t n, size_t k, uint64_t *out, fs_rng *rng);

/* Reservoir sampling (Algorithm R) of k items from a stream of unknown
 * length.  Call fs_reservoir_offer() once per item, in order; it returns
 * the slot in [0, k) where the item must be stored (replacing what was
 * there), or -1 to skip it.  After the stream ends, the min(k, seen)
 * filled slots are a uniform k-subset of the stream (in no uniform order;
 * shuffle them if order matters).  Once the generator has failed, every
 * later item is skipped (-1): check fs_rng_error() before using the
 * sample. */
typedef struct fs_reservoir {
    uint64_t k;
    uint64_t seen;
    fs_rng *rng;
} fs_reservoir;

FS_API void fs_reservoir_init(fs_reservoir *r, uint64_t k, fs_rng *rng);
FS_API int64_t fs_reservoir_offer(fs_reservoir *r);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_H */
