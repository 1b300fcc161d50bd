/* array.c -- fs_mpi_shuffle, fs_mpi_permutation and fs_mpi_key
 * (fairshuf_mpi.h): Sanders' shuffle of fixed-size elements.  Records on
 * the wire are key (8) | global index (8) | element (size).  In index
 * mode (fs_mpi_permutation) the element is the global index itself: an
 * item's pos holds it, records have no element, and nothing is
 * gathered. */
#include <stdlib.h>

#include "advise.h"
#include "fairshuf/lines.h"
#include "internal.h"

int fs_mpi_key(MPI_Comm comm, uint8_t key[32])
{
    int rank, st;
    MPI_Comm_rank(comm, &rank);
    int rc = rank == 0 ? fs_os_random(key, 32) : FS_OK;
    if (fs_mpi__agree(comm, rc, &st) >= 0)
        return st;
    MPI_Bcast(key, 32, MPI_BYTE, 0, comm);
    return FS_OK;
}

#define KEYS 512

/* Records for other ranks, sorted by destination (counts per destination
 * in bytes; scount[me] stays 0); this rank's own elements are not copied
 * but become items of the local sort at once, in *own (*nown of them),
 * pointing at their bytes in `in` (in index mode holding their index),
 * grouped for fs_mpi__sort_grouped by `bits` digits of slices of Pk
 * (group ends in oend). */
static int pack(const unsigned char *in, int idx, size_t n, size_t size,
                uint64_t first, const uint8_t *K, int P, int me, int local,
                unsigned Pk, unsigned bits, size_t *oend,
                unsigned char **send, uint64_t *scount, fs_mpi__item **own,
                size_t *nown)
{
    size_t rec = idx ? 16 : 16 + size, mine = 0, D = (size_t)1 << bits;
    uint64_t keys[KEYS];
    uint64_t *pos = calloc((size_t)P, sizeof *pos);
    if (pos == NULL)
        return FS_ENOMEM;
    memset(oend, 0, D * sizeof *oend);
    for (size_t i = 0; i < n; i += KEYS) { /* counts */
        size_t c = n - i < KEYS ? n - i : KEYS;
        fs_lines_keys(K, first + i, 0, keys, c);
        for (size_t j = 0; j < c; j++) {
            int d = local ? me : fs_mpi__dest(keys[j], P);
            scount[d] += rec;
            if (d == me)
                oend[fs_mpi__digit(keys[j], Pk, bits)]++;
        }
    }
    mine = (size_t)(scount[me] / rec);
    scount[me] = 0;
    uint64_t bytes = 0;
    for (int d = 0; d < P; d++)
        bytes += scount[d];
    unsigned char *s = bytes ? malloc((size_t)bytes) : NULL;
    fs_mpi__item *it = malloc((mine ? mine : 1) * sizeof *it);
    size_t *at = malloc(D * sizeof *at);
    if ((bytes && s == NULL) || it == NULL || at == NULL) {
        free(pos);
        free(s);
        free(it);
        free(at);
        return FS_ENOMEM;
    }
    fs__huge(it, mine * sizeof *it); /* written in 2^bits streams */
    for (int d = 1; d < P; d++)
        pos[d] = pos[d - 1] + scount[d - 1];
    for (size_t d = 0, sum = 0; d < D; d++) { /* group starts, then ends */
        at[d] = sum;
        sum += oend[d];
        oend[d] = sum;
    }
    for (size_t i = 0; i < n; i += KEYS) { /* scatter */
        size_t c = n - i < KEYS ? n - i : KEYS;
        fs_lines_keys(K, first + i, 0, keys, c);
        for (size_t j = 0; j < c; j++) {
            int d = local ? me : fs_mpi__dest(keys[j], P);
            const unsigned char *e = idx ? NULL : in + (i + j) * size;
            if (d == me) {
                size_t k = at[fs_mpi__digit(keys[j], Pk, bits)]++;
                it[k].key = keys[j];
                it[k].pos = e ? (uintptr_t)e : (uintptr_t)(first + i + j);
                continue;
            }
            unsigned char *p = s + pos[d];
            pos[d] += rec;
            fs_mpi__put64(p, keys[j]);
            fs_mpi__put64(p + 8, first + i + j);
            if (e)
                memcpy(p + 16, e, size);
        }
    }
    free(pos);
    free(at);
    *send = s;
    *own = it;
    *nown = mine;
    return FS_OK;
}

