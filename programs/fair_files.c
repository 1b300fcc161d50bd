/* fair_files.c -- the server side's files for `fairshuf fair`: the secret
 * seed file (mode 0600, never half-written) and the period log (locked,
 * checked before every append, whole records or nothing). */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "fair.h"
#include "pending.h"

/* The seed file's text: 64 hex digits and an optional newline. */
static int seed_text(const char *buf, size_t n, uint8_t seed[32])
{
    char h[65];
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    if (n != 64)
        return FS_EINVAL;
    memcpy(h, buf, 64);
    h[64] = '\0';
    int rc = fs_hex_decode(h, seed, 32);
    sodium_memzero(h, sizeof h);
    return rc;
}

void fair_read_seed(const char *sub, const char *path, uint8_t seed[32])
{
    char buf[80];
    struct stat st;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        cli_die(CLI_FAIL, "fair %s: cannot read server seed file '%s': %s",
                sub, path, strerror(errno));
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077))
        cli_error("warning: server seed file '%s' is readable or writable "
                  "by group or others (mode %04o): the seed must stay secret "
                  "until it is revealed (chmod 600 '%s')", path,
                  (unsigned)(st.st_mode & 07777), path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int bad = ferror(f), err = errno;
    fclose(f);
    if (bad)
        cli_die(CLI_FAIL, "fair %s: cannot read server seed file '%s': %s",
                sub, path, strerror(err));
    int rc = seed_text(buf, n, seed);
    sodium_memzero(buf, sizeof buf);
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "fair %s: server seed file '%s': not 64 hex digits",
                sub, path);
}

char *fair_seed_tmp(const char *sub, const char *path,
                    const uint8_t seed[32])
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    if (tmp == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".XXXXXX", 8);
    int fd = mkstemp(tmp); /* mode 0600 */
    if (fd < 0)
        cli_die(CLI_FAIL, "fair %s: cannot create '%s': %s", sub, path,
                strerror(errno));
    pending_set(tmp); /* removed by a signal until it holds a committed seed */
    char hex[65];
    fs_hex_encode(seed, 32, hex);
    hex[64] = '\n';
    int ok = write(fd, hex, 65) == 65 && fsync(fd) == 0;
    int err = errno;
    sodium_memzero(hex, sizeof hex);
    if (close(fd) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok) {
        unlink(tmp);
        pending_done();
        cli_die(CLI_FAIL, "fair %s: cannot write '%s': %s", sub, path,
                strerror(err));
    }
    return tmp;
}

char *fair_stray_seed(const char *path, const uint8_t commitment[32])
{
    size_t n = strlen(path);
    char *pat = malloc(2 * n + 16), *found = NULL;
    if (pat == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) { /* the name taken literally */
        if (strchr("*?[\\", path[i]))
            pat[k++] = '\\';
        pat[k++] = path[i];
    }
    memcpy(pat + k, ".??????", 8);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && found == NULL; i++) {
            char buf[80];
            uint8_t seed[32], c[32];
            FILE *f = fopen(g.gl_pathv[i], "r");
            if (f == NULL)
                continue;
            size_t got = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            if (seed_text(buf, got, seed) == FS_OK) {
                fs_fair_commitment(seed, c);
                if (sodium_memcmp(c, commitment, 32) == 0)
                    found = strdup(g.gl_pathv[i]);
            }
            sodium_memzero(buf, sizeof buf);
            sodium_memzero(seed, sizeof seed);
        }
        globfree(&g);
    }
    free(pat);
    return found;
}

static void log_note(void *ctx, size_t line, fs_fair_verdict kind,
                     const char *rule, const char *msg)
{
    if (kind == FS_FAIR_DISHONEST)
        cli_error("'%s' line %zu: %s: %s", (const char *)ctx, line, rule,
                  msg);
}

