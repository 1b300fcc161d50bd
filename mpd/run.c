/* run.c -- `fairshuf mpd run`: drives MPD's playback as fairshuf's player
 * (fs_player, <fairshuf/playlist.h>).  MPD stays in non-random mode and
 * plays its queue in order; after every change (a song starts, the queue
 * is edited) this program steps the player by what MPD really did and
 * moves the player's next song right after the current one
 * (docs/playlist.md "In MPD and mpv" says why this way).
 *
 * The player's list is the queue's songs sorted by URI (entries of one
 * file by MPD's song id), each item's text TAG<TAB>URI: the order of the
 * queue does not matter, so the moves made here and the user's are not
 * edits of the list, while added and removed songs are. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fairshuf/playlist.h"
#include "mpd.h"
#include "playlist_state.h" /* the state file's reading and writing */

typedef struct seen {
    unsigned id;
    long off; /* position relative to the current song */
} seen;

typedef struct runner {
    const mq_opts *o;
    const char *state;
    fs_player *p;
    fs_player_order order;
    uint64_t field;
    uint8_t tag[16];
    mq_queue q;
    size_t *item_pos;    /* item -> queue position */
    size_t *pos_item;    /* queue position -> item */
    char *list;          /* the list's text: TAG<TAB>URI lines, by item */
    size_t list_len;
    uint8_t fp[32];
    seen *prev;          /* the last snapshot, by id */
    size_t nprev;
    int have_planned, have_cur;
    unsigned planned, cur_id;
    int after_move;      /* the snapshot is the queue expected after a move
                          * of ours that MPD ran after the user's change */
    unsigned moved;      /* that move's song */
    int have_snap;       /* prev[] holds a look of this connection */
    size_t appended;     /* songs at the end new since the last event */
    unsigned *fresh;     /* their ids, kept for the next event, where */
    size_t nfresh;       /* they still count as new (is_new()) */
    unsigned *was_fresh;
    size_t nwas_fresh;
    char *saved;         /* the state text last written */
    size_t saved_len;
    char warned[512];
} runner;

static void note(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", cli_prog);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

static const mq_queue *sort_q;
static int by_entry(const void *x, const void *y)
{
    const mq_song *a = &sort_q->s[*(const size_t *)x],
                  *b = &sort_q->s[*(const size_t *)y];
    int c = strcmp(a->uri, b->uri);
    return c ? c : (a->id > b->id) - (a->id < b->id);
}

static int by_seen(const void *x, const void *y)
{
    const seen *a = x, *b = y;
    return (a->id > b->id) - (a->id < b->id);
}

/* The list of the queue in r->q: items by (URI, id), their text, the
 * fingerprint (SHA-256 of the text). */
static void build_list(runner *r)
{
    size_t n = r->q.n;
    free(r->item_pos);
    free(r->pos_item);
    free(r->list);
    r->item_pos = malloc(n * sizeof *r->item_pos);
    r->pos_item = malloc(n * sizeof *r->pos_item);
    if (!r->item_pos || !r->pos_item)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t i = 0; i < n; i++)
        r->item_pos[i] = i;
    sort_q = &r->q;
    qsort(r->item_pos, n, sizeof *r->item_pos, by_entry);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        const mq_song *s = &r->q.s[r->item_pos[i]];
        r->pos_item[r->item_pos[i]] = i;
        len += strlen(s->uri) + strlen(s->tag) + 34;
    }
    r->list = malloc(len + 1);
    if (r->list == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    r->list_len = 0;
    for (size_t i = 0; i < n; i++) {
        const mq_song *s = &r->q.s[r->item_pos[i]];
        if (r->order == FS_PLAYER_WEIGHTS)
            r->list_len += (size_t)sprintf(r->list + r->list_len, "%.17g\t%s\n",
                                           s->weight, s->uri);
        else
            r->list_len += (size_t)sprintf(r->list + r->list_len, "%s\t%s\n",
                                           r->order == FS_PLAYER_SPREAD
                                               ? s->tag : "", s->uri);
    }
    crypto_hash_sha256(r->fp, (const unsigned char *)r->list, r->list_len);
}

