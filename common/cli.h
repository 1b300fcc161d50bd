/* cli.h -- what the subcommands share: messages in coreutils' form,
 * strict number parsing, generator set-up, checked output. */
#ifndef FS_CLI_H
#define FS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "fairshuf.h"

/* "fairshuf", or "shuf" when the binary runs under that name. */
extern const char *cli_prog;

/* Exit statuses (fairshuf(1), EXIT STATUS): 0 success, 1 runtime failure,
 * 2 usage error; verdicts: 3 biased/dishonest, 4 inconclusive. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_BIASED = 3,
       CLI_INCONCLUSIVE = 4 };

/* "PROG: message\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void cli_die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "Try 'PROG SUB --help' for more information." and exit(status). */
_Noreturn void cli_try_help(const char *sub, int status);
/* Prints "fairshuf SUB (fairshuf) VERSION" and exits 0 (1 on write error). */
_Noreturn void cli_version(const char *sub);
/* Prints text to stdout and exits 0 (1 on write error). */
_Noreturn void cli_usage(const char *text);

/* "man PAGE" when the page is installed beside the binary, else
 * "man -l /path/docs/man/PAGE.1" when run from the build tree; NULL
 * when the page is in neither place. */
const char *cli_manual(const char *page);
/* Prints text, then "Manual: man fairshuf-SUB" (see cli_manual), exits 0. */
_Noreturn void cli_help(const char *sub, const char *text);
/* getopt_long returned '?' or ':' (it printed the message): adds a hint
 * for "-5" (a negative number read as an option), then cli_try_help. */
_Noreturn void cli_bad_option(const char *sub);

/* Strict unsigned decimal: digits only, no sign, no space, no overflow.
 * Returns 0 on success, -1 malformed, -2 overflow. */
int cli_parse_u64(const char *s, uint64_t *out);
/* Like cli_parse_u64 or dies "invalid WHAT: 'S'" with status 2 (usage:
 * every caller parses an option or operand). */
uint64_t cli_u64_or_die(const char *what, const char *s);
/* A thread count of 1 to max, or dies "invalid thread count: 'S' (1 to
 * MAX)" with status 2: the one parser of perm, bench and attack. */
unsigned cli_threads_or_die(const char *s, unsigned max);
/* A size with optional K, M, G, T suffix (powers of 1024), or B. */
int cli_parse_size(const char *s, uint64_t *out);

/* The one message for a seed no generator accepts (only the empty one),
 * "invalid seed: '': empty"; NULL when seed is NULL or acceptable.  A
 * usage error: status 2, 1 in `lines` (GNU shuf's status for all). */
const char *cli_seed_problem(const char *seed);
/* Creates the generator (name NULL = chacha20, seed NULL = OS) or dies
 * with a message naming the problem. */
fs_rng *cli_rng(const char *name, const char *seed);
/* Looks up an algorithm by name or dies; "list" is handled by callers. */
fs_algorithm cli_algorithm(const char *name);
/* Prints the generator or algorithm list with descriptions; exits. */
_Noreturn void cli_list_rngs(void);
_Noreturn void cli_list_algorithms(void);

/* Dies "PROG: WHAT: fs_strerror(rc)" unless rc == FS_OK. */
void cli_check(int rc, const char *what);

/* Also makes libsodium's fatal start-up failure (the OS refusing
 * randomness inside sodium_init) a message and exit 1, not an abort.
 * Registers the stdout check at exit: a failed write or close of stdout
 * reports "write error: ..." and exits 1 (coreutils' close_stdout). */
void cli_atexit_close_stdout(void);
/* Flushes stdout now: 0, or -1 with errno set when what was printed did not
 * all reach it.  The caller reports that failure in its own words (what it
 * undid); the check at exit then stays silent instead of saying it twice. */
int cli_flush_stdout(void);

/* The subcommands: argc/argv start at the subcommand's name. */
int cmd_perm(int argc, char **argv);
int cmd_rng(int argc, char **argv);
int cmd_lines(int argc, char **argv);
int cmd_deal(int argc, char **argv);
int cmd_fair(int argc, char **argv);
int cmd_attack(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_certify(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_playlist(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_mpd(int argc, char **argv);

#endif
