/* engine.c -- the keyed shuffle in memory: a bucket sort on uniform keys.
 * Records are 8 bytes: 32 key bits below the bucket prefix, then a 32-bit
 * offset, so sorting a bucket is sorting integers; the rare records whose
 * 32 bits tie fall back to full keys and then to level 1, 2, ... keys of
 * their indices (exact uniformity).  Two key passes (count, scatter)
 * instead of a stored key array keep memory at 8 bytes + a few bits per
 * line on top of the text. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"
#include "io.h"

#define KCHUNK 512

/* ---------------------------------------------------------------- writer */

int fs__writer_open(fs__writer *w)
{
    if (w->fd >= 0)
        return FS_OK;
    /* FS__OUTSLACK bytes past the end: room for a fixed-size over-copy */
    if (w->buf == NULL &&
        (w->buf = malloc(FS__OUTBUF + FS__OUTSLACK)) == NULL)
        return FS_ENOMEM;
    int fd = w->c->open_output ? w->c->open_output(w->c->output_arg) : 1;
    if (fd < 0) {
        w->res->where = FS_LINES_OUTPUT;
        w->res->err = errno;
        return FS_EIO;
    }
    w->fd = fd;
    return FS_OK;
}

static int write_all(fs__writer *w, const unsigned char *p, size_t n)
{
    w->res->out_bytes += n;
    if (fs__write_all(w->fd, p, n) != FS_OK) {
        w->res->where = FS_LINES_OUTPUT;
        w->res->err = errno;
        return FS_EIO;
    }
    return FS_OK;
}

int fs__writer_flush(fs__writer *w)
{
    int rc = write_all(w, w->buf, w->len);
    w->len = 0;
    return rc;
}

