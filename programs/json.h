/* json.h -- the one JSON string writer of the CLI (deal, fair, verify,
 * bench, attack): quotes, escapes '"' and '\\', and writes every control
 * character (below 0x20) as \u00XX, so any label or file name is valid
 * JSON.  Bytes >= 0x80 pass through (UTF-8 stays UTF-8). */
#ifndef FS_JSON_H
#define FS_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes the JSON string literal of s through put(ctx, bytes, len). */
void json_string_to(void (*put)(void *ctx, const char *p, size_t n),
                    void *ctx, const char *s);
/* The same, to a stdio stream. */
void json_string(FILE *f, const char *s);

#endif
