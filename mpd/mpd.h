/* mpd.h -- what the files of fairshuf-mpd (`fairshuf mpd`) share: the
 * options, the connection to MPD and a snapshot of its queue.  The order
 * and the player are the library's (<fairshuf/playlist.h>); this program
 * only reads MPD's queue and moves songs in it (docs/playlist.md "In MPD
 * and mpv"). */
#ifndef FS_MPD_H
#define FS_MPD_H

#include <mpd/client.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mq_opts {
    const char *host;          /* NULL: MPD_HOST or localhost */
    unsigned port;             /* 0: MPD_PORT or 6600 */
    const char *password_file; /* NULL: MPD_HOST's password@, if any */
    const char *seed;          /* NULL: a key from the OS */
    const char *spread;        /* artist, album, albumartist or NULL */
    enum mpd_tag_type spread_tag;
    const char *weights;       /* the sticker's name or NULL */
    double default_weight;     /* for songs without the sticker */
    const char *state;         /* run: the state file */
    int force_new;
} mq_opts;

/* One entry of the queue (MPD's song id is unique in the queue and stays
 * with the entry when it moves). */
typedef struct mq_song {
    unsigned id, pos;
    char *uri;
    char *tag;      /* the --spread tag's value ("" without one) */
    double weight;  /* --weights: the sticker's value */
} mq_song;

typedef struct mq_queue {
    mq_song *s;     /* by position */
    size_t n;
    enum mpd_state state;
    int current;    /* position of the current song, -1: none */
    unsigned version; /* MPD's queue version (changes with every edit) */
} mq_queue;

/* Connects, sends the password (--password-file, else MPD_HOST's).  NULL
 * with why[] set (a short text) on failure; *fatal = 1 when retrying
 * cannot help (a refused password, an unreadable password file). */
struct mpd_connection *mq_connect(const mq_opts *o, char *why, size_t cap,
                                  int *fatal);
/* "HOST:PORT" (or the socket path) the options name, for messages. */
const char *mq_where(const mq_opts *o);

/* Reads the status and the queue as one moment of MPD's (one command
 * list), with the spread tag and the weights; move (NULL: none) = {song
 * id, position}: first moves that song there, in the same list, so q is
 * the queue right after that move.  0; -1 with why[] set (the connection
 * failed or MPD refused); -2 with why[] naming a sticker that is not a
 * weight (the queue is read, that song has the default weight); -3: MPD
 * refused the move (no such song or position any more; nothing was read,
 * the connection is usable). */
int mq_read(struct mpd_connection *c, const mq_opts *o, const unsigned *move,
            mq_queue *q, char *why, size_t cap);
void mq_free(mq_queue *q);

/* why[] <- MPD's error message; clears it if it can be cleared; sets
 * mq_refused when MPD refused a password or a permission (retrying cannot
 * help). */
void mq_error(struct mpd_connection *c, char *why, size_t cap);
extern int mq_refused;

/* The subcommands. */
int mq_shuffle(const mq_opts *o);
int mq_run(const mq_opts *o);

#endif
