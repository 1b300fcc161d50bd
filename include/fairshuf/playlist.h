/*
 * fairshuf/playlist.h -- shuffle play: a player over n items that walks
 * forwards and backwards through one shuffled order per cycle.
 *
 * Every cycle plays each of the n items exactly once.  Cycle c's order is
 * the keyed permutation of epoch c (<fairshuf/keyed.h>, docs/keyed.md) of
 * the playlist's key -- so with a seed S it is line c+1 of
 * `fairshuf perm N --lazy --count=C --seed=S` -- except at its very start:
 * no item among the last w of cycle c-1 is among the first w of cycle c
 * (the "the new round starts with the song that just ended" complaint).
 * The rule (docs/playlist.md): take the first 2w items of the raw order,
 * move those among the last w of the previous cycle behind the others,
 * both groups keeping their order.  Positions >= 2w are the raw order; the
 * window w is at most n/3, so the tail the rule reads is itself raw and
 * any (cycle, position) is computed from the key alone, in O(w) time.
 *
 * The player's position is one number, the step: the count of items
 * played, going back with "previous".  Step s >= 1 is item s-1 of the
 * endless sequence cycle 0, cycle 1, ...; step 0 is "before the first
 * item".  Previous walks back through exactly what was played, across
 * cycle boundaries.  The whole state (fs_playlist) is a key, n, w, the
 * step and a caller-chosen 32-byte list fingerprint: fs_playlist_save()
 * writes it as one line of text (under 256 bytes).
 *
 * Uniformity: as docs/keyed.md -- each cycle's order is a pseudo-random
 * permutation (not an exact draw from the n! orders), and the boundary
 * rule deliberately changes the first 2w positions of cycles after the
 * first.  Changed lists: fs_playlist_item_id() and fs_playlist_rest()
 * (below) give items identities and the keyed order of the rest of a
 * cycle after a change; fs_player (further below, what `fairshuf playlist
 * --state` runs) uses them so that no item played in the cycle is played
 * again, added items come later in it and removed ones are skipped
 * (docs/playlist.md "Changed lists").
 */
#ifndef FAIRSHUF_PLAYLIST_H
#define FAIRSHUF_PLAYLIST_H

#include <fairshuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Pass as `window` for the default, min(n/4, 10). */
#define FS_PLAYLIST_WINDOW_DEFAULT UINT32_MAX
/* Largest window (the boundary rule works on 2w items on the stack). */
#define FS_PLAYLIST_WINDOW_MAX 64
/* Room for fs_playlist_save()'s text, NUL included. */
#define FS_PLAYLIST_STATE_MAX 256

typedef struct fs_playlist {
    uint8_t key[32];         /* master key: cycle c uses epoch key c */
    uint8_t fingerprint[32]; /* the caller's, e.g. SHA-256 of the list */
    uint64_t n;              /* items, >= 1 */
    uint64_t step;           /* items played (0: before the first) */
    uint32_t window;         /* effective w: <= n/3, <= WINDOW_MAX */
} fs_playlist;

/* A player over n >= 1 items at step 0, keyed by a 256-bit key; window as
 * above (FS_PLAYLIST_WINDOW_DEFAULT, else clamped to min(n/3, 64)); the
 * fingerprint is zeroed.  FS_EINVAL for n == 0 or NULL arguments.  O(1). */
FS_API int fs_playlist_init(fs_playlist *pl, uint64_t n, const uint8_t key[32],
                            uint32_t window);

/* The same with the key of a seed string (fs_seed_to_key()).  FS_ESEED for
 * an empty or NULL seed. */
FS_API int fs_playlist_from_seed(fs_playlist *pl, uint64_t n, const char *seed,
                                 uint32_t window);

/* The item at position pos (< n) of cycle `cycle`, whatever the step.
 * Pure: depends on key, n and window only.  FS_EINVAL for pos >= n.
 * O(w) keyed evaluations near a cycle's start, O(1) elsewhere. */
FS_API int fs_playlist_item_at(const fs_playlist *pl, uint64_t cycle,
                               uint64_t pos, uint64_t *item);

/* Positions from .. from+count-1 of cycle `cycle` at once: items[k] =
 * what fs_playlist_item_at(pl, cycle, from + k) gives (the same values),
 * mapped with the keyed permutation's batch call (fs_keyed_at_many(),
 * which builds round tables when count makes them pay) -- the way to list
 * a whole cycle.  FS_EINVAL for from + count > n or NULL arguments.
 * O(count + w) time, no memory beyond the batch's tables. */
FS_API int fs_playlist_items(const fs_playlist *pl, uint64_t cycle,
                             uint64_t from, size_t count, uint64_t *items);

/* Steps forward and gives the new current item.  FS_ERANGE (nothing
 * changed) if the step would overflow 2^64-1. */
