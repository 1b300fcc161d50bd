/* seal.c -- server seeds encrypted at rest with libsodium's
 * XChaCha20-Poly1305 (seal.h).  The keys live in sodium_malloc'd memory
 * (guarded, locked where the system allows) for the life of the process. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "fairshuf/cards.h"
#include "seal.h"

typedef struct key {
    uint8_t k[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
    uint8_t id[4];
} key;

static key *keys;            /* [0] current, [1] old; NULL: no key */
static int nkeys;

int svc_key_file_read(const char *path, const char *what, const char *hint,
                      uint8_t out[32], char *why, size_t cap)
{
    /* O_NONBLOCK: a FIFO is refused below, not waited on */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        snprintf(why, cap, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
        snprintf(why, cap, "%s: %s file is %s", path, what,
                 !S_ISREG(st.st_mode)
                     ? "not a regular file"
                     : "open to its group or others (chmod 600)");
        close(fd);
        return -1;
    }
    char text[80] = {0};
    ssize_t n = read(fd, text, sizeof text - 1);
    int err = errno;
    close(fd);
    if (n < 0) {
        snprintf(why, cap, "%s: %s", path, strerror(err));
        return -1;
    }
    text[strcspn(text, "\r\n")] = '\0';
    int bad = strlen(text) != 64 || fs_hex_decode(text, out, 32) != FS_OK;
    sodium_memzero(text, sizeof text);
    if (bad)
        snprintf(why, cap, "%s: %s must be 64 hex digits on the first line "
                           "(%s)", path, what, hint);
    return bad ? -1 : 0;
}

static int read_key(const char *path, key *out, char *why, size_t cap)
{
    if (svc_key_file_read(path, "the seed key", "openssl rand -hex 32",
                          out->k, why, cap))
        return -1;
    uint8_t h[32];
    crypto_hash_sha256_state s;
    crypto_hash_sha256_init(&s);
    crypto_hash_sha256_update(&s, (const uint8_t *)"fairshuf-seed-key", 17);
    crypto_hash_sha256_update(&s, out->k, 32);
    crypto_hash_sha256_final(&s, h);
    memcpy(out->id, h, 4);
    return 0;
}

int svc_seal_init(const char *key_file, const char *old_key_file, char *why,
                  size_t cap)
{
    svc_seal_free();
    if (!key_file && old_key_file) {
        snprintf(why, cap, "--old-seed-key-file needs --seed-key-file");
        return -1;
    }
    if (!key_file)
        return 0;
    if (sodium_init() < 0 || !(keys = sodium_malloc(2 * sizeof *keys))) {
        snprintf(why, cap, "cannot set up the seed key (libsodium)");
        return -1;
    }
    nkeys = 1;
    if (read_key(key_file, &keys[0], why, cap) ||
        (old_key_file && read_key(old_key_file, &keys[nkeys++], why, cap))) {
        svc_seal_free();
        return -1;
    }
    return 0;
}

void svc_seal_free(void)
{
    if (keys)
        sodium_free(keys); /* zeroes it */
    keys = NULL;
    nkeys = 0;
}

int svc_seal_on(void)
{
    return keys != NULL;
}

static void ad_of(const uint8_t head[5], const uint8_t commitment[32],
                  uint8_t ad[37])
{
    memcpy(ad, head, 5);
    memcpy(ad + 5, commitment, 32);
}

size_t svc_seal_seed(const uint8_t seed[32], const uint8_t commitment[32],
                     uint8_t out[SVC_SEALED_LEN])
{
    if (!keys) {
        memcpy(out, seed, 32);
        return 32;
    }
    uint8_t ad[37];
    out[0] = 1;
    memcpy(out + 1, keys[0].id, 4);
    randombytes_buf(out + 5, 24);
    ad_of(out, commitment, ad);
    crypto_aead_xchacha20poly1305_ietf_encrypt(out + 29, NULL, seed, 32, ad,
                                               sizeof ad, NULL, out + 5,
                                               keys[0].k);
    return SVC_SEALED_LEN;
}

int svc_unseal_seed(const uint8_t *in, size_t len,
                    const uint8_t commitment[32], uint8_t seed[32],
                    int *current, const char **why)
{
    *current = 0;
    if (len == 32) {
        memcpy(seed, in, 32);
        *current = !keys;
    } else if (len == SVC_SEALED_LEN && in[0] == 1) {
        const key *k = NULL;
        for (int i = 0; i < nkeys && !k; i++)
            if (memcmp(keys[i].id, in + 1, 4) == 0)
                k = &keys[i];
        if (!k) {
            *why = keys ? "it is sealed under another key than "
                          "--seed-key-file (or --old-seed-key-file)"
                        : "it is sealed and no --seed-key-file was given";
            return -1;
        }
        uint8_t ad[37];
        ad_of(in, commitment, ad);
        if (crypto_aead_xchacha20poly1305_ietf_decrypt(
                seed, NULL, NULL, in + 29, 48, ad, sizeof ad, in + 5,
                k->k) != 0) {
            *why = "it does not open under its key (damaged, or moved from "
                   "another row)";
            return -1;
        }
        *current = k == &keys[0];
    } else {
        *why = "it is neither 32 bytes nor a sealed seed";
        return -1;
    }
    uint8_t c[32];
    fs_fair_commitment(seed, c);
    if (sodium_memcmp(c, commitment, 32) != 0) {
        sodium_memzero(seed, 32);
        *why = "it is not the seed of the row's commitment";
        return -1;
    }
    return 0;
}
