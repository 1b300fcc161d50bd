/* vrf_key.c -- the service's VRF key (--vrf-key-file; vrf.h).  Read once
 * at start into sodium_malloc'd memory (guarded, locked where the system
 * allows) and kept for the life of the process.  The file is the one
 * `fairshuf fair vrf-keygen` writes: 64 hex digits and a newline. */
#include <stdio.h>

#include <sodium.h>

#include "seal.h"
#include "vrf.h"

typedef struct vrf_key {
    uint8_t sk[32], pk[32];
} vrf_key;

static vrf_key *key; /* NULL: no key, vrf tables are refused */

int svc_vrf_key_init(const char *path, char *why, size_t cap)
{
    if (!path)
        return 0;
    if (sodium_init() < 0 || !(key = sodium_malloc(sizeof *key))) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    /* whoever reads the file knows every future hand: owner-only */
    if (svc_key_file_read(path, "the VRF key",
                          "fairshuf fair vrf-keygen --key-file=F writes one",
                          key->sk, why, cap)) {
        svc_vrf_key_free();
        return -1;
    }
    if (fs_vrf_public_key(key->sk, key->pk) != FS_OK ||
        !fs_vrf_public_key_ok(key->pk)) {
        svc_vrf_key_free();
        snprintf(why, cap, "%s: not a VRF key", path);
        return -1;
    }
    return 0;
}

void svc_vrf_key_free(void)
{
    if (key)
        sodium_free(key); /* zeroes it */
    key = NULL;
}

const uint8_t *svc_vrf_sk(void)
{
    return key ? key->sk : NULL;
}

const uint8_t *svc_vrf_pk(void)
{
    return key ? key->pk : NULL;
}