FS_API int fs_playlist_next(fs_playlist *pl, uint64_t *item);

/* Steps back to the item played before the current one (across cycle
 * boundaries) and gives it.  FS_ERANGE, nothing changed, at step 0 or 1:
 * there is nothing before the first item. */
FS_API int fs_playlist_prev(fs_playlist *pl, uint64_t *item);

/* The current item.  FS_ERANGE at step 0 (nothing played yet). */
FS_API int fs_playlist_current(const fs_playlist *pl, uint64_t *item);

/* Jumps to position pos (< n) of the current cycle (of cycle 0 at step 0)
 * and gives that item; next continues from there.  FS_EINVAL for pos >= n.
 */
FS_API int fs_playlist_seek(fs_playlist *pl, uint64_t pos, uint64_t *item);

/* Where the player is: the cycle and the position in it of the current
 * item (cycle 0, position 0 at step 0 too; check fs_playlist_current()). */
FS_API void fs_playlist_position(const fs_playlist *pl, uint64_t *cycle,
                                 uint64_t *pos);

/* The state as one line of text (NUL-terminated, no newline):
 *   fairshuf-playlist 1 n=N window=W step=S key=HEX64 list=HEX64
 * out must hold FS_PLAYLIST_STATE_MAX bytes. */
FS_API void fs_playlist_save(const fs_playlist *pl, char *out);

/* Parses fs_playlist_save()'s text (a trailing newline is allowed).
 * FS_EINVAL, *pl untouched, for anything else: other versions, missing or
 * extra fields, bad numbers, n == 0, a window above min(n/3, 64). */
FS_API int fs_playlist_load(fs_playlist *pl, const char *text);

/* Changed lists (docs/playlist.md "Changed lists").  An item's identity:
 * a 64-bit keyed hash (BLAKE2b under a key derived from pl->key) of its
 * text (the CLI: the item's line -- the entry path of M3U, the row of TSV)
 * and its occurrence number (0 for the first item with that text in the
 * list, 1 for the second, ...), so duplicates are told apart by order.
 * Keyed, so ids reveal nothing about the items without the key; two of
 * 10^5 items collide with probability about 3e-10.  FS_EINVAL for NULL
 * pl or id (text may be NULL when len is 0).  O(len). */
FS_API int fs_playlist_item_id(const fs_playlist *pl, const void *text,
                               size_t len, uint64_t occurrence, uint64_t *id);

/* The rest of cycle `cycle` after the list changed: writes to
 * rest[0..*nrest) the indices i of the items (ids[0..n), the new list)
 * whose id is not among played[0..nplayed) (what this cycle already
 * passed), in a keyed order -- by SipHash-2-4, under a key derived from
 * pl->key, of (cycle, pl->fingerprint, id) -- so the order depends on the
 * key, the cycle and the new list only, and an item's place does not move
 * when other items are added or removed.  rest must hold n entries.
 * Errors: FS_EINVAL (NULL arrays with counts > 0), FS_ENOMEM.  O((n +
 * nplayed) log) time, O(n + nplayed) memory. */
FS_API int fs_playlist_rest(const fs_playlist *pl, uint64_t cycle,
                            const uint64_t *played, size_t nplayed,
                            const uint64_t *ids, size_t n, uint64_t *rest,
                            size_t *nrest);

/* Artist spreading (deliberately NOT a uniform shuffle): writes to
 * order[0..n) the indices 0..n-1 so that items of the same group (group[i],
 * any values) are spread apart.  A balanced merge in the spirit of Fiedler
 * ("The Art of Shuffling Music", 2016): each group is shuffled; groups are
 * taken in increasing size (equal sizes in random order) and merged into
 * the running sequence by inserting the shorter of the two into the longer
 * at evenly spaced slots with a random offset, never two in one slot.  When
 * no group holds more than half the items this typically leaves no or few
 * adjacent pairs of one group; otherwise about the minimum,
 * 2 max - n - 1.  docs/playlist.md measures it against plain shuffle and
 * dithering; docs/stream.md §6 specifies every draw and tie (the groups
 * numbered in increasing order of their group[] values).  Errors:
 * FS_EINVAL (NULL arrays with n > 0), FS_ENOMEM, the generator's sticky
 * error (rng NULL: the thread default).  O(n log n) time, O(n) memory. */
FS_API int fs_spread_order(const uint64_t *group, size_t n, uint64_t *order,
                           fs_rng *rng);

