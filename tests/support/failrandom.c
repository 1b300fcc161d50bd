/* failrandom.c -- LD_PRELOAD shim that makes getrandom() fail with ENOSYS,
 * to show that fairshuf fails closed when the OS refuses randomness.
 * FS_FAILRANDOM_AFTER=N: the first N calls succeed (the real system call),
 * the later ones fail -- the OS refusing a re-seed mid-stream. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t getrandom(void *buf, size_t len, unsigned flags)
{
    static long calls;
    const char *after = getenv("FS_FAILRANDOM_AFTER");
    if (after && calls++ < atol(after))
        return syscall(SYS_getrandom, buf, len, flags);
    errno = ENOSYS;
    return -1;
}