/* Where the sort finds a tied item's global index: an own element's from
 * its place in the input, a received one's in its record's head; in
 * index mode (w->idx) the item holds it. */
typedef struct where {
    const unsigned char *in;
    size_t n, size;
    uint64_t first;
    int idx; /* index mode */
} where;

static uint64_t idx_of(const void *ctx, uintptr_t pos)
{
    const where *w = ctx;
    uintptr_t in = (uintptr_t)w->in;
    if (w->idx)
        return pos;
    if (w->n && pos >= in && pos < in + w->n * w->size)
        return w->first + (pos - in) / w->size;
    return fs_mpi__get64((const unsigned char *)pos - 8);
}

static int emit(int rc, fs_mpi__item *it, size_t n, unsigned char *o,
                size_t size, const where *w, unsigned char **out, size_t *m);

/* This rank's own items and the received records, in keyed order,
 * elements only, into *out.  own is consumed (freed).  Elements of at
 * most 16 bytes are gathered over the items themselves (element i ends
 * at or before item i's end, and item i is read before it is written):
 * no second array of n elements to allocate and fault in.  In index mode
 * (w->idx, size 8) an item's pos is its element. */
static int unpack(fs_mpi__item *own, size_t nown, const size_t *oend,
                  unsigned Pk, unsigned bits, const unsigned char *r,
                  uint64_t total, size_t size, const uint8_t *K,
                  const where *w, unsigned char **out, size_t *m)
{
    int idx = w->idx;
    size_t rec = idx ? 16 : 16 + size, nr = (size_t)(total / rec), n = nown + nr;
    size_t D = (size_t)1 << bits;
    fs_mpi__item *it = nr ? realloc(own, n * sizeof *it) : own;
    int inplace = size <= sizeof *it;
    unsigned char *o = n && !inplace ? malloc(n * size) : NULL;
    size_t *at = nr ? calloc(D, sizeof *at) : NULL;
    size_t *end = nr ? malloc(D * sizeof *end) : NULL;
    if (it == NULL || (n && !inplace && o == NULL) ||
        (nr && (at == NULL || end == NULL))) {
        free(it ? it : own);
        free(o);
        free(at);
        free(end);
        return FS_ENOMEM;
    }
    if (nr) { /* the received into their groups, among the own */
        fs__huge(it, n * sizeof *it);
        for (size_t i = 0; i < nr; i++)
            at[fs_mpi__digit(fs_mpi__get64(r + i * rec), Pk, bits)]++;
        fs_mpi__make_room(it, oend, at, end, bits);
        for (size_t i = 0; i < nr; i++) {
            uint64_t key = fs_mpi__get64(r + i * rec);
            size_t j = at[fs_mpi__digit(key, Pk, bits)]++;
            it[j].key = key;
            it[j].pos = idx ? (uintptr_t)fs_mpi__get64(r + i * rec + 8)
                            : (uintptr_t)(r + i * rec + 16);
        }
    }
    int rc = fs_mpi__sort_grouped(it, n, nr ? end : oend, bits, K, idx_of, w);
    free(at);
    free(end);
    return emit(rc, it, n, o, size, w, out, m);
}

/* The sorted items' elements into *out (*m of them): over the items
 * themselves when an element fits in one (o == NULL), else into o.  it
 * is consumed; rc != FS_OK (the sort failed) frees everything. */