/* Gives the player the list text[0..len) (TAG<TAB>URI lines). */
static int give_list(runner *r, const char *text, size_t len,
                     const uint8_t fp[32], int *changed)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    const char **line = malloc((n ? n : 1) * sizeof *line);
    size_t *ll = malloc((n ? n : 1) * sizeof *ll);
    const char **val = malloc((n ? n : 1) * sizeof *val);
    size_t *vl = malloc((n ? n : 1) * sizeof *vl);
    uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    uint64_t *g = malloc((n ? n : 1) * sizeof *g);
    double *w = malloc((n ? n : 1) * sizeof *w);
    if (!line || !ll || !val || !vl || !ids || !g || !w)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t k = 0;
    for (const char *p = text, *end = text + len; p < end && k < n; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *tab = memchr(p, '\t', (size_t)(nl - p));
        if (tab == NULL)
            tab = p;
        line[k] = p;
        ll[k] = (size_t)(nl - p);
        val[k] = p;
        vl[k] = (size_t)(tab - p);
        char num[64];
        size_t m = vl[k] < sizeof num - 1 ? vl[k] : sizeof num - 1;
        memcpy(num, p, m);
        num[m] = '\0';
        w[k] = strtod(num, NULL);
        p = nl + 1;
    }
    int rc = fs_player_item_ids(r->p, n, line, ll, ids);
    if (rc == FS_OK && r->order == FS_PLAYER_SPREAD)
        rc = fs_spread_groups(n, val, vl, g);
    if (rc == FS_OK)
        rc = fs_player_set_list(r->p, n, ids, fp,
                                r->order == FS_PLAYER_SPREAD ? g : NULL,
                                r->order == FS_PLAYER_WEIGHTS ? w : NULL,
                                changed);
    free(line);
    free(ll);
    free(val);
    free(vl);
    free(ids);
    free(g);
    free(w);
    return rc;
}

/* STATE.list-HEX16: the copy of the list a state was saved with. */
static char *copy_name(const char *state, const uint8_t fp[32])
{
    char hex[65];
    fs_hex_encode(fp, 32, hex);
    char *name = malloc(strlen(state) + 24);
    if (name == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    sprintf(name, "%s.list-%.16s", state, hex);
    return name;
}

static void open_player(runner *r)
{
    size_t len;
    char *text = r->o->force_new ? NULL
                                 : pl_state_read(r->state, (size_t)1 << 30,
                                                 &len);
    if (text == NULL) {
        uint8_t key[32];
        if (r->o->seed)
            cli_check(fs_seed_to_key(r->o->seed, key), "seed");
        else
            cli_check(fs_os_random(key, sizeof key), "seeding");
        cli_check(fs_player_create(&r->p, key, FS_PLAYLIST_WINDOW_DEFAULT,
                                   r->order, r->field, r->tag), "state");
        sodium_memzero(key, sizeof key);
        return;
    }
    const char *why;
    int rc = fs_player_load(&r->p, text, len, &why);
    free(text);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "%s: %s (--force-new starts over)", r->state, why);
    cli_check(rc, "state");
    uint8_t want[32];
    if (r->o->seed)
        cli_check(fs_seed_to_key(r->o->seed, want), "seed");
    rc = fs_player_matches(r->p, r->o->seed ? want : NULL, r->tag, r->order,
                           r->field, &why);
    sodium_memzero(want, sizeof want);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "%s: the state was %s, not this one (--force-new "
                "starts over)", r->state, why);
    cli_check(rc, "state");
    /* the list it was saved with, if the queue changed meanwhile */
    uint8_t saved[32];
    fs_player_describe(r->p, NULL, NULL, NULL, NULL, saved, NULL);
    if (memcmp(saved, r->fp, 32) == 0)
        return;
    char *name = copy_name(r->state, saved);
    size_t clen;
    char *copy = access(name, F_OK) == 0
                     ? pl_state_read(name, (size_t)1 << 30, &clen) : NULL;
    if (copy) {
        uint8_t h[32];
        crypto_hash_sha256(h, (const unsigned char *)copy, clen);
        if (memcmp(h, saved, 32) != 0)
            cli_die(CLI_FAIL, "%s: the copy of the list is damaged (--force-new "
                    "starts over)", name);
        rc = give_list(r, copy, clen, saved, NULL);
        if (rc == FS_EINVAL)
            cli_die(CLI_FAIL, "%s: not a fairshuf playlist state (it does not "
                    "fit its list; --force-new starts over)", r->state);
        cli_check(rc, "state");
        free(copy);
    }
    free(name);
}

