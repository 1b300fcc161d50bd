/*
 * fairshuf_mpi.h -- the distributed keyed shuffle on MPI (libfairshuf-mpi.a,
 * optional: built when mpicc is found).  docs/distributed.md is the manual.
 *
 * The algorithm is Sanders' (1998): every element picks a destination rank
 * at random, one all-to-all exchange moves each element once, then every
 * rank sorts what it received.  Here the random choice is the element's key
 * of the keyed order of `fairshuf lines` (docs/lines.md): element g of the
 * global sequence (ranks' elements concatenated in rank order) gets
 * key(g) = fs_lines_key(K, g, 0); rank r receives the elements whose key
 * lies in the r-th of P equal slices of [0, 2^64), and sorts them by key,
 * equal keys by fs_lines_key(K, g, 1), (K, g, 2), ...  So the
 * concatenation of the outputs in rank order is exactly the keyed order of
 * the global sequence: a uniformly random permutation (given ideal keys),
 * the same for every P, and equal to `fairshuf lines --seed` of the same
 * items.
 *
 * Every function here is collective over comm: all ranks call it with the
 * same key and flags.  A failure on one rank (allocation) is agreed on, so
 * every rank returns an error and none is left waiting.  Counts above
 * MPI's 2^31 limit are sent in chunks.
 */
#ifndef FAIRSHUF_MPI_H
#define FAIRSHUF_MPI_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include <fairshuf.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    /* Output sizes exactly balanced: rank r receives the elements of
     * global rank [N*r/P, N*(r+1)/P) of the permutation (a second,
     * neighbour-only exchange).  Without it the sizes are multinomial:
     * every element lands on each rank with probability 1/P,
     * independently, so a rank's count has mean N/P and standard
     * deviation sqrt(N (1/P)(1 - 1/P)). */
    FS_MPI_BALANCED = 1u << 0
};

/* A key for the whole job: rank 0 draws 32 bytes from the OS
 * (fs_os_random) and broadcasts them.  Errors (on every rank):
 * FS_ERANDOM. */
int fs_mpi_key(MPI_Comm comm, uint8_t key[32]);

/* Shuffles the distributed array: rank r passes its n elements of `size`
 * bytes at in (rank r's elements come after those of ranks < r in the
 * global sequence) and receives in *out (malloc'd; free() it; NULL when
 * *out_n is 0) its *out_n elements of the global permutation, in order:
 * the outputs concatenated in rank order are the keyed order of the
 * global sequence with key K (see the top of this file; uniform over all
 * N! orders).  flags: 0 or FS_MPI_BALANCED.  in is not modified.
 * Errors: FS_EINVAL (size 0, flags unknown, or an in == NULL with n > 0,
 * on any rank), FS_ENOMEM, FS_ERANGE (a count does not fit), on every
 * rank alike.  Time O((n + out) log) per rank plus one exchange (two
 * with FS_MPI_BALANCED); memory about 3 x (elements held) x (size + 16)
 * bytes per rank. */
int fs_mpi_shuffle(const void *in, size_t n, size_t size, void **out,
                   size_t *out_n, const uint8_t key[32], unsigned flags,
                   MPI_Comm comm);

/* The keyed permutation of the integers 0..N-1, none of them held by the
 * caller: rank r contributes [N*r/P, N*(r+1)/P) and receives in *out
 * (malloc'd; free() it; NULL when *out_n is 0) its *out_n values of the
 * permutation, in order -- exactly what fs_mpi_shuffle gives when every
 * rank passes its range as an array of uint64_t (so the concatenation is
 * `seq 0 N-1 | fairshuf lines --seed`'s order), in less memory and time:
 * no element array, 16-byte records, nothing gathered at random.  N, key
 * and flags the same on every rank; flags: 0 or FS_MPI_BALANCED.  Errors:
 * FS_EINVAL (flags unknown, key NULL), FS_ENOMEM, FS_ERANGE (a rank's
 * range does not fit in memory), on every rank alike.  Memory about
 * 2 x 16 bytes per value held (the values out, 8 bytes each, are
 * written over the sort's items). */
int fs_mpi_permutation(uint64_t N, uint64_t **out, size_t *out_n,
                       const uint8_t key[32], unsigned flags, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_MPI_H */