static int emit(int rc, fs_mpi__item *it, size_t n, unsigned char *o,
                size_t size, const where *w, unsigned char **out, size_t *m)
{
    int idx = w->idx, inplace = size <= sizeof *it;
    if (rc != FS_OK || n == 0) {
        free(it);
        free(o);
        *out = NULL;
        *m = 0;
        return rc;
    }
    if (inplace)
        o = (unsigned char *)it;
    for (size_t i = 0; i < n && idx; i++) {
        uint64_t v = it[i].pos;
        memcpy(o + i * 8, &v, 8);
    }
    for (size_t i = 0; i < n && !idx; i++) {
        if (i + 16 < n) /* the elements are read in random order */
            __builtin_prefetch((const void *)it[i + 16].pos);
        const unsigned char *e = (const unsigned char *)it[i].pos;
        if (size == 8) /* the common case: a fixed-size copy */
            memcpy(o + i * 8, e, 8);
        else
            memcpy(o + i * size, e, size);
    }
    if (inplace) { /* give back the rest; a failed shrink keeps it all */
        unsigned char *s = realloc(o, n * size);
        o = s ? s : o;
    } else {
        free(it);
    }
    *out = o;
    *m = n;
    return FS_OK;
}

/* ------------------------------------------------------------ in rounds */

/* Index mode on P > 1 ranks, in rounds (rounds.c): piece j (pi indices)
 * is keyed and packed into one of two reused send buffers while piece
 * j - 1 is in flight, and each piece received is put straight into the
 * sort groups while the next one is in flight.  The groups' sizes are
 * known before anything moves: every rank counts its indices per
 * destination and digit, and MPI_Reduce_scatter_block sums the counts
 * for each destination -- so no whole-share send or receive array is
 * made (fresh pages are expensive), only the items. */
typedef struct perm {
    MPI_Comm comm;
    int P, me;
    unsigned bits;
    size_t n, pi;       /* this rank's indices; indices per piece */
    uint64_t first;     /* the global index of the first */
    const uint8_t *K;
    fs_mpi__rounds x;
    size_t *at;         /* next free slot of each group */
    uint64_t *pos;      /* per destination: next record in the piece */
    fs_mpi__item *it;
} perm;

static void perm_pack(perm *p, size_t j, unsigned char *sb)
{
    uint64_t keys[KEYS], off = 0;
    size_t lo = j * p->pi, hi = p->n - lo < p->pi ? p->n : lo + p->pi;
    for (int d = 0; d < p->P; d++) {
        p->pos[d] = off;
        off += d == p->me ? 0 : p->x.out[(size_t)d * p->x.R + j];
    }
    for (size_t i = lo; i < hi; i += KEYS) {
        size_t c = hi - i < KEYS ? hi - i : KEYS;
        fs_lines_keys(p->K, p->first + i, 0, keys, c);
        for (size_t k = 0; k < c; k++) {
            int d = fs_mpi__dest(keys[k], p->P);
            if (d == p->me) {
                size_t at = p->at[fs_mpi__digit(keys[k], (unsigned)p->P, p->bits)]++;
                p->it[at].key = keys[k];
                p->it[at].pos = (uintptr_t)(p->first + i + k);
                continue;
            }
            unsigned char *r = sb + p->pos[d];
            p->pos[d] += 16;
            fs_mpi__put64(r, keys[k]);
            fs_mpi__put64(r + 8, p->first + i + k);
        }
        if ((i - lo) % (KEYS * 128) == 0)
            fs_mpi__rounds_test(&p->x); /* the round in flight moves on */
    }
}

static void perm_place(perm *p, const unsigned char *rb, uint64_t bytes)
{
    for (uint64_t o = 0; o < bytes; o += 16) {
        uint64_t key = fs_mpi__get64(rb + o);
        size_t at = p->at[fs_mpi__digit(key, (unsigned)p->P, p->bits)]++;
        p->it[at].key = key;
        p->it[at].pos = (uintptr_t)fs_mpi__get64(rb + o + 8);
        if (o % (16 * KEYS * 128) == 0)
            fs_mpi__rounds_test(&p->x);
    }
}

/* Returns the status, the same on every rank; on FS_OK *out holds this
 * rank's part of the order (*m indices, 8 bytes each). */
