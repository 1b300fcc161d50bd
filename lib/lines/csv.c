/* csv.c -- RFC 4180 record boundaries: a record ends at a line feed that
 * is outside double quotes (a quoted field may hold line feeds, and a
 * doubled quote "" inside it toggles twice, so it changes nothing).  The
 * record keeps its own end (LF or CRLF).  The framer turns records into
 * NUL-terminated items, so that the line engine (delimiter NUL) shuffles
 * whole records; a NUL byte in CSV input is refused. */
#include <errno.h>
#include <string.h>

#include "csv.h"

int fs__csv_frame(fs__csv_framer *f, const unsigned char *in, size_t n,
                  int fin, unsigned char *out, size_t *outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = in[i];
        if (ch == '\0') {
            f->why = "CSV input holds a NUL byte";
            errno = EBADMSG;
            return FS_EIO;
        }
        out[o++] = ch;
        if (ch == '"') {
            f->inq ^= 1;
        } else if (ch == '\n' && !f->inq) {
            if (!f->seen_end) { /* the file's record end, for a last one */
                f->seen_end = 1;
                f->crlf = f->last == '\r';
            }
            out[o++] = '\0';
            f->open = 0;
        } else {
            f->open = 1;
        }
        f->last = ch;
    }
    if (fin) {
        if (f->inq) {
            f->why = "CSV input ends inside a quoted field";
            errno = EBADMSG;
            return FS_EIO;
        }
        if (f->open) { /* a last record without its end: as the others */
            if (f->crlf)
                out[o++] = '\r';
            out[o++] = '\n';
            out[o++] = '\0';
            f->open = 0;
        }
    }
    *outlen = o;
    return FS_OK;
}

/* One field of a CSV record (quotes removed, "" -> ") or of a delimited
 * line (sep), into out (cap bytes; longer fields are cut). */
size_t fs__field(const unsigned char *rec, size_t len, int csv,
                 unsigned char sep, size_t col, unsigned char *out,
                 size_t cap, int *found)
{
    size_t i = 0, k = 0, c = 0;
    *found = 0;
    /* the record's end is not part of its last field */
    while (len > 0 && (rec[len - 1] == '\n' || rec[len - 1] == '\r' ||
                       rec[len - 1] == '\0'))
        len--;
    for (;;) {
        int inq = 0, quoted = csv && i < len && rec[i] == '"';
        if (quoted)
            i++, inq = 1;
        k = 0;
        while (i < len) {
            unsigned char ch = rec[i];
            if (inq) {
                if (ch == '"') {
                    if (i + 1 < len && rec[i + 1] == '"') {
                        i += 2;
                        if (c == col && k < cap)
                            out[k++] = '"';
                        continue;
                    }
                    inq = 0;
                    i++;
                    continue;
                }
            } else if (ch == sep) {
                break;
            }
            if (c == col && k < cap)
                out[k++] = ch;
            i++;
        }
        if (c == col) {
            *found = 1;
            return k;
        }
        if (i >= len)
            return 0;
        i++; /* the separator */
        c++;
    }
}
