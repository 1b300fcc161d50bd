/* chacha20.c -- the default generator: the ChaCha20 keystream (RFC 8439;
 * libsodium, or OpenSSL with `make CHACHA=openssl`: keystream.h).
 * Test vectors: RFC 7539
 * A.1 #1 (all-zero key, nonce and counter) and RFC 8439 2.3.2.
 *
 * Seeded: key from the seed (fs_seed_to_key), nonce 0, block counter from
 *   0; bytes in keystream order.  After 2^32 blocks (256 GiB) the counter
 *   wraps and the nonce's first 32-bit little-endian word counts up.
 * OS-keyed: the key comes from getrandom; each refill draws FS_RNG_BUF
 *   (4096) bytes of output (blocks 0-63) and 32 bytes of the next block
 *   that replace the key
 *   (fast key erasure: a state
 *   read later does not reveal earlier output -- with the readers zeroing
 *   each byte as they hand it out, lib/internal.h), and every 1 MiB fresh OS
 *   entropy is mixed into the key.  Key and buffer live in a
 *   MADV_WIPEONFORK page, so a forked child finds them zeroed and re-keys
 *   from the OS on its first draw; where the kernel lacks WIPEONFORK the
 *   generator checks getpid() on each (then 8-byte, slow) refill instead. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "generators.h"
#include "keystream.h"

#define RESEED_BYTES (1u << 20)

typedef struct chacha_os {
    fs_stream s;
    unsigned char key[32];
    uint32_t live;      /* 0 after fork (wiped): re-key before use */
    uint32_t since;     /* bytes since the last OS re-seed */
} chacha_os;

typedef struct chacha_seeded {
    unsigned char key[32];
    unsigned char nonce[12];
    uint32_t counter;
    fs__chacha_ctx *ks; /* NULL: each refill sets the key up anew */
} chacha_seeded;

/* st.u64[0]: 0 seeded, 1 OS + wipe-on-fork, 2 OS + pid check.
 * st.u64[1]: the pid recorded in mode 2. */
enum { SEEDED = 0, OS_WIPE = 1, OS_PID = 2 };

static void refill_seeded(fs_rng *rng)
{
    chacha_seeded *c = rng->ext;
    fs_stream *s = rng->s;
    fs__chacha20_ctx(c->ks, s->buf, FS_RNG_BUF, c->key, c->nonce, c->counter);
    c->counter += FS_RNG_BUF / 64;
    if (c->counter == 0) { /* 2^32 blocks: carry into the nonce */
        for (int i = 0; i < 4 && ++c->nonce[i] == 0; i++)
            ;
    }
    s->pos = 0;
    s->end = FS_RNG_BUF;
}

static void fail(fs_rng *rng, fs_stream *s, size_t len)
{
    fs_rng_set_error(rng, FS_ERANDOM);
    memset(s->buf, 0, len);
    s->pos = 0;
    s->end = len;
}

static void refill_os(fs_rng *rng)
{
    chacha_os *c = rng->ext;
    fs_stream *s = &c->s;
    size_t len = FS_RNG_BUF;
    if (rng->st.u64[0] == OS_PID) {
        len = 8; /* a child shares at most the word being drawn */
        if ((uint64_t)getpid() != rng->st.u64[1]) {
            c->live = 0;
            rng->st.u64[1] = (uint64_t)getpid();
        }
    }
    if (rng->error != FS_OK)
        return fail(rng, s, len);
    if (!c->live || c->since >= RESEED_BYTES) {
        unsigned char fresh[32];
        if (fs_os_random(fresh, sizeof fresh) != FS_OK)
            return fail(rng, s, len);
        for (int i = 0; i < 32; i++)
            c->key[i] = (unsigned char)((c->live ? c->key[i] : 0) ^ fresh[i]);
        sodium_memzero(fresh, sizeof fresh);
        c->live = 1;
        c->since = 0;
    }
    /* Output: keystream blocks 0.. into the buffer; the next key: the
     * first 32 bytes of the block after the output (never handed out). */
    static const unsigned char nonce[12];
    unsigned char next[32];
    fs__chacha_ctx *ks = fs__chacha_ctx_new(); /* one key set-up for both */
    fs__chacha20_ctx(ks, s->buf, len, c->key, nonce, 0);
    fs__chacha20_ctx(ks, next, 32, c->key, nonce, (uint32_t)((len + 63) / 64));
    fs__chacha_ctx_free(ks); /* wipes the key it held */
    memcpy(c->key, next, 32);
    sodium_memzero(next, sizeof next);
    c->since += (uint32_t)len;
    s->pos = 0;
    s->end = len;
}

static void refill(fs_rng *rng)
{
    if (rng->st.u64[0] == SEEDED)
        refill_seeded(rng);
    else
        refill_os(rng);
}

static void destroy(fs_rng *rng)
{
    if (rng->ext == NULL)
        return;
    if (rng->st.u64[0] == SEEDED) {
        fs__chacha_ctx_free(((chacha_seeded *)rng->ext)->ks);
        sodium_memzero(rng->ext, sizeof(chacha_seeded));
        free(rng->ext);
    } else {
        sodium_memzero(rng->ext, sizeof(chacha_os));
        munmap(rng->ext, sizeof(chacha_os));
    }
    rng->ext = NULL;
}

static int seed_string(fs_rng *rng, const char *seed)
{
    if (seed != NULL) {
        chacha_seeded *c = calloc(1, sizeof *c);
        if (c == NULL)
            return FS_ENOMEM;
        rng->ext = c;
        rng->st.u64[0] = SEEDED;
        c->ks = fs__chacha_ctx_new(); /* NULL is fine (keystream.h) */
        return fs_seed_to_key(seed, c->key);
    }
    chacha_os *c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c == MAP_FAILED)
        return FS_ENOMEM;
    rng->ext = c;
    rng->s = &c->s;
#ifdef MADV_WIPEONFORK
    if (madvise(c, sizeof *c, MADV_WIPEONFORK) == 0)
        rng->st.u64[0] = OS_WIPE;
    else
#endif
    {
        rng->st.u64[0] = OS_PID;
        rng->st.u64[1] = (uint64_t)getpid();
    }
    /* Key now, so that a refusing OS is an error at creation. */
    refill_os(rng);
    return rng->error;
}

/* A seeded generator over caller-owned memory (lib/rng/child.c): key and
 * nonce as given, counter 0, never freed through destroy(). */
_Static_assert(sizeof(chacha_seeded) <= 64, "fits fs__child.ext (child.h)");

size_t fs__chacha20_ext_size(void)
{
    return sizeof(chacha_seeded);
}

void fs__chacha20_keyed(fs_rng *rng, void *ext, const unsigned char key[32],
                        const unsigned char nonce[12])
{
    chacha_seeded *c = ext;
    memcpy(c->key, key, 32);
    memcpy(c->nonce, nonce, 12);
    c->counter = 0;
    c->ks = NULL; /* never destroyed: nothing to free */
    rng->ext = c;
    rng->st.u64[0] = SEEDED;
}

static const fs_rng_info info = {
    "chacha20",
#ifdef FS_CHACHA_OPENSSL
    "ChaCha20 keystream (RFC 8439; OpenSSL); cryptographic; the default",
#else
    "ChaCha20 keystream (RFC 8439; libsodium); cryptographic; the default",
#endif
    64, 256 + 96 + 32, 256, 1, 0};

const fs_rng_vtable fs__chacha20_vt = {&info, refill, destroy, NULL,
                                        seed_string};