static int permute_rounds(size_t n, uint64_t first, const uint8_t *K,
                          MPI_Comm comm, unsigned char **out, size_t *m)
{
    perm p = {.comm = comm, .n = n, .first = first, .K = K};
    MPI_Comm_size(comm, &p.P);
    MPI_Comm_rank(comm, &p.me);
    uint64_t most = n; /* the same rounds and digits on every rank */
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
    p.bits = fs_mpi__bits(most);
    p.pi = fs_mpi__piece / 16 ? fs_mpi__piece / 16 : 1;
    if (most / p.pi >= 1024) /* at most 1024 rounds: small count tables */
        p.pi = (size_t)(most / 1024 + 1);
    size_t R = most ? (size_t)((most + p.pi - 1) / p.pi) : 1;
    size_t D = (size_t)1 << p.bits, *end = NULL;
    uint64_t *hist = NULL, *rh = NULL, total = 0;
    unsigned char *sb[2] = {NULL, NULL}, *rb[2] = {NULL, NULL};
    int st, rc = fs_mpi__rounds_init(&p.x, comm, R);
    if (rc == FS_OK && (size_t)p.P > SIZE_MAX / 8 / D)
        rc = FS_ERANGE;
    if (rc == FS_OK && ((hist = calloc((size_t)p.P * D, 8)) == NULL ||
                        (rh = malloc(D * 8)) == NULL ||
                        (p.at = malloc(D * sizeof *p.at)) == NULL ||
                        (end = malloc(D * sizeof *end)) == NULL ||
                        (p.pos = malloc((size_t)p.P * 8)) == NULL))
        rc = FS_ENOMEM;
    if (fs_mpi__agree(comm, rc, &st) >= 0) {
        rc = rc != FS_OK ? rc : st;
        goto done;
    }
    uint64_t keys[KEYS];
    for (size_t i = 0; i < n; i += KEYS) { /* counts */
        size_t c = n - i < KEYS ? n - i : KEYS;
        fs_lines_keys(K, first + i, 0, keys, c);
        for (size_t k = 0; k < c; k++) {
            int d = fs_mpi__dest(keys[k], p.P);
            hist[(size_t)d * D + fs_mpi__digit(keys[k], (unsigned)p.P, p.bits)]++;
            if (d != p.me)
                p.x.out[(size_t)d * R + (i + k) / p.pi] += 16;
        }
    }
    /* rh[g]: the items of this rank's group g, its own and received */
    MPI_Reduce_scatter_block(hist, rh, (int)D, MPI_UINT64_T, MPI_SUM, comm);
    rc = fs_mpi__rounds_counts(&p.x);
    for (size_t g = 0; g < D; g++) {
        p.at[g] = (size_t)total;
        total += rh[g];
        end[g] = (size_t)total;
    }
    if (rc == FS_OK && total > SIZE_MAX / sizeof *p.it)
        rc = FS_ERANGE;
    for (int b = 0; b < 2 && rc == FS_OK; b++)
        if ((sb[b] = malloc(p.x.out_max ? (size_t)p.x.out_max : 1)) == NULL ||
            (rb[b] = malloc(p.x.in_max ? (size_t)p.x.in_max : 1)) == NULL)
            rc = FS_ENOMEM;
    if (rc == FS_OK &&
        (p.it = malloc(total ? (size_t)total * sizeof *p.it : 1)) == NULL)
        rc = FS_ENOMEM;
    if (fs_mpi__agree(comm, rc, &st) >= 0) {
        rc = rc != FS_OK ? rc : st;
        goto done;
    }
    fs__huge(p.it, (size_t)total * sizeof *p.it); /* 2^bits streams */
    perm_pack(&p, 0, sb[0]);
    for (size_t j = 0;; j++) {
        /* round j is packed; nothing is in flight: a failure here
         * (the test hook) stops every rank before any more is sent */
        rc = fs_mpi__test_fail_round(p.me, j) ? FS_EIO : FS_OK;
        if (fs_mpi__agree(comm, rc, &st) >= 0) {
            rc = rc != FS_OK ? rc : st;
            goto done;
        }
        fs_mpi__rounds_post(&p.x, j, sb[j & 1], rb[j & 1]);
        if (j > 0) /* round j - 1 into the groups while j moves */
            perm_place(&p, rb[(j - 1) & 1], fs_mpi__rounds_in(&p.x, j - 1));
        if (j + 1 < R)
            perm_pack(&p, j + 1, sb[(j + 1) & 1]);
        fs_mpi__rounds_wait(&p.x);
        if (j + 1 == R)
            break;
    }
    perm_place(&p, rb[(R - 1) & 1], fs_mpi__rounds_in(&p.x, R - 1));
    where w = {NULL, 0, 8, first, 1};
    rc = fs_mpi__sort_grouped(p.it, (size_t)total, end, p.bits, K, idx_of, &w);
    rc = emit(rc, p.it, (size_t)total, NULL, 8, &w, out, m);
    p.it = NULL;
done:
    fs_mpi__rounds_free(&p.x);
    free(hist);
    free(rh);
    free(end);
    free(p.at);
    free(p.pos);
    free(p.it);
    for (int b = 0; b < 2; b++) {
        free(sb[b]);
        free(rb[b]);
    }
    return rc;
}

