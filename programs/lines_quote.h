/* lines_quote.h -- file names in messages quoted as GNU coreutils 9.1
 * quotes them in the C locale, so that `shuf`'s errors are the same bytes. */
#ifndef FS_LINES_QUOTE_H
#define FS_LINES_QUOTE_H

/* quotef(): shell-escape style, quoted only when needed: `a b` -> 'a b',
 * `` -> '', `a'b` -> "a'b", a newline -> 'a'$'\n''b'.  Returns a malloc'd
 * string (or s itself when out of memory). */
char *lines_quotef(const char *s);

/* quoteaf(): always quoted, C escapes: `a'b` -> 'a\'b'.  Same ownership. */
char *lines_quoteaf(const char *s);

#endif
