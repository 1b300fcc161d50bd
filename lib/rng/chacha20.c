/* chacha20.c -- the default generator: the ChaCha20 keystream (RFC 8439;
 * OpenSSL, or libsodium with `make CHACHA=sodium`: keystream.h).
 * Test vectors: RFC 7539
 * A.1 #1 (all-zero key, nonce and counter) and RFC 8439 2.3.2.
 *
 * Seeded: key from the seed (fs_seed_to_key), nonce 0, block counter from
 *   0; bytes in keystream order.  After 2^32 blocks (256 GiB) the counter
 *   wraps and the nonce's first 32-bit little-endian word counts up.
 * OS-keyed: the key comes from getrandom; each refill draws 4 x FS_RNG_BUF
 *   (16 KiB) bytes of output (blocks 0-255) and 32 bytes of the next block
 *   that replace the key (fs__chacha20_erase_step; fast key erasure: a
 *   state read later does not reveal earlier output -- with the readers
 *   zeroing each byte as they hand it out, lib/internal.h), and every 1 MiB
 *   fresh OS entropy is mixed into the key.  Key and buffer live in a
 *   MADV_WIPEONFORK page, so a forked child finds them zeroed and re-keys
 *   from the OS on its first draw.  Where the kernel lacks WIPEONFORK (or a
 *   sandbox refuses madvise), the generator is on a list that a
 *   pthread_atfork() child handler walks: it empties each buffer and marks
 *   the key for re-keying before fork() returns in the child, so not even
 *   a word already buffered is shared (issue 30, H3); each refill also
 *   checks getpid(), for children made without fork(). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "generators.h"
#include "keystream.h"

#define RESEED_BYTES (1u << 20)

/* Stream buffers filled per key-erasure step: the step's fixed cost (the
 * cipher's key set-up twice, the next key's block) spread over 16 KiB
 * (docs/performance.md, "Arrays": the 4 KiB generator buffer). */
#define OS_STREAMS 4

typedef struct chacha_os {
    fs_stream s[OS_STREAMS]; /* handed out in order; rng->s is the current */
    unsigned char key[32];
    uint32_t live;      /* 0 after fork (wiped): re-key before use */
    uint32_t since;     /* bytes since the last OS re-seed */
    struct chacha_os *prev, *next; /* the fork list (OS_PID only) */
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

/* ---- the fork list: OS-keyed generators without MADV_WIPEONFORK ---- */

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static chacha_os *fork_list;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static int fork_ok;

static void before_fork(void)
{
    pthread_mutex_lock(&fork_lock);
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&fork_lock);
}

/* Forgets the buffered output; the next draw re-keys from the OS. */
static void forget(chacha_os *c)
{
    for (int i = 0; i < OS_STREAMS; i++) {
        sodium_memzero(c->s[i].buf, sizeof c->s[i].buf);
        c->s[i].pos = c->s[i].end = 0;
    }
    c->live = 0;
}

/* In the child, before fork() returns: every listed generator forgets. */
static void after_fork_child(void)
{
    for (chacha_os *c = fork_list; c != NULL; c = c->next)
        forget(c);
    pthread_mutex_unlock(&fork_lock);
}

static void fork_init(void)
{
    fork_ok = pthread_atfork(before_fork, after_fork_parent,
                             after_fork_child) == 0;
}

static int fork_list_add(chacha_os *c)
{
    pthread_once(&fork_once, fork_init);
    if (!fork_ok)
        return -1;
    pthread_mutex_lock(&fork_lock);
    c->prev = NULL;
    c->next = fork_list;
    if (fork_list != NULL)
        fork_list->prev = c;
    fork_list = c;
    pthread_mutex_unlock(&fork_lock);
    return 0;
}

static void fork_list_remove(chacha_os *c)
{
    pthread_mutex_lock(&fork_lock);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else if (fork_list == c)
        fork_list = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&fork_lock);
}

static void refill_os(fs_rng *rng)
{
    chacha_os *c = rng->ext;
    size_t len = FS_RNG_BUF, k = (size_t)(rng->s - c->s);
    if (rng->st.u64[0] == OS_PID &&
        (uint64_t)getpid() != rng->st.u64[1]) { /* forked without fork() */
        forget(c);
        rng->st.u64[1] = (uint64_t)getpid();
    }
    /* The next buffer of the last step, if it holds output. */
    if (k + 1 < OS_STREAMS && c->s[k + 1].pos < c->s[k + 1].end &&
        rng->error == FS_OK) {
        rng->s = &c->s[k + 1];
        return;
    }
    fs_stream *s = rng->s = &c->s[0];
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
    /* Output: keystream blocks 0.. into the buffers, in order; the next
     * key: the first 32 bytes of the block after them (never handed out). */
    unsigned char *out[OS_STREAMS];
    for (int i = 0; i < OS_STREAMS; i++) {
        out[i] = c->s[i].buf;
        c->s[i].pos = 0;
        c->s[i].end = len;
    }
    fs__chacha20_erase_step(out, OS_STREAMS, len, c->key);
    c->since += (uint32_t)(OS_STREAMS * len);
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
        if (rng->st.u64[0] == OS_PID)
            fork_list_remove(rng->ext);
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
    rng->s = &c->s[0];
#ifdef MADV_WIPEONFORK
    if (madvise(c, sizeof *c, MADV_WIPEONFORK) == 0)
        rng->st.u64[0] = OS_WIPE;
    else
#endif
    {
        if (fork_list_add(c) != 0) { /* no fork handler: fail closed */
            munmap(c, sizeof *c);
            rng->ext = NULL;
            rng->s = &rng->own;
            return FS_ENOMEM;
        }
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
