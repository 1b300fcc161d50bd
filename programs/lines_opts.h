/* lines_opts.h -- the option parser of `fairshuf lines` / shuf, kept apart
 * from the command so that the fuzz test can drive it: it never prints
 * (unless asked to let getopt report) and never exits. */
#ifndef FS_LINES_OPTS_H
#define FS_LINES_OPTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct lines_opts {
    int echo, repeat, zero;
    int progress;            /* -1 auto, 0 off, 1 on */
    int have_range;
    uint64_t lo, hi;         /* the range LO..HI (count may be 0) */
    uint64_t head;           /* UINT64_MAX: all */
    uint64_t header;
    int have_header;         /* --header given (even =0) */
    uint64_t memory;         /* 0: default */
    unsigned threads;        /* 0: default */
    const char *output, *random_source, *seed, *tmpdir;
    char **operands;
    int noperands;
    int csv;                 /* --csv: RFC 4180 records */
    int have_sep;            /* -t SEP given */
    unsigned char sep;       /* field separator (default tab; comma with --csv) */
    const char *split;       /* --split=W,W,...: the weights as given */
    uint64_t split_w[64];
    size_t nsplit;
    const char *stratify, *weights, *group_by; /* field specs */
    int shuffle_within;
    int help, version;
} lines_opts;

/* Parses argv (argv[0] is used by getopt for its own messages; quiet = 1
 * silences them).  Returns 0, or the exit status with msg filled ("" when
 * getopt already reported) and *try_help set when the "Try ... --help"
 * line must follow.  Resets getopt's state first. */
int lines_parse(int argc, char **argv, lines_opts *o, int quiet, char *msg,
                size_t msglen, int *try_help);

#endif
