/* playlist_state.c -- the player's state file: one line of text
 * (fs_playlist_save()), replaced atomically: a temp file in the same
 * folder, fsync, rename.  A crash at any point leaves either the old or the
 * new state, never a mix. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "playlist.h"

int pl_state_load(const char *path, fs_playlist *pl)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return 1;
        cli_die(CLI_FAIL, "%s: %s", path, strerror(errno));
    }
    char text[FS_PLAYLIST_STATE_MAX + 2];
    size_t n = fread(text, 1, sizeof text - 1, f);
    int err = ferror(f);
    fclose(f);
    if (err)
        cli_die(CLI_FAIL, "%s: read error", path);
    text[n] = '\0';
    if (fs_playlist_load(pl, text) != FS_OK)
        cli_die(CLI_FAIL, "%s: not a fairshuf playlist state", path);
    return 0;
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

void pl_state_save(const char *path, const fs_playlist *pl)
{
    char text[FS_PLAYLIST_STATE_MAX + 1];
    fs_playlist_save(pl, text);
    strcat(text, "\n");
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
    size_t n = strlen(text);
    int bad = 0;
    /* Test hook (tests/cli/playlist.bats): stop half-way through the write
     * so that a test can kill the process there. */
    if (getenv("FAIRSHUF_TEST_STOP_IN_STATE_WRITE")) {
        bad = write_all(fd, text, n / 2) != 0 || fsync(fd) != 0;
        raise(SIGSTOP);
        bad = bad || write_all(fd, text + n / 2, n - n / 2) != 0;
    } else {
        bad = write_all(fd, text, n) != 0;
    }
    bad = bad || fchmod(fd, 0644) != 0 || fsync(fd) != 0;
    bad = close(fd) != 0 || bad;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        cli_die(CLI_FAIL, "%s: cannot write the state: %s", path, strerror(e));
    }
    free(tmp);
}
