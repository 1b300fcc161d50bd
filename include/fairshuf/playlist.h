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
 * cycle after a change; `fairshuf playlist --state` keeps the ids of the
 * cycle's passed positions in its state file, so that no item played in
 * the cycle is played again, added items come later in it and removed
 * ones are skipped (docs/playlist.md "Changed lists").
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

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_PLAYLIST_H */
