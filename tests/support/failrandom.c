/* failrandom.c -- LD_PRELOAD shim that makes getrandom() fail with ENOSYS,
 * to show that fairshuf fails closed when the OS refuses randomness.
 *
 * FS_FAILRANDOM_AFTER=N lets the first N calls through (to the kernel) and
 * fails every later one: the OS refusing a re-seed in mid-stream.  Unset,
 * every call fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static long calls;

ssize_t getrandom(void *buf, size_t len, unsigned flags)
{
    const char *after = getenv("FS_FAILRANDOM_AFTER");
    long n = __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
    if (after != NULL && n <= atol(after))
        return syscall(SYS_getrandom, buf, len, flags);
    errno = ENOSYS;
    return -1;
}
