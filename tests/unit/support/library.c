/* library.c -- see library.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "library.h"

void library_artists(uint64_t artist[LIBRARY_N])
{
    size_t n = 0;
    for (int i = 0; i < 120; i++)
        artist[n++] = 0;
    double h = 0;
    for (int k = 1; k <= 40; k++)
        h += 1.0 / k;
    size_t rest = 180;
    for (int k = 1; k <= 40 && rest > 0; k++) {
        size_t c = (size_t)(180 / (h * k) + 0.5);
        if (c == 0)
            c = 1;
        if (k == 40 || c > rest)
            c = rest;
        for (size_t j = 0; j < c; j++)
            artist[n++] = (uint64_t)k;
        rest -= c;
    }
    assert_true(n == LIBRARY_N);
}
