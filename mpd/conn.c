/* conn.c -- the connection to MPD (host, port and password as mpc takes
 * them) and a snapshot of its queue: status, songs, the --spread tag and
 * the --weights sticker. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpd.h"

int mq_refused;

void mq_error(struct mpd_connection *c, char *why, size_t cap)
{
    const char *m = mpd_connection_get_error_message(c);
    snprintf(why, cap, "%s", m && *m ? m : "connection lost");
    mq_refused = mpd_connection_get_error(c) == MPD_ERROR_SERVER &&
                 (mpd_connection_get_server_error(c) ==
                      MPD_SERVER_ERROR_PERMISSION ||
                  mpd_connection_get_server_error(c) ==
                      MPD_SERVER_ERROR_PASSWORD);
    mpd_connection_clear_error(c);
}

const char *mq_where(const mq_opts *o)
{
    static char where[300];
    struct mpd_settings *s = mpd_settings_new(o->host, o->port, 0, NULL,
                                              NULL);
    const char *h = s ? mpd_settings_get_host(s) : NULL;
    unsigned p = s ? mpd_settings_get_port(s) : 0;
    if (h && h[0] == '/')
        snprintf(where, sizeof where, "%s", h);
    else
        snprintf(where, sizeof where, "%s:%u", h ? h : "localhost",
                 p ? p : 6600);
    if (s)
        mpd_settings_free(s);
    return where;
}

/* The first line of the password file, without its line end. */
static int read_password(const char *path, char *pw, size_t cap, char *why,
                         size_t wcap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, wcap, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fgets(pw, (int)cap, f) == NULL)
        pw[0] = '\0';
    fclose(f);
    pw[strcspn(pw, "\r\n")] = '\0';
    return 0;
}

struct mpd_connection *mq_connect(const mq_opts *o, char *why, size_t cap,
                                  int *fatal)
{
    *fatal = 0;
    char pw[1024] = "";
    if (o->password_file &&
        read_password(o->password_file, pw, sizeof pw, why, cap) != 0) {
        *fatal = 1;
        return NULL;
    }
    struct mpd_connection *c = mpd_connection_new(o->host, o->port, 10000);
    if (c == NULL) {
        snprintf(why, cap, "memory exhausted");
        return NULL;
    }
    if (mpd_connection_get_error(c) != MPD_ERROR_SUCCESS) {
        /* libmpdclient sends MPD_HOST's password itself: a refusal of it
         * is a server error here */
        *fatal = mpd_connection_get_error(c) == MPD_ERROR_SERVER;
        snprintf(why, cap, "%s", mpd_connection_get_error_message(c));
        mpd_connection_free(c);
        return NULL;
    }
    if (pw[0] && !mpd_run_password(c, pw)) {
        *fatal = mpd_connection_get_error(c) == MPD_ERROR_SERVER;
        snprintf(why, cap, "password refused: %s",
                 mpd_connection_get_error_message(c));
        mpd_connection_free(c);
        return NULL;
    }
    return c;
}

void mq_free(mq_queue *q)
{
    for (size_t i = 0; i < q->n; i++) {
        free(q->s[i].uri);
        free(q->s[i].tag);
    }
    free(q->s);
    memset(q, 0, sizeof *q);
}

static int by_uri(const void *x, const void *y)
{
    const mq_song *a = *(mq_song *const *)x, *b = *(mq_song *const *)y;
    return strcmp(a->uri, b->uri);
}

/* The sticker of every song that has one (one `sticker find` for the whole
 * database), matched to the queue by URI. */
