/* passes.c -- a large regular file shuffled in memory without holding its
 * text: the keyed order is written window by window.
 *
 * The key space is cut into NWIN equal windows (the key's top WIN_BITS bits).
 * Pass p reads the whole file with pread, from the position fd had, and keeps
 * the lines whose key lies in window p as records [key][index << 16 |
 * length][line] (FS__STORED_LEN: the spill format with each line's length, so
 * the sorter never looks for a line's end) in 2^sub sub-buckets by the next key
 * bits, in one arena that every pass reuses.  The first pass chains them in
 * blocks and notes every line's length and key and each sub-bucket's bytes;
 * a later pass walks those lengths and keys (no delimiter search, no
 * ChaCha20) and puts each record straight into its sub-bucket's place,
 * known from the first pass's counts.  The sub-buckets are then taken in key
 * order (the first pass's copied contiguous first) and sorted by
 * fs__sort_emit: the same total key order as in memory and out of core, so the
 * same bytes.  A sub-bucket is a few MiB, so its sort and its gather stay in
 * cache (the in-memory path reads a line of the whole text at random for every
 * line it writes), and the memory is one window's records -- a quarter of the
 * file plus 16 bytes a line -- instead of the text.  Four windows, not two: on
 * a VM where a fresh page costs a page fault the hypervisor sees, two more
 * reads cost less than the pages of the larger window (docs/performance.md,
 * "Lines": the 1 GB file 1.8-2.1 s with two windows, 1.4-1.5 s with four,
 * 2.5 s with eight).
 *
 * The file is read NWIN times, so every pass reads exactly the bytes the
 * first one measured (a file that grows meanwhile keeps its old part out
 * of the shuffle) and must find each window as the first pass counted it;
 * a file that shrank or whose lines moved fails with FS_EIO at
 * FS_LINES_INPUT_CHANGED, and so does one whose modification time moved
 * while its size did not (an edit that keeps every line end in place).
 * A file that grew is taken as appended to: its time is not compared.
 * Output that is the input file itself (`>>`) makes the caller read it
 * once instead (FS__PASSES_DECLINED, before any output).
 *
 * A slice of fs_lines_shuffle_slice keeps only its keys [lo, hi] (the
 * intake drops the others, counting those below it): its part of the key
 * space is cut into whole cells (a sub-bucket is a cell, the keys' top
 * WIN_BITS + sub_bits bits) and ceil(NWIN / slices) windows -- one below
 * fs__passes_min -- so a window never holds more than a quarter of the key
 * space.  A cell cut by the slice's bounds holds the slice's keys only, in
 * the first read's counts too, so each window is still checked against
 * them.
 *
 * With two threads or more a read runs in two lanes (lanes.h, as the
 * spill intake does).  Each lane has its own sub-bucket chains (a sub-bucket is
 * sorted, so the order of its records does not matter) and takes its
 * blocks from the one arena, reserved at the budget, by an atomic add. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../advise.h"
#include "engine.h"
#include "io.h"
#include "lanes.h"

#define WIN_BITS 2
#define NWIN (1u << WIN_BITS)
#define MAX_SUB 12                     /* at most 2^12 sub-buckets a window */
#define SUB_BYTES ((uint64_t)4 << 20)  /* a sub-bucket's target size */
#define BLK ((size_t)64 << 10)         /* arena block, header included */
#define BLK_HDR 16                     /* next block (8), bytes used (4) */
#define CHUNK ((size_t)4 << 20)        /* one pread */
#define SAMPLE ((size_t)1 << 20)       /* what the plan looks at */
#define MIN_LINE 64                    /* shorter average lines: in memory */
#define LONG_LINE 0xffff               /* a length not noted */
#define CHANGED (-1000)                /* a lane's "the file changed" */
#define FINE_CELLS 16 /* at most 2^16 fine counts a lane (256 KiB) */
#define FINE_MAX 8    /* key bits counted below a sub-bucket's prefix */

size_t fs__passes_min = (size_t)256 << 20;
_Atomic uint64_t fs__passes_rekeyed;

/* A sub-bucket's records in a lane.  The first read chains them in
 * blocks (head, tail, used); a later read knows from the first how many
 * bytes each lane keeps in each sub-bucket, so they go to one contiguous
 * part of the arena (head, room): the two lanes' parts of a sub-bucket
 * side by side, sorted where they are. */
