/* demo.c -- two biased shuffles that exist to show what each test sees.
 * They are not in the algorithm table: nobody should pick them by accident.
 * Draws use fs__below (exactly unbiased): the bias is in the design. */
#include <string.h>

#include "fairshuf/stats.h"
#include "internal.h"

const char *fs_demo_name(fs_demo_shuffle d)
{
    switch (d) {
    case FS_DEMO_CUT: return "cut";
    case FS_DEMO_STRIDE: return "stride-rotate";
    }
    return NULL;
}

fs_demo_shuffle fs_demo_find(const char *name)
{
    if (name && strcmp(name, "cut") == 0)
        return FS_DEMO_CUT;
    if (name && strcmp(name, "stride-rotate") == 0)
        return FS_DEMO_STRIDE;
    return 0;
}

static unsigned gcd(unsigned a, unsigned b)
{
    while (b) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int fs_demo_permutation(fs_demo_shuffle d, uint32_t *out, unsigned n,
                        fs_rng *rng)
{
    if (out == NULL || n < 1 || fs_demo_name(d) == NULL)
        return FS_EINVAL;
    rng = fs__rng(rng);
    if (rng == NULL)
        return FS_ERANDOM;
    uint64_t s = 1, b = fs__below(rng, n);
    if (d == FS_DEMO_STRIDE && n > 2) {
        do
            s = 1 + fs__below(rng, n - 1);
        while (gcd((unsigned)s, n) != 1);
    }
    /* out[j] = (s j + b) mod n, kept incrementally (no overflow) */
    uint64_t v = b;
    for (unsigned j = 0; j < n; j++) {
        out[j] = (uint32_t)v;
        v += s;
        if (v >= n)
            v -= n;
    }
    return rng->error;
}
