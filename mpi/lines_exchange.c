/* lines_exchange.c -- `fairshuf-mpi lines`, the exchange: each line keyed
 * and packed into a record for the rank owning its key's slice (one
 * exchange, or the in-memory exchange in rounds overlapped with packing
 * and placing).  The engine's overview is at the top of lines.c. */
#include <errno.h>
#include <stdlib.h>

#include "advise.h"
#include "lines_run.h"

/* ------------------------------------------------------------ packing */

/* The k-th smallest (0-based, k < n) of a[0..n); a is reordered
 * (Hoare's selection; the keys are random, so O(n) expected). */
static uint64_t kth_smallest(uint64_t *a, size_t n, size_t k)
{
    int64_t lo = 0, hi = (int64_t)n - 1, kk = (int64_t)k;
    while (lo < hi) {
        uint64_t piv = a[lo + (hi - lo) / 2], t;
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv)
                i++;
            while (a[j] > piv)
                j--;
            if (i <= j) {
                t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            return a[kk]; /* between j and i: equal to the pivot */
    }
    return a[kk];
}

/* The keys of the share's n lines (numbered from first) into keys; with
 * head < n also the head-th smallest of them into *top (0 for head 0), on
 * a copy, since the selection reorders. */
static void share_keys(run *r, uint64_t first, uint64_t n, uint64_t head,
                       uint64_t *keys, uint64_t *top)
{
    fs_lines_keys(r->c->key, first, 0, keys, (size_t)n);
    if (head >= n)
        return;
    uint64_t *cp = malloc((size_t)n * 8);
    if (cp == NULL) {
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (%llu lines)",
                     (unsigned long long)n);
        return;
    }
    memcpy(cp, keys, (size_t)n * 8);
    *top = head ? kth_smallest(cp, (size_t)n, (size_t)head - 1) : 0;
    free(cp);
}

/* Records key | global number | line, grouped by destination rank; with
 * own != NULL the lines that stay here become items instead, grouped by
 * digit for fs_mpi__sort_grouped (r->own_*).
 * head < UINT64_MAX (the whole share, in memory, -n) cuts what cannot be
 * among the first `head` lines of the whole order: lines whose key is
 * above this rank's head-th smallest (ties kept: the tie rule decides
 * later), and lines for ranks whose slices hold, after earlier slices,
 * at least `head` such lines in all (one MPI_Allreduce of P counts; the
 * same `head` on every rank, so every rank takes part or none). */
