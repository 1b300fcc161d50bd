/* internal.h -- what the pieces of libfairshuf-mpi share: agreeing on a
 * failure, the chunked all-to-all exchange, the key sort, the rank a key
 * goes to. */
#ifndef FS_MPI_INTERNAL_H
#define FS_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fairshuf_mpi.h"

/* Negative control for the tests (fs_mpi_shuffle's flags): elements
 * never leave their rank, each rank sorts its own -- the "shuffle each
 * shard locally" that is not a uniform permutation. */
#define FS_MPI__LOCAL_ONLY (1u << 31)

/* Largest message of the exchange, in bytes (MPI counts are int). */
extern size_t fs_mpi__chunk;

/* Collective: every rank passes its local status; returns the lowest rank
 * whose status is not FS_OK (its status in *status), or -1 if all are. */
int fs_mpi__agree(MPI_Comm comm, int local, int *status);

/* Collective: rank r sends scount[d] bytes to rank d, taken in rank order
 * from send; receives *recv (malloc'd, NULL when empty) holding
 * rcount[s] bytes from each rank s in rank order, *rtotal in all.
 * Messages are at most fs_mpi__chunk bytes.  FS_ENOMEM on any rank
 * makes every rank return it (nothing allocated). */
int fs_mpi__exchange(MPI_Comm comm, const unsigned char *send,
                     const uint64_t *scount, unsigned char **recv,
                     uint64_t *rcount, uint64_t *rtotal);

/* The exchange in rounds (rounds.c), overlapped with packing: round j
 * moves out[d * R + j] bytes to each rank d != this one and in[s * R + j]
 * from each s, taken from (put into) one buffer per round in rank order.
 * Pieces of fs_mpi__piece bytes (a test hook makes them tiny). */
extern size_t fs_mpi__piece;

typedef struct fs_mpi__rounds {
    MPI_Comm comm;
    int P, rank;
    size_t R;               /* rounds, the same on every rank */
    uint64_t *out, *in;     /* P x R byte counts, by rank then round */
    uint64_t in_max, out_max, in_total; /* largest round in, out; all in */
    MPI_Request *req;       /* the requests of the round in flight */
    size_t nreq;
} fs_mpi__rounds;

/* Local: R rounds, the count tables zeroed (the caller fills out[]).
 * FS_ENOMEM, FS_ERANGE; the caller agrees before the next call. */
int fs_mpi__rounds_init(fs_mpi__rounds *x, MPI_Comm comm, size_t R);
/* Collective: the tables swapped (in[] filled), in_max, out_max and
 * in_total set, the requests allocated.  FS_ENOMEM: agree on it. */
int fs_mpi__rounds_counts(fs_mpi__rounds *x);
/* Posts round j: sends from send, receives into recv (in_max bytes is
 * room for any round); neither buffer is touched until wait. */
void fs_mpi__rounds_post(fs_mpi__rounds *x, size_t j,
                         const unsigned char *send, unsigned char *recv);
/* Lets the round in flight progress (call now and then while packing). */
void fs_mpi__rounds_test(fs_mpi__rounds *x);
/* Completes the round in flight. */
void fs_mpi__rounds_wait(fs_mpi__rounds *x);
/* Bytes this rank receives in round j. */
uint64_t fs_mpi__rounds_in(const fs_mpi__rounds *x, size_t j);
void fs_mpi__rounds_free(fs_mpi__rounds *x);
/* Test hook: 1 if FAIRSHUF_MPI_TEST_FAIL_ROUND is "rank:j". */
int fs_mpi__test_fail_round(int rank, size_t j);

/* Collective (node.c): 1 on every rank when P >= 2, every rank of comm
 * shares one node (MPI_COMM_TYPE_SHARED) and every rank passes want. */
int fs_mpi__one_node(MPI_Comm comm, int want);


/* Rank of key among P equal slices of [0, 2^64). */
static inline int fs_mpi__dest(uint64_t key, int P)
{
    return (int)(((unsigned __int128)key * (unsigned)P) >> 64);
}

/* An item of the local sort (16 bytes): its level-0 key and the address
 * of its bytes (in a received record, or in the rank's own input: what
 * stays on its rank is never copied).  The global index, needed only for
 * ties, is found from the address when one occurs. */
typedef struct fs_mpi__item {
    uint64_t key;
    uintptr_t pos;
} fs_mpi__item;

/* The global index of the item whose bytes are at pos. */
typedef uint64_t (*fs_mpi__idx_fn)(const void *ctx, uintptr_t pos);

/* Sorts a[0..n) into the keyed order: by key, equal keys (about n^2/2^65
 * of them) by fs_lines_key(K, idx(ctx, pos), 1), then level 2, ...
 * FS_ENOMEM. */
int fs_mpi__sort(fs_mpi__item *a, size_t n, const uint8_t K[32],
                 fs_mpi__idx_fn idx, const void *ctx);

/* Producers that know the keys (the packing loops) group the items of
 * this rank by the top `bits` bits of the key's place in the rank's slice
 * of the key space -- the low word of key * P, which rises with the key
 * inside a slice (P = 1: the key itself) -- so the sort's first pass
 * over all items is done as they are made.  fs_mpi__bits(n) is the
 * number of bits for about n items: parts of 2-4 K items (tens of KiB,
 * sorted in cache), 1 to 12 bits. */
static inline size_t fs_mpi__digit(uint64_t key, unsigned P, unsigned bits)
{
    return (size_t)((key * (uint64_t)P) >> (64 - bits));
}

unsigned fs_mpi__bits(uint64_t n);

/* Own items grouped by digit, a[0..own_end[2^bits - 1]) (group d ends at
 * own_end[d]), get room for at[d] received items after each group's own:
 * the groups move right in place (a must hold them all).  On return
 * end[d] is where group d ends and at[d] where its first received item
 * goes (the caller puts them at at[d]++).  No copy of the items. */
void fs_mpi__make_room(fs_mpi__item *a, const size_t *own_end, size_t *at,
                       size_t *end, unsigned bits);

/* Sorts a[0..n) into the keyed order, like fs_mpi__sort, when the items
 * are grouped by fs_mpi__digit (group d ends at end[d], 2^bits ends):
 * each group in cache, with one group's worth of scratch.  FS_ENOMEM. */
int fs_mpi__sort_grouped(fs_mpi__item *a, size_t n, const size_t *end,
                         unsigned bits, const uint8_t K[32],
                         fs_mpi__idx_fn idx, const void *ctx);

static inline void fs_mpi__put64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8); /* little-endian hosts, like lib/lines */
}

static inline uint64_t fs_mpi__get64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

#endif /* FS_MPI_INTERNAL_H */