void fair_log_open(const char *sub, const char *path, int create,
                   const uint8_t *seed, fair_log *l)
{
    l->created = 0;
    l->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
    if (l->fd < 0 && errno == ENOENT && create) {
        /* created by the first append, so that a failure leaves no file */
        l->size = 0;
        l->text = NULL;
        memset(&l->res, 0, sizeof l->res);
        return;
    }
    if (l->fd < 0)
        cli_die(CLI_FAIL, "fair %s: cannot open log '%s': %s", sub, path,
                strerror(errno));
    if (flock(l->fd, LOCK_EX) != 0)
        cli_die(CLI_FAIL, "fair %s: cannot lock log '%s': %s", sub, path,
                strerror(errno));
    struct stat st;
    if (fstat(l->fd, &st) != 0)
        cli_die(CLI_FAIL, "fair %s: cannot read log '%s': %s", sub, path,
                strerror(errno));
    if (!S_ISREG(st.st_mode))
        cli_die(CLI_FAIL, "fair %s: log '%s' is not a regular file", sub,
                path);
    l->size = st.st_size;
    l->text = malloc((size_t)st.st_size + 1);
    if (l->text == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = pread(l->fd, l->text + got, (size_t)st.st_size - got,
                          (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            cli_die(CLI_FAIL, "fair %s: cannot read log '%s': %s", sub, path,
                    r < 0 ? strerror(errno) : "file shrank");
        got += (size_t)r;
    }
    if (got > 0 && l->text[got - 1] != '\n')
        cli_die(CLI_FAIL, "fair %s: log '%s': the last line is incomplete",
                sub, path);
    fs_fair_player own = {0};
    own.server_seed = seed;
    cli_check(fs_fair_log_check(l->text, got, &own, log_note, (void *)path,
                                &l->res),
              "fair check");
    if (l->res.verdict == FS_FAIR_DISHONEST)
        cli_die(CLI_FAIL, "fair %s: log '%s' breaks the rule '%s' at line "
                "%zu: not appending to it", sub, path, l->res.rule,
                l->res.line);
}

int fair_log_append(const char *sub, const char *path, fair_log *l,
                    const char *const *lines, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(lines[i]) + 1;
    char *buf = malloc(total ? total : 1), *p = buf;
    if (buf == NULL)
        return ENOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(lines[i]);
        memcpy(p, lines[i], k);
        p[k] = '\n';
        p += k + 1;
    }
    if (l->fd < 0) { /* a new log */
        l->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_CREAT | O_EXCL,
                     0644);
        if (l->fd < 0 || flock(l->fd, LOCK_EX) != 0) {
            int err = errno;
            free(buf);
            if (l->fd >= 0) {
                close(l->fd);
                l->fd = -1;
                unlink(path);
            }
            return err;
        }
        l->created = 1;
    }
    ssize_t w = write(l->fd, buf, total);
    int err = w < 0 ? errno : ENOSPC;
    free(buf);
    if (w == (ssize_t)total && fsync(l->fd) == 0) {
        l->size += (off_t)total;
        return 0;
    }
    if (w == (ssize_t)total)
        err = errno;
    if (l->created && l->size == 0) {
        unlink(path); /* nothing of a failed new log is left */
        return err;
    }
    if (ftruncate(l->fd, l->size) != 0)
        cli_error("fair %s: cannot cut the failed record off '%s': %s", sub,
                  path, strerror(errno));
    return err;
}

void fair_log_undo(const char *path, fair_log *l, off_t size)
{
    if (l->created && size == 0)
        unlink(path);
    else if (ftruncate(l->fd, size) == 0)
        l->size = size;
}

void fair_log_close(fair_log *l)
{
    if (l->fd >= 0)
        close(l->fd); /* releases the lock */
    l->fd = -1;
    free(l->text);
    l->text = NULL;
}

/* Dies when text[from..n) brings a line above FAIR_LOG_LINE_MAX;
 * *line_at is where the current line began, *lines how many ended before
 * it. */
static void line_bound(const char *path, const char *text, size_t from,
                       size_t n, size_t *line_at, size_t *lines)
{
    for (const char *p = text + from, *end = text + n;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            break;
        (*lines)++;
        *line_at = (size_t)(nl + 1 - text);
        p = nl + 1;
    }
    if (n - *line_at > FAIR_LOG_LINE_MAX)
        cli_die(CLI_FAIL, "fair check: log '%s': line %zu is longer than "
                "1 MiB: not a log of %s records (nothing checked)", path,
                *lines + 1, FS_FAIR_SCHEME);
}

char *fair_slurp(const char *what, const char *path, size_t *len,
                 uint64_t limit)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (f == NULL)
        cli_die(CLI_FAIL, "fair check: cannot read %s '%s': %s", what, path,
                strerror(errno));
    size_t cap = 1 << 16, n = 0, line_at = 0, lines = 0;
    char *text = malloc(cap);
    for (;;) {
        if (text == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        size_t from = n;
        n += fread(text + n, 1, cap - n - 1, f);
        if (limit) {
            line_bound(path, text, from, n, &line_at, &lines);
            if (n > limit)
                cli_die(CLI_FAIL, "fair check: log '%s' is larger than "
                        "%llu bytes (--max-log-size; nothing checked)", path,
                        (unsigned long long)limit);
        }
        if (n < cap - 1)
            break;
        char *nt = realloc(text, cap *= 2);
        if (nt == NULL)
            free(text);
        text = nt;
    }
    if (ferror(f))
        cli_die(CLI_FAIL, "fair check: cannot read %s '%s': %s", what, path,
                strerror(errno));
    if (f != stdin)
        fclose(f);
    text[n] = '\0';
    *len = n;
    return text;
}
