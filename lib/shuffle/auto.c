/* auto.c -- FS_ALG_AUTO: the library's choice by size. */
#include "shuffle.h"

int fs__auto(unsigned char *base, size_t n, size_t size, fs_rng *rng)
{
    return fs__durstenfeld(base, n, size, rng);
}
