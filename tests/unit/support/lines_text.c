/* lines_text.c -- see lines_text.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lines_text.h"

unsigned char *lines_text(uint64_t lines, unsigned lmax, int longs,
                          unsigned char d, int unterminated, size_t *len)
{
    size_t cap = 1 << 20, n = 0;
    unsigned char *t = malloc(cap);
    assert_non_null(t);
    uint64_t x = 88172645463325252u;
    for (uint64_t i = 0; i < lines; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t l = (size_t)(x % (lmax + 1));
        if (longs && i % 1000 == 7)
            l = 65535 + (size_t)(x % 3) - 1; /* around LONG_LINE */
        if (longs && i % 1000 == 500)
            l = 70000 + (size_t)(x % 50000); /* past a block */
        if (longs == 2 && i == lines / 2)
            l = (size_t)5 << 20; /* past a read's 4 MiB */
        while (n + l + 32 > cap) {
            t = realloc(t, cap *= 2);
            assert_non_null(t);
        }
        n += (size_t)sprintf((char *)t + n, "%llu:", (unsigned long long)i);
        memset(t + n, 'a' + (int)(i % 26), l);
        n += l;
        t[n++] = d;
    }
    if (unterminated && n > 0)
        n--;
    *len = n;
    return t;
}

fs_lines_config lines_config(const char *seed)
{
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    c.delim = '\n';
    c.head = UINT64_MAX;
    assert_int_equal(fs_seed_to_key(seed, c.key), FS_OK);
    return c;
}

unsigned char *lines_slurp(int fd, off_t from, size_t *n)
{
    off_t end = lseek(fd, 0, SEEK_END);
    assert_true(end >= from);
    size_t len = (size_t)(end - from);
    unsigned char *p = malloc(len + 1);
    assert_non_null(p);
    assert_int_equal(pread(fd, p, len, from), (ssize_t)len);
    *n = len;
    return p;
}
