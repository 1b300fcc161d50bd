/* lines_out.h -- where `fairshuf lines` writes.  Standard output is
 * written as it comes; `-o FILE` follows lib/outfile.h (the one output
 * helper of the CLI): FILE is untouched until the run has succeeded (a new
 * file beside it, fsync'd and renamed over it at the end, keeping its
 * permission bits); a symbolic link keeps pointing at the replaced file;
 * on any failure, or SIGINT/SIGTERM/SIGHUP, the new file is removed
 * (pending.h).  Not a regular file (a device, a FIFO, /dev/stdout) or a
 * folder that refuses new files: written in place, as GNU shuf does. */
#ifndef FS_LINES_OUT_H
#define FS_LINES_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "outfile.h"

typedef struct lines_out {
    const char *path;   /* -o FILE, or NULL for standard output */
    unsigned char delim;
    int fd;             /* -1 until opened */
    fs__outfile file;   /* -o FILE (lib/outfile.h) */
    uint64_t total;     /* bytes handed to write() */
    size_t len;
    unsigned char b[1 << 16];
} lines_out;

void lines_out_init(lines_out *o, const char *path, unsigned char delim);

/* Opens the output (once); returns its descriptor.  Exits with a message
 * when that fails. */
int lines_out_open(lines_out *o);

/* Buffered writes; a failed write reports "write error" and exits 1. */
void lines_out_put(lines_out *o, const void *p, size_t n);
void lines_out_num(lines_out *o, uint64_t v); /* v and the delimiter */
void lines_out_flush(lines_out *o);

/* A write failure with bytes_so_far handed to write() in all: one
 * message, "write error: why" (GNU says "write error" a second time past
 * its first stdio buffer; fairshuf does not), then exit 1 (the new file
 * removed). */
_Noreturn void lines_out_failed(lines_out *o, uint64_t bytes_so_far, int err);

/* Success: flushes, and for -o FILE syncs and renames the new file over
 * FILE.  Exits 1 with a message when that fails (FILE untouched). */
void lines_out_commit(lines_out *o);

#endif