typedef struct sub {
    uint64_t head, tail; /* arena offsets of the first and last block */
    uint64_t bytes, recs;
    uint32_t used;       /* bytes of records in the tail block */
    uint64_t room;       /* a later read: the part's size */
} sub;

/* A chunk of the first read as its two lanes took it: bytes, where the
 * helper's part began (0: one lane), lines before it.  A later read that
 * meets the same chunk gives the helper that count instead of letting it
 * count the first part's lines again (1.3 of 3.7 billion instructions on
 * a 300 MB file of 108-byte lines, half the counting walks being redone). */
typedef struct cut {
    size_t used, mid;
    uint64_t before;
} cut;

struct passes;

/* A lane of a read: the lines it takes go to its own chains. */
typedef struct lane {
    struct passes *P;
    fs__intake in;   /* line numbers and keys (the first lane: the header) */
    sub *subs;       /* 2^sub_bits chains of the window being kept */
    uint32_t *fine;  /* per sub-bucket, 2^fine_bits counts of the kept
                      * records by their next key bits (fs__counts: the
                      * sorter then needs no counting walk) */
    uint64_t *hist;  /* bytes of every (window, sub-bucket), first read */
    uint64_t *hrecs; /* records of the same */
    size_t seen;     /* the next line's number, header included */
    int keys_lost;   /* the first read met a line past kcap */
} lane;

/* The second lane: its lines follow `before` lines from next and seen. */
typedef struct helper {
    lane ln;
    fs__lanes lanes;
    uint64_t next; /* the first lane's, at the chunk's start */
    size_t seen;
} helper;

