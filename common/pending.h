/* pending.h -- the one temporary output file of a run that is not yet in
 * place (`lines -o FILE`'s new file, an SVG or HTML picture, a playlist's
 * new state): removed at exit and on SIGINT, SIGTERM, SIGHUP or SIGQUIT,
 * so that no failure or interruption leaves it behind.  After SIGKILL only
 * an unnamed (O_TMPFILE) file vanishes by itself. */
#ifndef FS_PENDING_H
#define FS_PENDING_H

/* name: the file to remove if the run ends before pending_done().  The
 * first call installs the handlers (a signal ignored by the parent, as
 * under nohup, stays ignored).  Test hook: with FAIRSHUF_TEST_STOP_PENDING
 * set, the process stops itself (SIGSTOP) right after, so that a test can
 * signal it there. */
void pending_set(const char *name);
/* The file is in place (renamed) or removed: nothing to clean up. */
void pending_done(void);
/* lib/outfile.h's on_temp: pending_set(name), or pending_done() on NULL. */
void pending_on_temp(const char *name, void *arg);

#endif