/* Collective, FS_MPI_BALANCED: this rank's *m elements of `size` bytes at
 * *buf (its part of the permutation, in order) are replaced by global
 * positions [N*r/P, N*(r+1)/P) of it: the ordered pieces are contiguous,
 * so they arrive in order.  FS_ENOMEM on every rank alike. */
static int balance(MPI_Comm comm, unsigned char **buf, size_t *m,
                   size_t size)
{
    int P;
    MPI_Comm_size(comm, &P);
    uint64_t mine = *m, before = 0, N = 0;
    MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Allreduce(&mine, &N, 1, MPI_UINT64_T, MPI_SUM, comm);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        before = 0; /* MPI_Exscan leaves rank 0's result undefined */
    uint64_t *sc = calloc((size_t)P, sizeof *sc), *rc = malloc((size_t)P * 8);
    int st = sc && rc ? FS_OK : FS_ENOMEM, s2;
    if (fs_mpi__agree(comm, st, &s2) >= 0) {
        free(sc);
        free(rc);
        return st != FS_OK ? st : s2;
    }
    for (int t = 0; t < P; t++) {
        /* overlap of [before, before + mine) with rank t's range */
        uint64_t lo = (uint64_t)((unsigned __int128)N * (unsigned)t / (unsigned)P);
        uint64_t hi = (uint64_t)((unsigned __int128)N * (unsigned)(t + 1) / (unsigned)P);
        uint64_t a = lo > before ? lo : before;
        uint64_t b = hi < before + mine ? hi : before + mine;
        sc[t] = b > a ? (b - a) * size : 0;
    }
    unsigned char *r = NULL;
    uint64_t total;
    st = fs_mpi__exchange(comm, *buf, sc, &r, rc, &total);
    free(sc);
    free(rc);
    if (st != FS_OK)
        return st;
    free(*buf);
    *buf = r;
    *m = (size_t)(total / size);
    return FS_OK;
}

/* Both entry points, their arguments checked and agreed on: n elements of
 * `size` bytes at in, or in index mode (idx) this rank's n indices, the
 * global ones after the other ranks' (size 8). */