int fs_mpi__pack(run *r, const unsigned char *buf, size_t len, uint64_t n,
                 uint64_t first, unsigned char **send, uint64_t *scount,
                 uint64_t head, fs_mpi__item **own, size_t *nown)
{
    r->res->lines_in += n;
    r->res->bytes_in += len;
    double t0 = MPI_Wtime();
    int P = r->P, cut = head != UINT64_MAX;
    uint64_t *keys = NULL, *pos = calloc((size_t)P, sizeof *pos);
    uint64_t *dl = calloc((size_t)P, sizeof *dl); /* lines per rank */
    uint64_t *gl = calloc((size_t)P, sizeof *gl), top = UINT64_MAX;
    unsigned char *s = NULL;
    fs_mpi__item *it = NULL; /* this rank's own lines (own != NULL) */
    size_t k = 0, *oend = NULL;
    unsigned bits = fs_mpi__bits(n), Pk = r->c->local_only ? 1 : (unsigned)P;
    memset(scount, 0, (size_t)P * sizeof *scount);
    if (own != NULL && (oend = calloc((size_t)1 << bits, sizeof *oend)) == NULL)
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    if (pos == NULL || dl == NULL || gl == NULL || n > SIZE_MAX / 16 ||
        (keys = malloc((size_t)n * 8 + 8)) == NULL)
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (%llu lines, %zu bytes)",
                     (unsigned long long)n, len);
    if (r->rc == FS_OK)
        share_keys(r, first, n, head, keys, &top);
    /* every line stays here and none is packed (P = 1, the negative
     * control): only the count matters, no line end is looked for */
    int stay = own != NULL && (P == 1 || r->c->local_only);
    if (r->rc == FS_OK && stay) {
        for (size_t i = 0; i < n; i++)
            if (keys[i] <= top && head > 0) {
                dl[r->rank]++;
                oend[fs_mpi__digit(keys[i], Pk, bits)]++;
            }
        scount[r->rank] = dl[r->rank]; /* not bytes: only "any" is used */
    } else if (r->rc == FS_OK) { /* bytes and lines per destination */
        const unsigned char *p = buf, *e = buf + len;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *q = memchr(p, r->d, (size_t)(e - p));
            int d = r->c->local_only ? r->rank : fs_mpi__dest(keys[i], P);
            if (keys[i] <= top && head > 0) {
                scount[d] += 16 + (size_t)(q - p) + 1;
                dl[d]++;
                if (d == r->rank && oend != NULL)
                    oend[fs_mpi__digit(keys[i], Pk, bits)]++;
            }
            p = q + 1;
        }
    }
    if (cut) {
        if (fs_mpi__failed(r))
            goto out;
        MPI_Allreduce(dl, gl, P, MPI_UINT64_T, MPI_SUM, r->comm);
        uint64_t before = 0; /* candidate lines in earlier slices */
        for (int d = 0; d < P; d++) {
            if (before >= head) /* none of slice d's lines is needed */
                scount[d] = 0;
            before += gl[d];
        }
    }
    /* own != NULL: the lines this rank keeps are not copied into
     * records but become items of its sort, pointing into buf */
    int me = r->rank, keep = own != NULL && scount[me] > 0;
    if (own != NULL) {
        if (r->rc == FS_OK && keep &&
            (it = malloc((size_t)dl[me] * sizeof *it)) == NULL)
            fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (%llu lines)",
                         (unsigned long long)dl[me]);
        fs__huge(it, (size_t)dl[me] * sizeof *it); /* thousands of streams */
        scount[me] = 0;
        for (size_t d = 0, sum = 0; keep && d < ((size_t)1 << bits); d++) {
            size_t c = oend[d]; /* group starts; the scatter makes them ends */
            oend[d] = sum;
            sum += c;
        }
        r->own_keep = keep && head > 0;
        r->own_top = top;
        r->own_P = Pk;
        r->own_bits = bits;
    }
    uint64_t bytes = 0;
    for (int d = 0; d < P; d++)
        bytes += scount[d];
    if (r->rc == FS_OK && (s = malloc((size_t)bytes + 1)) == NULL)
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (%llu lines, %zu bytes)",
                     (unsigned long long)n, len);
    if (r->rc == FS_OK) {
        for (int d = 1; d < P; d++)
            pos[d] = pos[d - 1] + scount[d - 1];
        const unsigned char *p = buf, *e = buf + len;
        for (size_t i = 0; i < n; i++) {
            const unsigned char *q = memchr(p, r->d, (size_t)(e - p));
            size_t l = (size_t)(q - p) + 1;
            int d = r->c->local_only ? r->rank : fs_mpi__dest(keys[i], P);
            if (d == me && keep && keys[i] <= top && head > 0) {
                size_t j = oend[fs_mpi__digit(keys[i], Pk, bits)]++;
                it[j].key = keys[i];
                it[j].pos = (uintptr_t)p;
                k++;
            } else if (keys[i] <= top && head > 0 && scount[d] > 0) {
                unsigned char *o = s + pos[d];
                fs_mpi__put64(o, keys[i]);
                fs_mpi__put64(o + 8, first + i);
                memcpy(o + 16, p, l);
                pos[d] += 16 + l;
            }
            p = q + 1;
        }
        for (int d = 0; d < P; d++)
            r->res->sent += d == r->rank ? 0 : scount[d];
    }
out:
    free(keys);
    free(pos);
    free(dl);
    free(gl);
    r->res->t_keys += MPI_Wtime() - t0;
    if (fs_mpi__failed(r)) {
        free(s);
        free(it);
        free(oend);
        return -1;
    }
    *send = s;
    if (own != NULL) {
        *own = it;
        *nown = k;
        r->own_end = oend;
    }
    return 0;
}

/* The in-memory share's buffer, its pages mapped in one call before the
 * share is read into it (not a page fault per 4 KiB inside pread). */
unsigned char *fs_mpi__share_buf(size_t n)
{
    unsigned char *b = malloc(n);
    fs__huge(b, n); /* fresh pages are costly on a VM (as fairshuf lines) */
    fs__prefault(b, n);
    return b;
}

/* ----------------------------------------------------------- in rounds */

/* In memory on P > 1 ranks, the exchange in rounds (rounds.c): piece j
 * of the share (its lines starting in bytes [j PB, (j + 1) PB)) is packed
 * into one of two reused send buffers while piece j - 1 is in flight,
 * and the records of each round received are put into their sort groups
 * while the next round moves.  The groups' sizes are known before
 * anything moves: a first pass counts what goes to each rank by digit
 * (and by round), MPI_Reduce_scatter_block sums the counts for each rank,
 * and the count tables are swapped once.  The own lines become items in
 * their groups as their piece is packed.  Same cuts for -n as fs_mpi__pack(). */
