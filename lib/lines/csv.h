/* csv.h -- CSV record boundaries and fields (internal). */
#ifndef FS_LINES_CSV_H
#define FS_LINES_CSV_H

#include <stddef.h>
#include "fairshuf/lines.h"

typedef struct fs__csv_framer {
    int inq;          /* inside a quoted field */
    int open;         /* bytes of a record not yet ended */
    int seen_end, crlf; /* the first record's end was seen; was CRLF */
    unsigned char last;
    const char *why;  /* after an error */
} fs__csv_framer;

/* Copies in[0..n) to out with a NUL after every record's end; with fin, a
 * last record without an end gets the first record's end (CRLF or LF).
 * out must hold 2 n + 3 bytes.  Errors: FS_EIO with errno EBADMSG and
 * f->why (a NUL byte; input ending inside quotes). */
int fs__csv_frame(fs__csv_framer *f, const unsigned char *in, size_t n,
                  int fin, unsigned char *out, size_t *outlen);

/* Field number col (0-based) of the record rec[0..len) (its end, LF,
 * CRLF or NUL, excluded): CSV (quotes removed, "" read as ") when csv,
 * else split at sep.  At most cap bytes go to out; returns the field's
 * length (cut to cap) and sets *found (0: the record has fewer fields). */
size_t fs__field(const unsigned char *rec, size_t len, int csv,
                 unsigned char sep, size_t col, unsigned char *out,
                 size_t cap, int *found);

#endif