/* ------------------------------------------------------------------ */
/* The player a music player ships (docs/playlist.md "The player"): what
 * `fairshuf playlist --state` does, for a C program.  An fs_player keeps
 * the state of shuffle play over a list that may change between steps:
 * the plain order above, or an artist-spread or weighted order per cycle;
 * list edits (a new list, matched to the old by item ids); "play next"
 * (queue); "start from this song" (seek_item); and the state's text form,
 * versioned and checksummed, that a program keeps between runs.
 *
 * Items are the indices 0..n-1 of the list last given to
 * fs_player_set_list(); a player needs a list before any step.  The state
 * is a small constant (under 512 bytes) plus 16 bytes per queued item (at
 * most FS_PLAYER_QUEUE_MAX), per
 * id of the window rule (at most 64) and per position of the current
 * cycle that an edit, a queue or seek_item "froze" (the positions passed
 * when it happened); the other positions passed are worked out from the
 * list the state was saved with -- so after an edit made between save and
 * load the player needs that list once (fs_player_set_list()).  Not
 * thread-safe: one player, one thread at a time. */
typedef struct fs_player fs_player;

typedef enum {
    FS_PLAYER_PLAIN = 0,   /* the keyed order above */
    FS_PLAYER_SPREAD = 1,  /* fs_spread_order() of the groups, per cycle */
    FS_PLAYER_WEIGHTS = 2  /* fs_weighted_order() of the weights, per cycle */
} fs_player_order;

/* A new player (no state yet), keyed by a 256-bit key; window as
 * fs_playlist_init(); order and field (a caller's 64-bit tag of the field
 * the order uses, 0 for plain) and tag (16 bytes naming the list, e.g. a
 * hash of its path; may be NULL: zeros) are kept in the state so that a
 * later run can refuse a state made for something else.  Errors:
 * FS_EINVAL, FS_ENOMEM. */
FS_API int fs_player_create(fs_player **out, const uint8_t key[32],
                            uint32_t window, fs_player_order order,
                            uint64_t field, const uint8_t tag[16]);

/* A player from fs_player_save()'s text (len bytes, not NUL-terminated
 * necessarily).  FS_EINVAL with *why set to a short reason (static text:
 * "not a fairshuf playlist state", "made by another version of fairshuf
 * (unknown state format)", "damaged (checksum mismatch)", "damaged
 * (incomplete)", "not a fairshuf playlist state (it holds a NUL byte)")
 * for anything else; FS_ENOMEM.  Format 1 states (no checksum, no tag)
 * and those of older fairshuf (one line) are read too. */
FS_API int fs_player_load(fs_player **out, const char *text, size_t len,
                          const char **why);

FS_API void fs_player_free(fs_player *p);

/* What a loaded state was made with: its key (for fs_player_item_ids()
 * and a seed check), order, field tag, list tag (zeros for format 1), the
 * fingerprint of the list it was saved with, and the state's format
 * version (0: one line, 1, 2).  Any pointer may be NULL. */
FS_API void fs_player_describe(const fs_player *p, uint8_t key[32],
                               fs_player_order *order, uint64_t *field,
                               uint8_t tag[16], uint8_t fingerprint[32],
                               int *version);

/* Whether a loaded player is the one a run asks for: made with key (NULL:
 * any key), for the list named by tag, with order and field (as given to
 * fs_player_create()).  FS_OK, or FS_EINVAL with *why set to static text:
 * "made with another seed", "made for another list", "made with another
 * order".  States of format 1 and older carry no tag or order: only the
 * key is checked for them.  O(1). */
FS_API int fs_player_matches(const fs_player *p, const uint8_t key[32],
                             const uint8_t tag[16], fs_player_order order,
                             uint64_t field, const char **why);

/* The ids of a list's items: fs_playlist_item_id() under the player's key
 * of text[i] (len[i] bytes), the k-th item with equal text getting
 * occurrence k.  FS_EINVAL, FS_ENOMEM.  O(n log n). */
FS_API int fs_player_item_ids(const fs_player *p, size_t n,
                              const char *const *text, const size_t *len,
                              uint64_t *ids);

/* Gives the player its list: n >= 1 items, their ids (fs_player_item_ids),
 * a 32-byte fingerprint of the list (the CLI: SHA-256 of the file), and
 * for SPREAD the group of each item (group != NULL), for WEIGHTS the
 * weight (finite, >= 0; 0: never played; at least one > 0).  The arrays
 * are copied.  If the fingerprint differs from the state's, the list
 * changed: the positions of this cycle already passed stay, the rest of
 * the cycle is the new list's items not among them (added ones later in
 * it, removed ones skipped, nothing replayed), *changed = 1 (may be
 * NULL).  The positions passed are worked out from the list the player
 * had: after fs_player_load(), if the list changed since the save, first
 * give it the list it was saved with (the fingerprint fs_player_describe()
 * gives), then the new one; without that, FS_ENOTFOUND (nothing changed)
 * when the state has positions it did not write down.  A state of an
 * older fairshuf without the record starts over on the new list.  Errors:
 * FS_EINVAL (bad arrays, a record that does not fit the list: a damaged
 * state), FS_ENOTFOUND, FS_ENOMEM.  O(n log n). */
