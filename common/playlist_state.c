/* playlist_state.c -- the player's state file (the text of
 * fs_player_save(), <fairshuf/playlist.h>) and the copy of its list: read
 * with a size bound, never from a non-regular file; replaced atomically:
 * a temp file in the same folder, fsync, rename.  A crash at any point
 * leaves either the old or the new state, never a mix.  The folder is
 * locked for the whole run, so players sharing a state take turns. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "pending.h"
#include "playlist_state.h"

/* The file a chain of symbolic links ends at (which may not exist yet:
 * a new state behind a link), or NULL with errno set. */
static char *resolve(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur != NULL && hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char target[4096];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        target[n] = '\0';
        char *next;
        if (target[0] == '/') {
            next = strdup(target);
        } else { /* relative to the link's folder */
            char *copy = strdup(cur);
            const char *dir = copy ? dirname(copy) : NULL;
            next = dir ? malloc(strlen(dir) + strlen(target) + 2) : NULL;
            if (next)
                sprintf(next, "%s/%s", dir, target);
            free(copy);
        }
        free(cur);
        cur = next;
    }
    if (cur != NULL) {
        free(cur);
        errno = ELOOP;
    }
    return NULL;
}

char *pl_state_lock(const char *path, double wait)
{
    struct stat st;
    char *real = resolve(path);
    if (real == NULL)
        cli_die(CLI_FAIL, "%s: %s", path,
                errno ? strerror(errno) : "memory exhausted");
    if (stat(real, &st) == 0 && !S_ISREG(st.st_mode))
        cli_die(CLI_FAIL, "%s: not a regular file (a state must be one)",
                path);
    char *copy = strdup(real);
    if (copy == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0)
        cli_die(CLI_FAIL, "%s: cannot lock the state's folder: %s", path,
                strerror(errno));
    /* Another player's step takes milliseconds: one that holds the lock
     * for `wait` seconds is stuck, and waiting for ever would hang ours. */
    struct timespec start, now, nap = {0, 20 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            cli_die(CLI_FAIL, "%s: cannot lock the state's folder: %s", path,
                    strerror(errno));
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) +
                (double)(now.tv_nsec - start.tv_nsec) / 1e9 >= wait)
            cli_die(CLI_FAIL, "%s: another player has held the state's "
                    "folder for %g s; try again later (--lock-wait=SECONDS "
                    "waits longer)", path, wait);
        nanosleep(&nap, NULL);
    }
    return real; /* fd stays open: the lock lasts until exit */
}

static _Noreturn void refuse(const char *path, const char *why)
{
    cli_die(CLI_FAIL, "%s: %s (fairshuf playlist --force-new starts over)",
            path, why);
}

/* The whole text of the state (NUL-terminated), at most limit bytes, or
 * dies: absent is NULL. */
char *pl_state_read(const char *path, size_t limit, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return NULL;
        cli_die(CLI_FAIL, "%s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        cli_die(CLI_FAIL, "%s: not a regular file (a state must be one)",
                path);
    if ((uint64_t)st.st_size > limit)
        refuse(path, "not a fairshuf playlist state (too large for this "
                     "list)");
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *text = malloc(cap + 1);
    if (text == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (;;) {
        ssize_t got = read(fd, text + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            cli_die(CLI_FAIL, "%s: read error: %s", path, strerror(errno));
        if (got == 0)
            break;
        n += (size_t)got;
        if (n == cap) /* grew while we read: not ours to trust */
            refuse(path, "not a fairshuf playlist state (it changed "
                         "while being read)");
    }
    close(fd);
    text[n] = '\0';
    *len = n;
    return text;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void write_file(const char *path, const char *text, size_t n,
                       int hook)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (tmp == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0)
        cli_die(CLI_FAIL, "%s: cannot create a temporary file: %s", path,
                strerror(errno));
    pending_set(tmp); /* removed on a failure or a signal */
    int bad = 0;
    /* Test hook (tests/cli/playlist.bats): stop half-way through the write
     * so that a test can kill the process there. */
    if (hook && getenv("FAIRSHUF_TEST_STOP_IN_STATE_WRITE")) {
        bad = write_all(fd, text, n / 2) != 0 || fsync(fd) != 0;
        raise(SIGSTOP);
        bad = bad || write_all(fd, text + n / 2, n - n / 2) != 0;
    } else {
        bad = write_all(fd, text, n) != 0;
    }
    bad = bad || fchmod(fd, 0600) != 0 || fsync(fd) != 0;
    bad = close(fd) != 0 || bad;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        pending_done();
        free(tmp);
        cli_die(CLI_FAIL, "%s: cannot write the state: %s", path, strerror(e));
    }
    pending_done();
    free(tmp);
}

void pl_state_write(const char *path, const char *text, size_t n)
{
    write_file(path, text, n, 1);
}

void pl_copy_write(const char *path, const char *text, size_t n)
{
    write_file(path, text, n, 0);
}

void pl_copies_prune(const char *state, const char *keep)
{
    char *copy = strdup(state), *copy2 = strdup(state);
    if (copy == NULL || copy2 == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    const char *dir = dirname(copy), *base = basename(copy2);
    size_t blen = strlen(base);
    DIR *d = opendir(dir);
    const char *keep_base = strrchr(keep, '/') ? strrchr(keep, '/') + 1 : keep;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, base, blen) != 0 ||
            strncmp(e->d_name + blen, ".list-", 6) != 0 ||
            strcmp(e->d_name, keep_base) == 0)
            continue;
        char *name = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (name == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        sprintf(name, "%s/%s", dir, e->d_name);
        unlink(name); /* an older copy, or a crash's leftover */
        free(name);
    }
    if (d)
        closedir(d);
    free(copy);
    free(copy2);
}
