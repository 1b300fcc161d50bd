/* bucket.c -- placeholder until the scatter shuffle lands: Durstenfeld. */
#include "../shuffle/shuffle.h"

int fs__bucket(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    return fs__durstenfeld(base, n, size, rng);
}

int fs_shuffle_threads(void *base, size_t n, size_t size, unsigned threads,
                       fs_rng *rng)
{
    (void)threads;
    return fs_shuffle_with(FS_ALG_BUCKET, base, n, size, rng);
}
