/* fair.h -- what the files of `fairshuf fair` share: the seed files, the
 * locked log, and the check.  The protocol itself (records, period state,
 * rules) is the library's (fairshuf/cards.h); these are its door. */
#ifndef FS_FAIR_CLI_H
#define FS_FAIR_CLI_H

#include <sys/types.h>

#include "fairshuf/cards.h"

/* Exit statuses of check beyond cli.h's: a verdict. */
enum { FAIR_DISHONEST = 3, FAIR_INCONCLUSIVE = 4 };

typedef struct fair_args {
    const char *seed_file, *seed_hex, *commitment, *client, *nonce, *deal;
    const char *game, *format, *lang, *log, *my_deals, *scheme;
    unsigned players, decks;
    uint64_t max_log; /* check --log: the largest log read (0: 1 GiB) */
} fair_args;

/* fair_files.c ---------------------------------------------------------- */

/* Reads the 64 hex digits (and an optional newline) of a seed file or
 * dies; warns when others than its owner may read it. */
void fair_read_seed(const char *sub, const char *path, uint8_t seed[32]);

/* Writes seed to a new temporary file beside `path` (mode 0600, synced)
 * and returns its malloc'd name; the name is pending (a signal removes
 * it) until the caller calls pending_done(). */
char *fair_seed_tmp(const char *sub, const char *path,
                    const uint8_t seed[32]);

/* A file `path`.XXXXXX (left by an interrupted rotate) holding the seed of
 * `commitment`, malloc'd, or NULL. */
char *fair_stray_seed(const char *path, const uint8_t commitment[32]);

typedef struct fair_log {
    int fd, created;
    off_t size;
    char *text;
    fs_fair_log_result res;
} fair_log;

/* Opens (create: creating when missing) and locks the log, reads it and
 * checks it; seed (or NULL) is the server's own seed of the open period,
 * whose deals are then recomputed too.  Dies when the log breaks a rule:
 * a server never appends to a log it could not defend. */
void fair_log_open(const char *sub, const char *path, int create,
                   const uint8_t *seed, fair_log *l);

/* Appends the records (each a line without '\n') as one write, synced;
 * a failed append is cut back off.  0 or the errno of the failure. */
int fair_log_append(const char *sub, const char *path, fair_log *l,
                    const char *const *lines, size_t n);

/* Cuts the log back to `size` (the undo of an append nobody saw); a log
 * this run created is removed. */
void fair_log_undo(const char *path, fair_log *l, off_t size);

void fair_log_close(fair_log *l);

/* Bounds of a log read by check: endless input is refused, never read
 * into memory.  A record is a few KiB at most; a line of 1 MiB is no log
 * of these schemes'. */
#define FAIR_LOG_LINE_MAX (1u << 20)
#define FAIR_LOG_SIZE_MAX ((uint64_t)1 << 30)

/* All of a file ("-": standard input), NUL-terminated, malloc'd; *len its
 * length.  With limit > 0 (a log): at most limit bytes and no line above
 * FAIR_LOG_LINE_MAX.  Dies "fair check: cannot read WHAT 'PATH': why" or
 * naming the bound. */
char *fair_slurp(const char *what, const char *path, size_t *len,
                 uint64_t limit);
/* fair.c ---------------------------------------------------------------- */

/* --nonce of one deal: 0 to 2^64-2 (docs/provably-fair.md, "Deal"), else
 * dies (usage). */
uint64_t fair_nonce_or_die(const char *sub, const char *s);

/* --players or --decks: 1 to 1000, else dies (usage) naming what. */
unsigned fair_small_u(const char *what, const char *s);

/* The one action operand after the options (argv[optind]); dies (usage,
 * "try 'fairshuf HELP --help'") when it is missing (saying which exist:
 * actions) or followed by another operand. */
const char *fair_action(int argc, char **argv, const char *help,
                        const char *actions);

/* fair_check.c ---------------------------------------------------------- */
int fair_check(const fair_args *a, fs_dealer *d);

/* "honest", "dishonest" or "inconclusive". */
const char *fair_verdict_name(fs_fair_verdict v);

/* The exit status of a verdict: 0, FAIR_DISHONEST or FAIR_INCONCLUSIVE. */
int fair_verdict_status(fs_fair_verdict v);

/* A checker's note (fs_fair_note) for `fair check`: each finding as a text
 * line on stdout, or (json) a JSON object into o, comma-separated (n counts
 * them).  Messages are the library's, log-derived bytes already escaped. */
typedef struct fair_note_ctx {
    int json;
    struct out_buf *o;
    size_t n;
} fair_note_ctx;
void fair_note(void *ctx, size_t line, fs_fair_verdict kind,
               const char *rule, const char *msg);

#endif
