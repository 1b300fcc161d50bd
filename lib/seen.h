/* seen.h -- "where did this value first occur?" in O(1) on average
 * (internal): an open-addressing index of 64-bit hashes to the caller's
 * numbers, used by the provably-fair log check to find a commitment or a
 * client seed used in an earlier period without scanning every period.
 *
 * The caller keeps the values; the index keeps only their hash and a
 * number (a period's index), and asks the caller whether a candidate is
 * really equal, so a hash collision never gives a wrong answer.  The
 * hash is SipHash-2-4 under a key drawn from the OS when the index is
 * made, so a log written to collide cannot make the check quadratic (if
 * the OS gives no randomness the key is fixed: still correct, only no
 * longer proof against crafted collisions). */
#ifndef FS_SEEN_H
#define FS_SEEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct fs__seen {
    uint64_t *hash;
    size_t *value;
    size_t cap, n; /* cap: 0 or a power of two, n <= cap / 2 */
    unsigned char key[16];
} fs__seen;

/* Is candidate `value` equal to the value being looked up? */
typedef int fs__seen_same(void *ctx, size_t value);

void fs__seen_init(fs__seen *s);
void fs__seen_free(fs__seen *s);

/* The hash of n bytes under s's key. */
uint64_t fs__seen_hash(const fs__seen *s, const void *p, size_t n);

/* The number added with hash h for which same(ctx, number) is true, or
 * SIZE_MAX if none.  The caller adds each distinct value once (when find
 * says none), so that number is where the value first occurred. */
size_t fs__seen_find(const fs__seen *s, uint64_t h, fs__seen_same *same,
                     void *ctx);

/* Adds number v under hash h.  FS_OK or FS_ENOMEM. */
int fs__seen_add(fs__seen *s, uint64_t h, size_t v);

#endif
