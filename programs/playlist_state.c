/* playlist_state.c -- the player's state file: fs_playlist_save()'s line,
 * the record of the current cycle and a checksum (playlist.h), replaced
 * atomically: a temp file in the same folder, fsync, rename.  A crash at
 * any point leaves either the old or the new state, never a mix.  The
 * folder is locked for the whole run, so players sharing a state take
 * turns. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "pending.h"
#include "playlist.h"

static void ids_room(pl_ids *v)
{
    if (v->len < v->cap)
        return;
    size_t cap = v->cap ? 2 * v->cap : 64;
    uint64_t *p = realloc(v->id, cap * sizeof *p);
    if (p == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    v->id = p;
    v->cap = cap;
}

void pl_ids_push(pl_ids *v, uint64_t id)
{
    ids_room(v);
    v->id[v->len++] = id;
}

void pl_ids_insert(pl_ids *v, size_t at, uint64_t id)
{
    ids_room(v);
    memmove(v->id + at + 1, v->id + at, (v->len - at) * sizeof *v->id);
    v->id[at] = id;
    v->len++;
}

void pl_record_free(pl_record *r)
{
    free(r->ids.id);
    free(r->avoid.id);
    free(r->queue.id);
    memset(r, 0, sizeof *r);
}

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

char *pl_state_lock(const char *path)
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
    if (fd < 0 || flock(fd, LOCK_EX) != 0)
        cli_die(CLI_FAIL, "%s: cannot lock the state's folder: %s", path,
                strerror(errno));
    return real; /* fd stays open: the lock lasts until exit */
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

/* NAME= then 16-hex-digit ids up to a space (more follows) or, when last,
 * the end of the line. */
static int id_list(const char **s, const char *name, pl_ids *v, int last)
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0)
        return -1;
    const char *p = *s + len;
    while (*p != ' ' && *p != '\0' && *p != '\n') {
        uint64_t x = 0;
        for (int k = 0; k < 16; k++) {
            int d = hexval(p[k]);
            if (d < 0)
                return -1;
            x = x << 4 | (uint64_t)d;
        }
        pl_ids_push(v, x);
        p += 16;
    }
    if (last ? *p == ' ' : *p != ' ')
        return -1;
    *s = last ? p : p + 1;
    return 0;
}

static int hex_bytes(const char **s, const char *name, uint8_t *out,
                     size_t n)
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0)
        return -1;
    const char *p = *s + len;
    for (size_t i = 0; i < n; i++) {
        int a = hexval(p[2 * i]), b = a < 0 ? -1 : hexval(p[2 * i + 1]);
        if (b < 0)
            return -1;
        out[i] = (uint8_t)(a << 4 | b);
    }
    if (p[2 * n] != ' ')
        return -1;
    *s = p + 2 * n + 1;
    return 0;
}

static int order_field(const char **s, pl_record *r)
{
    static const char *const names[] = {"order=plain ", "order=spread-",
                                        "order=weights-"};
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(names[k]);
        if (strncmp(*s, names[k], len) != 0)
            continue;
        r->order = (pl_order)k;
        *s += len;
        if (k == 0)
            return 0;
        uint8_t b[8];
        if (hex_bytes(s, "", b, 8))
            return -1;
        r->field = 0;
        for (int i = 0; i < 8; i++)
            r->field = r->field << 8 | b[i];
        return 0;
    }
    return -1;
}

/* The second line; -1 if malformed. */
static int parse_record(const char *s, pl_record *r)
{
    if (strncmp(s, "player ", 7) == 0) {
        s += 7;
        uint64_t v;
        if (num(&s, "", &v) || v != 2 || hex_bytes(&s, "file=", r->file, 16) ||
            order_field(&s, r))
            return -1;
        r->version = 2;
    } else {
        r->version = 1;
    }
    if (num(&s, "cycle=", &r->cycle) || num(&s, "at=", &r->at) ||
        num(&s, "frozen=", &r->frozen) || num(&s, "base=", &r->base))
        return -1;
    if (r->version == 2 && (id_list(&s, "avoid=", &r->avoid, 0) ||
                            id_list(&s, "queue=", &r->queue, 0)))
        return -1;
    if (id_list(&s, "ids=", &r->ids, 1))
        return -1;
    if (*s == '\n' && s[1] != '\0')
        return -1;
    if (r->frozen > r->ids.len || r->at > r->ids.len + 1 ||
        r->avoid.len > FS_PLAYLIST_WINDOW_MAX)
        return -1;
    r->present = 1;
    return 0;
}

/* "fairshuf-playlist V" or "player V" with V other than ours. */
static int other_version(const char *line, const char *magic, int ours)
{
    size_t len = strlen(magic);
    if (strncmp(line, magic, len) != 0 || line[len] < '0' || line[len] > '9')
        return 0;
    return atoi(line + len) != ours;
}

