/* engine.h -- what the keyed-shuffle files share (internal). */
#ifndef FS_LINES_ENGINE_H
#define FS_LINES_ENGINE_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include "advise.h"
#include "fairshuf/lines.h"
#include "internal.h"

#define FS__OUTBUF (1u << 20)
#define FS__OUTSLACK 16
/* Records on disk and in loaded buckets: key (8, LE) index (8, LE) line. */
#define FS__REC_HDR 16
/* fs__sort_emit's stored = FS__STORED_LEN: records whose second word is
 * index << 16 | the line's length with its delimiter (FS__LEN_LOOK when
 * 65535 or more: the end is searched for), so the sorter steps from
 * record to record and copies lines without looking for their ends
 * (lib/lines/passes.c's arena; indexes below 2^48). */
#define FS__STORED_LEN 2
#define FS__LEN_LOOK 0xffffu

/* The output side: opened lazily (after all input is read), buffered. */
typedef struct fs__writer {
    const fs_lines_config *c;
    fs_lines_result *res;
    int fd;              /* -1 until opened */
    uint64_t left;       /* shuffled lines still wanted (head) */
    uint64_t total;      /* for progress */
    size_t memory;       /* the budget, resolved once by fs_lines_shuffle */
    size_t len;
    unsigned char *buf;
    /* fs_lines_shuffle_slice: only keys in [lo, hi] are kept (the whole
     * key space for fs_lines_shuffle); slice 0 alone writes the header */
    uint64_t lo, hi;
    unsigned slice, slices;
    uint64_t seen;       /* lines keyed, of every slice (header excluded) */
} fs__writer;

int fs__writer_open(fs__writer *w);
int fs__writer_flush(fs__writer *w);
void fs__writer_progress(fs__writer *w);
/* The header lines p[0..n): written by slice 0 only. */
int fs__writer_header(fs__writer *w, const void *p, size_t n);
/* Once every line is keyed: `below` lines have keys before the slice, so
 * it writes the global ranks [below, below + its lines) of the first
 * c->head (w->left is what remains of them for this slice). */
void fs__writer_below(fs__writer *w, uint64_t below);

/* What the caller of fs__sort_emit may know already, so that it needs no
 * counting pass: fine[f] is the number of lines whose key bits
 * [shift, shift + bits) equal f (2^bits counts); in stored mode, mid_off
 * (when > 0) is the offset of record number mid, where a second thread
 * may start scattering. */
typedef struct fs__counts {
    const uint32_t *fine;
    unsigned bits;
    uint64_t mid;
    size_t mid_off;
} fs__counts;

/* Sorts the lines of buf[0..len) by key and writes them (at most w->left).
 * stored = 0: plain lines; line k has index first + k and its key is
 *   computed.  stored = 1: records [key][index][line] (spill format);
 *   FS__STORED_LEN: the same with the line's length beside the index.
 * shift: leading key bits that all lines share (bucket depth).
 * n: number of lines or records; len < 2^32.
 * fine: NULL, or the key counts (plain mode: first = shift = 0, the top
 *   FS__PREHIST_BITS bits from fs__prehist_end; stored mode: from the
 *   spill intake).  The output does not depend on it. */
int fs__sort_emit(const unsigned char *buf, size_t len, uint64_t n,
                  int stored, uint64_t first, unsigned shift,
                  const fs__counts *fine, fs__writer *w);

/* The key histogram counted by a second thread while the input is read
 * (prehist.c).  start: FS_OK, or not started (then end returns NULL);
 * avail: `lines` lines exist (numbered from 0); end: waits for the
 * counts of lines [0, n) and returns them (owned by h); free: stops the
 * helper if needed and frees. */
#define FS__PREHIST_BITS 16
typedef struct fs__prehist {
    const uint8_t *K;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t avail; /* lines announced (under mu) */
    int final;      /* no more announcements (under mu) */
    int running;
    uint64_t done;  /* lines counted (the helper's, under mu) */
    uint32_t *fine; /* 2^FS__PREHIST_BITS counts */
} fs__prehist;
int fs__prehist_start(fs__prehist *h, const uint8_t *K);
void fs__prehist_avail(fs__prehist *h, uint64_t lines);
const uint32_t *fs__prehist_end(fs__prehist *h, uint64_t n);
void fs__prehist_free(fs__prehist *h);


/* Memory that fs__sort_emit needs beyond the buffer for n lines. */
size_t fs__sort_overhead(uint64_t n, unsigned threads);

/* fs_lines_shuffle_slice that also says how many lines it keyed in all
 * slices (*seen, the header excluded; 0 with c->head == 0): workers that
 * each read the input compare it (fairshuf-mpi, mpi/lines.c). */
int fs__lines_shuffle_slice(int fd, const fs_lines_config *c, unsigned slice,
                            unsigned slices, fs_lines_result *res,
                            uint64_t *seen);

/* fs_lines_shuffle_buf with the lines of buf[0..len) already counted (n,
 * each ending with c->delim): for a caller that counted them while
 * reading (fairshuf-mpi at P = 1, mpi/lines.c). */
int fs__lines_shuffle_counted(const unsigned char *buf, size_t len,
                              uint64_t n, const fs_lines_config *c,
                              fs_lines_result *res);

/* The out-of-core path: buf[0..len) holds what was read so far (complete
 * and partial lines, header included); it continues reading fd.  Takes
 * ownership of buf (allocated with malloc, capacity cap). */
int fs__spill_run(int fd, unsigned char *buf, size_t len, size_t cap,
                  fs__writer *w);