/* A record of the rounds: key (8) | the line's length (4, RL_LONG from
 * 4 GiB - 1 on: its end is looked for) | global number (8) | line, so the
 * receiver steps from record to record without a look for the end. */
#define RL_HEAD 20
#define RL_LONG UINT32_MAX

typedef struct rounds_lines {
    fs_mpi__rounds x;
    const unsigned char *buf;
    size_t len;
    uint64_t *keys, top, first;
    size_t *pline, *poff;  /* piece j: lines from pline[j], at poff[j] */
    uint32_t *llen;        /* line lengths (RL_LONG: look for its end) */
    size_t *at;            /* next slot of each group */
    uint64_t *pos;         /* per rank: next record in the piece */
    unsigned char *dead;   /* per rank: nothing is sent to it (-n) */
    fs_mpi__item *it;
    unsigned bits;
    int keep;              /* this rank keeps its own lines */
} rounds_lines;

static void rl_pack(run *r, rounds_lines *z, size_t j, unsigned char *sb)
{
    double t0 = MPI_Wtime();
    size_t R = z->x.R;
    uint64_t off = 0;
    for (int d = 0; d < r->P; d++) {
        z->pos[d] = off;
        off += d == r->rank ? 0 : z->x.out[(size_t)d * R + j];
    }
    const unsigned char *p = z->buf + z->poff[j];
    for (size_t i = z->pline[j]; i < z->pline[j + 1]; i++) {
        size_t l = z->llen[i] != RL_LONG
                       ? z->llen[i]
                       : (size_t)((const unsigned char *)memchr(
                                      p, r->d, z->len - (size_t)(p - z->buf)) -
                                  p) + 1;
        uint64_t key = z->keys[i];
        int d = fs_mpi__dest(key, r->P);
        if (key <= z->top && !z->dead[d]) {
            if (d == r->rank) {
                size_t k = z->at[fs_mpi__digit(key, (unsigned)r->P, z->bits)]++;
                z->it[k].key = key;
                z->it[k].pos = (uintptr_t)p;
            } else {
                unsigned char *o = sb + z->pos[d];
                uint32_t l32 = z->llen[i];
                fs_mpi__put64(o, key);
                memcpy(o + 8, &l32, 4);
                fs_mpi__put64(o + 12, z->first + i);
                memcpy(o + RL_HEAD, p, l);
                z->pos[d] += RL_HEAD + l;
            }
        }
        if ((i & 16383) == 0)
            fs_mpi__rounds_test(&z->x); /* the round in flight moves on */
        p += l;
    }
    r->res->t_keys += MPI_Wtime() - t0;
}

static void rl_place(run *r, rounds_lines *z, const unsigned char *rec,
                     uint64_t total)
{
    double t0 = MPI_Wtime();
    size_t n = 0;
    for (uint64_t off = 0; off < total; n++) {
        uint64_t key = fs_mpi__get64(rec + off);
        size_t k = z->at[fs_mpi__digit(key, (unsigned)r->P, z->bits)]++;
        z->it[k].key = key;
        z->it[k].pos = (uintptr_t)(rec + off + RL_HEAD);
        uint32_t l;
        memcpy(&l, rec + off + 8, 4);
        if (l == RL_LONG) /* a line of 4 GiB or more: its end looked for */
            l = 0, off = (uint64_t)((const unsigned char *)memchr(
                             rec + off + RL_HEAD, r->d,
                             (size_t)(total - off - RL_HEAD)) - rec) + 1;
        off += l ? RL_HEAD + l : 0;
        if ((n & 16383) == 0)
            fs_mpi__rounds_test(&z->x);
    }
    r->res->t_sort += MPI_Wtime() - t0;
}

/* The share buf[0..len) (n lines, the first numbered `first`) shuffled
 * and this rank's part written to fd.  Returns 0 when some rank's part
 * would not fit its budget (or the test hook forces the spill path):
 * nothing was sent and the caller takes the one-exchange path, which
 * spills; else 1 (done, or failed on every rank). */
