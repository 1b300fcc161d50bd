/* passes.c -- a large regular file shuffled in memory without holding its
 * text: the keyed order is written window by window.
 *
 * The key space is cut into NWIN equal windows (the key's top WIN_BITS
 * bits).  Pass p reads the whole file with pread, from the position fd had,
 * and keeps the lines whose key lies in window p as records
 * [key][index][line] (the spill format) in 2^sub sub-buckets by the next
 * key bits, chained in blocks of one arena that every pass reuses.  The
 * sub-buckets are then taken in key order, each copied contiguous and
 * sorted by fs__sort_emit: the same total key order as in memory and out of
 * core, so the same bytes.  A sub-bucket is a few MiB, so its sort and its
 * gather stay in cache (the in-memory path reads a line of the whole text
 * at random for every line it writes), and the memory is one window's
 * records -- half the file plus 16 bytes a line -- instead of the text.
 *
 * The file is read NWIN times, so every pass reads exactly the bytes the
 * first one measured (a file that grows meanwhile keeps its old part out
 * of the shuffle) and must find each window as the first pass counted it;
 * a file that shrank or whose lines moved fails with FS_EIO at
 * FS_LINES_INPUT_CHANGED.  Output that is the input file itself (`>>`)
 * makes the caller read it once instead (FS__PASSES_DECLINED, before any
 * output). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "io.h"

#define WIN_BITS 1
#define NWIN (1u << WIN_BITS)
#define MAX_SUB 12                     /* at most 2^12 sub-buckets a window */
#define SUB_BYTES ((uint64_t)4 << 20)  /* a sub-bucket's target size */
#define BLK ((size_t)64 << 10)         /* arena block, header included */
#define BLK_HDR 16                     /* next block (8), bytes used (4) */
#define CHUNK ((size_t)4 << 20)        /* one pread */
#define SAMPLE ((size_t)1 << 20)       /* what the plan looks at */
#define MIN_LINE 64                    /* shorter average lines: in memory */
#define LONG_LINE 0xffff               /* a length not noted */

size_t fs__passes_min = (size_t)256 << 20;

typedef struct sub {
    uint64_t head, tail; /* arena offsets of the first and last block */
    uint64_t bytes, recs;
    uint32_t used;       /* bytes of records in the tail block */
} sub;

typedef struct passes {
    int fd;
    fs__writer *w;
    const fs_lines_config *c;
    off_t start;
    uint64_t size;         /* bytes every pass reads */
    unsigned sub_bits;     /* sub-buckets of a window: 2^sub_bits */
    size_t limit;          /* what the arena may take */
    unsigned char *arena;  /* anonymous mapping, reserved and grown */
    size_t acap, aused;
    sub *subs;             /* of the window being kept */
    uint64_t *hist;        /* bytes of every (window, sub-bucket) */
    uint64_t *hrecs;       /* records of every (window, sub-bucket) */
    int counting;          /* pass 0: hist, hrecs and lens are made */
    uint16_t *lens;        /* every line's length (LONG_LINE: look) */
    size_t nlens, lcap, seen;
    uint64_t lines;        /* shuffled lines, as pass 0 counted them */
    unsigned char *buf;    /* CHUNK + carry + 1 */
    size_t cap;
    fs__intake in;
} passes;

/* Memory of a run: the largest window's records (win bytes, with a
 * block of slack per sub-bucket), the line lengths, the largest
 * sub-bucket's copy (big bytes, recs records) and its sort, the read
 * buffer. */
static uint64_t footprint(uint64_t win, unsigned sb, uint64_t lines,
                          uint64_t big, uint64_t recs)
{
    return win + ((uint64_t)BLK << sb) + 2 * lines + big +
           fs__sort_overhead(recs, 1) + 2 * CHUNK;
}

/* Whether fd is a regular file worth reading twice: at least
 * fs__passes_min bytes from its position, lines of MIN_LINE bytes or more
 * on average in its first MiB, and a window's records within limit. */