FS_API int fs_player_set_list(fs_player *p, size_t n, const uint64_t *ids,
                              const uint8_t fingerprint[32],
                              const uint64_t *group, const double *weight,
                              int *changed);

/* Steps forward: a queued item first, else the cycle's next position (a
 * new cycle after the last, with the window rule).  *item: the list index.
 * FS_ERANGE if nothing can be played (every weight 0) or the step count
 * would overflow. */
FS_API int fs_player_next(fs_player *p, size_t *item);
/* Steps back to the item played before (across cycles while the cycle is
 * the plain keyed order; else within this cycle).  FS_ERANGE, nothing
 * changed, if nothing was played before it that the player kept. */
FS_API int fs_player_prev(fs_player *p, size_t *item);
/* The current item.  FS_ERANGE before the first step; FS_ENOTFOUND if it
 * was removed from the list. */
FS_API int fs_player_current(const fs_player *p, size_t *item);
/* Jumps to position pos of the current cycle.  FS_EINVAL for pos >= the
 * cycle's length (fs_player_cycle_length()); FS_ENOTFOUND, nothing
 * changed, if that item was removed. */
FS_API int fs_player_seek(fs_player *p, uint64_t pos, size_t *item);
FS_API uint64_t fs_player_cycle_length(const fs_player *p);
/* "Start from this song": item becomes the first of a cycle (this one if
 * nothing of it was played, else the next) and the current item; the rest
 * of that cycle is every other item once.  FS_EINVAL for item >= n. */
FS_API int fs_player_seek_item(fs_player *p, size_t item);
/* "Play next": item plays after the current one (after items queued
 * before it); then the cycle resumes; it is not played again in that
 * cycle.  FS_EINVAL for item >= n; FS_ERANGE when FS_PLAYER_QUEUE_MAX
 * items are queued already (nothing changes), which bounds the state. */
#define FS_PLAYER_QUEUE_MAX 4096
FS_API int fs_player_queue(fs_player *p, size_t item);

/* The state as text: writes at most cap bytes to out and sets *len to the
 * whole length (call with cap 0 to learn it); FS_ERANGE if cap is too
 * small (nothing written), FS_EINVAL without a list.  Three lines: the
 * fs_playlist_save() line, the record (docs/playlist.md "The state
 * file"), sum=BLAKE2b-128 of the two lines. */
FS_API int fs_player_save(const fs_player *p, char *out, size_t cap,
                          size_t *len);

/* A deep copy of p (its list, record and queue): the copy steps on its
 * own.  FS_EINVAL, FS_ENOMEM.  O(n + the record). */
FS_API int fs_player_clone(const fs_player *p, fs_player **out);

/* What fs_player_next() would give now, without stepping (on a copy): a
 * player driving another program (MPD, mpv) tells it the next song in
 * advance and steps only when that song is really played.  Errors as
 * fs_player_next(), FS_ENOMEM.  O(n) (the copy) plus next's cost. */
FS_API int fs_player_peek(const fs_player *p, size_t *item);

/* "It plays now": the player the front end drives (MPD) played item out
 * of turn -- not the next (fs_player_peek()), e.g. a song the user
 * inserted and skipped to before the front end saw the insert.  item
 * becomes the current one as a queued item would (the cycle resumes
 * after it; it is not played again in that cycle); if item is queued,
 * that entry (its first) is the one played, and the other queued items
 * keep their order.  Unlike fs_player_seek_item() no new cycle starts.
 * FS_EINVAL for item >= n (nothing changes); FS_ERANGE, nothing changed,
 * if item is not queued and FS_PLAYER_QUEUE_MAX items are; else as
 * fs_player_next().  O(queue) plus next's cost. */
FS_API int fs_player_play(fs_player *p, size_t item);

/* The 64-bit tag of a field name that fs_player_create() keeps as `field`
 * (the state's order=spread-HEX16 / weights-HEX16): the first 8 bytes of
 * BLAKE2b-128 (unkeyed) of name, big-endian.  O(strlen(name)). */
FS_API uint64_t fs_player_field_tag(const char *name);

/* Group numbers for fs_spread_order() and fs_player_set_list() from each
 * item's field value text[i] (len[i] bytes; text[i] may be NULL when
 * len[i] is 0): equal values get equal numbers, numbered 0, 1, ... in
 * increasing bytewise order of the values (docs/stream.md §6), so the
 * same values give the same spread order as `fairshuf playlist
 * --spread`.  FS_EINVAL (NULL arrays with n > 0), FS_ENOMEM.
 * O(n log n) comparisons. */
FS_API int fs_spread_groups(size_t n, const char *const *text,
                            const size_t *len, uint64_t *group);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_PLAYLIST_H */
