/* json.h -- the one JSON string writer of the CLI (deal, fair, verify,
 * bench, attack): quotes, escapes '"' and '\\', and writes every control
 * character (below 0x20) as \u00XX, so any label or file name is valid
 * JSON.  Valid UTF-8 passes through; a byte that is not part of a valid
 * UTF-8 sequence (a file name in another encoding) becomes U+FFFD, so the
 * output is always valid UTF-8 JSON. */
#ifndef FS_JSON_H
#define FS_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes the JSON string literal of s through put(ctx, bytes, len). */
void json_string_to(void (*put)(void *ctx, const char *p, size_t n),
                    void *ctx, const char *s);
/* The same, to a stdio stream. */
void json_string(FILE *f, const char *s);

/* The length (1 to 4) of the valid UTF-8 sequence that starts at s, or 0
 * if s[0] does not start one (overlong forms, surrogates and values past
 * U+10FFFF are invalid).  s is NUL-terminated. */
size_t utf8_valid_len(const char *s);

#endif
