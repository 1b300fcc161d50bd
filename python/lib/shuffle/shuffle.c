/* shuffle.c -- the algorithm table and the public shuffle entry points. */
#include <pthread.h>

#include "shuffle.h"

static const struct {
    fs_algorithm_info info;
    fs__shuffle_fn fn;
} table[] = {
    {{FS_ALG_DURSTENFELD, "durstenfeld",
      "in place from the back (Knuth's Algorithm P); O(n); fair", 1, 0, 0},
     fs__durstenfeld},
    {{FS_ALG_INSIDE_OUT, "inside-out",
      "shuffled copy, original untouched; O(n); fair", 1, 0, 0},
     fs__inside_out},
    {{FS_ALG_FISHER_YATES, "fisher-yates",
      "original draw-and-remove (1938); O(n^2); fair, the reference", 1, 0, 1},
     fs__fisher_yates},
    {{FS_ALG_SATTOLO, "sattolo",
      "uniform over the (n-1)! single-cycle permutations only", 1, 1, 0},
     fs__sattolo},
    {{FS_ALG_REJECTION, "rejection",
      "random empty slot, retry if taken (post 001); O(n log n); fair", 1, 0,
      0},
     fs__rejection},
    {{FS_ALG_SORT_KEY, "sort-key",
      "sort by random 64-bit keys, ties re-drawn; O(n log n); fair", 1, 0, 0},
     fs__sort_key},
    {{FS_ALG_BUCKET, "bucket",
      "in-place bucket shuffle for large arrays, cache-friendly; fair", 1, 0, 0},
     fs__bucket},
    {{FS_ALG_NAIVE_SWAP, "naive-swap",
      "NEGATIVE CONTROL: swap two random positions r%1023 times (post 001)",
      0, 0, 0},
     fs__naive_swap},
    {{FS_ALG_SWAP_ANY, "swap-any",
      "NEGATIVE CONTROL: swap each i with any position (n^n paths)", 0, 0, 0},
     fs__swap_any},
    {{FS_ALG_MOD_BIAS, "mod-bias",
      "NEGATIVE CONTROL: Durstenfeld with 15-bit r % (i+1)", 0, 0, 0},
     fs__mod_bias},
    {{FS_ALG_ASF_1999, "asf-1999",
      "NEGATIVE CONTROL: the 1999 ASF poker loop, off-by-one included", 0, 0,
      0},
     fs__asf_1999},
    {{FS_ALG_RANDOM_COMPARATOR, "random-comparator",
      "NEGATIVE CONTROL: merge sort with a coin-flip comparator", 0, 0, 0},
     fs__random_comparator},
};
#define NALG (sizeof table / sizeof table[0])

static fs_algorithm_info infos[NALG];
static const fs_algorithm_info auto_info = {
    FS_ALG_AUTO, "auto", "the library's choice for the size (default)", 1, 0,
    0};

static pthread_once_t infos_once = PTHREAD_ONCE_INIT;

static void infos_init(void)
{
    for (size_t i = 0; i < NALG; i++)
        infos[i] = table[i].info;
}

const fs_algorithm_info *fs_algorithm_list(size_t *count)
{
    pthread_once(&infos_once, infos_init);
    if (count)
        *count = NALG;
    return infos;
}

const fs_algorithm_info *fs_algorithm_find(const char *name)
{
    if (name == NULL)
        return NULL;
    if (strcmp(name, "auto") == 0)
        return &auto_info;
    for (size_t i = 0; i < NALG; i++)
        if (strcmp(table[i].info.name, name) == 0)
            return &table[i].info;
    return NULL;
}

static fs__shuffle_fn fn_of(fs_algorithm alg)
{
    if (alg == FS_ALG_AUTO)
        return fs__auto;
    for (size_t i = 0; i < NALG; i++)
        if (table[i].info.id == alg)
            return table[i].fn;
    return NULL;
}

/* Common checks; returns the rng to use through *r, or an error. */
int fs__shuffle_prepare(void *base, size_t n, size_t size, fs_rng **r)
{
    if ((base == NULL && n > 0) || size == 0)
        return FS_EINVAL;
    if (n > SIZE_MAX / size)
        return FS_ERANGE;
    *r = fs__rng(*r);
    if (*r == NULL)
        return FS_ERANDOM;
    return (*r)->error;
}

int fs_shuffle_with(fs_algorithm alg, void *base, size_t n, size_t size,
                    fs_rng *rng)
{
    fs__shuffle_fn fn = fn_of(alg);
    if (fn == NULL)
        return FS_EINVAL;
    int rc = fs__shuffle_prepare(base, n, size, &rng);
    if (rc != FS_OK || n < 2)
        return rc;
    rc = fn(base, n, size, rng);
    return rc != FS_OK ? rc : rng->error;
}

int fs_shuffle(void *base, size_t n, size_t size, fs_rng *rng)
{
    return fs_shuffle_with(FS_ALG_AUTO, base, n, size, rng);
}

/* FS_ALG_AUTO with threads: the same output as fs_shuffle() for every
 * thread count (auto.c, bucket.c). */
int fs_shuffle_threads(void *base, size_t n, size_t size, unsigned threads,
                       fs_rng *rng)
{
    int rc = fs__shuffle_prepare(base, n, size, &rng);
    if (rc != FS_OK || n < 2)
        return rc;
    rc = fs__auto_threads(base, n, size, threads, rng);
    return rc != FS_OK ? rc : rng->error;
}

int fs_shuffle_sattolo(void *base, size_t n, size_t size, fs_rng *rng)
{
    return fs_shuffle_with(FS_ALG_SATTOLO, base, n, size, rng);
}

int fs_shuffle_copy(void *dst, const void *src, size_t n, size_t size,
                    fs_rng *rng)
{
    if (src == NULL && n > 0)
        return FS_EINVAL;
    int rc = fs__shuffle_prepare(dst, n, size, &rng);
    if (rc != FS_OK || n == 0)
        return rc;
    const unsigned char *s = src;
    unsigned char *d = dst;
    if (d < s + n * size && s < d + n * size)
        return FS_EINVAL;
    fs__inside_out_copy(d, s, n, size, rng);
    return rng->error;
}

int fs_shuffle_partial(void *base, size_t n, size_t size, size_t k,
                       fs_rng *rng)
{
    int rc = fs__shuffle_prepare(base, n, size, &rng);
    if (rc != FS_OK)
        return rc;
    if (k > n)
        return FS_EINVAL;
    unsigned char *a = base;
    /* Invariant: a[0..i) is a uniform ordered i-tuple of the elements. */
    for (size_t i = 0; i < k && i + 1 < n; i++) {
        size_t j = i + (size_t)fs__below(rng, n - i);
        if (j != i)
            fs__swap(a + i * size, a + j * size, size);
    }
    return rng->error;
}
