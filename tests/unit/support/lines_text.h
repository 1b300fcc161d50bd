/* lines_text.h -- what the line-engine tests share (test_lines_passes.c,
 * test_lines_slice.c): their numbered texts, a config with a test key, and
 * reading back what the engine wrote. */
#ifndef FS_TEST_LINES_TEXT_H
#define FS_TEST_LINES_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fairshuf/lines.h"

/* `lines` lines of 0..lmax bytes (a fixed xorshift picks each length),
 * each starting with its number and a colon (so every line differs) and
 * ending with d; the last d dropped when `unterminated`.  longs: 1 makes
 * some lines about 65535 bytes (a length not noted) and past 64 KiB (an
 * arena block); 2 also one line of 5 MiB (past a read's 4 MiB).  *len
 * bytes, malloc'ed. */
unsigned char *lines_text(uint64_t lines, unsigned lmax, int longs,
                          unsigned char d, int unterminated, size_t *len);

/* Defaults ('\n', no head, nothing else) with the key of `seed`. */
fs_lines_config lines_config(const char *seed);

/* The bytes of fd from offset `from` to its end, malloc'ed, *n of them. */
unsigned char *lines_slurp(int fd, off_t from, size_t *n);

#endif