static void save_state(runner *r)
{
    size_t n;
    cli_check(fs_player_save(r->p, NULL, 0, &n), "state");
    char *text = malloc(n);
    if (text == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_check(fs_player_save(r->p, text, n, &n), "state");
    if (r->saved && r->saved_len == n && memcmp(r->saved, text, n) == 0) {
        sodium_memzero(text, n);
        free(text);
        return;
    }
    /* the copy of the list first: a state never names a copy not there */
    char *copy = copy_name(r->state, r->fp);
    if (access(copy, F_OK) != 0)
        pl_copy_write(copy, r->list, r->list_len);
    pl_state_write(r->state, text, n);
    pl_copies_prune(r->state, copy);
    free(copy);
    if (r->saved) {
        sodium_memzero(r->saved, r->saved_len);
        free(r->saved);
    }
    r->saved = text;
    r->saved_len = n;
}

static long prev_offset(const runner *r, unsigned id, int *found)
{
    seen key = {.id = id};
    const seen *s = r->nprev ? bsearch(&key, r->prev, r->nprev, sizeof *s,
                                       by_seen) : NULL;
    *found = s != NULL;
    return s ? s->off : 0;
}

/* A song not in the snapshot, or one added at the end at this event or
 * the last (the user's client may have moved it since: `mpc insert`). */
static int is_new(const runner *r, unsigned id)
{
    int found;
    prev_offset(r, id, &found);
    for (size_t i = 0; found && i < r->nwas_fresh; i++)
        found = r->was_fresh[i] != id;
    for (size_t i = 0; found && i < r->nfresh; i++)
        found = r->fresh[i] != id;
    return !found;
}

/* Songs the user put right after the current one since the last look
 * (new entries, or entries moved there -- not those that only slid up
 * because the song planned there moved further down): "play next".  One
 * song between the current and the planned one is always the user's pick
 * (moving it up or the planned song down by one gives the same queue).
 * After a move of ours that MPD ran after the user's insert (after_move),
 * the inserted songs are right after the song moved: new entries there
 * are the user's too. */
static void play_next(runner *r)
{
    long cur = r->q.current;
    size_t k = (size_t)cur + 1, end = k;
    while (end < r->q.n && r->q.s[end].id != r->planned)
        end++;
    if (end == r->q.n)
        return; /* the planned song is gone: nothing was put before it */
    for (; k < end; k++) {
        const mq_song *s = &r->q.s[k];
        int found;
        long was = prev_offset(r, s->id, &found), now = (long)k - cur;
        if (found && (was == now || (was == now + 1 && end - cur > 2)))
            return; /* where it was, or slid up: not the user's pick */
        cli_check(fs_player_queue(r->p, r->pos_item[k]), "queue");
    }
    if (r->after_move && r->planned == r->moved && end == (size_t)cur + 1)
        for (k = end + 1; k < r->q.n && is_new(r, r->q.s[k].id); k++)
            cli_check(fs_player_queue(r->p, r->pos_item[k]), "queue");
}

/* MPD moved on, down the queue, from the song it played at the last look
 * to the current one: each song it passed (and the current) is stepped
 * onto, on a copy that replaces the player only if every step fits --
 * the player's next, or a new entry (inserted after the song then
 * playing: "play next", and skipped to before this program saw it), or
 * one other song (MPD's next reached it before this program placed one);
 * those two play out of turn (fs_player_play: the cycle goes on, not
 * again in it).  A song of ours that MPD put there after it had moved on
 * (after_move) is not one it passed.  Otherwise the current song is
 * followed as a pick (follow()). */
static void walk(runner *r)
{
    long cur = r->q.current;
    size_t from = r->q.n;
    for (size_t i = 0; i < r->q.n; i++)
        if (r->q.s[i].id == r->cur_id)
            from = i;
    if (from == r->q.n || (long)from >= cur)
        return; /* the song is gone, or MPD went back: follow() */
    fs_player *c;
    cli_check(fs_player_clone(r->p, &c), "state");
    int odd = 0;
    for (size_t k = from + 1; k <= (size_t)cur; k++) {
        const mq_song *s = &r->q.s[k];
        if (r->after_move && s->id == r->moved && (long)k != cur)
            continue;
        size_t item = r->pos_item[k], got;
        int rc = FS_EINVAL;
        if (fs_player_peek(c, &got) == FS_OK && got == item)
            rc = fs_player_next(c, &got);
        else if (is_new(r, s->id) || !odd++)
            rc = fs_player_play(c, item);
        if (rc != FS_OK) {
            fs_player_free(c);
            return;
        }
    }
    fs_player_free(r->p);
    r->p = c;
}

/* The song MPD plays is not the player's: step the player by what MPD
 * did -- on to the next (the planned song started), back (MPD's previous:
 * the song played before), or to the user's pick (start from this song). */
static void follow(runner *r, size_t ci)
{
    size_t item;
    int rc = fs_player_current(r->p, &item);
    if (rc == FS_OK && item == ci)
        return;
    if (fs_player_peek(r->p, &item) == FS_OK && item == ci) {
        cli_check(fs_player_next(r->p, &item), "next");
        return;
    }
    fs_player *c;
    cli_check(fs_player_clone(r->p, &c), "state");
    rc = fs_player_prev(c, &item);
    fs_player_free(c);
    if (rc == FS_OK && item == ci) {
        cli_check(fs_player_prev(r->p, &item), "prev");
        return;
    }
    cli_check(fs_player_seek_item(r->p, ci), "seek-item");
}

/* The player's next song goes right after the current one (to the top
 * when there is none): 1 with mv = {its id, the position} when it must
 * move (r->q becomes the queue as it will be after the move), 0 when it
 * is there (or nothing can be played).  Sets planned. */
static int plan(runner *r, unsigned mv[2])
{
    r->have_planned = 0;
    size_t item;
    if (fs_player_peek(r->p, &item) != FS_OK)
        return 0; /* nothing can be played (every weight 0) */
    size_t pos = r->item_pos[item];
    long cur = r->q.current;
    if ((long)pos == cur)
        return 0; /* one song: MPD's repeat mode replays it */
    unsigned to = cur < 0 ? 0 : (long)pos < cur ? (unsigned)cur
                                                 : (unsigned)cur + 1;
    if (pos != to && r->appended && cur >= 0 && (size_t)cur + 1 < r->q.n) {
        /* not now: the user's client may be about to move what it just
         * added, by position (`mpc insert` adds at the end, then moves
         * from there to after the current song: a move of ours in
         * between would make it move another song); MPD plays the song
         * after the current one if nothing else comes (walk() follows).
         * With none after it, MPD would stop: placed now. */
        r->planned = r->q.s[cur + 1].id;
        r->have_planned = 1;
        return 0;
    }
    r->planned = r->q.s[pos].id;
    r->have_planned = 1;
    if (pos == to)
        return 0;
    mv[0] = r->q.s[pos].id;
    mv[1] = to;
    mq_song s = r->q.s[pos];
    if (pos < to)
        memmove(&r->q.s[pos], &r->q.s[pos + 1], (to - pos) * sizeof s);
    else
        memmove(&r->q.s[to + 1], &r->q.s[to], (pos - to) * sizeof s);
    r->q.s[to] = s;
    if (cur >= 0 && (long)pos < cur)
        r->q.current--;
    return 1;
}

/* The last look, by id (what the next look is compared with). */
static void snapshot(runner *r)
{
    free(r->prev);
    r->nprev = r->q.n;
    r->prev = malloc((r->q.n ? r->q.n : 1) * sizeof *r->prev);
    if (r->prev == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t i = 0; i < r->q.n; i++) {
        r->prev[i].id = r->q.s[i].id;
        r->prev[i].off = (long)i - r->q.current;
    }
    qsort(r->prev, r->nprev, sizeof *r->prev, by_seen);
    r->have_cur = r->q.current >= 0;
    r->cur_id = r->q.current >= 0 ? r->q.s[r->q.current].id : 0;
    r->have_snap = 1;
}

/* An event begins: the songs added at the end at the event before are
 * was_fresh[] now. */
static void next_event(runner *r)
{
    unsigned *t = r->was_fresh;
    r->was_fresh = r->fresh;
    r->nwas_fresh = r->nfresh;
    r->fresh = t;
    r->nfresh = 0;
    r->appended = 0;
}

/* A look: the songs at the end of the queue new since the snapshot join
 * fresh[]; appended counts them (0 when every song is new: a first look
 * or a queue replaced, nothing to wait for). */
static void add_fresh(runner *r)
{
    size_t k = 0;
    int found = 0;
    while (r->have_snap && k < r->q.n) {
        prev_offset(r, r->q.s[r->q.n - 1 - k].id, &found);
        if (found)
            break;
        k++;
    }
    if (k == r->q.n)
        return;
    unsigned *f = realloc(r->fresh, (r->nfresh + k + 1) * sizeof *f);
    if (f == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    r->fresh = f;
    for (size_t i = 0; i < k; i++)
        r->fresh[r->nfresh++] = r->q.s[r->q.n - 1 - i].id;
    r->appended += k;
}

/* The same queue (entries in order) and the same song playing. */
static int same_queue(const mq_queue *a, const mq_queue *b)
{
    if (a->n != b->n || a->current != b->current || a->state != b->state)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->s[i].id != b->s[i].id)
            return 0;
    return 1;
}

/* Reads MPD (after the move mv, if not NULL) into *q; warns once about a
 * sticker that is not a weight.  mq_read()'s 0, -1, -3. */
static int look(runner *r, struct mpd_connection *c, const unsigned *mv,
                mq_queue *q, char *why, size_t cap)
{
    int rc = mq_read(c, r->o, mv, q, why, cap);
    if (rc == -2 && strcmp(why, r->warned) != 0) {
        note("%s (%s)", why, "the song gets the default weight");
        snprintf(r->warned, sizeof r->warned, "%s", why);
    }
    return rc == -2 ? 0 : rc;
}

/* The player takes the queue in r->q as the user left it since the last
 * look (the snapshot): the list, "play next" inserts, the song MPD plays. */
static void take(runner *r)
{
    build_list(r);
    int fresh = r->p == NULL;
    if (fresh)
        open_player(r);
    int changed = 0;
    int rc = give_list(r, r->list, r->list_len, r->fp, &changed);
    if (rc == FS_ENOTFOUND)
        cli_die(CLI_FAIL, "%s: the queue changed and the copy of the list "
                "the state was saved with is missing: cannot tell what was "
                "played (--force-new starts over)", r->state);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "%s: not a fairshuf playlist state (it does not "
                "fit the queue; --force-new starts over)", r->state);
    cli_check(rc, "state");
    long cur = r->q.current;
    int playing = cur >= 0 && r->q.state != MPD_STATE_STOP &&
                  r->q.state != MPD_STATE_UNKNOWN;
    if (playing && !fresh && r->have_cur) {
        if (r->cur_id == r->q.s[cur].id) {
            if (r->have_planned)
                play_next(r);
        } else {
            walk(r);
        }
    }
    if (playing)
        follow(r, r->pos_item[cur]);
    if (playing && !fresh && r->have_cur && r->cur_id != r->q.s[cur].id)
        for (size_t k = (size_t)cur + 1; k < r->q.n && is_new(r, r->q.s[k].id);
             k++) /* inserted after the song MPD moved on to */
            cli_check(fs_player_queue(r->p, r->pos_item[k]), "queue");
}

