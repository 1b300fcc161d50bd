/* vrf_key.c -- the service's VRF key (--vrf-key-file; vrf.h).  Read once
 * at start into sodium_malloc'd memory (guarded, locked where the system
 * allows) and kept for the life of the process.  The file is the one
 * `fairshuf fair vrf-keygen` writes: 64 hex digits and a newline. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "vrf.h"

typedef struct vrf_key {
    uint8_t sk[32], pk[32];
} vrf_key;

static vrf_key *key; /* NULL: no key, vrf tables are refused */

int svc_vrf_key_init(const char *path, char *why, size_t cap)
{
    if (!path)
        return 0;
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
        snprintf(why, cap, "%s: %s", path,
                 !S_ISREG(st.st_mode)
                     ? "the VRF key file is not a regular file"
                     : "the VRF key file is open to its group or others "
                       "(chmod 600): whoever reads it knows every future "
                       "hand");
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
    if (n > 0 && text[n - 1] == '\n')
        text[--n] = '\0';
    if (sodium_init() < 0 || !(key = sodium_malloc(sizeof *key))) {
        sodium_memzero(text, sizeof text);
        snprintf(why, cap, "out of memory");
        return -1;
    }
    int bad = n != 64 || fs_hex_decode(text, key->sk, 32) != FS_OK ||
              fs_vrf_public_key(key->sk, key->pk) != FS_OK ||
              !fs_vrf_public_key_ok(key->pk);
    sodium_memzero(text, sizeof text);
    if (bad) {
        svc_vrf_key_free();
        snprintf(why, cap, "%s: not a VRF key (64 hex digits and a newline, "
                           "as 'fairshuf fair vrf-keygen' writes it)", path);
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