typedef struct passes {
    int fd;
    fs__writer *w;
    const fs_lines_config *c;
    off_t start;
    uint64_t size;         /* bytes every pass reads */
    struct timespec mtime; /* the file's modification time before the reads */
    unsigned sub_bits;     /* sub-buckets of a whole-file window: 2^sub_bits */
    unsigned cbits;        /* a sub-bucket is a cell: keys' top cbits bits */
    size_t c0, ncell;      /* the slice's cells: [c0, c0 + ncell) */
    unsigned npass;        /* reads: the slice's cells cut in npass windows */
    size_t span;           /* the most cells a window has */
    size_t ca, cb;         /* the cells of the window being kept */
    unsigned fine_bits;    /* the key bits each lane's fine counts */
    size_t limit;          /* the budget */
    unsigned char *arena;  /* anonymous mapping of acap bytes, reserved */
    size_t acap;
    _Atomic size_t aused;
    int counting;          /* the first read: hist, hrecs and lens made */
    uint16_t *lens;        /* every line's length (LONG_LINE: look) */
    size_t nlens, lcap;
    uint64_t *keys;        /* every shuffled line's key by index, noted
                            * by the first read so that the later ones
                            * need not compute them (room for kcap; NULL
                            * when they do not fit) */
    size_t kcap;
    uint64_t lines;        /* shuffled lines, as the first read counted */
    unsigned char *buf;    /* what a pread fills: cap bytes */
    size_t cap;
    cut *cuts;             /* the first read's chunks, in order */
    size_t ncuts, ccap;
    size_t chunk;          /* this read's next chunk */
    int two_lanes;         /* the first read ran in two lanes */
    lane ln;               /* the first lane */
    helper h;              /* the second, when running */
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

/* The room kept for the first read's keys, for `lines` lines expected:
 * 8 bytes a line for half as many lines again (past it, the first read
 * stops keeping them: the later reads compute them again). */
static uint64_t keys_room(uint64_t lines)
{
    return lines + lines / 2 + 1024;
}
/* The windows of a slice of `slices` of a file of `size` bytes: its
 * share of the NWIN quarters of the key space, so that a window holds at
 * most a quarter of a large file (a slice of 2 is read twice, of 4 once);
 * one, below fs__passes_min, where the file would be held whole (a
 * slice's records are less than the text and its sort's arrays). */
static unsigned passes_of(unsigned slices, uint64_t size)
{
    return size < fs__passes_min ? 1 : (NWIN + slices - 1) / slices;
}

/* Whether fd is a regular file worth reading more than once: at least
 * fs__passes_min bytes from its position, lines of MIN_LINE bytes or more
 * on average in its first MiB, and a window's records within limit.  A
 * slice of 2 or more: at least fs__passes_min / (NWIN slices) bytes, any
 * lines (it would otherwise hold the whole text to keep a part of it). */
int fs__passes_plan(int fd, const fs_lines_config *c, unsigned slices,
                    size_t limit, fs__passes_plan_t *pl)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    off_t start = lseek(fd, 0, SEEK_CUR);
    uint64_t min = slices == 1 ? fs__passes_min
                               : fs__passes_min / NWIN / slices;
    if (start < 0 || st.st_size <= start ||
        (uint64_t)(st.st_size - start) < min ||
        (uint64_t)(st.st_size - start) >> 48 != 0 || /* indexes < 2^48 */
        c->header > 0xffffffffu) /* a header every read would keep whole */
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
    if (slices == 1 && got / (d ? d : 1) < MIN_LINE)
        return 0;
    uint64_t lines = size / (got / (d ? d : 1)) + 1;
    uint64_t win = (size + FS__REC_HDR * lines) / NWIN;
    unsigned sb = 0;
    while (sb < MAX_SUB && (win >> sb) > SUB_BYTES)
        sb++;
    /* a slice's window (the same sub-buckets: they hold given keys) */
    uint64_t mine = win * NWIN / slices / passes_of(slices, size);
    /* the estimate with slack: a sixteenth more, sub-buckets twice even */
    uint64_t need = footprint(mine + mine / 16, sb, lines, 2 * (win >> sb),
                              2 * (lines >> sb));
    if (need > limit)
        return 0;
    /* the keys too, if their room fits as well */
    pl->keys = need + 8 * keys_room(lines) <= limit;
    pl->lines = lines;
    pl->start = start;
    pl->size = size;
    pl->sub_bits = sb;
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

/* After a read: a file of the size measured must have the modification
 * time seen before the first read, or it was edited in place.  One that
 * grew is taken as appended to; one that shrank is left to the reads
 * (the next is short; after the last, nothing more is read).  File times
 * come from a coarse clock (a tick of a few ms): an edit in the same tick
 * as the file's last write before the run keeps its time, and is not seen
 * here -- the line ends still are, by the reads. */
static int unchanged(passes *P)
{
    struct stat st;
    if (fstat(P->fd, &st) != 0)
        return input_error(P, errno);
    if (st.st_size != P->start + (off_t)P->size)
        return FS_OK;
    if (st.st_mtim.tv_sec != P->mtime.tv_sec ||
        st.st_mtim.tv_nsec != P->mtime.tv_nsec)
        return changed(P);
    return FS_OK;
}

/* n more bytes of arena (16-aligned), from either lane; *off: where. */
static int arena_take(passes *P, size_t n, uint64_t *off)
{
    n = (n + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add_explicit(&P->aused, n, memory_order_relaxed);
    if (at > P->acap || P->acap - at < n)
        return FS_ENOMEM; /* past the budget: every later take fails too */
    *off = at;
    return FS_OK;
}

/* Appends the record [key][idx][line] to chain s.  A block's bytes used
 * are kept in s while it is the tail, and written to its header when it
 * is closed (or by close_tails, before the window is emitted). */
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
    uint64_t il = idx << 16 | (l < FS__LEN_LOOK ? l : FS__LEN_LOOK);
    memcpy(r, &key, 8);
    memcpy(r + 8, &il, 8); /* FS__STORED_LEN */
    memcpy(r + FS__REC_HDR, line, l);
    s->used += (uint32_t)need;
    s->bytes += need;
    s->recs++;
    return FS_OK;
}

/* Room for the lengths of up to `more` more lines after line `from`. */
static int lens_room(passes *P, size_t from, size_t more)
{
    if (P->lcap - from >= more)
        return FS_OK;
    size_t cap = P->lcap + P->lcap / 2;
    if (cap < from + more)
        cap = from + more;
    uint16_t *nl = realloc(P->lens, cap * sizeof *nl);
    if (nl == NULL)
        return FS_ENOMEM;
    P->lens = nl;
    P->lcap = cap;
    return FS_OK;
}

/* A later read's lines after the header, p[0..end): each line's length
 * and key as the first read noted them (the keys computed again if they
 * were not kept), its record into its sub-bucket's part of the arena.
 * A line that does not end where it ended, or a part that overflows,
 * means the file changed.  (Lines outside a slice are not counted: only
 * the first read's counts are used.) */
static int take_later(lane *L, const unsigned char *p,
                      const unsigned char *end)
{
    passes *P = L->P;
    const unsigned char d = P->c->delim;
    const unsigned all = P->cbits, fb = P->fine_bits;
    const size_t ca = P->ca, width = P->cb - P->ca, nlens = P->nlens;
    const uint16_t *lens = P->lens;
    const uint64_t *keys = P->keys, lo = L->in.lo, hi = L->in.hi;
    unsigned char *arena = P->arena;
    uint32_t *fine = L->fine;
    sub *subs = L->subs;
    size_t seen = L->seen;
    uint64_t next = L->in.next;
    int rc = FS_OK;
    while (p < end) {
        if (seen >= nlens) {
            rc = CHANGED;
            break;
        }
        size_t l = lens[seen++];
        if (l == LONG_LINE) /* (the chunk ends with a delimiter) */
            l = (size_t)(fs__delim(p, end, d) - p) + 1;
        if (l > (size_t)(end - p) || p[l - 1] != d) {
            rc = CHANGED;
            break;
        }
        uint64_t key;
        if (keys != NULL) {
            key = keys[next];
        } else {
            if (L->in.kpos == L->in.kend) {
                fs_lines_keys(L->in.key, next, 0, L->in.keys, 512);
                atomic_fetch_add_explicit(&fs__passes_rekeyed, 512,
                                          memory_order_relaxed);
                L->in.kpos = 0;
                L->in.kend = 512;
            }
            key = L->in.keys[L->in.kpos++];
        }
        size_t s = (size_t)(key >> (64 - all)) - ca; /* (unsigned: wraps) */
        if (s < width && key >= lo && key <= hi) {
            sub *b = &subs[s];
            size_t need = FS__REC_HDR + l;
            if (need > b->room - b->bytes) {
                rc = CHANGED;
                break;
            }
            unsigned char *r = arena + b->head + b->bytes;
            uint64_t il = next << 16 | (l < FS__LEN_LOOK ? l : FS__LEN_LOOK);
            memcpy(r, &key, 8);
            memcpy(r + 8, &il, 8); /* FS__STORED_LEN */
            memcpy(r + FS__REC_HDR, p, l);
            b->bytes += need;
            b->recs++;
            fine[s << fb | (size_t)((key << all) >> (64 - fb))]++;
        }
        next++;
        p += l;
    }
    L->seen = seen;
    L->in.next = next;
    return rc;
}

/* Takes the complete lines of p[0..end) for the window's cells into lane
 * L; the first read also counts every cell of the slice, notes each
 * line's length (the room for them is made before: at most a line a
 * byte) and key (if kept).  A later read takes its header lines here,
 * the rest in take_later. */
static int take(lane *L, const unsigned char *p, const unsigned char *end)
{
    passes *P = L->P;
    unsigned char d = P->c->delim;
    unsigned all = P->cbits;
    const size_t ca = P->ca, width = P->cb - P->ca; /* the window's cells */
    while (p < end) {
        if (!P->counting && L->in.header_left == 0)
            return take_later(L, p, end);
        size_t l;
        if (P->counting) { /* the first read finds the lines */
            l = (size_t)(fs__delim(p, end, d) - p) + 1;
            P->lens[L->seen++] = l < LONG_LINE ? (uint16_t)l : LONG_LINE;
        } else { /* the later ones walk them, checking each delimiter */
            if (L->seen >= P->nlens)
                return CHANGED;
            l = P->lens[L->seen++];
            if (l == LONG_LINE)
                l = (size_t)(fs__delim(p, end, d) - p) + 1;
            if (l > (size_t)(end - p) || p[l - 1] != d)
                return CHANGED;
        }
        uint64_t key, idx;
        int rc = fs__intake_line(&L->in, p, l, &key, &idx);
        if (rc < 0)
            return rc;
        if (rc != 1 && P->keys != NULL) { /* the first read */
            if (idx < P->kcap)
                P->keys[idx] = key;
            else
                L->keys_lost = 1;
        }
        if (rc == 0) {
            size_t cell = (size_t)(key >> (64 - all));
            if (P->counting) {
                L->hist[cell] += FS__REC_HDR + l;
                L->hrecs[cell]++;
            }
            if (cell - ca < width) { /* (unsigned: cells below ca wrap) */
                size_t s = cell - ca;
                L->fine[s << P->fine_bits |
                        (size_t)((key << all) >> (64 - P->fine_bits))]++;
                if ((rc = keep(P, &L->subs[s], key, idx, p, l)) != FS_OK)
                    return rc;
            }
        }
        p += l;
    }
    return FS_OK;
}

static int helper_take(void *arg, uint64_t before, const unsigned char *p,
                       const unsigned char *end)
{
    helper *h = arg;
    h->ln.in.next = h->next + before;
    h->ln.in.kpos = h->ln.in.kend = 0;
    h->ln.seen = h->seen + (size_t)before;
    return take(&h->ln, p, end);
}

/* Takes the complete lines of buf[0..used): in two lanes when the helper
 * runs, the header is behind and the chunk is large enough. */
/* The first read notes chunk k (no room: later reads count). */
static void note_cut(passes *P, size_t k, size_t used, size_t mid,
                     uint64_t before)
{
    if (k != P->ncuts)
        return;
    if (P->ncuts == P->ccap) {
        size_t n = P->ccap ? 2 * P->ccap : 256;
        cut *c = realloc(P->cuts, n * sizeof *c);
        if (c == NULL)
            return;
        P->cuts = c;
        P->ccap = n;
    }
    P->cuts[P->ncuts++] = (cut){used, mid, before};
}

static int feed(passes *P, const unsigned char *buf, size_t used)
{
    lane *L = &P->ln;
    helper *h = &P->h;
    const unsigned char *end = buf + used,
                        *mid = L->in.header_left == 0
                                   ? fs__lanes_cut(&h->lanes, buf, used)
                                   : NULL;
    size_t k = P->chunk++;
    if (mid == NULL) {
        if (P->counting)
            note_cut(P, k, used, 0, 0);
        return take(L, buf, end);
    }
    h->next = L->in.next;
    h->seen = L->seen;
    /* the first read's chunk k again: its lines before the cut are known */
    const cut *kc = !P->counting && k < P->ncuts ? &P->cuts[k] : NULL;
    int known = kc && kc->used == used && kc->mid == (size_t)(mid - buf);
    if (known)
        fs__lanes_give_known(&h->lanes, buf, mid, end, kc->before);
    else
        fs__lanes_give(&h->lanes, buf, mid, end);
    int rc = take(L, buf, mid);
    int hrc = fs__lanes_wait(&h->lanes);
    if (rc == FS_OK)
        rc = hrc;
    /* this lane walked the lengths up to the cut: as many lines as given */
    if (rc == FS_OK && known && L->seen - h->seen != kc->before)
        rc = CHANGED;
    if (rc == FS_OK && P->counting)
        note_cut(P, k, used, (size_t)(mid - buf), L->seen - h->seen);
    L->in.next = h->ln.in.next; /* the helper's lines came after ours */
    L->in.kpos = L->in.kend = 0;
    L->seen = h->ln.seen;
    return rc;
}

static void lane_reset(passes *P, lane *L)
{
    memset(L->subs, 0, sizeof *L->subs * P->span);
    memset(L->fine, 0, (sizeof *L->fine << P->fine_bits) * P->span);
    L->in.next = L->in.below = L->in.above = 0;
    L->in.kpos = L->in.kend = 0;
    L->seen = 0;
}

/* A later read: each sub-bucket of the window gets a contiguous part of
 * the arena, the first lane's part (as many bytes as that lane kept there
 * in the first read: a later read cuts the chunks where the first did)
 * then the second's.  Without the helper in the first read or now, one
 * lane takes every line and its part is the whole. */
static void lay_out(passes *P)
{
    int two = P->two_lanes && P->h.lanes.running;
    if (!two)
        fs__lanes_stop(&P->h.lanes);
    uint64_t off = 0;
    for (size_t s = 0; s < P->cb - P->ca; s++) {
        uint64_t all = P->ln.hist[P->ca + s],
                 b = two ? P->h.ln.hist[P->ca + s] : 0;
        P->ln.subs[s].head = off;
        P->ln.subs[s].room = all - b;
        P->h.ln.subs[s].head = off + all - b;
        P->h.ln.subs[s].room = b;
        off += all;
    }
}

/* One read of the file: keeps the records of cells [P->ca, P->cb). */
static int pass(passes *P, unsigned win)
{
    const fs_lines_config *c = P->c;
    atomic_store_explicit(&P->aused, 0, memory_order_relaxed);
    lane_reset(P, &P->ln);
    lane_reset(P, &P->h.ln);
    if (P->counting)
        P->two_lanes = P->h.lanes.running;
    else
        lay_out(P);
    P->ln.in.header_left = c->header;
    P->ln.in.hdr_len = 0;
    P->chunk = 0;
    uint64_t pos = 0;
    size_t len = 0;
    /* every read cuts its chunks where the first did (a later read puts
     * each lane's records where the first read's counts say): it reads
     * CHUNK bytes at a time, more only from where a line did not fit, as
     * the first did, however large the buffer has grown */
    size_t lim = CHUNK;
    while (pos < P->size) {
        if (len == lim) {
            if (2 * lim + 1 > P->cap) { /* (a byte spare for a delimiter) */
                unsigned char *nb = realloc(P->buf, 2 * lim + 1);
                if (nb == NULL)
                    return FS_ENOMEM;
                P->buf = nb;
                P->cap = 2 * lim + 1;
            }
            lim *= 2;
        }
        size_t want = lim - len, got;
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
        if (P->counting && lens_room(P, P->ln.seen, used) != FS_OK)
            return FS_ENOMEM;
        int rc = feed(P, P->buf, used);
        if (rc == CHANGED)
            return changed(P);
        if (rc != FS_OK)
            return rc;
        memmove(P->buf, P->buf + used, len - used);
        len -= used;
        if (win == 0 && c->progress)
            c->progress(c->progress_arg, FS_LINES_READING, pos, 0);
    }
    if (P->counting)
        P->nlens = P->ln.seen;
    return unchanged(P);
}

/* Writes the tail blocks' bytes used to their headers. */
static void close_tails(passes *P, lane *L)
{
    size_t n = P->cb - P->ca;
    for (size_t s = 0; s < n; s++)
        if (L->subs[s].recs > 0)
            memcpy(P->arena + L->subs[s].tail + 8, &L->subs[s].used, 4);
}

/* Whether the window holds what the first read counted in it (a file
 * read again must give the same lines). */
static int as_counted(const passes *P)
{
    size_t n = P->cb - P->ca;
    for (size_t s = 0; s < n; s++)
        if (P->ln.subs[s].bytes + P->h.ln.subs[s].bytes !=
                P->ln.hist[P->ca + s] ||
            P->ln.subs[s].recs + P->h.ln.subs[s].recs !=
                P->ln.hrecs[P->ca + s])
            return 0;
    return P->ln.in.next == P->lines && P->ln.seen == P->nlens;
}

/* Appends chain b's records to scr (from len); returns the new length. */
static size_t copy_chain(const passes *P, const sub *b, unsigned char *scr,
                         size_t len)
{
    if (b->recs == 0)
        return len;
    for (uint64_t off = b->head;;) {
        uint64_t next;
        uint32_t used;
        memcpy(&next, P->arena + off, 8);
        memcpy(&used, P->arena + off + 8, 4);
        memcpy(scr + len, P->arena + off + BLK_HDR, used);
        len += used;
        if (off == b->tail)
            return len;
        off = next;
    }
}

/* Sorts and writes window win's sub-buckets in key order.  The sorter
 * gets the two lanes' fine counts summed, and where the second lane's
 * records start (its second thread starts there): it walks the records
 * once, not twice. */
static int emit(passes *P, unsigned char **scr, size_t *scap,
                uint32_t *fine)
{
    size_t n = P->cb - P->ca, nf = (size_t)1 << P->fine_bits;
    for (size_t s = 0; s < n && P->w->left > 0; s++) {
        const sub *a = &P->ln.subs[s], *b = &P->h.ln.subs[s];
        if (a->recs + b->recs == 0)
            continue;
        const unsigned char *buf = P->arena + a->head; /* a later read */
        size_t len = (size_t)(a->bytes + b->bytes);
        int rc;
        if (P->counting) { /* chained: copied together */
            if ((rc = fs__reserve(scr, scap, len)) != FS_OK)
                return rc;
            len = copy_chain(P, b, *scr, copy_chain(P, a, *scr, 0));
            buf = *scr;
        }
        for (size_t f = 0; f < nf; f++)
            fine[f] = P->ln.fine[s * nf + f] + P->h.ln.fine[s * nf + f];
        fs__counts fc = {fine, P->fine_bits, a->recs, (size_t)a->bytes};
        rc = fs__sort_emit(buf, len, a->recs + b->recs, FS__STORED_LEN, 0,
                           P->cbits, &fc, P->w);
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

/* Window v: cells [ca, cb) of the slice's. */
static void window(passes *P, unsigned v)
{
    P->ca = P->c0 + P->ncell * v / P->npass;
    P->cb = P->c0 + P->ncell * (v + 1) / P->npass;
}

/* After the first read: the counts of both lanes in the first's; then
 * whether the largest window fits the budget (and every sub-bucket 32-bit
 * offsets): if not, the file is read the usual way instead. */
static int windows_fit(passes *P)
{
    for (size_t h = 0; h < (size_t)1 << P->cbits; h++) {
        P->ln.hist[h] += P->h.ln.hist[h];
        P->ln.hrecs[h] += P->h.ln.hrecs[h];
    }
    uint64_t most = 0, big = 0, recs = 0;
    for (unsigned v = 0; v < P->npass; v++) {
        uint64_t t = 0;
        window(P, v);
        for (size_t s = P->ca; s < P->cb; s++) {
            uint64_t b = P->ln.hist[s];
            t += b;
            if (b > big)
                big = b, recs = P->ln.hrecs[s];
        }
        most = t > most ? t : most;
    }
    window(P, 0);
    if (P->keys != NULL && (P->ln.keys_lost || P->h.ln.keys_lost)) {
        munmap(P->keys, P->kcap * sizeof *P->keys); /* the later reads */
        P->keys = NULL;                            /* compute them again */
    }
    return big < 0xfff00000u &&
           footprint(most, P->sub_bits, P->lines, big, recs) <= P->limit;
}

/* The second lane's thread, with two threads or more (no thread: one
 * lane). */
static void lanes_start(passes *P)
{
    if (P->c->threads >= 2)
        fs__lanes_start(&P->h.lanes, helper_take, &P->h, P->c->delim);
}

static int run(passes *P)
{
    unsigned char *scr = NULL;
    size_t scap = 0;
    uint32_t *fine = malloc(sizeof *fine << P->fine_bits);
    int rc = fine ? FS_OK : FS__PASSES_DECLINED; /* nothing read yet */
    for (unsigned win = 0; win < P->npass && rc == FS_OK && P->w->left > 0;
         win++) {
        P->counting = win == 0;
        window(P, win);
        if ((rc = pass(P, win)) != FS_OK) {
            if (win == 0 && rc == FS_ENOMEM) /* nothing written yet */
                rc = FS__PASSES_DECLINED;
            break;
        }
        if (win == 0) {
            P->lines = P->ln.in.next;
            if (!windows_fit(P)) {
                rc = FS__PASSES_DECLINED;
                break;
            }
            /* no thread of ours runs while open_output does (it may end
             * the process): the helper is stopped, and started again */
            fs__lanes_stop(&P->h.lanes);
            if ((rc = fs__writer_open(P->w)) != FS_OK)
                break;
            lanes_start(P);
            if (output_is_input(P)) {
                rc = FS__PASSES_DECLINED;
                break;
            }
            /* a slice: its lines, after `below` of the slices before */
            uint64_t below = P->ln.in.below + P->h.ln.in.below,
                     mine = P->lines - below - P->ln.in.above -
                            P->h.ln.in.above;
            P->w->res->lines = mine;
            P->w->seen = P->lines;
            fs__writer_below(P->w, below);
            P->w->total = P->w->left < mine ? P->w->left : mine;
            if ((rc = fs__writer_header(P->w, P->ln.in.hdr,
                                        P->ln.in.hdr_len)) != FS_OK)
                break;
        }
        if (win == 0) {
            close_tails(P, &P->ln);
            close_tails(P, &P->h.ln);
        }
        if (!as_counted(P)) {
            rc = changed(P);
            break;
        }
        rc = emit(P, &scr, &scap, fine);
    }
    free(scr);
    free(fine);
    return rc;
}

static int lane_init(passes *P, lane *L)
{
    size_t ncells = (size_t)1 << P->cbits;
    L->P = P;
    fs__intake_init(&L->in, P->w);
    L->subs = malloc(P->span * sizeof *L->subs);
    L->fine = malloc((sizeof *L->fine << P->fine_bits) * P->span);
    L->hist = calloc(ncells, sizeof *L->hist);
    L->hrecs = calloc(ncells, sizeof *L->hrecs);
    return L->subs && L->fine && L->hist && L->hrecs ? FS_OK : FS_ENOMEM;
}

static void lane_free(lane *L)
{
    free(L->subs);
    free(L->fine);
    free(L->hist);
    free(L->hrecs);
    free(L->in.hdr);
}

int fs__passes_run(int fd, const fs__passes_plan_t *pl, size_t limit,
                   fs__writer *w)
{
    passes *P = calloc(1, sizeof *P);
    if (P == NULL)
        return FS__PASSES_DECLINED;
    P->fd = fd;
    P->w = w;
    P->c = w->c;
    P->start = pl->start;
    P->size = pl->size;
    P->sub_bits = pl->sub_bits;
    P->fine_bits = FINE_CELLS - P->sub_bits < FINE_MAX
                       ? FINE_CELLS - P->sub_bits
                       : FINE_MAX;
    /* the slice's cells, cut into windows of whole cells (one slice: the
     * NWIN quarters of the key space) */
    P->cbits = WIN_BITS + P->sub_bits;
    P->c0 = (size_t)(w->lo >> (64 - P->cbits));
    P->ncell = (size_t)(w->hi >> (64 - P->cbits)) - P->c0 + 1;
    P->npass = passes_of(w->slices, P->size);
    if (P->npass > P->ncell)
        P->npass = (unsigned)P->ncell;
    P->span = (P->ncell + P->npass - 1) / P->npass;
    P->limit = limit;
    /* reserved, not used: pages are taken as records arrive, and the
     * reservation never moves while two lanes write into it */
    P->acap = limit;
    /* Huge pages for the arena (each sub-bucket is sorted where it lies:
     * its lines are read at random, and under a VM's nested paging a TLB
     * miss is costly), small ones for the keys (read front to back; on a
     * VM that hands free memory back to its host a fresh huge page costs
     * more than its 512 small ones: docs/lines.md, "A large regular file,
     * read four times"). */
    P->arena = mmap(NULL, P->acap, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (P->arena != MAP_FAILED)
        fs__huge(P->arena, P->acap);
    P->cap = CHUNK + 1;
    P->buf = malloc(P->cap);
    if (pl->keys) { /* reserved like the arena, for half as many again */
        P->kcap = (size_t)keys_room(pl->lines);
        P->keys = mmap(NULL, P->kcap * sizeof *P->keys,
                       PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (P->keys == MAP_FAILED)
            P->keys = NULL;
    }
    /* what cannot be set up is declined: nothing is read or written yet */
    int rc = FS__PASSES_DECLINED;
    struct stat st;
    int seen = fstat(fd, &st) == 0;
    if (seen)
        P->mtime = st.st_mtim;
    if (seen && P->arena != MAP_FAILED && P->buf &&
        lane_init(P, &P->ln) == FS_OK &&
        lane_init(P, &P->h.ln) == FS_OK) {
        lanes_start(P);
        rc = run(P);
        fs__lanes_stop(&P->h.lanes);
    }
    if (P->arena != MAP_FAILED)
        munmap(P->arena, P->acap);
    lane_free(&P->ln);
    lane_free(&P->h.ln);
    free(P->buf);
    free(P->lens);
    if (P->keys != NULL)
        munmap(P->keys, P->kcap * sizeof *P->keys);
    free(P->cuts);
    /* as a read would leave it: at the end of what was shuffled */
    if (rc == FS_OK)
        (void)lseek(fd, P->start + (off_t)P->size, SEEK_SET);
    free(P);
    return rc;
}
