/* tally.c -- counting what a stream of permutations does (fs_tally_add). */
#include <stdlib.h>
#include <string.h>

#include "tally.h"

int fs_tally_new(fs_tally **out, unsigned n, unsigned tests, int cyclic)
{
    if (out == NULL)
        return FS_EINVAL;
    *out = NULL;
    if (n < 2 || n > (1u << 31) || (tests & ~(unsigned)FS_TEST_ALL) ||
        tests == 0)
        return FS_EINVAL;
    fs_tally *t = calloc(1, sizeof *t);
    if (t == NULL)
        return FS_ENOMEM;
    t->n = n;
    t->tests = tests;
    t->cyclic = cyclic != 0;
    unsigned pn = t->cyclic ? n - 1 : n;
    if ((tests & FS_TEST_PERM) && pn <= FS_PERM_MAX_N) {
        t->perm_cells = (size_t)fs_factorial(pn);
        t->perm = calloc(t->perm_cells, sizeof *t->perm);
    }
    if (tests & (FS_TEST_POSITION | FS_TEST_MAXCELL)) {
        t->side = n <= FS_MATRIX_MAX_N ? n : FS_POSITION_BINS;
        t->pos = calloc((size_t)t->side * t->side, sizeof *t->pos);
        if (t->side != n) {
            t->bin_of = malloc((size_t)n * sizeof *t->bin_of);
            if (t->bin_of)
                for (unsigned b = 0; b < t->side; b++)
                    for (unsigned i = fs_tally_bin_start(t, b);
                         i < fs_tally_bin_start(t, b + 1); i++)
                        t->bin_of[i] = b;
        }
    }
    if ((tests & FS_TEST_PAIRS) && n <= FS_MATRIX_MAX_N)
        t->pairs = calloc((size_t)n * n, sizeof *t->pairs);
    if (tests & FS_TEST_CYCLES) {
        t->cycles = calloc((size_t)n + 1, sizeof *t->cycles);
        t->visited = malloc(n);
    }
    if (tests & FS_TEST_FIXED)
        t->fixed = calloc((size_t)n + 1, sizeof *t->fixed);
    t->mark = calloc((size_t)n, sizeof *t->mark);
    if (tests & FS_TEST_INVERSIONS && n > 64)
        t->bit = calloc((size_t)n + 1, sizeof *t->bit);
    if (t->mark == NULL || ((tests & FS_TEST_PERM) && t->perm_cells && !t->perm) ||
        ((tests & (FS_TEST_POSITION | FS_TEST_MAXCELL)) && (!t->pos || (t->side != n && !t->bin_of))) ||
        ((tests & FS_TEST_PAIRS) && n <= FS_MATRIX_MAX_N && !t->pairs) ||
        ((tests & FS_TEST_CYCLES) && (!t->cycles || !t->visited)) ||
        ((tests & FS_TEST_FIXED) && !t->fixed) ||
        ((tests & FS_TEST_INVERSIONS) && n > 64 && !t->bit)) {
        fs_tally_free(t);
        return FS_ENOMEM;
    }
    *out = t;
    return FS_OK;
}

void fs_tally_free(fs_tally *t)
{
    if (t == NULL)
        return;
    free(t->perm);
    free(t->pos);
    free(t->bin_of);
    free(t->pairs);
    free(t->cycles);
    free(t->fixed);
    free(t->mark);
    free(t->bit);
    free(t->visited);
    free(t);
}

uint64_t fs_tally_trials(const fs_tally *t) { return t ? t->trials : 0; }
unsigned fs_tally_n(const fs_tally *t) { return t ? t->n : 0; }

unsigned fs_tally_bin_start(const fs_tally *t, unsigned b)
{
    if (t->side == t->n)
        return b;
    /* Bins of as equal size as possible: bin b starts at floor(b n / B). */
    return (unsigned)((uint64_t)b * t->n / t->side);
}

/* Inversions: earlier elements greater than the current one.  A 64-bit
 * mask of seen values for n <= 64 (one popcount per element), a Fenwick
 * tree beyond. */