int fs__passes_plan(int fd, const fs_lines_config *c, size_t limit,
                    fs__passes_plan_t *pl)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    off_t start = lseek(fd, 0, SEEK_CUR);
    if (start < 0 || st.st_size <= start ||
        (uint64_t)(st.st_size - start) < fs__passes_min ||
        c->header > 0xffffffffu)
        return 0;
    uint64_t size = (uint64_t)(st.st_size - start);
    unsigned char *s = malloc(SAMPLE);
    size_t got = 0;
    if (s == NULL ||
        fs__pread_full(fd, s, size < SAMPLE ? (size_t)size : SAMPLE, start,
                       &got) != FS_OK ||
        got == 0) {
        free(s);
        return 0;
    }
    uint64_t d = fs_lines_count(s, got, c->delim);
    free(s);
    if (got / (d ? d : 1) < MIN_LINE)
        return 0;
    uint64_t lines = size / (got / (d ? d : 1)) + 1;
    uint64_t win = (size + FS__REC_HDR * lines) / NWIN;
    unsigned sb = 0;
    while (sb < MAX_SUB && (win >> sb) > SUB_BYTES)
        sb++;
    /* the estimate with slack: a sixteenth more, sub-buckets twice even */
    if (footprint(win + win / 16, sb, lines, 2 * (win >> sb),
                  2 * (lines >> sb)) > limit)
        return 0;
    pl->start = start;
    pl->size = size;
    pl->sub_bits = sb;
    pl->reserve = (size_t)(win + win / 4 + ((uint64_t)BLK << sb));
    return 1;
}

static int input_error(passes *P, int e)
{
    P->w->res->where = FS_LINES_INPUT;
    P->w->res->err = e;
    return FS_EIO;
}

static int changed(passes *P)
{
    P->w->res->where = FS_LINES_INPUT_CHANGED;
    P->w->res->err = 0;
    return FS_EIO;
}

/* n more bytes of arena, 16-aligned; their offset in *off. */
static int arena_take(passes *P, size_t n, uint64_t *off)
{
    n = (n + 15) & ~(size_t)15;
    if (P->acap - P->aused < n) {
        size_t ncap = P->acap * 2 < P->limit ? P->acap * 2 : P->limit;
        if (ncap < P->aused + n)
            return FS_ENOMEM;
        void *na = mremap(P->arena, P->acap, ncap, MREMAP_MAYMOVE);
        if (na == MAP_FAILED)
            return FS_ENOMEM;
        P->arena = na;
        P->acap = ncap;
    }
    *off = P->aused;
    P->aused += n;
    return FS_OK;
}

/* Appends the record [key][idx][line] to sub-bucket s.  A block's bytes
 * used are kept in s while it is the tail, and written to its header when
 * it is closed (or by close_tails, before the window is emitted). */
static int keep(passes *P, sub *s, uint64_t key, uint64_t idx,
                const unsigned char *line, size_t l)
{
    size_t need = FS__REC_HDR + l;
    if (s->recs == 0 || s->used + need > BLK - BLK_HDR) {
        uint64_t off;
        size_t bsize = need > BLK - BLK_HDR ? BLK_HDR + need : BLK;
        int rc = arena_take(P, bsize, &off);
        if (rc != FS_OK)
            return rc;
        memset(P->arena + off, 0, BLK_HDR); /* no next, nothing used */
        if (s->recs == 0)
            s->head = off;
        else {
            memcpy(P->arena + s->tail, &off, 8);
            memcpy(P->arena + s->tail + 8, &s->used, 4);
        }
        s->tail = off;
        s->used = 0;
    }
    unsigned char *r = P->arena + s->tail + BLK_HDR + s->used;
    memcpy(r, &key, 8);
    memcpy(r + 8, &idx, 8);
    memcpy(r + FS__REC_HDR, line, l);
    s->used += (uint32_t)need;
    s->bytes += need;
    s->recs++;
    return FS_OK;
}

/* Writes the tail blocks' bytes used to their headers. */
static void close_tails(passes *P)
{
    size_t n = (size_t)1 << P->sub_bits;
    for (size_t s = 0; s < n; s++)
        if (P->subs[s].recs > 0)
            memcpy(P->arena + P->subs[s].tail + 8, &P->subs[s].used, 4);
}

/* Room for more line lengths (half as many again). */
static int grow_lens(passes *P)
{
    size_t cap = P->lcap + P->lcap / 2 + 1024;
    uint16_t *nl = realloc(P->lens, cap * sizeof *nl);
    if (nl == NULL)
        return FS_ENOMEM;
    P->lens = nl;
    P->lcap = cap;
    return FS_OK;
}

