/* serve_load.c -- a load client for fairshuf serve (bench/serve.sh and the
 * crash tests in tests/cli/serve*.bats): --clients threads, each with one
 * keep-alive connection, POST /v1/tables/ID/deals in a loop; prints the
 * deals answered 200 (until --seconds pass, --deals were sent, or SIGTERM), deals per second and the latency median and 99th
 * percentile.  --record=FILE writes the JSON answer of every deal answered
 * (what a game server would have shown): the crash test checks each is in
 * the log.  A refused or cut connection is retried until the time is up.
 *
 * serve-load --port=P --token-file=F --tables=ID[,ID...] [--clients=64]
 *            [--seconds=S] [--deals=N] [--record=FILE] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned port, clients = 64;
static double seconds = 5, t_end;
static long max_deals = -1;
static atomic_long started;
static volatile sig_atomic_t stopped; /* SIGTERM/SIGINT: finish and report */
static char token[4096];
static long *tables;
static size_t ntables;
static FILE *record;
static pthread_mutex_t record_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct worker {
    pthread_t th;
    unsigned id;
    double *lat;
    size_t n, cap;
    long errors, refused;
} worker;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_local(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0)
        return -1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One request on fd; *status and the body.  -1: the connection failed. */
static int exchange(int fd, const char *req, size_t rlen, int *status,
                    char *body, size_t cap)
{
    for (size_t off = 0; off < rlen;) {
        ssize_t w = send(fd, req + off, rlen - off, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    char buf[16384];
    size_t have = 0;
    char *end = NULL;
    while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
        if (have == sizeof buf)
            return -1;
        ssize_t r = recv(fd, buf + have, sizeof buf - have, 0);
        if (r <= 0)
            return -1;
        have += (size_t)r;
    }
    *end = '\0';
    if (sscanf(buf, "HTTP/1.%*d %d", status) != 1)
        return -1;
    char *cl = strcasestr(buf, "\r\nContent-Length:");
    size_t len = cl ? strtoul(cl + 17, NULL, 10) : 0;
    size_t got = have - (size_t)(end + 4 - buf);
    if (len >= cap || got > len)
        return -1;
    memcpy(body, end + 4, got);
    while (got < len) {
        ssize_t r = recv(fd, body + got, len - got, 0);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    body[len] = '\0';
    return strcasestr(buf, "\r\nConnection: close") ? 1 : 0;
}

static void *run(void *arg)
{
    worker *w = arg;
    long table = tables[w->id % ntables];
    char req[8192];
    int rlen = snprintf(req, sizeof req,
                        "POST /v1/tables/%ld/deals HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Authorization: Bearer %s\r\nContent-Length: 0\r\n\r\n",
                        table, token);
    char *body = malloc(65536);
    int fd = -1;
    while (now() < t_end && !stopped) {
        if (max_deals >= 0 && atomic_fetch_add(&started, 1) >= max_deals)
            break;
        if (fd < 0 && (fd = connect_local()) < 0) {
            w->refused++;
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        double t0 = now();
        int status = 0;
        int rc = exchange(fd, req, (size_t)rlen, &status, body, 65536);
        if (rc < 0) {
            close(fd);
            fd = -1;
            w->errors++;
            continue;
        }
        if (status == 200) {
            if (w->n == w->cap) {
                size_t cap = w->cap ? 2 * w->cap : 4096;
                double *lat = realloc(w->lat, cap * sizeof *lat);
                if (!lat)
                    abort(); /* a load client out of memory: no figure */
                w->lat = lat;
                w->cap = cap;
            }
            w->lat[w->n++] = now() - t0;
            if (record) {
                pthread_mutex_lock(&record_mu); /* the answer, one line */
                fputs(body, record);
                if (!strchr(body, '\n'))
                    fputc('\n', record);
                pthread_mutex_unlock(&record_mu);
            }
        } else
            w->errors++;
        if (rc == 1) {
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0)
        close(fd);
    free(body);
    return NULL;
}

static void on_stop(int sig)
{
    (void)sig;
    stopped = 1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *token_file = NULL, *tables_arg = NULL, *record_file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--port=", 7)) port = (unsigned)atoi(a + 7);
        else if (!strncmp(a, "--token-file=", 13)) token_file = a + 13;
        else if (!strncmp(a, "--tables=", 9)) tables_arg = a + 9;
        else if (!strncmp(a, "--clients=", 10)) clients = (unsigned)atoi(a + 10);
        else if (!strncmp(a, "--seconds=", 10)) seconds = atof(a + 10);
        else if (!strncmp(a, "--deals=", 8)) max_deals = atol(a + 8);
        else if (!strncmp(a, "--record=", 9)) record_file = a + 9;
        else {
            fprintf(stderr, "serve-load: unknown option '%s'\n", a);
            return 2;
        }
    }
    FILE *tf = token_file ? fopen(token_file, "r") : NULL;
    if (!port || !tf || !tables_arg || !clients || !fgets(token, sizeof token, tf)) {
        fprintf(stderr, "usage: serve-load --port=P --token-file=F "
                        "--tables=ID[,ID...] [--clients=N] [--seconds=S] "
                        "[--deals=N] [--record=FILE]\n");
        return 2;
    }
    fclose(tf);
    token[strcspn(token, "\r\n")] = '\0';
    for (const char *p = tables_arg; *p;) {
        long *more = realloc(tables, (ntables + 1) * sizeof *tables);
        if (!more)
            return 1;
        tables = more;
        tables[ntables++] = strtol(p, (char **)&p, 10);
        if (*p == ',')
            p++;
        else if (*p)
            return 2;
    }
    if (record_file && !(record = fopen(record_file, "w"))) {
        perror(record_file);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    worker *w = calloc(clients, sizeof *w);
    double t0 = now();
    t_end = t0 + seconds;
    for (unsigned i = 0; i < clients; i++) {
        w[i].id = i;
        pthread_create(&w[i].th, NULL, run, &w[i]);
    }
    size_t total = 0;
    long errors = 0, refused = 0;
    for (unsigned i = 0; i < clients; i++) {
        pthread_join(w[i].th, NULL);
        total += w[i].n;
        errors += w[i].errors;
        refused += w[i].refused;
    }
    double el = now() - t0;
    double *all = malloc((total + 1) * sizeof *all);
    size_t k = 0;
    for (unsigned i = 0; i < clients; i++) {
        memcpy(all + k, w[i].lat, w[i].n * sizeof *all);
        k += w[i].n;
        free(w[i].lat);
    }
    qsort(all, total, sizeof *all, cmp);
    double p50 = total ? all[total / 2] : 0, p99 = total ? all[(total * 99) / 100] : 0;
    printf("deals=%zu seconds=%.3f per_second=%.0f p50_ms=%.2f p99_ms=%.2f "
           "errors=%ld refused=%ld clients=%u\n", total, el, total / el,
           p50 * 1e3, p99 * 1e3, errors, refused, clients);
    if (record && fclose(record)) {
        perror(record_file);
        return 1;
    }
    free(all);
    free(w);
    free(tables);
    return 0;
}
