/*
 * fairshuf/chain.h -- the hash chain of a provably-fair log
 * (docs/provably-fair.md, "The hash chain").
 *
 * A chained record is the record (fs_fair_record_write's line) with one
 * more field, last: ,"prev":"HEX"} where HEX is the SHA-256 of the line
 * before it in the same log, exactly as written (its own "prev"
 * included, no newline), in 64 lowercase hex digits; the first line of a
 * log carries 64 zeros.  `fairshuf serve` writes every table's log so.
 *
 * What the chain proves: a record edited, dropped, inserted or moved
 * anywhere before the last line breaks the link of the line after it, so
 * a log that is altered after anyone kept a later line (or the hash of its
 * last line) is caught.  What it does not: an operator who rewrites the
 * whole chain before anyone saw it (or cuts its tail) makes a new chain
 * that checks; only a line or head hash kept elsewhere pins it.  A log
 * with no "prev" at all is not chained: the record rules alone apply.
 */
#ifndef FAIRSHUF_CHAIN_H
#define FAIRSHUF_CHAIN_H

#include <fairshuf/cards.h>

#define FS_CHAIN_EXTRA 74 /* bytes ,"prev":"HEX" adds to a record */

/* SHA-256 of a line as written (len bytes, no newline).  O(len). */
FS_API void fs_chain_hash(const char *line, size_t len, uint8_t out[32]);

/* out = line chained to prev (the hash of the line before it, or 32 zero
 * bytes for the first line): line (a record: a JSON object ending in '}')
 * with ,"prev":"HEX" before its final '}'.  NUL-terminated.  Errors:
 * FS_EINVAL (line does not end in '}'), FS_ERANGE (cap < strlen(line) +
 * FS_CHAIN_EXTRA + 1).  O(len). */
FS_API int fs_chain_link(const uint8_t prev[32], const char *line, char *out,
                         size_t cap);

/* Takes line's link (,"prev":"HEX" before its final '}') out, in place:
 * returns the record's length (len when the line has no link).  O(1). */
FS_API size_t fs_chain_unlink(char *line, size_t len);

/* The check of a whole log (lines split on '\n', a final '\n' ending the
 * last line) under the record rules and the chain: the chain is walked,
 * the "prev" fields taken out (line numbers unchanged) and the records
 * checked with fs_fair_log_check(player, note, ctx, out).  The chain's
 * first broken link is a finding (dishonest; note is called for it) with
 * rule "chain-broken" (a line whose prev is not the hash of the line
 * before it: zeros on line 1) or "chain-missing" (a line without prev
 * after the chain began); it is the verdict when it is on an earlier line
 * than the record rules' first finding, or when they found nothing
 * dishonest.  *chained receives the line the chain begins on (0: the log
 * has no chain).  Errors: those of fs_fair_log_check; FS_ENOMEM.
 * O(len) besides fs_fair_log_check. */
FS_API int fs_fair_log_check_chained(const char *text, size_t len,
                                     const fs_fair_player *player,
                                     fs_fair_note *note, void *ctx,
                                     fs_fair_log_result *out,
                                     size_t *chained);

#endif
