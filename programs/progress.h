/* progress.h -- the one progress reporter of every subcommand: a single
 * line on stderr, redrawn at most 10 times a second, with the rate and,
 * when the total is known, the percentage and the time left; erased when
 * the work ends.  Shown only when stderr is a terminal (after half a
 * second, so quick runs stay quiet), or always with --progress; never
 * with --no-progress. */
#ifndef FS_PROGRESS_H
#define FS_PROGRESS_H

#include <stdint.h>

typedef struct cli_progress {
    int on;          /* 0: never draw */
    double delay;    /* seconds before the first drawing */
    double t0;       /* start */
    double next;     /* earliest time of the next drawing */
    uint64_t base;   /* `done` when the current phase began */
    double tphase;   /* when the current phase began */
    double tlast;    /* the last call */
    char what[64];   /* the current phase's label */
    int width;       /* characters of the line on screen (0: none) */
} cli_progress;

/* mode: -1 auto (stderr is a terminal), 0 never, 1 always. */
void cli_progress_init(cli_progress *p, int mode);
/* Reports `done` of `total` (0: unknown) units for the phase `what`
 * ("verify mod-bias n=5").  unit: "deals", "lines", ...; "bytes" prints
 * MiB.  Cheap when nothing is drawn: callers may call it per item. */
void cli_progress_show(cli_progress *p, const char *what, uint64_t done,
                       uint64_t total, const char *unit);
/* Erases the line (if one is drawn); the reporter can be used again. */
void cli_progress_end(cli_progress *p);

#endif
