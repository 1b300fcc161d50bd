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

/* The state file's second line (docs/playlist.md "The state file"): the
 * current cycle as far as the player has passed, by item identity
 * (fs_playlist_item_id()), so that a changed list does not replay it, and
 * what the next steps owe the listener:
 *   player 2 file=HEX32 order=O cycle=C at=P frozen=F base=B
 *     avoid=HEX16... queue=HEX16... ids=HEX16...
 * (one line).  file: BLAKE2b-128 of the list's absolute path (a state is
 * for one list); order: plain, spread-HEX16 or weights-HEX16 (the field
 * name's hash); at: position (1-based) of the current item in cycle C, 0
 * before the first; ids[0..len): the cycle's first len positions (len >=
 * at); frozen: 0 while the cycle is the list's normal keyed order, else
 * the cycle is ids[0..frozen) then the rest (fs_playlist_rest(), or the
 * spread or weighted order of the items not among them); base: prev does
 * not go back before cycle B; avoid: the last items of the previous cycle
 * when it was not a plain keyed one (the window rule); queue: "play next"
 * items, first first.  A third line, sum=HEX32, is BLAKE2b-128 of the two
 * lines before it (newlines included): a damaged file is refused.
 * Version 1 files (second line "cycle=C at=P frozen=F base=B ids=...", no
 * sum) are read as before. */
typedef enum { PL_ORDER_PLAIN, PL_ORDER_SPREAD, PL_ORDER_WEIGHTS } pl_order;

typedef struct pl_ids {
    uint64_t *id;
    size_t len, cap;
} pl_ids;

typedef struct pl_record {
    int present, version;
    uint8_t file[16];
    pl_order order;
    uint64_t field; /* hash of the --spread/--weights field name */
    uint64_t cycle, at, frozen, base;
    pl_ids ids, avoid, queue;
} pl_record;

void pl_ids_push(pl_ids *v, uint64_t id);
void pl_ids_insert(pl_ids *v, size_t at, uint64_t id);
void pl_record_free(pl_record *r);

/* Locks the state's folder (flock: concurrent players take turns) for the
 * rest of the run and returns the path to read and replace: STATE, or the
 * file a symbolic link STATE points to (the link stays a link).  Dies (1)
 * for a state that is not a regular file, or a dangling link. */
char *pl_state_lock(const char *path);
/* State file: 0 loaded, 1 absent; dies (1) if unreadable or invalid
 * (naming why: damaged, another version, not a state).  At most `limit`
 * bytes are read.  r->present is 0 for a state without the second line. */
int pl_state_load(const char *path, size_t limit, fs_playlist *pl,
                  pl_record *r);
/* Replaces the state file atomically (temp file in the same folder,
 * fsync, rename) or dies (1), leaving the old state intact. */
void pl_state_save(const char *path, const fs_playlist *pl,
                   const pl_record *r);

#endif
