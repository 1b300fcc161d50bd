/* lanes.c -- a chunk of lines taken in two lanes (lanes.h). */
#include <stdatomic.h>
#include <string.h>

#include "fairshuf/lines.h"
#include "lanes.h"

_Atomic uint64_t fs__lanes_counted;

static void *run(void *arg)
{
    fs__lanes *l = arg;
    pthread_mutex_lock(&l->mu);
    for (;;) {
        while (!l->job && !l->quit)
            pthread_cond_wait(&l->cv, &l->mu);
        if (!l->job)
            break;
        pthread_mutex_unlock(&l->mu);
        uint64_t before = l->before;
        if (!l->known) {
            size_t n = (size_t)(l->mid - l->buf);
            before = fs_lines_count(l->buf, n, l->delim);
            atomic_fetch_add_explicit(&fs__lanes_counted, n,
                                      memory_order_relaxed);
        }
        int rc = l->take(l->lane, before, l->mid, l->end);
        pthread_mutex_lock(&l->mu);
        l->rc = rc;
        l->job = 0;
        pthread_cond_broadcast(&l->cv);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

void fs__lanes_start(fs__lanes *l, fs__lane_take take, void *lane,
                     unsigned char delim)
{
    memset(l, 0, sizeof *l);
    l->take = take;
    l->lane = lane;
    l->delim = delim;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    if (pthread_create(&l->tid, NULL, run, l) == 0)
        l->running = 1;
    else {
        pthread_cond_destroy(&l->cv);
        pthread_mutex_destroy(&l->mu);
    }
}

void fs__lanes_stop(fs__lanes *l)
{
    if (!l->running)
        return;
    pthread_mutex_lock(&l->mu);
    l->quit = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->tid, NULL);
    pthread_cond_destroy(&l->cv);
    pthread_mutex_destroy(&l->mu);
    l->running = 0;
}

const unsigned char *fs__lanes_cut(const fs__lanes *l,
                                   const unsigned char *buf, size_t used)
{
    if (!l->running || used < FS__LANES_MIN)
        return NULL;
    size_t at = used / 20 * 11;
    const unsigned char *mid = memchr(buf + at, l->delim, used - at);
    if (mid == NULL || mid + 1 == buf + used)
        return NULL;
    return mid + 1;
}

static void give(fs__lanes *l, const unsigned char *buf,
                 const unsigned char *mid, const unsigned char *end,
                 int known, uint64_t before)
{
    pthread_mutex_lock(&l->mu);
    l->known = known;
    l->before = before;
    l->buf = buf;
    l->mid = mid;
    l->end = end;
    l->job = 1;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

void fs__lanes_give(fs__lanes *l, const unsigned char *buf,
                    const unsigned char *mid, const unsigned char *end)
{
    give(l, buf, mid, end, 0, 0);
}

void fs__lanes_give_known(fs__lanes *l, const unsigned char *buf,
                          const unsigned char *mid, const unsigned char *end,
                          uint64_t before)
{
    give(l, buf, mid, end, 1, before);
}

int fs__lanes_wait(fs__lanes *l)
{
    pthread_mutex_lock(&l->mu);
    while (l->job)
        pthread_cond_wait(&l->cv, &l->mu);
    int rc = l->rc;
    pthread_mutex_unlock(&l->mu);
    return rc;
}
