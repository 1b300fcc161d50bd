/* bucket.h -- the in-place bucket shuffle for arrays beyond cache, and
 * the size rule FS_ALG_AUTO uses to pick it (callers: auto.c, and
 * shuffle.c's table as the named FS_ALG_BUCKET).  All parameters are fixed
 * constants of the stream (docs/stream.md §4, "The bucket shuffle"); they
 * never depend on the machine, so seeded output is the same everywhere. */
#ifndef FS_BUCKET_H
#define FS_BUCKET_H

#include "../internal.h"

/* FS_ALG_AUTO takes the bucket path when n * size >= this (16 MiB). */
#define FS_BUCKET_MIN_BYTES ((size_t)16 << 20)
/* Target bytes per bucket: fits the per-core L2 of current x86/ARM cores
 * (reached below the cap; at the cap buckets grow and live in L3). */
#define FS_BUCKET_BYTES ((size_t)256 << 10)
/* At most 2^FS_BUCKET_MAX_LOG2 buckets (the scatter's write streams).
 * Labels are bytes (bucket.c), so at most 8.  At n = 1e8 of 8 bytes: 256
 * buckets of 3 MiB. */
#define FS_BUCKET_MAX_LOG2 8
/* Elements per chunk: the unit of the label streams. */
#define FS_BUCKET_CHUNK ((size_t)1 << 20)
/* Test-only hook: nonzero fields replace the constants above (to take the
 * bucket path, with several chunks and buckets, at small n).  Production
 * code never sets it. */
typedef struct fs__bucket_params {
    size_t min_bytes, bucket_bytes, chunk;
    unsigned max_log2;
} fs__bucket_params;
extern fs__bucket_params fs__bucket_test_params;

/* Does FS_ALG_AUTO use the bucket shuffle for this array? */
int fs__bucket_wanted(size_t n, size_t size);

/* The bucket shuffle with up to `threads` threads (0: one per online
 * CPU) for its per-bucket shuffles; output independent of `threads`.
 * Allocates nothing.  FS_OK, or the generator's error while the key is
 * drawn (then the array is untouched). */
int fs__bucket_run(unsigned char *base, size_t n, size_t size,
                   unsigned threads, fs_rng *rng);

#endif
