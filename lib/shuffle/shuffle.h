/* shuffle.h -- the algorithms behind fs_shuffle_with(), one file each.
 * Each returns FS_OK or FS_ENOMEM and leaves the rng's sticky error to the
 * caller.  base is never NULL here and n >= 2 unless stated. */
#ifndef FS_SHUFFLE_H
#define FS_SHUFFLE_H

#include "../internal.h"

typedef int (*fs__shuffle_fn)(unsigned char *base, size_t n, size_t size,
                              fs_rng *rng);

int fs__durstenfeld(unsigned char *, size_t, size_t, fs_rng *);
int fs__inside_out(unsigned char *, size_t, size_t, fs_rng *);
int fs__fisher_yates(unsigned char *, size_t, size_t, fs_rng *);
int fs__sattolo(unsigned char *, size_t, size_t, fs_rng *);
int fs__rejection(unsigned char *, size_t, size_t, fs_rng *);
int fs__sort_key(unsigned char *, size_t, size_t, fs_rng *);
int fs__bucket(unsigned char *, size_t, size_t, fs_rng *);
/* The checks every shuffle entry point makes: FS_EINVAL (base NULL with
 * n > 0, size 0), FS_ERANGE (n * size overflows); *r becomes the rng to
 * use (NULL: the thread's default, FS_ERANDOM if none); then the rng's
 * sticky error. */
int fs__shuffle_prepare(void *base, size_t n, size_t size, fs_rng **r);
int fs__naive_swap(unsigned char *, size_t, size_t, fs_rng *);
int fs__swap_any(unsigned char *, size_t, size_t, fs_rng *);
int fs__mod_bias(unsigned char *, size_t, size_t, fs_rng *);
int fs__asf_1999(unsigned char *, size_t, size_t, fs_rng *);
int fs__random_comparator(unsigned char *, size_t, size_t, fs_rng *);

/* The library's choice for n (FS_ALG_AUTO); see docs/stream.md.  With up
 * to `threads` threads (0: one per online CPU; the output is the same for
 * every count): batched Durstenfeld in cache, the bucket shuffle
 * (bucket.c) beyond.  Calls run one way: shuffle.c -> auto.c -> bucket.c,
 * batched.c. */
int fs__auto(unsigned char *, size_t, size_t, fs_rng *);
int fs__auto_threads(unsigned char *base, size_t n, size_t size,
                     unsigned threads, fs_rng *rng);

/* Inside-out from src into dst (no overlap), n >= 1. */
void fs__inside_out_copy(unsigned char *dst, const unsigned char *src,
                         size_t n, size_t size, fs_rng *rng);

#endif
