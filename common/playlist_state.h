/* playlist_state.h -- a player's state file and the copy of its list, as
 * `fairshuf playlist --state` and `fairshuf mpd run` keep them (the text
 * is the library's, fs_player_save()): read with a size bound, never from
 * a non-regular file; replaced atomically; the folder locked for the run. */
#ifndef FS_PLAYLIST_STATE_H
#define FS_PLAYLIST_STATE_H

#include <stddef.h>

/* Locks the state's folder (flock: concurrent players take turns) for the
 * rest of the run and returns the path to read and replace: STATE, or the
 * file a chain of symbolic links STATE ends at (the link stays a link;
 * a new state is created there).  Dies (1) for a state that is not a
 * regular file, or when another process has held the lock for `wait`
 * seconds. */
char *pl_state_lock(const char *path, double wait);
/* The state's text (malloc'd, NUL-terminated, *len bytes before the NUL),
 * or NULL if there is none; dies (1), naming why, for a file that is not
 * regular, larger than limit bytes, or unreadable. */
char *pl_state_read(const char *path, size_t limit, size_t *len);
/* Replaces the state file atomically with text[0..n) (temp file in the
 * same folder, mode 0600 -- the state holds the player's key --, fsync,
 * rename) or dies (1), leaving the old state intact. */
void pl_state_write(const char *path, const char *text, size_t n);
/* The same for the copy of the list a state was saved with
 * (STATE.list-HEX16, docs/playlist.md "The state file"). */
void pl_copy_write(const char *path, const char *text, size_t n);
/* Removes STATE.list-* beside the state except `keep`: older copies and
 * crashes' leftovers (the folder is locked). */
void pl_copies_prune(const char *state, const char *keep);

#endif
