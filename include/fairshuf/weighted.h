/*
 * fairshuf/weighted.h -- weighted random order and weighted sampling
 * without replacement (Efraimidis & Spirakis, "Weighted random sampling
 * with a reservoir", Inf. Process. Lett. 97(5), 2006).
 *
 * Item i gets the key log(E_i) - log(w_i), E_i = -log(U_i) exponential
 * from a uniform U_i in (0, 1] (53 bits); items in increasing key order are
 * distributed exactly as successive weighted draws without replacement:
 * the first is i with probability w_i / W, the next among the rest in
 * proportion to their weights, and so on.  This is Efraimidis-Spirakis's
 * key U^(1/w) taken through two logarithms, so weights from 1e-300 to
 * 1e300 (any positive finite double) keep their full precision.  Exact up
 * to the 53-bit uniforms (ties have probability ~2^-53 per pair and are
 * broken by index; U_i rounds to 1, key -inf, with probability 2^-53).
 * All weights equal: a uniform order.  Every draw: docs/stream.md §6.
 */
#ifndef FAIRSHUF_WEIGHTED_H
#define FAIRSHUF_WEIGHTED_H

#include <fairshuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The key of an item of weight w (positive, finite) drawn with the 64-bit
 * word: U = ((word >> 11) + 0.5) 2^-53, key = log(-log U) - log w.  Items
 * in increasing key order are successive weighted draws (ties: by index).
 * fs_weighted_order and `fairshuf lines --weights` use it. */
FS_API double fs_weighted_key(uint64_t word, double w);

/* Writes to order[0..n) the indices 0..n-1 in weighted random order (as
 * above), drawing n 64-bit words from rng (NULL: the thread default).
 * Errors: FS_EINVAL for a NULL array with n > 0 or a weight that is not
 * positive and finite (NaN, inf, 0, negative; *bad, if not NULL, gets its
 * index), FS_ENOMEM, the generator's sticky error.  O(n log n) time, O(n)
 * memory. */
FS_API int fs_weighted_order(const double *w, size_t n, uint64_t *order,
                             size_t *bad, fs_rng *rng);

/* Weighted sampling of k of n without replacement: out[0..k) gets the
 * first k of fs_weighted_order()'s order (so the inclusion probabilities
 * are those of k successive weighted draws).  k > n is FS_EINVAL; other
 * errors as fs_weighted_order(). */
FS_API int fs_weighted_sample(const double *w, size_t n, size_t k,
                              uint64_t *out, size_t *bad, fs_rng *rng);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_WEIGHTED_H */