static int shuffle(const void *in, int idx, size_t n, size_t size,
                   void **out, size_t *out_n, const uint8_t key[32],
                   unsigned flags, MPI_Comm comm)
{
    int P, st, rc;
    MPI_Comm_size(comm, &P);
    uint64_t mine = n, first = 0;
    MPI_Exscan(&mine, &first, 1, MPI_UINT64_T, MPI_SUM, comm);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        first = 0;
    uint64_t *sc = calloc((size_t)P, sizeof *sc), *rcnt = malloc((size_t)P * 8);
    unsigned char *send = NULL, *recv = NULL, *o = NULL;
    fs_mpi__item *own = NULL;
    size_t nown = 0;
    /* about n items end here; the negative control's keys span all */
    int local = (flags & FS_MPI__LOCAL_ONLY) != 0;
    unsigned bits = fs_mpi__bits(n), Pk = local ? 1 : (unsigned)P;
    size_t *oend = malloc(((size_t)1 << bits) * sizeof *oend);
    size_t m = 0;
    if (idx && !local && P > 1) { /* in rounds, overlapped */
        rc = sc && rcnt && oend ? FS_OK : FS_ENOMEM;
        if (fs_mpi__agree(comm, rc, &st) >= 0) {
            rc = rc != FS_OK ? rc : st;
            goto done;
        }
        rc = permute_rounds(n, first, key, comm, &o, &m);
        goto sorted;
    }
    rc = sc && rcnt && oend ? pack(in, idx, n, size, first, key, P, rank,
                                   local, Pk, bits, oend, &send, sc, &own,
                                   &nown)
                            : FS_ENOMEM;
    if (fs_mpi__agree(comm, rc, &st) >= 0) {
        rc = rc != FS_OK ? rc : st;
        free(own);
        goto done;
    }
    uint64_t total;
    rc = fs_mpi__exchange(comm, send, sc, &recv, rcnt, &total);
    free(send);
    send = NULL;
    if (rc != FS_OK) {
        free(own);
        goto done;
    }
    where w = {(const unsigned char *)in, n, size, first, idx};
    rc = unpack(own, nown, oend, Pk, bits, recv, total, size, key, &w, &o, &m);
sorted:
    if (fs_mpi__agree(comm, rc, &st) >= 0) {
        rc = rc != FS_OK ? rc : st;
        free(o);
        goto done;
    }
    if (flags & FS_MPI_BALANCED) {
        rc = balance(comm, &o, &m, size);
        if (rc != FS_OK) {
            free(o);
            goto done;
        }
    }
    *out = o;
    *out_n = m;
done:
    free(oend);
    free(sc);
    free(rcnt);
    free(send);
    free(recv);
    return rc;
}

int fs_mpi_shuffle(const void *in, size_t n, size_t size, void **out,
                   size_t *out_n, const uint8_t key[32], unsigned flags,
                   MPI_Comm comm)
{
    int st, rc = FS_OK;
    *out = NULL;
    *out_n = 0;
    if (size == 0 || (flags & ~(unsigned)(FS_MPI_BALANCED | FS_MPI__LOCAL_ONLY)) || (n && !in) ||
        key == NULL)
        rc = FS_EINVAL;
    else if (size > (SIZE_MAX - 16) / 2 || (n && n > SIZE_MAX / (16 + size)))
        rc = FS_ERANGE;
    if (fs_mpi__agree(comm, rc, &st) >= 0)
        return rc != FS_OK ? rc : st;
    return shuffle(in, 0, n, size, out, out_n, key, flags, comm);
}

int fs_mpi_permutation(uint64_t N, uint64_t **out, size_t *out_n,
                       const uint8_t key[32], unsigned flags, MPI_Comm comm)
{
    int P, rank, st, rc = FS_OK;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    *out = NULL;
    *out_n = 0;
    uint64_t lo = (uint64_t)((unsigned __int128)N * (unsigned)rank / (unsigned)P);
    uint64_t hi = (uint64_t)((unsigned __int128)N * (unsigned)(rank + 1) / (unsigned)P);
    if ((flags & ~(unsigned)(FS_MPI_BALANCED | FS_MPI__LOCAL_ONLY)) || key == NULL)
        rc = FS_EINVAL;
    else if (hi - lo > SIZE_MAX / 32 || (N && N - 1 > UINTPTR_MAX))
        rc = FS_ERANGE;
    if (fs_mpi__agree(comm, rc, &st) >= 0)
        return rc != FS_OK ? rc : st;
    void *o = NULL;
    rc = shuffle(NULL, 1, (size_t)(hi - lo), 8, &o, out_n, key, flags, comm);
    *out = o;
    return rc;
}
