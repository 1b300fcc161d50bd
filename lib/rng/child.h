/* child.h -- keyed child generators: many independent, reproducible
 * streams derived from one 256-bit key, so that work split into pieces
 * (chunks, buckets) gets the same random bits whichever thread does it. */
#ifndef FS_CHILD_H
#define FS_CHILD_H

#include "../internal.h"

typedef struct fs__child {
    fs_rng rng;
    uint64_t ext[8]; /* chacha20 key/nonce/counter, no heap */
} fs__child;

/* Child number `index` of `key`.  crypto != 0: ChaCha20 with the key and a
 * 96-bit nonce whose bytes 4..11 are `index` little-endian (bytes 0..3 are
 * where a 2^32-block counter wrap carries, see chacha20.c), counter 0.
 * crypto == 0: xoshiro256** whose state words are four successive
 * splitmix64 outputs from key word 0 XOR (index * 0x9e3779b97f4a7c15),
 * each XORed with key word j (words little-endian). */
void fs__rng_child(fs__child *c, int crypto, const unsigned char key[32],
                   uint64_t index);

/* Wipes a child (no memory to free). */
void fs__rng_child_wipe(fs__child *c);

#endif
