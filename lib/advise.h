/* advise.h -- memory advice for large buffers (internal): huge pages
 * for arrays written at random, one call to map a buffer before it is
 * filled.  Both are advice only: where the kernel lacks them, or says
 * no, nothing changes.  Used by lib/lines and fairshuf-mpi. */
#ifndef FS_ADVISE_H
#define FS_ADVISE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* Asks for transparent huge pages on the whole 4 KiB pages of p[0..n):
 * for an array written at random (one of thousands of buckets: lines'
 * records, fairshuf-mpi's item groups), where with 4 KiB pages nearly
 * every store is a TLB miss, and for a large region filled front to back
 * (the arena of lib/lines/passes.c, the text `fairshuf lines` reads into
 * memory), where on a VM each fresh 4 KiB page's fault is costly
 * (docs/performance.md, "Lines": the 1e7-line file 0.69-0.75 ->
 * 0.27-0.44 s; where memory is fragmented direct compaction can cost
 * system time instead).  Advice only: where the kernel has no THP (or
 * says no) nothing changes. */
static inline void fs__huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (p == NULL || n < ((size_t)4 << 20))
        return;
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)4095;
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/* Maps p[0..n)'s whole pages in one call (MADV_POPULATE_WRITE, Linux
 * 5.14) before it is filled (text read into it): one page-table walk for the
 * range instead of a page fault per 4 KiB page inside read().  Advice
 * only: an older kernel says EINVAL and the pages fault in as before. */
static inline void fs__prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    if (p == NULL || n < ((size_t)4 << 20))
        return;
    uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)4095;
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

#endif /* FS_ADVISE_H */
