/* outfile.h -- writing a named output file so that a failed run never
 * leaves it half-written and a special file is never replaced (internal;
 * the CLI's `lines -o`, `verify --report/--svg`, `bench --svg` and the
 * Python extension's fairshuf.lines(src, dst) share it).
 *
 * The rules:
 *   - PATH names a regular file, or nothing yet: the output goes to a new
 *     file beside it (an unnamed O_TMPFILE where the system allows, else a
 *     hidden named one, .NAME.fairshuf-XXXXXX), which fs__outfile_commit
 *     fsyncs and renames over PATH.  PATH keeps its permission bits (and
 *     its owner, when allowed).  Until then PATH is untouched.
 *   - PATH is a symbolic link: it is followed; the file it names is
 *     replaced as above and the link stays a link to it.
 *   - PATH is not a regular file (a device such as /dev/null, a FIFO,
 *     /dev/stdout, a socket): it is opened and written in place, never
 *     replaced (as GNU shuf -o does).
 *   - PATH exists but is not writable: refused (EACCES), even though the
 *     folder might allow a rename over it.
 *   - a folder that refuses new files: an existing PATH is written in
 *     place.
 * Nothing is printed; errors return FS_EIO with errno saying why, or
 * FS_ENOMEM.  The library installs no signal handler: a front end that
 * wants the named temporary file removed on a signal passes on_temp, which
 * is called with the file's name whenever it gets one and with NULL when
 * it is renamed or removed. */
#ifndef FS_OUTFILE_H
#define FS_OUTFILE_H

typedef struct fs__outfile {
    const char *path;   /* as given */
    int fd;             /* -1 until opened; write to it */
    int replace;        /* fd is a new file that replaces `target` */
    int named;          /* ... and it has a name: tmp */
    char *target;       /* path, or the file a symbolic link path names */
    char *tmp;          /* the new file's name, once it has one */
    void (*on_temp)(const char *name, void *arg); /* may be NULL */
    void *arg;
} fs__outfile;

/* Sets o up for path; on_temp may be NULL.  Opens nothing. */
void fs__outfile_init(fs__outfile *o, const char *path,
                      void (*on_temp)(const char *name, void *arg), void *arg);

/* Opens o->fd as the rules above say.  FS_OK, FS_EIO (errno set: ENOENT
 * for a missing folder, EACCES for a read-only file, ...), FS_ENOMEM.  On
 * failure nothing is left open or created. */
int fs__outfile_open(fs__outfile *o);

/* The output is whole: for a new file, fsync, give it a name if it has
 * none, close, rename over the target and fsync the folder; for a file
 * written in place, close.  FS_OK, or FS_EIO with errno set (the new file
 * removed, the target as it was).  Either way o->fd is closed. */
int fs__outfile_commit(fs__outfile *o);

/* Gives up: closes o->fd and removes the new file, if any; the target is
 * as it was.  Keeps errno.  Safe on an unopened or finished o. */
void fs__outfile_abort(fs__outfile *o);

#endif
