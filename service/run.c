/* run.c -- fairshuf serve from start to exit: the token, the database,
 * the writer, the HTTP server; then wait for SIGTERM/SIGINT and drain. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "outfile.h"
#include "seal.h"
#include "service.h"
#include "vrf.h"

static const char *named; /* --instance-id, in every message */

static void msg(const char *fmt, const char *a, const char *b)
{
    if (named)
        fprintf(stderr, "fairshuf[%s]: ", named);
    else
        fprintf(stderr, "fairshuf: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

/* The token: the file's first line.  Refused: a file others can read or
 * write (mode o+r / o+w), not a regular file, or a token shorter than 16
 * bytes or with characters outside visible ASCII. */
static int read_token(const char *path, char *tok, size_t cap)
{
    /* O_NONBLOCK: a FIFO is refused below, not waited on */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        msg("%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) ||
        (st.st_mode & (S_IWGRP | S_IROTH | S_IWOTH))) {
        msg("%s: %s", path, !S_ISREG(st.st_mode)
                                ? "the token file is not a regular file"
                                : "the token file is writable by its group "
                                  "or readable or writable by others "
                                  "(chmod g-w,o-rw)");
        close(fd);
        return -1;
    }
    ssize_t n = read(fd, tok, cap - 1);
    close(fd);
    if (n < 0) {
        msg("%s: %s", path, strerror(errno));
        return -1;
    }
    if (memchr(tok, '\0', (size_t)n)) { /* a NUL would cut the token short */
        msg("%s: %s", path, "the token file holds a NUL byte");
        return -1;
    }
    tok[n] = '\0';
    tok[strcspn(tok, "\r\n")] = '\0';
    size_t len = strlen(tok);
    int ok = len >= 16 && len < cap - 1;
    for (size_t i = 0; i < len; i++)
        ok &= tok[i] > ' ' && tok[i] < 0x7f;
    if (!ok) {
        msg("%s: %s", path, "the token must be 16 to 4000 visible ASCII "
                            "characters on the first line");
        return -1;
    }
    return 0;
}

/* The database holds the unrevealed server seeds: created owner-only,
 * refused when others may read or write it, and held with an exclusive
 * flock so that a second service cannot write the same tables (its own
 * cache of the periods would give nonces twice).  Returns the fd to keep
 * open while the service runs, or -1. */
static int claim_db(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        msg("%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    const char *why = !S_ISREG(st.st_mode) ? "not a regular file"
                      : (st.st_mode & 077)
                          ? "the database (it holds the unrevealed server "
                            "seeds) is readable or writable by its group or "
                            "others (chmod 600)"
                          : NULL;
    if (!why && flock(fd, LOCK_EX | LOCK_NB) != 0)
        why = errno == EWOULDBLOCK ? "in use by another fairshuf serve"
                                   : strerror(errno);
    if (why) {
        msg("%s: %s", path, why);
        close(fd);
        return -1;
    }
    return fd;
}

/* A -wal or -shm file left by an earlier run keeps its mode (SQLite gives
 * new ones the database's): owner-only too.  0, or -1 (not a regular
 * file, or its mode cannot be fixed). */
static int own_side_files(const char *db)
{
    static const char *const ext[] = {"-wal", "-shm"};
    for (int i = 0; i < 2; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s%s", db, ext[i]);
        int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT)
            continue;
        struct stat st;
        const char *why = fd < 0 || fstat(fd, &st) ? strerror(errno)
                          : !S_ISREG(st.st_mode) ? "not a regular file"
                          : (st.st_mode & 077) && fchmod(fd, 0600)
                              ? strerror(errno)
                              : NULL;
        if (fd >= 0)
            close(fd);
        if (why) {
            msg("%s: %s", p, why);
            return -1;
        }
    }
    return 0;
}

/* verify.html: --web-root, else web/ beside the binary (the build tree:
 * build/fairshuf and build/web/verify.html), else the installed
 * PREFIX/share/fairshuf/web. */
static void web_page(const svc_config *cfg, char *out, size_t cap)
{
    if (cfg->web_root) {
        snprintf(out, cap, "%s/verify.html", cfg->web_root);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        out[0] = '\0';
        return;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, cap, "%s/web/verify.html", exe);
    if (access(out, R_OK) != 0)
        snprintf(out, cap, "%s/../share/fairshuf/web/verify.html", exe);
}

/* The bound port, by the library's output rules (lib/outfile.h): a
 * regular file is replaced whole (a new file renamed over it: readers see
 * the whole number or nothing; no name of ours, such as FILE.tmp, is ever
 * written through), a symbolic link stays a link to the file it names, a
 * device or FIFO is written in place, never replaced.  A FIFO is written
 * only when a reader has it open (else refused at once: waiting would
 * hold the start, and SIGTERM is blocked until the service is ready). */
static int write_port(const char *path, unsigned port)
{
    char text[16];
    int n = snprintf(text, sizeof text, "%u\n", port);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISFIFO(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        int ok = fd >= 0 && fcntl(fd, F_SETFL, 0) == 0 &&
                 write(fd, text, (size_t)n) == n;
        if (!ok)
            msg("%s: %s", path, fd < 0 && errno == ENXIO
                                    ? "a FIFO that nobody reads"
                                    : strerror(errno));
        if (fd >= 0)
            close(fd);
        return ok ? 0 : -1;
    }
    fs__outfile o;
    fs__outfile_init(&o, path, NULL, NULL);
    int ok = fs__outfile_open(&o) == FS_OK;
    if (ok) {
        errno = ENOSPC; /* a short write sets none */
        ok = write(o.fd, text, (size_t)n) == n;
    }
    if (ok)
        ok = fs__outfile_commit(&o) == FS_OK;
    else
        fs__outfile_abort(&o);
    if (!ok)
        msg("%s: %s", path, strerror(errno));
    return ok ? 0 : -1;
}

int svc_run(const svc_config *cfg)
{
    char token[4096], why[512], page[PATH_MAX + 64];
    if (svc_instance_set(cfg->instance_id)) {
        msg("invalid --instance-id '%s' (1 to 64 of A-Z a-z 0-9 . _ -)%s",
            cfg->instance_id, "");
        return 2;
    }
    named = cfg->instance_id;
    if (read_token(cfg->token_file, token, sizeof token))
        return 1;
    /* Every thread inherits this mask: only sigwait below sees them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* PostgreSQL: shared by design; its row locks keep the order */
    int pg = strncmp(cfg->db, "postgres", 8) == 0 && strstr(cfg->db, "://");
    if (svc_seal_init(cfg->seed_key_file, cfg->old_seed_key_file, why,
                      sizeof why)) {
        msg("%s%s", why, "");
        return 1;
    }
    if (svc_vrf_key_init(cfg->vrf_key_file, why, sizeof why)) {
        msg("%s%s", why, "");
        svc_seal_free();
        svc_vrf_key_free();
        return 1;
    }
    mode_t mask = umask(077); /* the database, -wal, -shm: owner-only */
    int lock = pg ? -1 : claim_db(cfg->db);
    if (lock >= 0 && own_side_files(cfg->db)) {
        close(lock);
        lock = -1;
    }
    if (lock < 0 && !pg) {
        svc_seal_free();
        svc_vrf_key_free();
        return 1;
    }
    if (!pg && svc_db_quick_check(cfg->db, why, sizeof why)) {
        fprintf(stderr, "fairshuf: %s: the database is damaged (PRAGMA "
                "quick_check: %s): not starting; restore it from a backup\n",
                cfg->db, why);
        close(lock);
        svc_seal_free();
        svc_vrf_key_free();
        return 1;
    }
    svc_store *st = svc_store_open(cfg->db, cfg->sync_normal, why, sizeof why);
    if (!st) {
        msg("%s: %s", pg ? "the database" : cfg->db, why);
        if (lock >= 0)
            close(lock);
        svc_seal_free();
        svc_vrf_key_free();
        return 1;
    }
    umask(mask);
    svc_writer *w = svc_writer_start(st, cfg->batch, why, sizeof why);
    if (!w) {
        msg("%s%s", why, "");
        svc_store_close(st);
        if (lock >= 0)
            close(lock);
        svc_seal_free();
        svc_vrf_key_free();
        return 1;
    }
    web_page(cfg, page, sizeof page);
    unsigned port = 0;
    svc_http *h = svc_http_start(cfg, w, token, strlen(token), page, &port,
                                 why, sizeof why);
    sodium_memzero(token, sizeof token);
    int status = 0;
    if (!h) {
        msg("%s%s", why, "");
        status = 1;
    } else {
        if (cfg->port_file && write_port(cfg->port_file, port))
            status = 1;
        else {
            const char *colon = strrchr(cfg->listen, ':');
            printf("fairshuf serve: instance %s listening on "
                   "http://%.*s:%u/ (database %s)\n", svc_instance_id(),
                   (int)(colon - cfg->listen), cfg->listen, port,
                   pg ? "PostgreSQL" : cfg->db);
            fflush(stdout);
            int sig;
            sigwait(&stop, &sig);
        }
        svc_http_drain(h, 30.0); /* requests in flight finish */
    }
    svc_writer_stop(w);          /* then the queue is empty: stop */
    svc_store_close(st);
    if (lock >= 0)
        close(lock);             /* after SQLite's own descriptors */
    svc_seal_free();
    svc_vrf_key_free();
    return status;
}
