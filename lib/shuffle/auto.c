/* auto.c -- FS_ALG_AUTO: the library's choice by size.  In cache:
 * Durstenfeld with batched bounded draws (batched.c).  From
 * FS_BUCKET_MIN_BYTES of data on: the bucket shuffle (bucket.c),
 * which never waits on a cache miss per element.  The rule looks at n and
 * size only -- never at the machine -- so a seed gives the same output
 * everywhere (docs/stream.md §4, "auto"). */
#include "bucket.h"
#include "batch.h"
#include "shuffle.h"

int fs__auto_threads(unsigned char *base, size_t n, size_t size,
                     unsigned threads, fs_rng *rng)
{
    if (fs__bucket_wanted(n, size))
        return fs__bucket_run(base, n, size, threads, rng);
    fs__durstenfeld_batched(base, n, size, rng);
    return FS_OK;
}

int fs__auto(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    return fs__auto_threads(base, n, size, 1, rng);
}
