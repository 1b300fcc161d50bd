/* engine.h -- what the keyed-shuffle files share (internal). */
#ifndef FS_LINES_ENGINE_H
#define FS_LINES_ENGINE_H

#include "fairshuf/lines.h"
#include "internal.h"

#define FS__OUTBUF (1u << 20)
/* Records on disk and in loaded buckets: key (8, LE) index (8, LE) line. */
#define FS__REC_HDR 16

/* The output side: opened lazily (after all input is read), buffered. */
typedef struct fs__writer {
    const fs_lines_config *c;
    fs_lines_result *res;
    int fd;              /* -1 until opened */
    uint64_t left;       /* shuffled lines still wanted (head) */
    uint64_t total;      /* for progress */
    size_t len;
    unsigned char *buf;
} fs__writer;

int fs__writer_open(fs__writer *w);
int fs__writer_put(fs__writer *w, const void *p, size_t n);
int fs__writer_flush(fs__writer *w);
void fs__writer_progress(fs__writer *w);

/* Sorts the lines of buf[0..len) by key and writes them (at most w->left).
 * stored = 0: plain lines; line k has index first + k and its key is
 *   computed.  stored = 1: records [key][index][line] (spill format).
 * shift: leading key bits that all lines share (bucket depth).
 * n: number of lines or records; len < 2^32. */
int fs__sort_emit(const unsigned char *buf, size_t len, uint64_t n,
                  int stored, uint64_t first, unsigned shift,
                  fs__writer *w);

/* Memory that fs__sort_emit needs beyond the buffer for n lines. */
size_t fs__sort_overhead(uint64_t n, unsigned threads);

/* The out-of-core path: buf[0..len) holds what was read so far (complete
 * and partial lines, header included); it continues reading fd.  Takes
 * ownership of buf (allocated with malloc, capacity cap). */
int fs__spill_run(int fd, unsigned char *buf, size_t len, size_t cap,
                  fs__writer *w);

static inline uint64_t fs__le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8); /* little-endian hosts only (as rng.c checks) */
    return v;
}

#endif
