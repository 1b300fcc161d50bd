/* failmadvise.c -- LD_PRELOAD shim that makes madvise() fail with EINVAL,
 * as on kernels older than 4.14 (no MADV_WIPEONFORK), so that the fork
 * tests run through the generator's getpid() fallback. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>

int madvise(void *addr, size_t len, int advice)
{
    (void)addr;
    (void)len;
    (void)advice;
    errno = EINVAL;
    return -1;
}
