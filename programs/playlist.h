/* playlist.h -- what the `fairshuf playlist` files share: the list read
 * from FILE (plain, M3U/M3U8, TSV) and the state file. */
#ifndef FS_PLAYLIST_CLI_H
#define FS_PLAYLIST_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "fairshuf/playlist.h"
#include "playlist_state.h" /* common/: the state file, shared with mpd */

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

#endif
