/* split.c -- finding lines: memchr over large buffers, never a per-line
 * stdio call or allocation. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fairshuf/lines.h"
#include "internal.h"
#include "io.h"

#if defined(__SSE2__)
/* Counts bytes equal to d, 32 at a time: each compare's 0xff bytes are
 * subtracted from byte counters (so each adds one), summed by psadbw
 * before a counter can pass 255 (127 rounds of two). */
static uint64_t count_byte(const unsigned char *p, size_t len, unsigned char d)
{
    const __m128i dv = _mm_set1_epi8((char)d), zero = _mm_setzero_si128();
    uint64_t n = 0;
    size_t i = 0;
    while (len - i >= 32) {
        size_t rounds = (len - i) / 32;
        if (rounds > 127)
            rounds = 127;
        __m128i acc = zero;
        for (size_t r = 0; r < rounds; r++, i += 32) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            __m128i b =
                _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(a, dv));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(b, dv));
        }
        __m128i s = _mm_sad_epu8(acc, zero);
        n += (uint64_t)_mm_cvtsi128_si64(s) +
             (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s));
    }
    for (; i < len; i++)
        n += p[i] == d;
    return n;
}
#else
/* Counts bytes equal to d, 8 at a time: a byte of w ^ pattern is zero iff
 * the high bit of ((x & 0x7f..) + 0x7f..) | x is clear (exact, no carries
 * between bytes). */
static uint64_t count_byte(const unsigned char *p, size_t len, unsigned char d)
{
    const uint64_t ones = 0x0101010101010101u, low7 = ones * 0x7f;
    const uint64_t pat = ones * d;
    uint64_t n = 0;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        w ^= pat;
        uint64_t t = ((w & low7) + low7) | w;
        /* one bit per matching byte, summed by a multiply (no popcnt
         * instruction needed) */
        n += (((~t & (ones << 7)) >> 7) * ones) >> 56;
    }
    for (; i < len; i++)
        n += p[i] == d;
    return n;
}
#endif

uint64_t fs_lines_count(const void *buf, size_t len, unsigned char delim)
{
    const unsigned char *p = buf;
    if (len == 0)
        return 0;
    return count_byte(p, len, delim) + (p[len - 1] != delim);
}

int fs_lines_read_all(int fd, unsigned char delim, unsigned char **out,
                      size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    struct stat st;
    size_t cap = 1 << 16;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        off_t here = lseek(fd, 0, SEEK_CUR);
        if (here >= 0 && here < st.st_size &&
            (uint64_t)(st.st_size - here) < SIZE_MAX - 2)
            cap = (size_t)(st.st_size - here) + 2; /* +1 delim, +1 to see EOF */
    }
    unsigned char *buf = malloc(cap);
    if (buf == NULL)
        return FS_ENOMEM;
    size_t len = 0;
    for (;;) {
        if (cap - len < 2) {
            size_t ncap = cap < SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
            unsigned char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (nb == NULL) {
                free(buf);
                return FS_ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        size_t want = cap - len - 1;
        if (want > ((size_t)1 << 30))
            want = (size_t)1 << 30;
        size_t r;
        if (fs__read_some(fd, buf + len, want, &r) != FS_OK) {
            int e = errno;
            free(buf);
            errno = e;
            return FS_EIO;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    if (len > 0 && buf[len - 1] != delim)
        buf[len++] = delim;
    *out = buf;
    *outlen = len;
    return FS_OK;
}

void fs_lines_index(const unsigned char *buf, size_t len,
                    unsigned char delim, size_t *starts)
{
    const unsigned char *p = buf, *end = buf + len;
    size_t n = 0;
    while (p < end) {
        starts[n++] = (size_t)(p - buf);
        const unsigned char *q = memchr(p, delim, (size_t)(end - p));
        if (q == NULL)
            break;
        p = q + 1;
    }
    starts[n] = len;
}