/* One look at MPD after an event: the player takes what changed, the next
 * song is put in place, the state is saved.  -1: the connection failed
 * (why[] says why).
 *
 * Why it is built this way.  MPD has no compare-and-set: another client's
 * command (an insert, next, previous, a pick, a delete) can run between
 * this program's look and its move; idle only says that something
 * changed, so several of the user's commands may show as one difference;
 * and the move's own idle event comes back later, mixed with the user's.
 * So every look is one moment of MPD's (status and queue in one command
 * list), the move is sent in one command list with the look that follows
 * it (the queue right after the move, exact), and the player only ever
 * takes the difference between a look and the snapshot (the last look,
 * or the queue a move of ours was expected to give):
 * - its own move, nothing else: the look after it is the queue expected;
 *   it becomes the snapshot and the state is saved.  The idle event the
 *   move causes later finds the queue equal to the snapshot: absorbed (no
 *   step, no move, the same state).
 * - a user's insert before the move ran: the look after it differs; the
 *   expected queue becomes the snapshot and the inserted songs, now right
 *   after the song just moved, are still "play next" (after_move); the
 *   next round places them.  `mpc insert` adds at the end, then moves by
 *   position: an event that appended songs makes no move (ours in between
 *   would make its move take another song); its move is the next event.
 * - next or previous (also before the move ran, also several at once):
 *   another song is current.  Down the queue, walk() steps over what MPD
 *   passed: the placed song (next), inserted songs skipped to (out of
 *   turn, fs_player_play), one song reached before one was placed;
 *   up, follow() steps back.  Songs inserted after the new current one are
 *   "play next".  A move of ours that landed above the new current song
 *   is not one MPD passed; the next round places the player's next again.
 * - a pick by hand (anything walk() cannot explain): seek-item, a new
 *   cycle from it (follow()).
 * - a delete: the list changes (the cycle skips the song); a move refused
 *   because its song or place is gone (-3): look again, the snapshot as
 *   it was (nothing of ours ran).
 * - MPD restarts: the connection drops; the next one starts from a look
 *   without a snapshot (song ids are new): only follow().
 * The state is saved only after a look that needed no move or whose move
 * ran as expected (or after 8 rounds of a user racing each move: the last
 * look, nothing placed until the next event), so it always describes the
 * queue as MPD has it, and no difference is taken twice. */