/* Takes the complete lines of p[0..end) for window win; pass 0 also
 * counts every window's sub-buckets. */
static int take(passes *P, unsigned win, const unsigned char *p,
                const unsigned char *end)
{
    unsigned char d = P->c->delim;
    unsigned sb = P->sub_bits, all = WIN_BITS + sb;
    while (p < end) {
        size_t l;
        if (P->counting) { /* pass 0 finds the lines and notes their lengths */
            l = (size_t)(fs__delim(p, end, d) - p) + 1;
            if (P->nlens == P->lcap && grow_lens(P) != FS_OK)
                return FS_ENOMEM;
            P->lens[P->nlens++] = l < LONG_LINE ? (uint16_t)l : LONG_LINE;
            P->seen++;
        } else { /* the later passes walk them, checking each delimiter */
            if (P->seen == P->nlens)
                return changed(P);
            l = P->lens[P->seen++];
            if (l == LONG_LINE)
                l = (size_t)(fs__delim(p, end, d) - p) + 1;
            if (l > (size_t)(end - p) || p[l - 1] != d)
                return changed(P);
        }
        uint64_t key, idx;
        int rc = fs__intake_line(&P->in, p, l, &key, &idx);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            if (P->counting) {
                size_t h = (size_t)(key >> (64 - all));
                P->hist[h] += FS__REC_HDR + l;
                P->hrecs[h]++;
            }
            if ((key >> (64 - WIN_BITS)) == win) {
                size_t s = sb ? (size_t)((key << WIN_BITS) >> (64 - sb)) : 0;
                if ((rc = keep(P, &P->subs[s], key, idx, p, l)) != FS_OK)
                    return rc;
            }
        }
        p += l;
    }
    return FS_OK;
}

/* One pass: reads the file and keeps window win's records. */
static int pass(passes *P, unsigned win)
{
    const fs_lines_config *c = P->c;
    P->aused = 0;
    memset(P->subs, 0, sizeof *P->subs << P->sub_bits);
    P->in.next = 0;
    P->in.header_left = c->header;
    P->in.hdr_len = 0;
    P->in.kpos = P->in.kend = 0;
    P->seen = 0;
    uint64_t pos = 0;
    size_t len = 0;
    while (pos < P->size) {
        if (len == P->cap - 1) {
            size_t cap = P->cap - 1;
            if (fs__grow_buf(&P->buf, &cap) != FS_OK)
                return FS_ENOMEM;
            P->cap = cap; /* the buffer was CHUNK + 1: one byte spare */
        }
        size_t want = P->cap - 1 - len, got;
        if (want > P->size - pos)
            want = (size_t)(P->size - pos);
        if (fs__pread_full(P->fd, P->buf + len, want,
                           P->start + (off_t)pos, &got) != FS_OK)
            return input_error(P, errno);
        if (got < want) /* shorter than at the start */
            return changed(P);
        pos += got;
        len += got;
        if (pos == P->size && P->buf[len - 1] != c->delim)
            P->buf[len++] = c->delim; /* a last line without delimiter */
        const unsigned char *e = memrchr(P->buf, c->delim, len);
        size_t used = e ? (size_t)(e - P->buf) + 1 : 0;
        int rc = take(P, win, P->buf, P->buf + used);
        if (rc != FS_OK)
            return rc;
        memmove(P->buf, P->buf + used, len - used);
        len -= used;
        if (win == 0 && c->progress)
            c->progress(c->progress_arg, FS_LINES_READING, pos, 0);
    }
    return FS_OK;
}

/* Whether window win holds what pass 0 counted in it (a file read again
 * must give the same lines). */
static int as_counted(const passes *P, unsigned win)
{
    size_t n = (size_t)1 << P->sub_bits;
    for (size_t s = 0; s < n; s++)
        if (P->subs[s].bytes != P->hist[win * n + s] ||
            P->subs[s].recs != P->hrecs[win * n + s])
            return 0;
    return P->in.next == P->lines && P->seen == P->nlens;
}