/* A large regular file read more than once instead of held (passes.c):
 * plan says whether fd qualifies (at least fs__passes_min bytes from its
 * position -- a slice of s: fs__passes_min / (4 s) --, long lines, a
 * window within limit); run shuffles it (the slice w->lo..hi), or returns
 * FS__PASSES_DECLINED before any output (the window turned out too large,
 * or the output is the input file): the caller then seeks fd back to
 * pl->start and reads it the usual way. */
typedef struct fs__passes_plan_t {
    off_t start;
    uint64_t size;
    unsigned sub_bits;
    uint64_t lines; /* the lines expected */
    int keys;       /* room for every line's key too: computed once, not
                     * once a read */
} fs__passes_plan_t;
#define FS__PASSES_DECLINED 1
extern size_t fs__passes_min; /* 256 MiB; tests lower it */
/* Keys a later read computed again, the first read's not kept (a test
 * hook, tests/unit/test_lines_passes.c). */
extern _Atomic uint64_t fs__passes_rekeyed;
int fs__passes_plan(int fd, const fs_lines_config *c, unsigned slices,
                    size_t limit, fs__passes_plan_t *pl);
int fs__passes_run(int fd, const fs__passes_plan_t *pl, size_t limit,
                   fs__writer *w);

/* `-n K` with K < fs__topk_max (2^20; tests lower it): streams the input
 * keeping only candidates. */
extern uint64_t fs__topk_max;
int fs__topk_run(int fd, fs__writer *w);

static inline uint64_t fs__le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8); /* little-endian hosts only (as rng.c checks) */
    return v;
}

/* The next delimiter in [p, end), or NULL.  Lines are often short, so an
 * inline scan beats a memchr call: 16 bytes at a time with SSE2 (the
 * first 256 bytes), else a word at a time (the lowest flagged byte of the
 * has-zero trick is exact, the first 64); longer lines go to memchr. */
static inline const unsigned char *fs__delim(const unsigned char *p,
                                             const unsigned char *end,
                                             unsigned char d)
{
#if defined(__SSE2__)
    const __m128i dv = _mm_set1_epi8((char)d);
    for (int k = 0; k < 16 && end - p >= 16; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, dv));
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#else
    const uint64_t ones = 0x0101010101010101u, pat = ones * d;
    for (int k = 0; k < 8 && end - p >= 8; k++) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= pat;
        uint64_t t = (w - ones) & ~w & (ones << 7);
        if (t)
            return p + (__builtin_ctzll(t) >> 3);
        p += 8;
    }
#endif
    return p < end ? memchr(p, d, (size_t)(end - p)) : NULL;
}

/* Doubles a read buffer when a single record fills it.  FS_ENOMEM leaves
 * *buf and *cap as they were (the caller still frees *buf). */
static inline int fs__grow_buf(unsigned char **buf, size_t *cap)
{
    unsigned char *nb = realloc(*buf, *cap * 2);
    if (nb == NULL)
        return FS_ENOMEM;
    *buf = nb;
    *cap *= 2;
    return FS_OK;
}

/* Makes room for `need` bytes in *buf (capacity *cap), doubling from 4 KiB.
 * FS_ENOMEM leaves *buf and *cap as they were. */
static inline int fs__reserve(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return FS_OK;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need)
        nc *= 2;
    unsigned char *nb = realloc(*buf, nc);
    if (nb == NULL)
        return FS_ENOMEM;
    *buf = nb;
    *cap = nc;
    return FS_OK;
}

/* The intake of the streaming paths (spill.c, topk.c, passes.c): the
 * first `header_left` lines are kept aside, unshuffled; every other line
 * is numbered and gets its key, level 0, from a window of 512 keys
 * refilled in line order (fs_lines_keys); a key outside the slice [lo, hi]
 * is only counted (below or above it). */
typedef struct fs__intake {
    const uint8_t *key;     /* K of the keyed order */
    uint64_t lo, hi;        /* the slice's keys (fs__intake_init) */
    uint64_t below, above;  /* lines whose keys fell before, after it */
    uint64_t next;          /* index of the next shuffled line */
    uint64_t header_left;
    unsigned char *hdr;     /* the kept header lines */
    size_t hdr_len, hdr_cap;
    uint64_t keys[512];
    size_t kpos, kend;
} fs__intake;

static inline void fs__intake_init(fs__intake *in, const fs__writer *w)
{
    in->key = w->c->key;
    in->lo = w->lo;
    in->hi = w->hi;
}

/* Takes one line p[0..l) with its delimiter.  Returns 1 if it went to the
 * header, 2 if its key is outside the slice (numbered, not kept), 0 if it
 * is to be shuffled (*key, *idx set), or FS_ENOMEM. */
static inline int fs__intake_line(fs__intake *in, const unsigned char *p,
                                  size_t l, uint64_t *key, uint64_t *idx)
{
    if (in->header_left > 0) {
        in->header_left--;
        if (fs__reserve(&in->hdr, &in->hdr_cap, in->hdr_len + l) != FS_OK)
            return FS_ENOMEM;
        memcpy(in->hdr + in->hdr_len, p, l);
        in->hdr_len += l;
        return 1;
    }
    if (in->kpos == in->kend) {
        fs_lines_keys(in->key, in->next, 0, in->keys, 512);
        in->kpos = 0;
        in->kend = 512;
    }
    *key = in->keys[in->kpos++];
    *idx = in->next++;
    if (FS_UNLIKELY(*key < in->lo || *key > in->hi)) {
        if (*key < in->lo)
            in->below++;
        else
            in->above++;
        return 2;
    }
    return 0;
}

#endif