static int sync_mpd(runner *r, struct mpd_connection *c, int random_on,
                    char *why, size_t cap)
{
    mq_free(&r->q);
    if (look(r, c, NULL, &r->q, why, cap) != 0)
        return -1;
    r->after_move = 0;
    next_event(r);
    for (int round = 0;; round++) {
        if (r->q.n == 0) {
            r->have_planned = r->have_cur = 0;
            return 0;
        }
        add_fresh(r);
        take(r);
        r->after_move = 0;
        snapshot(r); /* taken: a look again compares with this */
        unsigned mv[2];
        int had = r->have_planned;
        unsigned planned = r->planned;
        if (random_on || round == 8 || !plan(r, mv))
            break;
        mq_queue now;
        int rc = look(r, c, mv, &now, why, cap);
        if (rc == -1)
            return -1;
        if (rc == -3) { /* not moved: the snapshot stays, look again */
            r->have_planned = had;
            r->planned = planned;
            mq_free(&r->q);
            if (look(r, c, NULL, &r->q, why, cap) != 0)
                return -1;
            continue;
        }
        int as_expected = same_queue(&r->q, &now);
        if (!as_expected) { /* the user acted before the move ran */
            snapshot(r);
            r->after_move = 1;
            r->moved = mv[0];
        }
        mq_free(&r->q);
        r->q = now;
        if (as_expected)
            break;
    }
    snapshot(r);
    save_state(r);
    return 0;
}

