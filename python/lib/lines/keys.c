/* keys.c -- the keys of the keyed line shuffle: ChaCha20 keystream words
 * addressed by line number, so any line's key is computable on its own
 * (threads and out-of-core buckets need no shared generator state), and
 * level 0 is exactly the seeded chacha20 fs_rng stream (see lines.h). */

#include "fairshuf/lines.h"
#include "internal.h"
#include "rng/keystream.h"

static void nonce_of(unsigned char nonce[12], uint64_t i, uint32_t level)
{
    uint32_t hi = (uint32_t)(i >> 35); /* carries like the fs_rng stream */
    for (int b = 0; b < 4; b++) {
        nonce[b] = (unsigned char)(hi >> (8 * b));
        nonce[4 + b] = (unsigned char)(level >> (8 * b));
        nonce[8 + b] = 0;
    }
}

void fs_lines_keys(const uint8_t K[32], uint64_t first, uint32_t level,
                   uint64_t *out, size_t count)
{
    unsigned char blk[4096];
    while (count > 0) {
        uint64_t i = first;
        uint64_t in_seg = ((uint64_t)1 << 35) - (i & (((uint64_t)1 << 35) - 1));
        size_t skip = (size_t)(i & 7);  /* words before i in its block */
        size_t words = sizeof blk / 8 - skip;
        if (words > count)
            words = count;
        if (words > in_seg)
            words = (size_t)in_seg;
        size_t bytes = ((skip + words) * 8 + 63) & ~(size_t)63;
        unsigned char nonce[12];
        nonce_of(nonce, i, level);
        fs__chacha20(blk, bytes, K, nonce, (uint32_t)((i >> 3) & 0xffffffffu));
        memcpy(out, blk + 8 * skip, words * 8); /* little-endian hosts */
        out += words;
        count -= words;
        first += words;
    }
}

uint64_t fs_lines_key(const uint8_t K[32], uint64_t i, uint32_t level)
{
    uint64_t k;
    fs_lines_keys(K, i, level, &k, 1);
    return k;
}
