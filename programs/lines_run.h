/* lines_run.h -- what the parts of `fairshuf lines` share: the run and
 * its input, errors and key (lines.c), and the data modes (lines_data.c:
 * --split, --weights, --group-by). */
#ifndef FS_LINES_RUN_H
#define FS_LINES_RUN_H

#include "fairshuf/lines.h"
#include "lines_opts.h"
#include "lines_out.h"
#include "progress.h"

/* Everything one run needs; passed down, never global. */
typedef struct run {
    lines_opts o;
    int raw_fd;            /* FILE, or 0 */
    fs_lines_source *src;  /* decoding/framing the input, or NULL */
    fs_lines_source_opts src_opts; /* a record hook (--stratify, ...) */
    unsigned char delim;
    const char *tmpdir;
    cli_progress bar;      /* the shared reporter: progress.h */
    lines_out out;         /* last: holds the output buffer */
} run;

int open_input(run *R);           /* FILE or stdin, decoded/framed */
void input_check(run *R);         /* dies if the input was damaged */
void close_input(run *R);
_Noreturn void engine_error(run *R, int rc, const fs_lines_result *res);
void make_key(const run *R, uint8_t key[32]);
/* The keyed engine's configuration for R (output: R->out). */
void keyed_config(run *R, fs_lines_config *c);
/* Ends the progress line (lines.c). */
void lines_progress_end(run *R);

/* The data modes (lines_data.c); each returns the exit status. */
int run_split(run *R);
int run_weights(run *R);
int run_group(run *R);

#endif
