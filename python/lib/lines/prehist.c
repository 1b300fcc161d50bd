/* prehist.c -- the key histogram of the in-memory path, counted by a
 * second thread while the input is still being read.  Keys depend only on
 * line numbers (keys.c), not on the text, so the reader announces how many
 * lines it has seen and the helper counts their keys' top PREHIST_BITS
 * bits behind it; fs__sort_emit then needs no counting pass of its own. */
#include "engine.h"

#define KCHUNK 512
#define STEP ((uint64_t)1 << 16) /* lines between looks at the reader */

static void count(fs__prehist *h, uint64_t from, uint64_t to, int sign)
{
    uint64_t keys[KCHUNK];
    for (uint64_t i = from; i < to;) {
        size_t c = to - i < KCHUNK ? (size_t)(to - i) : KCHUNK;
        fs_lines_keys(h->K, i, 0, keys, c);
        for (size_t k = 0; k < c; k++)
            h->fine[keys[k] >> (64 - FS__PREHIST_BITS)] += (uint32_t)sign;
        i += c;
    }
}

static void *helper(void *arg)
{
    fs__prehist *h = arg;
    uint64_t done = 0;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        while (done >= h->avail && !h->final)
            pthread_cond_wait(&h->cv, &h->mu);
        if (done >= h->avail) /* final */
            break;
        uint64_t to = h->avail - done > STEP ? done + STEP : h->avail;
        pthread_mutex_unlock(&h->mu);
        count(h, done, to, 1);
        done = to;
        pthread_mutex_lock(&h->mu);
    }
    h->done = done;
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

int fs__prehist_start(fs__prehist *h, const uint8_t *K)
{
    memset(h, 0, sizeof *h);
    h->K = K;
    h->fine = calloc((size_t)1 << FS__PREHIST_BITS, sizeof *h->fine);
    if (h->fine == NULL)
        return FS_ENOMEM;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    if (pthread_create(&h->tid, NULL, helper, h) != 0) {
        fs__prehist_free(h);
        return FS_ENOMEM;
    }
    h->running = 1;
    return FS_OK;
}

void fs__prehist_avail(fs__prehist *h, uint64_t lines)
{
    if (!h->running)
        return;
    pthread_mutex_lock(&h->mu);
    if (lines > h->avail) {
        h->avail = lines;
        pthread_cond_signal(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
}

/* Stops the helper once it has counted `lines` lines (cancels: 0). */
static void stop(fs__prehist *h, uint64_t lines)
{
    pthread_mutex_lock(&h->mu);
    h->avail = lines;
    h->final = 1;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
    pthread_join(h->tid, NULL);
    h->running = 0;
}

const uint32_t *fs__prehist_end(fs__prehist *h, uint64_t n)
{
    if (!h->running)
        return NULL;
    stop(h, n);
    if (h->done > n) /* announced lines that are not shuffled (header) */
        count(h, n, h->done, -1);
    else if (h->done < n)
        count(h, h->done, n, 1);
    h->done = n;
    return h->fine;
}

void fs__prehist_free(fs__prehist *h)
{
    if (h->running)
        stop(h, 0);
    if (h->fine != NULL) {
        pthread_cond_destroy(&h->cv);
        pthread_mutex_destroy(&h->mu);
    }
    free(h->fine);
    h->fine = NULL;
}