/* Sorts and writes window win's sub-buckets in key order. */
static int emit(passes *P, unsigned char **scr, size_t *scap)
{
    size_t n = (size_t)1 << P->sub_bits;
    for (size_t s = 0; s < n && P->w->left > 0; s++) {
        const sub *b = &P->subs[s];
        if (b->recs == 0)
            continue;
        int rc = fs__reserve(scr, scap, (size_t)b->bytes);
        if (rc != FS_OK)
            return rc;
        size_t len = 0;
        for (uint64_t off = b->head;;) {
            uint64_t next;
            uint32_t used;
            memcpy(&next, P->arena + off, 8);
            memcpy(&used, P->arena + off + 8, 4);
            memcpy(*scr + len, P->arena + off + BLK_HDR, used);
            len += used;
            if (off == b->tail)
                break;
            off = next;
        }
        rc = fs__sort_emit(*scr, len, b->recs, 1, 0, WIN_BITS + P->sub_bits,
                           NULL, P->w);
        if (rc != FS_OK)
            return rc;
    }
    return FS_OK;
}

/* Whether fd and the output are the same file. */
static int output_is_input(const passes *P)
{
    struct stat a, b;
    return fstat(P->fd, &a) == 0 && fstat(P->w->fd, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int run(passes *P)
{
    size_t nsub = (size_t)1 << P->sub_bits;
    unsigned char *scr = NULL;
    size_t scap = 0;
    int rc = FS_OK;
    for (unsigned win = 0; win < NWIN && rc == FS_OK && P->w->left > 0;
         win++) {
        P->counting = win == 0;
        if ((rc = pass(P, win)) != FS_OK) {
            if (win == 0 && rc == FS_ENOMEM) /* nothing written yet */
                return FS__PASSES_DECLINED;
            break;
        }
        if (win == 0) {
            P->lines = P->in.next;
            /* a window too large for the budget, or a sub-bucket past
             * 32-bit offsets: the file is read the usual way instead */
            uint64_t most = 0, big = 0, recs = 0;
            for (unsigned v = 0; v < NWIN; v++) {
                uint64_t t = 0;
                for (size_t s = 0; s < nsub; s++) {
                    uint64_t b = P->hist[v * nsub + s];
                    t += b;
                    if (b > big)
                        big = b, recs = P->hrecs[v * nsub + s];
                }
                most = t > most ? t : most;
            }
            if (big >= 0xfff00000u ||
                footprint(most, P->sub_bits, P->lines, big, recs) > P->limit)
                return FS__PASSES_DECLINED;
            if ((rc = fs__writer_open(P->w)) != FS_OK)
                break;
            if (output_is_input(P))
                return FS__PASSES_DECLINED;
            P->w->res->lines = P->lines;
            P->w->total = P->w->left < P->lines ? P->w->left : P->lines;
            if (P->in.hdr_len &&
                (rc = fs__writer_put(P->w, P->in.hdr, P->in.hdr_len)) != FS_OK)
                break;
        }
        close_tails(P);
        if (!as_counted(P, win)) {
            rc = changed(P);
            break;
        }
        rc = emit(P, &scr, &scap);
    }
    free(scr);
    return rc;
}

int fs__passes_run(int fd, const fs__passes_plan_t *pl, size_t limit,
                   fs__writer *w)
{
    passes P;
    memset(&P, 0, sizeof P);
    P.fd = fd;
    P.w = w;
    P.c = w->c;
    P.start = pl->start;
    P.size = pl->size;
    P.sub_bits = pl->sub_bits;
    P.limit = limit;
    P.in.key = w->c->key;
    size_t nsub = (size_t)1 << P.sub_bits;
    P.acap = pl->reserve;
    P.arena = mmap(NULL, P.acap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    P.subs = malloc(nsub * sizeof *P.subs);
    P.hist = calloc(NWIN * nsub, sizeof *P.hist);
    P.hrecs = calloc(NWIN * nsub, sizeof *P.hrecs);
    P.cap = CHUNK + 1;
    P.buf = malloc(P.cap);
    int rc = FS_ENOMEM;
    if (P.arena != MAP_FAILED && P.subs && P.hist && P.hrecs && P.buf)
        rc = run(&P);
    if (P.arena != MAP_FAILED)
        munmap(P.arena, P.acap);
    free(P.subs);
    free(P.hist);
    free(P.hrecs);
    free(P.buf);
    free(P.lens);
    free(P.in.hdr);
    /* as a read would leave it: at the end of what was shuffled */
    if (rc == FS_OK)
        (void)lseek(fd, P.start + (off_t)P.size, SEEK_SET);
    return rc;
}
