/* baseline.h -- what the baseline helpers share with `fairshuf bench`:
 * the protocol (argv: N MIN_MS; stdout: one line "NS_PER_ELEMENT
 * PEAK_RSS_KIB COMPILER...") and the measurement loop.  Timing covers the
 * shuffles only; the array is allocated and filled before the clock. */
#ifndef FS_BASELINE_H
#define FS_BASELINE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __clang__
#define BASELINE_COMPILER "clang " __clang_version__
#else
#define BASELINE_COMPILER "gcc " __VERSION__
#endif

static inline double baseline_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* VmHWM of this process in KiB (0 if unknown). */
static inline long baseline_peak_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

static inline int baseline_args(int argc, char **argv, size_t *n, double *min_ns)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s N MIN_MS\n", argv[0]);
        return 0;
    }
    *n = (size_t)strtoull(argv[1], NULL, 10);
    *min_ns = strtod(argv[2], NULL) * 1e6;
    return *n > 0;
}

#endif