int fs_mpi__in_rounds(run *r, const unsigned char *buf, size_t len,
                      uint64_t n, uint64_t first, int fd, const char *tmp)
{
    double t0 = MPI_Wtime();
    int P = r->P, me = r->rank, done = 1;
    uint64_t head = r->c->head, most[2] = {n, len};
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_UINT64_T, MPI_MAX, r->comm);
    rounds_lines z = {.buf = buf, .len = len, .first = first, .top = UINT64_MAX};
    z.bits = fs_mpi__bits(most[0]);
    uint64_t PB = fs_mpi__piece;
    if (most[1] / PB >= 1024) /* at most 1024 rounds: small count tables */
        PB = most[1] / 1024 + 1;
    size_t R = most[1] ? (size_t)((most[1] + PB - 1) / PB) : 1, D = (size_t)1 << z.bits;
    size_t *end = NULL, WB = fs_mpi__out_buf_size(r);
    uint64_t *hist = NULL, *rh = NULL, *dl = NULL, *gl = NULL, mine = 0;
    unsigned char *sb[2] = {NULL, NULL}, *rec = NULL, *wb = NULL;
    r->res->lines_in += n;
    r->res->bytes_in += len;
    int st = fs_mpi__rounds_init(&z.x, r->comm, R);
    if (st != FS_OK)
        fs_mpi__fail(r, st, "exchange: %s", fs_strerror(st));
    else if ((size_t)P > SIZE_MAX / 8 / D || n > SIZE_MAX / 16 ||
             (hist = calloc((size_t)P * D, 8)) == NULL ||
             (rh = malloc(D * 8)) == NULL ||
             (z.at = malloc(D * sizeof *z.at)) == NULL ||
             (end = malloc(D * sizeof *end)) == NULL ||
             (z.pos = malloc((size_t)P * 8)) == NULL ||
             (dl = calloc((size_t)P, 8)) == NULL ||
             (gl = calloc((size_t)P, 8)) == NULL ||
             (z.dead = calloc((size_t)P, 1)) == NULL ||
             (z.pline = malloc((R + 1) * sizeof *z.pline)) == NULL ||
             (z.poff = malloc((R + 1) * sizeof *z.poff)) == NULL ||
             (z.llen = malloc((size_t)n * 4 + 4)) == NULL ||
             (z.keys = malloc((size_t)n * 8 + 8)) == NULL)
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (%llu lines, %zu bytes)",
                     (unsigned long long)n, len);
    if (r->rc == FS_OK) {
        fs__huge(z.keys, (size_t)n * 8 + 8); /* fresh pages: costly on a VM */
        fs__huge(z.llen, (size_t)n * 4 + 4);
        share_keys(r, first, n, head, z.keys, &z.top);
    }
    if (fs_mpi__failed(r))
        goto out;
    /* counts: per rank and digit (hist), per rank and round (bytes) */
    const unsigned char *p = buf;
    size_t j = 0;
    z.pline[0] = z.poff[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t o = (size_t)(p - buf);
        while (o >= (j + 1) * PB) { /* pieces j + 1 .. start here */
            z.pline[++j] = i;
            z.poff[j] = o;
        }
        const unsigned char *q = memchr(p, r->d, len - o);
        size_t l = (size_t)(q - p) + 1;
        uint64_t key = z.keys[i];
        int d = fs_mpi__dest(key, P);
        z.llen[i] = l < RL_LONG ? (uint32_t)l : RL_LONG;
        if (key <= z.top && head > 0) {
            dl[d]++;
            hist[(size_t)d * D + fs_mpi__digit(key, (unsigned)P, z.bits)]++;
            if (d != me)
                z.x.out[(size_t)d * R + j] += RL_HEAD + l;
        }
        p = q + 1;
    }
    while (j < R) {
        z.pline[++j] = (size_t)n;
        z.poff[j] = len;
    }
    if (head != UINT64_MAX) { /* slices wholly past the head-th line */
        MPI_Allreduce(dl, gl, P, MPI_UINT64_T, MPI_SUM, r->comm);
        uint64_t before = 0;
        for (int d = 0; d < P; d++) {
            if (before >= head) {
                z.dead[d] = 1;
                memset(hist + (size_t)d * D, 0, D * 8);
                memset(z.x.out + (size_t)d * R, 0, R * 8);
            }
            before += gl[d];
        }
    }
    for (int d = 0; d < P; d++)
        for (size_t k = 0; d != me && k < R; k++)
            r->res->sent += z.x.out[(size_t)d * R + k];
    /* rh[g]: the items of this rank's group g, its own and received */
    MPI_Reduce_scatter_block(hist, rh, (int)D, MPI_UINT64_T, MPI_SUM, r->comm);
    st = fs_mpi__rounds_counts(&z.x);
    if (st != FS_OK)
        fs_mpi__fail(r, st, "exchange: %s", fs_strerror(st));
    for (size_t g = 0; g < D; g++) {
        z.at[g] = (size_t)mine;
        mine += rh[g];
        end[g] = (size_t)mine;
    }
    uint64_t lim = fs_mpi__head_limit(r, mine), total = z.x.in_total;
    r->res->received = total;
    /* the budget as the one-exchange path counts it: over it, every
     * rank takes that path (it spills what does not fit) */
    int over = (r->c->memory && lim > 0 &&
                len + total + 32 * mine + WB > r->c->memory) ||
               getenv("FAIRSHUF_MPI_TEST_SPILL_ALL") != NULL, any;
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_LOR, r->comm);
    if (any) {
        r->res->lines_in -= n;
        r->res->bytes_in -= len;
        r->res->sent = r->res->received = 0;
        done = 0;
        goto out;
    }
    for (int b = 0; b < 2 && r->rc == FS_OK; b++)
        if ((sb[b] = malloc(z.x.out_max ? (size_t)z.x.out_max : 1)) == NULL)
            fs_mpi__fail(r, FS_ENOMEM, "memory exhausted");
    if (r->rc == FS_OK &&
        ((rec = fs_mpi__share_buf(total ? (size_t)total : 1)) == NULL ||
         (z.it = malloc(mine ? (size_t)mine * sizeof *z.it : 1)) == NULL ||
         (wb = malloc(WB)) == NULL))
        fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (%llu lines received)",
                     (unsigned long long)mine);
    r->res->t_keys += MPI_Wtime() - t0;
    if (fs_mpi__failed(r))
        goto out;
    fs__huge(z.it, (size_t)mine * sizeof *z.it); /* 2^bits streams */
    r->res->rounds = R;
    rl_pack(r, &z, 0, sb[0]);
    uint64_t roff = 0;
    for (j = 0;; j++) {
        /* round j is packed; nothing is in flight: a failure stops
         * every rank before any more is sent */
        if (fs_mpi__test_fail_round(me, j))
            fs_mpi__fail(r, FS_EIO, "exchange: %s (injected in round %zu)",
                         strerror(EIO), j);
        t0 = MPI_Wtime();
        if (fs_mpi__failed(r))
            goto out;
        fs_mpi__rounds_post(&z.x, j, sb[j & 1], rec + roff);
        r->res->t_exchange += MPI_Wtime() - t0;
        if (j > 0) { /* round j - 1 into the groups while j moves */
            uint64_t in = fs_mpi__rounds_in(&z.x, j - 1);
            rl_place(r, &z, rec + roff - in, in);
        }
        if (j + 1 < R)
            rl_pack(r, &z, j + 1, sb[(j + 1) & 1]);
        t0 = MPI_Wtime(); /* the transfer not hidden behind the work */
        fs_mpi__rounds_wait(&z.x);
        r->res->t_exchange += MPI_Wtime() - t0;
        roff += fs_mpi__rounds_in(&z.x, j);
        if (j + 1 == R)
            break;
    }
    rl_place(r, &z, rec + roff - fs_mpi__rounds_in(&z.x, R - 1),
             fs_mpi__rounds_in(&z.x, R - 1));
    if (lim > 0) {
        where w = {buf, len, first, r->d};
        t0 = MPI_Wtime();
        if (fs_mpi__sort_grouped(z.it, (size_t)mine, end, z.bits, r->c->key,
                                 fs_mpi__idx_of, &w) != FS_OK)
            fs_mpi__fail(r, FS_ENOMEM, "memory exhausted (sorting %llu lines)",
                         (unsigned long long)mine);
        r->res->t_sort += MPI_Wtime() - t0;
        if (r->rc == FS_OK)
            fs_mpi__write_items(r, z.it, (size_t)mine, buf, len, rec, total, wb, WB,
                                fd, tmp, lim);
    }
    fs_mpi__failed(r); /* a write error: every rank stops here */
out:
    fs_mpi__rounds_free(&z.x);
    free(hist);
    free(rh);
    free(end);
    free(dl);
    free(gl);
    free(z.at);
    free(z.pos);
    free(z.dead);
    free(z.pline);
    free(z.poff);
    free(z.llen);
    free(z.keys);
    free(z.it);
    free(sb[0]);
    free(sb[1]);
    free(rec);
    free(wb);
    return done;
}
