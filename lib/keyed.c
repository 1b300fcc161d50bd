/* keyed.c -- keyed random-access permutation of [0, n): a balanced Feistel
 * network over the next even power of two, SipHash-2-4 rounds, and
 * cycle-walking.  <fairshuf/keyed.h> and docs/keyed.md say why. */
#include <sodium.h>
#include <string.h>

#include "internal.h"
#include "keyed_internal.h"
#include "rng/keystream.h"

static void le64(unsigned char *out, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(v >> (8 * i));
}

int fs__keyed_init_rounds(fs_keyed *p, uint64_t n, const uint8_t key[32],
                          unsigned rounds)
{
    if (p == NULL || key == NULL || n == 0 || rounds > FS_KEYED_ROUNDS_MAX)
        return FS_EINVAL;
    unsigned b = 2;
    while (b < 64 && (uint64_t)1 << b < n)
        b += 2;
    memset(p, 0, sizeof *p);
    p->n = n;
    p->half = b / 2;
    p->mask = ((uint64_t)1 << p->half) - 1;
    /* Tiny halves carry little randomness per round: more rounds (the
     * all-orders test at n = 5, 6 rejects 8 rounds on 2-bit halves). */
    if (rounds == 0)
        rounds = p->half <= 2 ? 24 : p->half <= 4 ? 12 : FS_KEYED_ROUNDS;
    p->rounds = rounds;
    /* Round keys: the ChaCha20 keystream (RFC 8439) under the key with
     * nonce "fsk1" || LE64(n): bytes 16r..16r+15 are round r's SipHash key,
     * bit 0 of byte 384 says whether 0 and 1 swap.  One call, ~7 blocks. */
    unsigned char nonce[12], ks[16 * FS_KEYED_ROUNDS_MAX + 1];
    memcpy(nonce, "fsk1", 4);
    le64(nonce + 4, n);
    fs__chacha20(ks, sizeof ks, key, nonce, 0);
    memcpy(p->rk, ks, 16 * (size_t)rounds);
    p->odd = ks[16 * FS_KEYED_ROUNDS_MAX] & 1;
    sodium_memzero(ks, sizeof ks);
    return FS_OK;
}

int fs_keyed_init(fs_keyed *p, uint64_t n, const uint8_t key[32])
{
    return fs__keyed_init_rounds(p, n, key, 0);
}

int fs_keyed_epoch_key(const char *seed, uint64_t epoch, uint8_t key[32])
{
    if (key == NULL)
        return FS_EINVAL;
    if (seed == NULL)
        return FS_ESEED;
    uint8_t master[32];
    int rc = fs_seed_to_key(seed, master);
    if (rc != FS_OK)
        return rc;
    static const char label[] = "fairshuf keyed epoch";
    unsigned char msg[sizeof label - 1 + 8];
    memcpy(msg, label, sizeof label - 1);
    le64(msg + sizeof label - 1, epoch);
    crypto_auth_hmacsha256(key, msg, sizeof msg, master);
    sodium_memzero(master, sizeof master);
    return FS_OK;
}

int fs_keyed_from_seed(fs_keyed *p, uint64_t n, const char *seed,
                       uint64_t epoch)
{
    if (p == NULL)
        return FS_EINVAL;
    uint8_t key[32];
    int rc = fs_keyed_epoch_key(seed, epoch, key);
    if (rc == FS_OK)
        rc = fs_keyed_init(p, n, key);
    sodium_memzero(key, sizeof key);
    return rc;
}

/* F_r(x): SipHash-2-4 of LE64(x) under round key r, low `half` bits. */
uint64_t fs__keyed_round(const fs_keyed *p, unsigned r, uint64_t x)
{
    unsigned char in[8], out[8];
    le64(in, x);
    crypto_shorthash_siphash24(out, in, 8, p->rk[r]);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | out[i];
    return v & p->mask;
}

static uint64_t encrypt(const fs_keyed *p, uint64_t x)
{
    uint64_t l = x >> p->half, r = x & p->mask;
    for (unsigned k = 0; k < p->rounds; k++) {
        uint64_t t = l ^ fs__keyed_round(p, k, r);
        l = r;
        r = t;
    }
    x = l << p->half | r;
    /* Feistel rounds on halves of >= 2 bits are even permutations: a
     * key-chosen transposition of 0 and 1 makes odd ones possible, so a
     * uniform even permutation becomes a uniform permutation. */
    return x < 2 && p->odd ? x ^ 1 : x;
}

static uint64_t decrypt(const fs_keyed *p, uint64_t y)
{
    if (y < 2 && p->odd)
        y ^= 1;
    uint64_t l = y >> p->half, r = y & p->mask;
    for (unsigned k = p->rounds; k-- > 0;) {
        uint64_t t = r ^ fs__keyed_round(p, k, l);
        r = l;
        l = t;
    }
    return l << p->half | r;
}

/* Cycle-walking: the walk from i < n stays on i's cycle of the domain
 * permutation, which contains i, so it reaches a value < n. */
uint64_t fs_keyed_at(const fs_keyed *p, uint64_t i)
{
    if (i >= p->n)
        return i;
    uint64_t x = encrypt(p, i);
    while (x >= p->n)
        x = encrypt(p, x);
    return x;
}

uint64_t fs_keyed_inverse(const fs_keyed *p, uint64_t j)
{
    if (j >= p->n)
        return j;
    uint64_t x = decrypt(p, j);
    while (x >= p->n)
        x = decrypt(p, x);
    return x;
}

uint64_t fs_keyed_size(const fs_keyed *p)
{
    return p->n;
}

void fs_keyed_wipe(fs_keyed *p)
{
    if (p)
        sodium_memzero(p, sizeof *p);
}