static uint64_t inversions(fs_tally *t, const uint32_t *p)
{
    uint64_t inv = 0;
    unsigned n = t->n;
    if (n <= 64) {
        uint64_t seen = 0;
        for (unsigned j = 0; j < n; j++) {
            inv += (uint64_t)__builtin_popcountll(seen >> p[j] >> 1);
            seen |= 1ULL << p[j];
        }
        return inv;
    }
    memset(t->bit, 0, ((size_t)n + 1) * sizeof *t->bit);
    for (unsigned j = 0; j < n; j++) {
        uint64_t le = 0; /* earlier elements <= p[j] */
        for (unsigned i = p[j] + 1; i > 0; i -= i & -i)
            le += t->bit[i];
        inv += j - le;
        for (unsigned i = p[j] + 1; i <= n; i += i & -i)
            t->bit[i]++;
    }
    return inv;
}

int fs_tally_add(fs_tally *t, const uint32_t *p)
{
    if (t == NULL || p == NULL)
        return FS_EINVAL;
    unsigned n = t->n;
    /* A permutation?  Marks carry a per-call stamp, so no clearing
     * (except once every 2^32 calls). */
    if (++t->epoch == 0) {
        memset(t->mark, 0, (size_t)n * sizeof *t->mark);
        t->epoch = 1;
    }
    uint32_t stamp = t->epoch;
    for (unsigned j = 0; j < n; j++) {
        if (p[j] >= n || t->mark[p[j]] == stamp)
            return FS_EINVAL;
        t->mark[p[j]] = stamp;
    }
    t->trials++;

    if (t->perm) {
        uint64_t r;
        if (!t->cyclic) {
            fs_lehmer_rank(p, n, &r);
            t->perm[r]++;
        } else if (fs_cycle_rank(p, n, &r) == FS_OK) {
            t->perm[r]++;
        } else {
            t->noncyclic++;
        }
    }
    if (t->pos) {
        uint64_t *m = t->pos;
        unsigned s = t->side;
        if (t->bin_of)
            for (unsigned j = 0; j < n; j++)
                m[(size_t)t->bin_of[p[j]] * s + t->bin_of[j]]++;
        else
            for (unsigned j = 0; j < n; j++)
                m[(size_t)p[j] * s + j]++;
    }
    if (t->pairs)
        for (unsigned j = 0; j + 1 < n; j++)
            t->pairs[(size_t)p[j] * n + p[j + 1]]++;
    if (t->tests & FS_TEST_INVERSIONS) {
        uint64_t inv = inversions(t, p);
        t->inv_sum += inv;
        t->inv_sumsq += (double)inv * (double)inv;
    }
    if (t->fixed) {
        unsigned f = 0;
        for (unsigned j = 0; j < n; j++)
            f += p[j] == j;
        t->fixed[f]++;
    }
    if (t->cycles) {
        unsigned c = 0;
        unsigned char *v = t->visited;
        memset(v, 0, n);
        for (unsigned i = 0; i < n; i++) {
            if (v[i])
                continue;
            c++;
            for (unsigned x = i; !v[x]; x = p[x])
                v[x] = 1;
        }
        t->cycles[c]++;
    }
    return FS_OK;
}

static int add_arrays(uint64_t *a, const uint64_t *b, size_t k)
{
    if ((a == NULL) != (b == NULL))
        return FS_EINVAL;
    for (size_t i = 0; a && i < k; i++)
        a[i] += b[i];
    return FS_OK;
}

int fs_tally_merge(fs_tally *into, const fs_tally *from)
{
    if (into == NULL || from == NULL || into->n != from->n ||
        into->tests != from->tests || into->cyclic != from->cyclic)
        return FS_EINVAL;
    size_t n = into->n;
    add_arrays(into->perm, from->perm, into->perm_cells);
    add_arrays(into->pos, from->pos, (size_t)into->side * into->side);
    add_arrays(into->pairs, from->pairs, n * n);
    add_arrays(into->cycles, from->cycles, n + 1);
    add_arrays(into->fixed, from->fixed, n + 1);
    into->trials += from->trials;
    into->noncyclic += from->noncyclic;
    into->inv_sum += from->inv_sum;
    into->inv_sumsq += from->inv_sumsq;
    return FS_OK;
}
