/* bench_spawn.c -- runs `fairshuf bench`'s external baselines from a small
 * process forked once, before any measurement.
 *
 * Why not fork + exec from the bench itself: fork() write-protects every
 * page of the bench for copy-on-write, so the first fairshuf row after a
 * baseline took a fault on each heap page it reused (about 380 at n = 1e7
 * with the bucket shuffle of stream version 4, whose tables were freed by
 * the row before and kept by malloc) -- a cost of the bench, not of
 * fs_shuffle.  Why not posix_spawn: its child shares
 * the bench's memory until exec, and Linux then counts the bench's peak RSS
 * in the child's ru_maxrss, the baseline's peak column.  The spawner's own
 * pages are few, so its forks cost the bench nothing, and each baseline's
 * ru_maxrss is its own. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

typedef struct req {
    char path[PATH_MAX];
    char arg[3][32];
    int nargs;
} req;

typedef struct rep {
    int ok;         /* exited with status 0 */
    long maxrss;    /* KiB */
    char line[512]; /* its stdout, cut at 511 bytes */
} rep;

static pid_t spawner = -1;
static int sock = -1; /* one end of a socketpair: requests out, replies in */

static int full_io(int fd, void *p, size_t n, int wr)
{
    char *c = p;
    while (n > 0) {
        /* MSG_NOSIGNAL: a dead peer is an error here, not SIGPIPE */
        ssize_t r = wr ? send(fd, c, n, MSG_NOSIGNAL) : recv(fd, c, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* One baseline run, in the spawner: fork, exec, read stdout, wait4. */
static void serve_one(const req *q, rep *a)
{
    memset(a, 0, sizeof *a);
    int fd[2];
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        char *argv[5] = {(char *)q->path, NULL, NULL, NULL, NULL};
        for (int i = 0; i < q->nargs && i < 3; i++)
            argv[i + 1] = (char *)q->arg[i];
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(q->path, argv);
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t r;
    while (len + 1 < sizeof a->line &&
           (r = read(fd[0], a->line + len, sizeof a->line - 1 - len)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        len += (size_t)r;
    }
    a->line[len] = '\0';
    close(fd[0]);
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR)
            return;
    a->ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    a->maxrss = ru.ru_maxrss;
}

int bench_spawner_start(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        static req q;
        static rep a;
        while (full_io(sv[1], &q, sizeof q, 0) == 0) {
            serve_one(&q, &a);
            if (full_io(sv[1], &a, sizeof a, 1) != 0)
                break;
        }
        _exit(0);
    }
    close(sv[1]);
    spawner = pid;
    sock = sv[0];
    return 0;
}

int bench_spawn_run(const char *path, const char *const *args, int nargs,
                    char *line, size_t linesz, long *maxrss_kib)
{
    static req q;
    static rep a;
    if (spawner < 0 || nargs > 3 || strlen(path) >= sizeof q.path)
        return -1;
    memset(&q, 0, sizeof q);
    strcpy(q.path, path);
    q.nargs = nargs;
    for (int i = 0; i < nargs; i++) {
        if (strlen(args[i]) >= sizeof q.arg[i])
            return -1;
        strcpy(q.arg[i], args[i]);
    }
    if (full_io(sock, &q, sizeof q, 1) != 0 ||
        full_io(sock, &a, sizeof a, 0) != 0 || !a.ok)
        return -1;
    snprintf(line, linesz, "%s", a.line);
    *maxrss_kib = a.maxrss;
    return 0;
}

void bench_spawner_stop(void)
{
    if (spawner < 0)
        return;
    close(sock); /* the spawner reads end of file and exits */
    while (waitpid(spawner, NULL, 0) < 0 && errno == EINTR)
        ;
    spawner = -1;
}