static void lock_state(const char *state)
{
    char *copy = strdup(state);
    if (copy == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0)
        cli_die(CLI_FAIL, "%s: cannot open the state's folder: %s", state,
                strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        cli_die(CLI_FAIL, "%s: %s", state, errno == EWOULDBLOCK
                ? "in use (another fairshuf player holds its folder)"
                : strerror(errno));
    /* fd stays open: the lock lasts as long as this program */
}

/* $XDG_STATE_HOME/fairshuf/mpd.state, else ~/.local/state/...; the
 * folders are made (0700). */
static char *default_state(void)
{
    const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char *path = malloc(4096);
    if (path == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    if (x && *x == '/')
        snprintf(path, 4096, "%s/fairshuf/mpd.state", x);
    else if (home && *home)
        snprintf(path, 4096, "%s/.local/state/fairshuf/mpd.state", home);
    else
        cli_die(CLI_USAGE, "no HOME: give --state=STATE");
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            cli_die(CLI_FAIL, "%s: %s", path, strerror(errno));
        *s = '/';
    }
    return path;
}

static void nap(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int mq_run(const mq_opts *o)
{
    runner r;
    memset(&r, 0, sizeof r);
    r.o = o;
    char *def = o->state ? NULL : default_state();
    r.state = o->state ? o->state : def;
    r.order = o->spread ? FS_PLAYER_SPREAD
              : o->weights ? FS_PLAYER_WEIGHTS : FS_PLAYER_PLAIN;
    if (o->spread || o->weights) {
        char name[300];
        snprintf(name, sizeof name, "%s%s", o->weights ? "sticker:" : "",
                 o->spread ? o->spread : o->weights);
        r.field = fs_player_field_tag(name);
    }
    const char *where = mq_where(o);
    char tagname[400];
    snprintf(tagname, sizeof tagname, "mpd:%s", where);
    crypto_generichash(r.tag, 16, (const unsigned char *)tagname,
                       strlen(tagname), NULL, 0);
    lock_state(r.state);
    unsigned delay = 0; /* ms; grows while MPD keeps failing */
    int down = 0;
    char why[512];
    for (;;) {
        int fatal;
        struct mpd_connection *c = mq_connect(o, why, sizeof why, &fatal);
        if (c == NULL) {
            if (fatal)
                cli_die(CLI_FAIL, "MPD at %s: %s", where, why);
            if (!down)
                note("MPD at %s: %s (retrying)", where, why);
            down = 1;
            delay = delay ? (delay * 2 > 5000 ? 5000 : delay * 2) : 100;
            nap(delay);
            continue;
        }
        if (down)
            note("MPD at %s: %s", where, "connected again");
        down = 0;
        r.have_planned = r.have_cur = r.have_snap = 0; /* new ids */
        r.nfresh = r.nwas_fresh = 0;
        free(r.prev);
        r.prev = NULL;
        r.nprev = 0;
        struct mpd_status *st = mpd_run_status(c);
        int random_on = st && mpd_status_get_random(st);
        if (st)
            mpd_status_free(st);
        else
            mq_error(c, why, sizeof why);
        if (random_on) {
            /* once, at the start: fairshuf chooses the order */
            random_on = !mpd_run_random(c, false);
            note("MPD at %s: %s", where, "random mode turned off "
                 "(fairshuf chooses the order)");
        }
        int ok = st != NULL && sync_mpd(&r, c, 0, why, sizeof why) == 0;
        while (ok) {
            delay = 0; /* a whole look at MPD worked */
            enum mpd_idle ev = mpd_run_idle_mask(
                c, MPD_IDLE_QUEUE | MPD_IDLE_PLAYER | MPD_IDLE_OPTIONS |
                       (o->weights ? MPD_IDLE_STICKER : 0));
            if (ev == 0) {
                mq_error(c, why, sizeof why);
                break;
            }
            st = mpd_run_status(c);
            if (st == NULL) {
                mq_error(c, why, sizeof why);
                break;
            }
            int rnd = mpd_status_get_random(st);
            mpd_status_free(st);
            if (rnd && !random_on)
                note("MPD at %s: %s", where, "random mode is on: MPD "
                     "chooses the songs until it is off");
            random_on = rnd;
            ok = sync_mpd(&r, c, random_on, why, sizeof why) == 0;
        }
        mpd_connection_free(c);
        if (mq_refused) /* a password or a permission: retrying cannot help */
            cli_die(CLI_FAIL, "MPD at %s: %s", where, why);
        /* gone, or a command refused (a song deleted as it was moved):
         * look again, waiting longer each time it fails at once */
        note("MPD at %s: %s (reconnecting)", where, why);
        down = 1;
        delay = delay ? (delay * 2 > 5000 ? 5000 : delay * 2) : 100;
        nap(delay);
    }
    free(def);
    return CLI_OK;
}
