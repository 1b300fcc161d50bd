/* failrandom.c -- LD_PRELOAD shim that makes getrandom() fail with ENOSYS,
 * to show that fairshuf fails closed when the OS refuses randomness. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sys/types.h>

ssize_t getrandom(void *buf, size_t len, unsigned flags)
{
    (void)buf;
    (void)len;
    (void)flags;
    errno = ENOSYS;
    return -1;
}
