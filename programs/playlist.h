/* playlist.h -- what the `fairshuf playlist` files share: the list read
 * from FILE (plain, M3U/M3U8, TSV) and the state file. */
#ifndef FS_PLAYLIST_CLI_H
#define FS_PLAYLIST_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "fairshuf/playlist.h"

typedef enum { PL_PLAIN, PL_M3U, PL_TSV } pl_format;

/* One entry: text[start, end) of the list, the line of its item (1-based;
 * for M3U the line after its comments), and for TSV the row's fields. */
typedef struct pl_entry {
    size_t start, end;
    size_t line;
} pl_entry;

typedef struct pl_list {
    char *text;           /* the whole file */
    size_t len;
    pl_format format;
    size_t header_end;    /* text[0, header_end): #EXTM3U or the TSV header,
                             a UTF-8 byte order mark included */
    size_t first;         /* 3 after a byte order mark, else 0 */
    pl_entry *entry;
    size_t n;
    uint8_t fingerprint[32]; /* SHA-256 of the file's bytes */
} pl_list;

/* Reads and splits FILE ("-" is stdin) or dies with "FILE: why" (1). */
void pl_list_read(pl_list *l, const char *path, const char *format);
void pl_list_free(pl_list *l);

/* Field `name` of entry e of a TSV list into [*b, *e) of l->text; -1 if the
 * header has no such field (*b = *e = 0 when the row is short). */
int pl_field_index(const pl_list *l, const char *name);
void pl_field(const pl_list *l, size_t e, int field, size_t *b, size_t *en);

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
