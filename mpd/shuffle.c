/* shuffle.c -- `fairshuf mpd shuffle`: MPD's queue rearranged into the
 * order `fairshuf playlist` gives for its files (listed in the queue's
 * order), applied as one command list of moves (docs/playlist.md "In MPD
 * and mpv"). */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fairshuf/playlist.h"
#include "fairshuf/weighted.h"
#include "mpd.h"

/* order[0..n): the queue's positions in fairshuf's order of its songs. */
static size_t shuffled(const mq_opts *o, const mq_queue *q, uint64_t *order)
{
    size_t n = q->n;
    if (o->spread == NULL && o->weights == NULL) {
        char hex[65];
        const char *seed = o->seed;
        if (seed == NULL) {
            uint8_t key[32];
            cli_check(fs_os_random(key, sizeof key), "seeding");
            fs_hex_encode(key, sizeof key, hex);
            sodium_memzero(key, sizeof key);
            seed = hex;
        }
        fs_playlist pl;
        cli_check(fs_playlist_from_seed(&pl, n, seed,
                                        FS_PLAYLIST_WINDOW_DEFAULT), "seed");
        sodium_memzero(hex, sizeof hex);
        cli_check(fs_playlist_items(&pl, 0, 0, n, order), "playlist");
        sodium_memzero(&pl, sizeof pl);
        return n;
    }
    fs_rng *rng = cli_rng(NULL, o->seed);
    size_t m = 0;
    if (o->spread) {
        const char **text = malloc(n * sizeof *text);
        size_t *len = malloc(n * sizeof *len);
        uint64_t *g = malloc(n * sizeof *g);
        if (text == NULL || len == NULL || g == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        for (size_t i = 0; i < n; i++) {
            text[i] = q->s[i].tag;
            len[i] = strlen(q->s[i].tag);
        }
        cli_check(fs_spread_groups(n, text, len, g), "spread");
        cli_check(fs_spread_order(g, n, order, rng), "spread");
        m = n;
        free(text);
        free(len);
        free(g);
    } else {
        /* weight 0: never played -- such songs go last, in queue order */
        double *w = malloc(n * sizeof *w);
        uint64_t *keep = malloc(n * sizeof *keep), *ord = malloc(n * sizeof *ord);
        if (w == NULL || keep == NULL || ord == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        for (size_t i = 0; i < n; i++)
            if (q->s[i].weight > 0) {
                keep[m] = i;
                w[m++] = q->s[i].weight;
            }
        if (m == 0)
            cli_die(CLI_FAIL, "every song's weight is 0 (sticker %s): "
                    "nothing to shuffle", o->weights);
        cli_check(fs_weighted_order(w, m, ord, NULL, rng), "weights");
        for (size_t i = 0; i < m; i++)
            order[i] = keep[ord[i]];
        size_t k = m;
        for (size_t i = 0; i < n; i++)
            if (!(q->s[i].weight > 0))
                order[k++] = i;
        free(w);
        free(keep);
        free(ord);
    }
    fs_rng_free(rng);
    return m;
}

int mq_shuffle(const mq_opts *o)
{
    char why[512];
    int fatal;
    struct mpd_connection *c = mq_connect(o, why, sizeof why, &fatal);
    if (c == NULL)
        cli_die(CLI_FAIL, "MPD at %s: %s", mq_where(o), why);
    mq_queue q;
    int rc = mq_read(c, o, NULL, &q, why, sizeof why);
    if (rc != 0)
        cli_die(CLI_FAIL, "MPD at %s: %s", mq_where(o), why);
    if (q.n < 2) {
        mq_free(&q);
        mpd_connection_free(c);
        return CLI_OK;
    }
    uint64_t *order = malloc(q.n * sizeof *order);
    if (order == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    shuffled(o, &q, order);
    /* as MPD's own shuffle: a song playing (or paused) stays current and
     * goes first; the others follow in fairshuf's order */
    if (q.current >= 0 && q.state != MPD_STATE_STOP) {
        size_t k = 0;
        while (order[k] != (uint64_t)q.current)
            k++;
        memmove(order + 1, order, k * sizeof *order);
        order[0] = (uint64_t)q.current;
    }
    /* One command list: MPD runs it as one request, no other client's
     * command in between, and stops at the first command that fails.
     * Every command is a move (by song id), so whatever part of it runs
     * leaves each song in the queue exactly once. */
    int ok = mpd_command_list_begin(c, false);
    for (size_t i = 0; ok && i < q.n; i++)
        ok = mpd_send_move_id(c, q.s[order[i]].id, (unsigned)i);
    ok = ok && mpd_command_list_end(c) && mpd_response_finish(c);
    if (!ok) {
        mq_error(c, why, sizeof why);
        cli_die(CLI_FAIL, "MPD at %s: shuffle: %s (every song is still in "
                "the queue once; run it again)", mq_where(o), why);
    }
    free(order);
    mq_free(&q);
    mpd_connection_free(c);
    return CLI_OK;
}
