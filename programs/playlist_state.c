/* playlist_state.c -- the player's state file: fs_playlist_save()'s line,
 * then the record of the current cycle (playlist.h), replaced atomically:
 * a temp file in the same folder, fsync, rename.  A crash at any point
 * leaves either the old or the new state, never a mix. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pending.h"
#include "playlist.h"

void pl_record_push(pl_record *r, uint64_t id)
{
    if (r->len == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        uint64_t *p = realloc(r->id, cap * sizeof *p);
        if (p == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        r->id = p;
        r->cap = cap;
    }
    r->id[r->len++] = id;
}

void pl_record_free(pl_record *r)
{
    free(r->id);
    memset(r, 0, sizeof *r);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static int num(const char **s, const char *name, uint64_t *out)
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0)
        return -1;
    char *end;
    const char *p = *s + len;
    if (*p < '0' || *p > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno || *end != ' ')
        return -1;
    *out = v;
    *s = end + 1;
    return 0;
}

/* The second line; -1 if malformed. */
static int parse_record(const char *s, pl_record *r)
{
    if (num(&s, "cycle=", &r->cycle) || num(&s, "at=", &r->at) ||
        num(&s, "frozen=", &r->frozen) || num(&s, "base=", &r->base) ||
        strncmp(s, "ids=", 4) != 0)
        return -1;
    s += 4;
    while (*s != '\0' && *s != '\n') {
        uint64_t v = 0;
        for (int k = 0; k < 16; k++) {
            int d = hexval(s[k]);
            if (d < 0)
                return -1;
            v = v << 4 | (uint64_t)d;
        }
        pl_record_push(r, v);
        s += 16;
    }
    if (*s == '\n' && s[1] != '\0')
        return -1;
    if (r->frozen > r->len || r->at > r->len + 1)
        return -1;
    r->present = 1;
    return 0;
}

int pl_state_load(const char *path, fs_playlist *pl, pl_record *r)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return 1;
        cli_die(CLI_FAIL, "%s: %s", path, strerror(errno));
    }
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    for (;;) {
        if (text == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        n += fread(text + n, 1, cap - n - 1, f);
        if (n < cap - 1 || feof(f))
            break;
        cap *= 2;
        text = realloc(text, cap);
    }
    int err = ferror(f);
    fclose(f);
    if (err)
        cli_die(CLI_FAIL, "%s: read error", path);
    text[n] = '\0';
    char *nl = strchr(text, '\n');
    int bad = 0;
    if (nl != NULL) {
        *nl = '\0';
        if (nl[1] != '\0')
            bad = parse_record(nl + 1, r) != 0;
    }
    bad = bad || fs_playlist_load(pl, text) != FS_OK;
    free(text);
    if (bad)
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

/* The whole file's text (malloc'd). */
static char *state_text(const fs_playlist *pl, const pl_record *r,
                        size_t *len)
{
    size_t cap = FS_PLAYLIST_STATE_MAX + 128 + 16 * r->len;
    char *text = malloc(cap);
    if (text == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_playlist_save(pl, text);
    size_t n = strlen(text);
    n += (size_t)snprintf(text + n, cap - n,
                          "\ncycle=%llu at=%llu frozen=%llu base=%llu ids=",
                          (unsigned long long)r->cycle,
                          (unsigned long long)r->at,
                          (unsigned long long)r->frozen,
                          (unsigned long long)r->base);
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < r->len; i++)
        for (int k = 15; k >= 0; k--)
            text[n++] = hex[(r->id[i] >> (4 * k)) & 15];
    text[n++] = '\n';
    *len = n;
    return text;
}

void pl_state_save(const char *path, const fs_playlist *pl,
                   const pl_record *r)
{
    size_t n;
    char *text = state_text(pl, r, &n);
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
    if (getenv("FAIRSHUF_TEST_STOP_IN_STATE_WRITE")) {
        bad = write_all(fd, text, n / 2) != 0 || fsync(fd) != 0;
        raise(SIGSTOP);
        bad = bad || write_all(fd, text + n / 2, n - n / 2) != 0;
    } else {
        bad = write_all(fd, text, n) != 0;
    }
    free(text);
    bad = bad || fchmod(fd, 0644) != 0 || fsync(fd) != 0;
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