static _Noreturn void refuse(const char *path, const char *why)
{
    cli_die(CLI_FAIL, "%s: %s (fairshuf playlist --force-new starts over)",
            path, why);
}

/* The whole text of the state (NUL-terminated), at most limit bytes, or
 * dies: absent is NULL. */
static char *read_state(const char *path, size_t limit, size_t *len)
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

int pl_state_load(const char *path, size_t limit, fs_playlist *pl,
                  pl_record *r)
{
    memset(r, 0, sizeof *r);
    size_t n;
    char *text = read_state(path, limit, &n);
    if (text == NULL)
        return 1;
    if (memchr(text, '\0', n) != NULL)
        refuse(path, "not a fairshuf playlist state (it holds a NUL byte)");
    if (other_version(text, "fairshuf-playlist ", 1))
        refuse(path, "made by another version of fairshuf (unknown state "
                     "format)");
    char *nl = strchr(text, '\n');
    if (nl && other_version(nl + 1, "player ", 2))
        refuse(path, "made by another version of fairshuf (unknown state "
                     "format)");
    char *second = nl ? nl + 1 : NULL;
    if (second && strncmp(second, "player ", 7) == 0) {
        /* version 2: the checksum covers the two lines */
        char *nl2 = strchr(second, '\n');
        uint8_t sum[16], want[16];
        const char *s = nl2 ? nl2 + 1 : "";
        if (nl2 == NULL || strncmp(s, "sum=", 4) != 0 ||
            strlen(s) != 4 + 32 + 1 || s[36] != '\n')
            refuse(path, "damaged (incomplete)");
        s += 4;
        for (int i = 0; i < 16; i++) {
            int a = hexval(s[2 * i]), b = hexval(s[2 * i + 1]);
            if (a < 0 || b < 0)
                refuse(path, "damaged (bad checksum line)");
            want[i] = (uint8_t)(a << 4 | b);
        }
        crypto_generichash(sum, 16, (const unsigned char *)text,
                           (size_t)(nl2 + 1 - text), NULL, 0);
        if (sodium_memcmp(sum, want, 16) != 0)
            refuse(path, "damaged (checksum mismatch)");
        nl2[1] = '\0';
    }
    int bad = 0;
    if (nl != NULL) {
        *nl = '\0';
        if (nl[1] != '\0')
            bad = parse_record(nl + 1, r) != 0;
    }
    bad = bad || fs_playlist_load(pl, text) != FS_OK;
    free(text);
    if (bad)
        refuse(path, "not a fairshuf playlist state");
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

static size_t put_ids(char *text, size_t n, const char *name,
                      const pl_ids *v)
{
    static const char hex[] = "0123456789abcdef";
    memcpy(text + n, name, strlen(name));
    n += strlen(name);
    for (size_t i = 0; i < v->len; i++)
        for (int k = 15; k >= 0; k--)
            text[n++] = hex[(v->id[i] >> (4 * k)) & 15];
    return n;
}

/* The whole file's text (malloc'd). */
static char *state_text(const fs_playlist *pl, const pl_record *r,
                        size_t *len)
{
    size_t cap = FS_PLAYLIST_STATE_MAX + 256 +
                 16 * (r->ids.len + r->avoid.len + r->queue.len) + 64;
    char *text = malloc(cap);
    if (text == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_playlist_save(pl, text);
    size_t n = strlen(text);
    char file[33];
    fs_hex_encode(r->file, 16, file);
    n += (size_t)snprintf(text + n, cap - n, "\nplayer 2 file=%s order=",
                          file);
    if (r->order == PL_ORDER_PLAIN)
        n += (size_t)snprintf(text + n, cap - n, "plain");
    else
        n += (size_t)snprintf(text + n, cap - n, "%s-%016llx",
                              r->order == PL_ORDER_SPREAD ? "spread"
                                                          : "weights",
                              (unsigned long long)r->field);
    n += (size_t)snprintf(text + n, cap - n,
                          " cycle=%llu at=%llu frozen=%llu base=%llu ",
                          (unsigned long long)r->cycle,
                          (unsigned long long)r->at,
                          (unsigned long long)r->frozen,
                          (unsigned long long)r->base);
    n = put_ids(text, n, "avoid=", &r->avoid);
    n = put_ids(text, n, " queue=", &r->queue);
    n = put_ids(text, n, " ids=", &r->ids);
    text[n++] = '\n';
    uint8_t sum[16];
    crypto_generichash(sum, 16, (const unsigned char *)text, n, NULL, 0);
    memcpy(text + n, "sum=", 4);
    fs_hex_encode(sum, 16, text + n + 4);
    n += 4 + 32;
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
