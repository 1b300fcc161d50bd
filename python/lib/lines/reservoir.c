/* reservoir.c -- GNU shuf's reservoir sampling, draw for draw. */
#include "fairshuf/lines.h"
#include "internal.h"

int fs_lines_reservoir(const fs_draws *d, uint64_t n, uint64_t k,
                       uint64_t *map, uint64_t *kept)
{
    if (d == NULL || kept == NULL || (map == NULL && n > 0 && k > 0))
        return FS_EINVAL;
    uint64_t m = n < k ? n : k;
    for (uint64_t i = 0; i < m; i++)
        map[i] = i;
    *kept = m;
    if (n < k || k == 0)
        return FS_OK;
    /* coreutils 9.1 read_input_reservoir_sampling: line t (t >= k) draws
     * j in [0, t]; j < k replaces slot j.  Its loop draws once more at end
     * of input (t == n), before it knows there is no line t. */
    for (uint64_t t = k;; t++) {
        uint64_t j;
        int rc = fs_draws_below(d, t + 1, &j);
        if (rc != FS_OK)
            return rc;
        if (t == n)
            break;
        if (j < k)
            map[j] = t;
    }
    return FS_OK;
}