static int read_weights(struct mpd_connection *c, const mq_opts *o,
                        mq_queue *q, char *why, size_t cap)
{
    mq_song **by = malloc((q->n ? q->n : 1) * sizeof *by);
    if (by == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t i = 0; i < q->n; i++) {
        by[i] = &q->s[i];
        q->s[i].weight = o->default_weight;
    }
    qsort(by, q->n, sizeof *by, by_uri);
    if (!mpd_send_sticker_find(c, "song", "", o->weights)) {
        free(by);
        mq_error(c, why, cap);
        return -1;
    }
    struct mpd_pair *pair;
    char *file = NULL;
    int bad = 0;
    while ((pair = mpd_recv_pair(c)) != NULL) {
        if (strcmp(pair->name, "file") == 0) {
            free(file);
            file = strdup(pair->value);
        } else if (strcmp(pair->name, "sticker") == 0 && file) {
            size_t nl = strlen(o->weights);
            const char *v = pair->value;
            if (strncmp(v, o->weights, nl) == 0 && v[nl] == '=') {
                char *end;
                errno = 0;
                double w = strtod(v + nl + 1, &end);
                int ok = end != v + nl + 1 && *end == '\0' && isfinite(w) &&
                         w >= 0;
                mq_song key = {.uri = file}, *kp = &key;
                mq_song **hit = bsearch(&kp, by, q->n, sizeof *by, by_uri);
                /* every entry of that file: duplicates share it */
                while (hit && hit > by && by_uri(hit - 1, &kp) == 0)
                    hit--;
                for (; hit && hit < by + q->n && by_uri(hit, &kp) == 0; hit++) {
                    if (!ok && !bad) {
                        snprintf(why, cap, "%s: invalid sticker %s='%s': "
                                 "must be a number, 0 or more", file,
                                 o->weights, v + nl + 1);
                        bad = 1;
                    }
                    if (ok)
                        (*hit)->weight = w;
                }
            }
        }
        mpd_return_pair(c, pair);
    }
    free(file);
    free(by);
    if (!mpd_response_finish(c)) {
        mq_error(c, why, cap);
        if (strstr(why, "sticker") && strstr(why, "disabled"))
            snprintf(why, cap, "MPD has no sticker database (its "
                     "sticker_file setting): --weights=sticker:%s needs one",
                     o->weights);
        return -1;
    }
    return bad ? -2 : 0;
}

int mq_read(struct mpd_connection *c, const mq_opts *o, const unsigned *move,
            mq_queue *q, char *why, size_t cap)
{
    memset(q, 0, sizeof *q);
    q->current = -1;
    /* one command list: MPD runs it as one request, so the status, the
     * queue (and the move before them) are one moment of MPD's */
    if (!mpd_command_list_begin(c, true) ||
        (move && !mpd_send_move_id(c, move[0], move[1])) ||
        !mpd_send_status(c) || !mpd_send_list_queue_meta(c) ||
        !mpd_command_list_end(c)) {
        mq_error(c, why, cap);
        return -1;
    }
    if (move && !mpd_response_next(c)) {
        /* MPD refused the move (the song or the place is gone): the list
         * stopped there, the connection is fine */
        int server = mpd_connection_get_error(c) == MPD_ERROR_SERVER;
        mq_error(c, why, cap);
        return server && !mq_refused ? -3 : -1;
    }
    struct mpd_status *st = mpd_recv_status(c);
    if (st == NULL || !mpd_response_next(c)) {
        if (st)
            mpd_status_free(st);
        mq_error(c, why, cap);
        return -1;
    }
    q->state = mpd_status_get_state(st);
    q->current = mpd_status_get_song_pos(st);
    q->version = mpd_status_get_queue_version(st);
    mpd_status_free(st);
    size_t cap_s = 0;
    struct mpd_song *song;
    while ((song = mpd_recv_song(c)) != NULL) {
        if (q->n == cap_s) {
            cap_s = cap_s ? 2 * cap_s : 64;
            mq_song *s = realloc(q->s, cap_s * sizeof *s);
            if (s == NULL)
                cli_die(CLI_FAIL, "memory exhausted");
            q->s = s;
        }
        mq_song *e = &q->s[q->n++];
        e->id = mpd_song_get_id(song);
        e->pos = mpd_song_get_pos(song);
        e->uri = strdup(mpd_song_get_uri(song));
        const char *t = o->spread
                            ? mpd_song_get_tag(song, o->spread_tag, 0) : NULL;
        e->tag = strdup(t ? t : "");
        for (char *x = e->tag; x && *x; x++)
            if (*x == '\t')
                *x = ' '; /* the copy of the list is TAG<TAB>URI */
        e->weight = 1;
        if (e->uri == NULL || e->tag == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        mpd_song_free(song);
    }
    if (!mpd_response_finish(c)) {
        mq_error(c, why, cap);
        mq_free(q);
        return -1;
    }
    for (size_t i = 0; i < q->n; i++)
        if (q->s[i].pos != i) { /* changed while we read: read again */
            snprintf(why, cap, "the queue changed while it was read");
            mq_free(q);
            return -1;
        }
    if (q->current >= (int)q->n)
        q->current = -1;
    if (o->weights) {
        int rc = read_weights(c, o, q, why, cap);
        if (rc == -1)
            mq_free(q);
        return rc; /* -2: a bad sticker (the song keeps the default) */
    }
    return 0;
}