static int writer_put(fs__writer *w, const void *p, size_t n)
{
    if (w->len + n > FS__OUTBUF) {
        int rc = fs__writer_flush(w);
        if (rc != FS_OK)
            return rc;
        if (n > FS__OUTBUF)
            return write_all(w, p, n);
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
    return FS_OK;
}

int fs__writer_header(fs__writer *w, const void *p, size_t n)
{
    return w->slice == 0 && n > 0 ? writer_put(w, p, n) : FS_OK;
}

void fs__writer_below(fs__writer *w, uint64_t below)
{
    w->left = w->c->head > below ? w->c->head - below : 0;
}

void fs__writer_progress(fs__writer *w)
{
    if (w->c->progress)
        w->c->progress(w->c->progress_arg, FS_LINES_WRITING,
                       w->res->written, w->total);
}

/* ---------------------------------------------------------------- sizing */

/* Top-level buckets hold about 4096 records, so that each is sorted in
 * cache by one more counting pass on SUB_BITS bits. */
#define SUB_BITS 12
#define CP_EVERY 1024 /* a line offset checkpoint every CP_EVERY lines */

static unsigned prefix_bits(uint64_t n)
{
    unsigned p = 0;
    while (p < 20 && ((uint64_t)4096 << p) < n)
        p++;
    return p;
}

size_t fs__sort_overhead(uint64_t n, unsigned threads)
{
    uint64_t buckets = (uint64_t)1 << prefix_bits(n);
    if (threads < 1)
        threads = 1;
    /* the fixed buffers (sub-bucket counts, output) are not counted */
    return (size_t)(8 * n + 4 * (buckets + 1) * threads + n / 256);
}

static inline uint32_t bucket_of(uint64_t key, unsigned shift, unsigned p)
{
    if (p == 0 || shift >= 64)
        return 0;
    return (uint32_t)((key << shift) >> (64 - p));
}

static inline uint64_t low_bits(uint64_t key, unsigned s)
{
    return s >= 64 ? 0 : (key << s) >> 32;
}

/* ---------------------------------------------------------------- ties */

typedef struct tie {
    uint64_t k, idx, rec;
} tie;

static int tie_cmp(const void *a, const void *b)
{
    uint64_t x = ((const tie *)a)->k, y = ((const tie *)b)->k;
    return (x > y) - (x < y);
}

/* Orders t[0..r) by key at `level`, then groups of equal keys by the next
 * level: a lexicographic comparison of infinite random strings. */
static void order_ties(tie *t, size_t r, uint32_t level, const uint8_t *K)
{
    qsort(t, r, sizeof *t, tie_cmp);
    for (size_t a = 0; a < r;) {
        size_t e = a + 1;
        while (e < r && t[e].k == t[a].k)
            e++;
        if (e - a > 1) {
            for (size_t i = a; i < e; i++)
                t[i].k = fs_lines_key(K, t[i].idx, level + 1);
            order_ties(t + a, e - a, level + 1, K);
        }
        a = e;
    }
}

typedef struct sorter {
    const unsigned char *buf;
    size_t len;
    uint64_t n, first;
    int stored;
    unsigned shift, p;
    unsigned char delim;
    const uint8_t *K;
    uint32_t *cp;    /* plain mode: offset of line k * CP_EVERY */
    unsigned rw, ob, kb; /* record width in bytes, offset and key bits */
} sorter;

/* The record array is packed: a record is kb key bits (those below the
 * bucket prefix, kb <= 32) above ob offset bits, in rw = 6, 7 or 8 bytes
 * (fs__sort_emit takes the narrowest that keeps ties rare: the array is
 * most of the memory beyond the text).  Stores write exactly rw bytes, so
 * threads filling neighbouring ranges never touch each other's bytes. */
static inline uint64_t pack(const sorter *s, uint64_t key, size_t off)
{
    uint64_t k32 = low_bits(key, s->shift + s->p);
    return (k32 >> (32 - s->kb)) << s->ob | off;
}

static inline void put_rec(const sorter *s, unsigned char *p, uint64_t v)
{
    switch (s->rw) { /* little-endian hosts */
    case 6:
        memcpy(p, &v, 6);
        break;
    case 7:
        memcpy(p, &v, 7);
        break;
    default:
        memcpy(p, &v, 8);
        break;
    }
}

/* Loads a record (the array has 8 readable bytes past its last one) in
 * the form the sort works on: key bits at the top, the offset in the low
 * 32 bits; records with equal top 32 bits tie. */
static inline uint64_t get_rec(const sorter *s, const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    if (s->rw < 8)
        v &= ((uint64_t)1 << (8 * s->rw)) - 1;
    uint64_t k = v >> s->ob, off = v & (((uint64_t)1 << s->ob) - 1);
    return k << (64 - s->kb) | off;
}

/* Plain mode: the index of the line at offset off (only for ties). */
static uint64_t index_of(const sorter *s, size_t off)
{
    size_t lo = 0, hi = (size_t)((s->n + CP_EVERY - 1) / CP_EVERY);
    while (hi - lo > 1) { /* last checkpoint <= off */
        size_t mid = (lo + hi) / 2;
        if (s->cp[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    size_t from = s->cp[lo];
    return s->first + (uint64_t)lo * CP_EVERY +
           fs_lines_count(s->buf + from, off - from, s->delim);
}

static int resolve(const sorter *s, uint64_t *recs, size_t r)
{
    tie small[32];
    tie *t = r <= 32 ? small : malloc(r * sizeof *t);
    if (t == NULL)
        return FS_ENOMEM;
    for (size_t i = 0; i < r; i++) {
        size_t off = (size_t)(recs[i] & 0xffffffffu);
        t[i].rec = recs[i];
        if (s->stored) {
            t[i].k = fs__le64(s->buf + off);
            t[i].idx = fs__le64(s->buf + off + 8);
            if (s->stored == FS__STORED_LEN)
                t[i].idx >>= 16;
        } else {
            /* rare (about n / 2^21 times per run) */
            t[i].idx = index_of(s, off);
            t[i].k = fs_lines_key(s->K, t[i].idx, 0);
        }
    }
    order_ties(t, r, 0, s->K);
    for (size_t i = 0; i < r; i++)
        recs[i] = t[i].rec;
    if (t != small)
        free(t);
    return FS_OK;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sort_small(uint64_t *a, size_t n)
{
    if (n > 24) {
        qsort(a, n, sizeof *a, u64_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* ------------------------------------------------------------ key walks */

/* Plain mode, pass 1: the histogram needs keys only, not line positions,
 * so index ranges split across threads. */
/* Plain mode, pass 1 (histogram) needs keys only, so index ranges split
 * across threads; pass 2 (scatter) splits the same ranges, each thread
 * writing at its own positions (bucket start + counts of lower threads),
 * so the records land exactly where one thread would have put them. */
enum { JOB_HIST, JOB_SCATTER };

typedef struct job {
    const sorter *s;
    int phase;
    uint64_t from, to;   /* index range (HIST, SCATTER) */
    size_t off0;         /* stored mode: offset of record `from` */
    int down;            /* SCATTER: fill buckets from their ends down */
    uint32_t *cnt;       /* HIST: counts; SCATTER: next positions */
    unsigned char *recs;
} job;

/* Offset of line k (0-based) of buf: the byte after the k-th delimiter. */
static size_t line_offset(const unsigned char *buf, size_t len,
                          unsigned char d, uint64_t k)
{
    const uint64_t ones = 0x0101010101010101u, low7 = ones * 0x7f;
    const uint64_t pat = ones * d;
    size_t i = 0;
    if (k == 0)
        return 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, buf + i, 8);
        w ^= pat;
        uint64_t t = ~(((w & low7) + low7) | w) & (ones << 7);
        uint64_t c = ((t >> 7) * ones) >> 56;
        if (c >= k)
            break;
        k -= c;
    }
    for (; i < len; i++)
        if (buf[i] == d && --k == 0)
            return i + 1;
    return len;
}

static void hist_range(job *j)
{
    const sorter *s = j->s;
    uint64_t keys[KCHUNK];
    for (uint64_t i = j->from; i < j->to;) {
        size_t c = j->to - i < KCHUNK ? (size_t)(j->to - i) : KCHUNK;
        fs_lines_keys(s->K, s->first + i, 0, keys, c);
        for (size_t k = 0; k < c; k++)
            j->cnt[bucket_of(keys[k], s->shift, s->p)]++;
        i += c;
    }
}

static void scatter_range(job *j)
{
    const sorter *s = j->s;
    uint32_t *pos = j->cnt;
    unsigned char *recs = j->recs;
    size_t off = line_offset(s->buf, s->len, s->delim, j->from);
    uint64_t keys[KCHUNK];
    for (uint64_t i = j->from; i < j->to;) {
        size_t c = j->to - i < KCHUNK ? (size_t)(j->to - i) : KCHUNK;
        fs_lines_keys(s->K, s->first + i, 0, keys, c);
        for (size_t k = 0; k < c; k++) {
            if (((i + k) & (CP_EVERY - 1)) == 0)
                s->cp[(i + k) / CP_EVERY] = (uint32_t)off;
            uint32_t b = bucket_of(keys[k], s->shift, s->p);
            size_t slot = j->down ? --pos[b] : pos[b]++;
            put_rec(s, recs + slot * s->rw, pack(s, keys[k], off));
            const unsigned char *q =
                fs__delim(s->buf + off, s->buf + s->len, s->delim);
            off = (size_t)(q - s->buf) + 1;
        }
        i += c;
    }
}

static void scatter_stored(job *j);

static void *job_run(void *arg)
{
    job *j = arg;
    if (j->phase == JOB_HIST)
        hist_range(j);
    else if (j->s->stored)
        scatter_stored(j);
    else
        scatter_range(j);
    return NULL;
}

/* Runs fn on items[0..t) (each `size` bytes) on t <= 16 threads, this
 * one included; an item whose thread cannot be created is run here
 * afterwards instead: same result. */
static void run_threads(void *(*fn)(void *), void *items, size_t size,
                        unsigned t)
{
    unsigned char *it = items;
    pthread_t tid[16];
    int made[16] = {0};
    for (unsigned i = 1; i < t; i++)
        made[i] = pthread_create(&tid[i], NULL, fn, it + i * size) == 0;
    fn(it);
    for (unsigned i = 1; i < t; i++) {
        if (made[i])
            pthread_join(tid[i], NULL);
        else
            fn(it + i * size);
    }
}

static void run_jobs(job *jobs, unsigned t)
{
    run_threads(job_run, jobs, sizeof *jobs, t);
}

/* Stored mode (a loaded spill bucket): records start where the previous
 * one's line ends, so one thread walks them all for the histogram, noting
 * where each job's range of records starts (jobs[t].off0) and counting
 * into that job's histogram; then the jobs scatter their ranges at once. */
/* Stored mode: the offset of the record after the one at off. */
static inline size_t rec_next(const sorter *s, size_t off)
{
    if (s->stored == FS__STORED_LEN) {
        size_t l = (size_t)(fs__le64(s->buf + off + 8) & FS__LEN_LOOK);
        if (l != FS__LEN_LOOK)
            return off + FS__REC_HDR + l;
    }
    const unsigned char *q = fs__delim(s->buf + off + FS__REC_HDR,
                                       s->buf + s->len, s->delim);
    return (size_t)(q - s->buf) + 1;
}

static void histogram_stored(const sorter *s, job *jobs, unsigned threads)
{
    size_t off = 0;
    uint64_t i = 0;
    unsigned t = 0;
    jobs[0].off0 = 0;
    while (off < s->len && i < s->n) {
        while (t + 1 < threads && i == jobs[t].to)
            jobs[++t].off0 = off;
        jobs[t].cnt[bucket_of(fs__le64(s->buf + off), s->shift, s->p)]++;
        off = rec_next(s, off);
        i++;
    }
    while (t + 1 < threads) /* (only if n overstated the records) */
        jobs[++t].off0 = off;
}

static void scatter_stored(job *j)
{
    const sorter *s = j->s;
    uint32_t *pos = j->cnt;
    unsigned char *recs = j->recs;
    size_t off = j->off0;
    for (uint64_t i = j->from; i < j->to && off < s->len; i++) {
        uint64_t key = fs__le64(s->buf + off);
        uint32_t b = bucket_of(key, s->shift, s->p);
        size_t slot = j->down ? --pos[b] : pos[b]++;
        put_rec(s, recs + slot * s->rw, pack(s, key, off));
        off = rec_next(s, off);
    }
}

/* distribute() when the counts are known already (fc: by the fc->bits key
 * bits below the shift, from prehist.c or the spill intake): no counting
 * pass.  With two threads the second fills each bucket from its end down,
 * so no thread needs the other's counts; the order of records inside a
 * bucket does not matter (the bucket is sorted on key bits and offset,
 * all distinct, and ties are then ordered by their keys).  Stored mode:
 * the second thread starts at record fc->mid (offset fc->mid_off). */
static int distribute_fine(const sorter *s, unsigned threads,
                           unsigned char *recs, const fs__counts *fc,
                           uint32_t *bend, uint32_t *biggest)
{
    size_t nb = (size_t)1 << s->p;
    const uint32_t *fine = fc->fine;
    unsigned per = fc->bits - s->p; /* fine bins per bucket: 2^per */
    job jobs[2];
    memset(jobs, 0, sizeof jobs);
    int rc = FS_OK;
    for (unsigned t = 0; t < threads; t++) {
        jobs[t].s = s;
        jobs[t].phase = JOB_SCATTER;
        jobs[t].from = s->n * t / threads;
        jobs[t].to = s->n * (t + 1) / threads;
        jobs[t].recs = recs;
        jobs[t].down = t == 1;
        if (s->stored && threads == 2) { /* split where a record starts */
            jobs[t].from = t ? fc->mid : 0;
            jobs[t].to = t ? s->n : fc->mid;
            jobs[t].off0 = t ? fc->mid_off : 0;
        }
        jobs[t].cnt = malloc(nb * sizeof *jobs[t].cnt);
        if (jobs[t].cnt == NULL)
            rc = FS_ENOMEM;
    }
    if (rc == FS_OK) {
        uint32_t sum = 0;
        *biggest = 0;
        for (size_t b = 0; b < nb; b++) {
            uint32_t total = 0;
            for (size_t f = b << per; f < (b + 1) << per; f++)
                total += fine[f];
            jobs[0].cnt[b] = sum;
            sum += total;
            bend[b] = sum;
            if (threads == 2)
                jobs[1].cnt[b] = sum;
            if (total > *biggest)
                *biggest = total;
        }
        if (sum != s->n) /* cannot happen: counts of other lines */
            rc = FS_EINVAL;
        else
            run_jobs(jobs, threads);
    }
    for (unsigned t = 0; t < threads; t++)
        free(jobs[t].cnt);
    return rc;
}

/* Fills recs with every line's record, grouped by bucket; bend[b] receives
 * the end of bucket b.  *biggest: the largest bucket. */
static int distribute(const sorter *s, unsigned threads, unsigned char *recs,
                      const fs__counts *fc, uint32_t *bend, uint32_t *biggest)
{
    size_t nb = (size_t)1 << s->p;
    if (threads > 16)
        threads = 16;
    if (s->n < 65536)
        threads = 1;
    if (fc != NULL && s->p <= fc->bits && threads <= 2) {
        if (s->stored && (fc->mid_off == 0 || fc->mid >= s->n ||
                          fc->mid_off >= s->len))
            threads = 1;
        return distribute_fine(s, threads, recs, fc, bend, biggest);
    }
    job jobs[16];
    memset(jobs, 0, sizeof jobs);
    int rc = FS_OK;
    for (unsigned t = 0; t < threads; t++) {
        jobs[t].s = s;
        jobs[t].phase = JOB_HIST;
        jobs[t].from = s->n * t / threads;
        jobs[t].to = s->n * (t + 1) / threads;
        jobs[t].recs = recs;
        jobs[t].cnt = calloc(nb, sizeof *jobs[t].cnt);
        if (jobs[t].cnt == NULL)
            rc = FS_ENOMEM;
    }
    if (rc == FS_OK) {
        if (s->stored)
            histogram_stored(s, jobs, threads);
        else
            run_jobs(jobs, threads);
        /* counts -> each thread's first position in each bucket */
        uint32_t sum = 0;
        *biggest = 0;
        for (size_t b = 0; b < nb; b++) {
            uint32_t total = 0;
            for (unsigned t = 0; t < threads; t++) {
                uint32_t c = jobs[t].cnt[b];
                jobs[t].cnt[b] = sum + total;
                total += c;
            }
            sum += total;
            bend[b] = sum;
            if (total > *biggest)
                *biggest = total;
        }
        for (unsigned t = 0; t < threads; t++)
            jobs[t].phase = JOB_SCATTER;
        run_jobs(jobs, threads);
    }
    for (unsigned t = 0; t < threads; t++)
        free(jobs[t].cnt);
    return rc;
}

/* --------------------------------------------------------------- driver */

/* Sorts one top-level bucket (m packed records at rec) into tmp by the
 * next SUB_BITS bits, then each small group exactly; ties go to
 * resolve().  recs: m words of scratch. */
static int sort_bucket(const sorter *s, const unsigned char *rec, size_t m,
                       uint64_t *recs, uint64_t *tmp, uint32_t *sub)
{
    const unsigned nsub = 1u << SUB_BITS;
    memset(sub, 0, (nsub + 1) * sizeof *sub);
    for (size_t r = 0; r < m; r++) {
        recs[r] = get_rec(s, rec + r * s->rw);
        sub[(recs[r] >> (64 - SUB_BITS)) + 1]++;
    }
    for (unsigned b = 0; b < nsub; b++)
        sub[b + 1] += sub[b];
    for (size_t r = 0; r < m; r++)
        tmp[sub[recs[r] >> (64 - SUB_BITS)]++] = recs[r];
    size_t from = 0;
    for (unsigned b = 0; b < nsub; b++) {
        size_t to = sub[b];
        if (to - from > 1) {
            sort_small(tmp + from, to - from);
            for (size_t a = from; a < to;) {
                size_t e = a + 1;
                while (e < to && (tmp[e] >> 32) == (tmp[a] >> 32))
                    e++;
                if (e - a > 1) {
                    int rc = resolve(s, tmp + a, e - a);
                    if (rc != FS_OK)
                        return rc;
                }
                a = e;
            }
        }
        from = to;
    }
    return FS_OK;
}

/* ------------------------------------------------------ sort and write */

/* The buckets are sorted and their lines gathered chunk by chunk (about
 * CHUNK_LINES lines each).  Threads take chunks in order, each sorting
 * into its own scratch and gathering into its own buffer, but a chunk's
 * bytes are written only after every earlier chunk's (a turn passed under
 * a mutex): the output is one thread's output whatever the thread count.
 * The text is read at random (a cache miss per line), so lines are
 * fetched PREFETCH records ahead (with lines of 32 bytes or more on
 * average, the next 64 bytes too: such a line crosses into a second cache
 * line about half the time or more, a second miss otherwise); a line of at most 16 bytes is copied as
 * a fixed 16 bytes (the buffer has FS__OUTSLACK bytes of slack). */
#define CHUNK_LINES 32768
#define GATHER ((size_t)512 << 10)
#define PREFETCH 48

typedef struct emitter {
    const sorter *s;
    const unsigned char *recs;
    const uint32_t *bend;
    const size_t *cb;   /* chunk c: buckets [cb[c], cb[c + 1]) */
    size_t nchunks;
    size_t hdr;         /* record bytes before the line (stored mode) */
    int wide;           /* lines average 32 bytes or more: prefetch two */
    uint64_t m;         /* lines to write in all (head) */
    fs__writer *w;      /* used by the thread holding the turn only */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t claim, turn; /* next chunk to take; chunk whose bytes go next */
    int rc;             /* the first failure */
} emitter;

typedef struct gatherer {
    emitter *e;
    size_t chunk;
    int have_turn;
    uint64_t lines; /* lines in buf */
    size_t len;
    unsigned char *buf; /* GATHER + FS__OUTSLACK bytes */
    uint64_t *u, *tmp;  /* the largest bucket, unpacked and sorted */
    uint32_t *sub;
} gatherer;

static void emit_fail(emitter *e, int rc)
{
    pthread_mutex_lock(&e->mu);
    if (e->rc == FS_OK)
        e->rc = rc;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

/* Waits until every chunk before g->chunk is written (or a failure). */
static int take_turn(gatherer *g)
{
    emitter *e = g->e;
    if (g->have_turn)
        return FS_OK;
    pthread_mutex_lock(&e->mu);
    while (e->turn != g->chunk && e->rc == FS_OK)
        pthread_cond_wait(&e->cv, &e->mu);
    int rc = e->rc;
    pthread_mutex_unlock(&e->mu);
    g->have_turn = rc == FS_OK;
    return rc;
}

static void count_written(fs__writer *w, uint64_t lines)
{
    uint64_t before = w->res->written;
    w->res->written += lines;
    if ((before >> 20) != (w->res->written >> 20))
        fs__writer_progress(w);
}

/* Writes what g has gathered, in its turn. */
static int drain(gatherer *g)
{
    int rc = take_turn(g);
    if (rc == FS_OK && g->len > 0)
        rc = write_all(g->e->w, g->buf, g->len);
    if (rc == FS_OK)
        count_written(g->e->w, g->lines);
    g->len = 0;
    g->lines = 0;
    return rc;
}

/* Gathers the lines of the sorted records r[0..k). */
static int gather(gatherer *g, const uint64_t *r, size_t k)
{
    const sorter *s = g->e->s;
    const unsigned char *base = s->buf + g->e->hdr, *end = s->buf + s->len;
    /* what is read first: the line, or the length before it */
    const unsigned char *pbase = base - (s->stored == FS__STORED_LEN ? 8 : 0);
    for (size_t i = 0; i < k; i++) {
        if (i + PREFETCH < k) {
            const unsigned char *f = pbase + (r[i + PREFETCH] & 0xffffffffu);
            __builtin_prefetch(f);
            if (g->e->wide)
                __builtin_prefetch(f + 64);
        }
        const unsigned char *p = base + (r[i] & 0xffffffffu);
        size_t l = FS__LEN_LOOK;
        if (s->stored == FS__STORED_LEN) /* the length before the line */
            l = (size_t)(fs__le64(p - 8) & FS__LEN_LOOK);
        if (l == FS__LEN_LOOK)
            l = (size_t)(fs__delim(p, end, s->delim) - p) + 1;
        if (FS_UNLIKELY(g->len + l > GATHER)) {
            int rc = drain(g);
            if (rc == FS_OK && l > GATHER) { /* a long line: as it is */
                rc = write_all(g->e->w, p, l);
                if (rc == FS_OK)
                    count_written(g->e->w, 1);
                if (rc != FS_OK)
                    return rc;
                continue;
            }
            if (rc != FS_OK)
                return rc;
        }
        if (l <= 16 && end - p >= 16)
            memcpy(g->buf + g->len, p, 16);
        else
            memcpy(g->buf + g->len, p, l);
        g->len += l;
        g->lines++;
    }
    return FS_OK;
}

static int sort_bucket(const sorter *s, const unsigned char *rec, size_t m,
                       uint64_t *recs, uint64_t *tmp, uint32_t *sub);

/* Sorts the buckets of g->chunk and gathers (and, in its turn, writes)
 * their lines. */
static int chunk_run(gatherer *g)
{
    emitter *e = g->e;
    for (size_t b = e->cb[g->chunk]; b < e->cb[g->chunk + 1]; b++) {
        uint32_t from = b ? e->bend[b - 1] : 0, cnt = e->bend[b] - from;
        if (from >= e->m)
            break;
        if (cnt == 0)
            continue;
        int rc = sort_bucket(e->s, e->recs + (size_t)from * e->s->rw, cnt,
                             g->u, g->tmp, g->sub);
        if (rc == FS_OK)
            rc = gather(g, g->tmp,
                        e->m - from < cnt ? (size_t)(e->m - from) : cnt);
        if (rc != FS_OK)
            return rc;
    }
    return drain(g); /* even when empty: it passes the turn on */
}

static void *gather_run(void *arg)
{
    gatherer *g = arg;
    emitter *e = g->e;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        size_t c = e->claim++;
        int rc = e->rc;
        pthread_mutex_unlock(&e->mu);
        if (rc != FS_OK || c >= e->nchunks)
            break;
        g->chunk = c;
        g->have_turn = 0;
        if ((rc = chunk_run(g)) != FS_OK) {
            emit_fail(e, rc);
            break;
        }
        pthread_mutex_lock(&e->mu);
        e->turn = c + 1;
        pthread_cond_broadcast(&e->cv);
        pthread_mutex_unlock(&e->mu);
    }
    return NULL;
}

/* Sorts the buckets of recs and writes the first m lines, on `threads`
 * threads (a thread that cannot be created: its share is done here). */
static int sort_write(const sorter *s, unsigned threads,
                      const unsigned char *recs,
                      const uint32_t *bend, uint32_t biggest, uint64_t m,
                      fs__writer *w)
{
    size_t nb = (size_t)1 << s->p;
    if (threads > 16)
        threads = 16;
    if (s->n < 65536)
        threads = 1;
    size_t *cb = malloc((nb + 1) * sizeof *cb);
    if (cb == NULL)
        return FS_ENOMEM;
    emitter e;
    memset(&e, 0, sizeof e);
    e.s = s;
    e.recs = recs;
    e.bend = bend;
    e.cb = cb;
    e.hdr = s->stored ? FS__REC_HDR : 0;
    e.wide = s->len / s->n >= 32;
    e.m = m;
    e.w = w;
    uint32_t start = 0;
    cb[0] = 0;
    for (size_t b = 0; b < nb && start < m; b++) {
        if (bend[b] - start >= CHUNK_LINES || b + 1 == nb) {
            cb[++e.nchunks] = b + 1;
            start = bend[b];
        }
    }
    if (start < m && (e.nchunks == 0 || cb[e.nchunks] != nb))
        cb[++e.nchunks] = nb;
    pthread_mutex_init(&e.mu, NULL);
    pthread_cond_init(&e.cv, NULL);
    gatherer g[16];
    memset(g, 0, sizeof g);
    for (unsigned t = 0; t < threads; t++) {
        g[t].e = &e;
        g[t].buf = malloc(GATHER + FS__OUTSLACK);
        g[t].tmp = malloc((size_t)(biggest ? biggest : 1) * sizeof(uint64_t));
        g[t].u = malloc((size_t)(biggest ? biggest : 1) * sizeof(uint64_t));
        g[t].sub = malloc(((1u << SUB_BITS) + 1) * sizeof(uint32_t));
        if (!g[t].buf || !g[t].tmp || !g[t].u || !g[t].sub)
            e.rc = FS_ENOMEM;
    }
    /* Earlier output (header lines, earlier buckets) goes first, once
     * every buffer is allocated: a run that runs out of memory before
     * this has written nothing and may still go to disk (shuffle.c). */
    if (e.rc == FS_OK)
        e.rc = fs__writer_flush(w);
    if (e.rc == FS_OK) /* a chunk is taken by whichever thread is free */
        run_threads(gather_run, g, sizeof *g, threads);
    for (unsigned t = 0; t < threads; t++) {
        free(g[t].buf);
        free(g[t].tmp);
        free(g[t].u);
        free(g[t].sub);
    }
    pthread_cond_destroy(&e.cv);
    pthread_mutex_destroy(&e.mu);
    free(cb);
    return e.rc;
}

/* Offsets need ob bits; records tie on their kb key bits below the p
 * bucket bits with probability about n^2 / 2^(p + kb + 1), so kb >=
 * log2(n) + 11 - p keeps ties below n / 1024 (each costs a few
 * microseconds in resolve). */
static void record_width(sorter *s)
{
    unsigned ob = 1, lg = 0;
    while (ob < 32 && ((uint64_t)1 << ob) < s->len)
        ob++;
    while (lg < 63 && ((uint64_t)1 << lg) < s->n)
        lg++;
    unsigned need = lg + 11 > s->p ? lg + 11 - s->p : 0;
    if (need < 2 * SUB_BITS)
        need = 2 * SUB_BITS;
    s->ob = ob;
    for (s->rw = 6; s->rw < 8; s->rw++)
        if (8 * s->rw - ob >= need)
            break;
    s->kb = 8 * s->rw - ob < 32 ? 8 * s->rw - ob : 32;
}

int fs__sort_emit(const unsigned char *buf, size_t len, uint64_t n,
                  int stored, uint64_t first, unsigned shift,
                  const fs__counts *fine, fs__writer *w)
{
    if (n == 0 || w->left == 0)
        return FS_OK;
    sorter s = {buf, len, n, first, stored, shift, prefix_bits(n),
                w->c->delim, w->c->key, NULL, 8, 32, 32};
    record_width(&s);
    unsigned threads = w->c->threads ? w->c->threads : 1;
    size_t nb = (size_t)1 << s.p;
    uint32_t *bend = malloc((nb + 1) * sizeof *bend);
    size_t rbytes = (size_t)n * s.rw + 8; /* 8: get_rec's last load */
    unsigned char *recs = malloc(rbytes);
    int rc = FS_ENOMEM;
    if (!stored)
        s.cp = malloc((size_t)(n / CP_EVERY + 1) * sizeof *s.cp);
    if (bend == NULL || recs == NULL || (!stored && !s.cp))
        goto out;
    fs__huge(recs, rbytes);
    uint32_t biggest;
    if ((rc = distribute(&s, threads, recs, fine, bend, &biggest)) != FS_OK)
        goto out;
    uint64_t m = w->left < n ? w->left : n;
    if ((rc = sort_write(&s, threads, recs, bend, biggest, m, w)) != FS_OK)
        goto out;
    w->left -= m;
    rc = FS_OK;
out:
    free(bend);
    free(recs);
    free(s.cp);
    return rc;
}

/* --------------------------------------------------------- plain order */

int fs_lines_order(const uint8_t K[32], uint64_t n, uint64_t *order)
{
    if (n == 0)
        return FS_OK;
    if (n > SIZE_MAX / sizeof(tie))
        return FS_ENOMEM;
    tie *t = malloc((size_t)n * sizeof *t);
    if (t == NULL)
        return FS_ENOMEM;
    uint64_t keys[KCHUNK];
    for (uint64_t i = 0; i < n;) {
        size_t c = n - i < KCHUNK ? (size_t)(n - i) : KCHUNK;
        fs_lines_keys(K, i, 0, keys, c);
        for (size_t k = 0; k < c; k++) {
            t[i + k].k = keys[k];
            t[i + k].idx = i + k;
        }
        i += c;
    }
    order_ties(t, (size_t)n, 0, K);
    for (uint64_t i = 0; i < n; i++)
        order[i] = t[i].idx;
    free(t);
    return FS_OK;
}
