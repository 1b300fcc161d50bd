/* finding.h -- what a log checker (fair_log.c, vrf_log.c) records of each
 * finding: every finding goes to the caller's note; the one reported is the
 * first broken rule, dishonest before inconclusive, then on the smallest
 * line (line 0, the log as a whole, after every line), then the earlier
 * rule of the checker's rank. */
#ifndef FS_CARDS_FINDING_H
#define FS_CARDS_FINDING_H

#include <stdarg.h>

#include "fairshuf/cards.h"

typedef struct fs__finder {
    const char *const *rank; /* the checker's rules, in tie-break order */
    size_t nrank;
    fs_fair_note *note; /* may be NULL */
    void *ctx;
    /* the result's fields */
    fs_fair_verdict *verdict;
    const char **rule;
    size_t *line;
    char *message; /* FS__FINDING_MSG bytes */
    size_t *findings;
    size_t first_rank;
    char msg[512];
} fs__finder;

#define FS__FINDING_MSG 512

/* A recorder into a result res (a pointer to a struct with the fields
 * verdict, rule, line, message[FS__FINDING_MSG] and findings). */
#define FS__FINDER(res, rank_, nrank_, note_, ctx_)                         \
    ((fs__finder){.rank = (rank_),                                          \
                  .nrank = (nrank_),                                        \
                  .note = (note_),                                          \
                  .ctx = (ctx_),                                            \
                  .verdict = &(res)->verdict,                               \
                  .rule = &(res)->rule,                                     \
                  .line = &(res)->line,                                     \
                  .message = (res)->message,                                \
                  .findings = &(res)->findings})

/* Records one finding (message formatted from fmt, ap). */
void fs__finding(fs__finder *f, size_t line, fs_fair_verdict kind,
                 const char *rule, const char *fmt, va_list ap);

/* s into out[0..cap) with every byte outside printable ASCII, and the
 * backslash, as \xNN (cut to fit): a log cannot send a terminal escape
 * through a message.  Returns out. */
const char *fs__escape(char *out, size_t cap, const char *s);

#endif
