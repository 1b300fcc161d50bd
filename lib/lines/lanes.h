/* lanes.h -- a chunk of lines taken in two lanes (internal): this thread
 * takes the lines of a chunk before a cut near 55 %, a helper thread those
 * after it.  The helper first counts the lines before the cut, so that it
 * can number its own (hence the larger first part), then calls take; a
 * caller that already knows that count (passes.c's later reads) gives it.
 * Used by the spill intake (spill.c) and the read-twice path (passes.c). */
#ifndef FS_LINES_LANES_H
#define FS_LINES_LANES_H

#include <pthread.h>
#include <stdint.h>

/* The helper's work: the lines of p[0..end), after `before` lines. */
typedef int (*fs__lane_take)(void *lane, uint64_t before,
                             const unsigned char *p, const unsigned char *end);

typedef struct fs__lanes {
    fs__lane_take take;
    void *lane;         /* the helper's lane, passed to take */
    unsigned char delim;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, job, quit, rc;
    int known;          /* before is given: the helper does not count */
    uint64_t before;
    const unsigned char *buf, *mid, *end;
} fs__lanes;

/* Bytes the helpers have counted (a test hook: passes.c's later reads
 * give the count instead, tests/unit/test_lines_passes.c). */
extern _Atomic uint64_t fs__lanes_counted;

/* Starts the helper; l->running says whether it runs (no thread: one
 * lane, and fs__lanes_cut always says no). */
void fs__lanes_start(fs__lanes *l, fs__lane_take take, void *lane,
                     unsigned char delim);
void fs__lanes_stop(fs__lanes *l);

/* Where the helper's part of buf[0..used) (complete lines) begins, or NULL
 * when there is one lane or the chunk is smaller than FS__LANES_MIN. */
#define FS__LANES_MIN ((size_t)256 << 10)
const unsigned char *fs__lanes_cut(const fs__lanes *l,
                                   const unsigned char *buf, size_t used);

/* Gives the helper [mid, end) (buf: the chunk's start, for the count); the
 * caller then takes [buf, mid) and waits: fs__lanes_wait returns the
 * helper's status.  The helper's lane may be set up before giving. */
void fs__lanes_give(fs__lanes *l, const unsigned char *buf,
                    const unsigned char *mid, const unsigned char *end);
int fs__lanes_wait(fs__lanes *l);
/* fs__lanes_give when the lines of [buf, mid) are known to be `before`:
 * the helper does not count them (the caller checks that its own part
 * had that many). */
void fs__lanes_give_known(fs__lanes *l, const unsigned char *buf,
                          const unsigned char *mid, const unsigned char *end,
                          uint64_t before);

#endif
