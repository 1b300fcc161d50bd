/* accept.c -- fairshuf serve's accept loop, in front of libmicrohttpd.
 *
 * libmicrohttpd (0.9.75) waits for a request line's end before it looks at
 * it, so a connection whose first bytes cannot be HTTP (a TLS ClientHello
 * sent to the plain port, binary, a NUL in the method) was held until
 * --idle-timeout.  This thread accepts, waits for the first bytes (epoll:
 * one thread, no client can hold it), peeks at them and, when they cannot
 * start a request line -- RFC 9112 3: a method token of tchar (RFC 9110
 * 5.6.2) then a space --, answers 400 and closes at once; otherwise, or when
 * nothing decided within PEEK_MS, it hands the socket to libmicrohttpd
 * (MHD_add_connection), whose per-address limit and idle timeout then apply.
 * docs/service.md, "Limits". */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "accept.h"

#define PEEK_MS 1000  /* the longest wait for the first bytes */
#define PEEK_MAX 64   /* bytes looked at: a longer method goes on as is */
#define TICK_MS 20    /* while the service is full: how often to look again */

typedef struct pending { /* accepted, not yet handed on; in accept order */
    struct pending *prev, *next;
    int fd;
    int64_t deadline;        /* ms, CLOCK_MONOTONIC */
    socklen_t len;
    struct sockaddr_storage addr;
} pending;

struct svc_accept {
    struct MHD_Daemon *daemon;
    int lfd, ep, stop;       /* listen socket, epoll, eventfd */
    unsigned max_conn, max_per_ip, n;
    atomic_uint live;        /* handed to libmicrohttpd, not yet closed */
    pending *head, *tail;
    int armed;               /* the listen socket is in the epoll set */
    pthread_t thread;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the rule ------------------------------------------------------- */

enum { FIRST_BAD, FIRST_MORE, FIRST_OK };

static int tchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
           (c >= 'a' && c <= 'z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* FIRST_OK: a method and its space; FIRST_BAD: these bytes cannot start a
 * request line; FIRST_MORE: a method so far.  Empty lines before the
 * request line are allowed (RFC 9112 2.2). */
static int first_bytes(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == '\r' || p[i] == '\n'))
        i++;
    for (size_t start = i; i < n; i++) {
        if (p[i] == ' ')
            return i > start ? FIRST_OK : FIRST_BAD;
        if (!tchar(p[i]))
            return FIRST_BAD;
    }
    return FIRST_MORE;
}

/* ---- the connections waiting for their first bytes ------------------- */

static void unlink_pending(svc_accept *a, pending *p)
{
    *(p->prev ? &p->prev->next : &a->head) = p->next;
    *(p->next ? &p->next->prev : &a->tail) = p->prev;
    a->n--;
}

static void drop(svc_accept *a, pending *p)
{
    unlink_pending(a, p);
    close(p->fd);
    free(p);
}

/* To libmicrohttpd, which closes the socket if it refuses it (its
 * per-address limit).  Counted live until its MHD_CONNECTION_NOTIFY_CLOSED
 * (a connection a worker then fails to set up, out of memory, is never
 * started and stays counted: one slot fewer, not one more). */
static void hand_on(svc_accept *a, pending *p)
{
    unlink_pending(a, p);
    epoll_ctl(a->ep, EPOLL_CTL_DEL, p->fd, NULL);
    atomic_fetch_add(&a->live, 1);
    if (MHD_add_connection(a->daemon, p->fd, (struct sockaddr *)&p->addr,
                           p->len) != MHD_YES)
        atomic_fetch_sub(&a->live, 1);
    free(p);
}

void svc_accept_notify(void *cls, struct MHD_Connection *c, void **ctx,
                       enum MHD_ConnectionNotificationCode code)
{
    (void)c;
    (void)ctx;
    svc_accept *a = cls;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        atomic_fetch_sub(&a->live, 1);
}

/* 400 with the service's JSON error, then close.  What the client sent is
 * read first: closing with unread bytes would send a reset, which may
 * destroy the answer before the client reads it. */
static void refuse(svc_accept *a, pending *p)
{
    svc_error e;
    svc_buf body = {0};
    char out[640], sink[4096];
    svc_error_set(&e, 400, "bad_request",
                  "not an HTTP request: the first bytes are not a method "
                  "and a space (TLS or another protocol sent to this "
                  "plain-HTTP port?)");
    svc_error_json(&e, &body);
    int n = snprintf(out, sizeof out,
                     "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
                     "Content-Type: application/json\r\n"
                     "X-Content-Type-Options: nosniff\r\n"
                     "Cache-Control: no-store\r\nContent-Length: %zu\r\n\r\n"
                     "%.*s", body.len, (int)body.len, body.p ? body.p : "");
    svc_buf_free(&body);
    for (int i = 0; i < 16 && recv(p->fd, sink, sizeof sink, MSG_DONTWAIT) > 0;
         i++)
        ;
    if (n > 0 && (size_t)n < sizeof out)
        (void)!send(p->fd, out, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(p->fd, SHUT_WR);
    svc_metric_request("other", 400, 0.0);
    drop(a, p);
}

/* The first bytes of p have come (or its peer left). */
static void look(svc_accept *a, pending *p, uint32_t events)
{
    unsigned char buf[PEEK_MAX];
    ssize_t n = recv(p->fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) { /* gone before a byte */
        drop(a, p);
        return;
    }
    int r = first_bytes(buf, (size_t)n);
    if (r == FIRST_BAD)
        refuse(a, p);
    else if (r == FIRST_OK || (size_t)n == sizeof buf ||
             (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
        hand_on(a, p);
    /* else a method still coming: its next bytes wake us (edge-triggered) */
}

static int same_host(const struct sockaddr_storage *x,
                     const struct sockaddr_storage *y)
{
    if (x->ss_family != y->ss_family)
        return 0;
    if (x->ss_family == AF_INET)
        return memcmp(&((const struct sockaddr_in *)x)->sin_addr,
                      &((const struct sockaddr_in *)y)->sin_addr, 4) == 0;
    if (x->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
                      &((const struct sockaddr_in6 *)y)->sin6_addr, 16) == 0;
    return 0;
}

/* Connections in the service: libmicrohttpd's and ours together stay
 * within --max-connections; beyond it new ones wait in the listen queue,
 * as they did when libmicrohttpd accepted them itself.  (Counted here, not
 * by libmicrohttpd: it counts a connection added from this thread only
 * when its worker thread takes it, and splits its limit among the
 * workers, so at the limit it would close connections that should wait.) */
static int room(svc_accept *a)
{
    return a->n + atomic_load(&a->live) < a->max_conn;
}

static void take(svc_accept *a)
{
    for (int k = 0; k < 64 && room(a); k++) {
        pending *p = calloc(1, sizeof *p);
        if (!p)
            return;
        p->len = sizeof p->addr;
        p->fd = accept4(a->lfd, (struct sockaddr *)&p->addr, &p->len,
                        SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (p->fd < 0) {
            int err = errno;
            free(p);
            if (err == EINTR || err == ECONNABORTED)
                continue;
            if (err == EMFILE || err == ENFILE || err == ENOBUFS ||
                err == ENOMEM) { /* out of descriptors: not a busy loop */
                struct timespec ts = {0, TICK_MS * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
            return;
        }
        p->deadline = now_ms() + PEEK_MS;
        p->prev = a->tail;
        *(a->tail ? &a->tail->next : &a->head) = p;
        a->tail = p;
        a->n++;
        /* one address waits here with at most --max-connections-per-ip
         * sockets; more go on at once, to libmicrohttpd's own limit */
        unsigned same = 0;
        for (pending *q = a->head; q != p && a->max_per_ip; q = q->next)
            same += same_host(&q->addr, &p->addr);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET,
                                 .data.ptr = p};
        if ((a->max_per_ip && same >= a->max_per_ip) ||
            epoll_ctl(a->ep, EPOLL_CTL_ADD, p->fd, &ev))
            hand_on(a, p);
    }
}

static void arm(svc_accept *a, int on)
{
    if (on == a->armed)
        return;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &a->lfd};
    if (epoll_ctl(a->ep, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, a->lfd, &ev) == 0)
        a->armed = on;
}

static void *loop(void *arg)
{
    svc_accept *a = arg;
    struct epoll_event ev[64];
    for (;;) {
        arm(a, room(a));
        int wait = -1;
        if (a->head) {
            int64_t left = a->head->deadline - now_ms();
            wait = left < 0 ? 0 : (int)left;
        }
        if (!a->armed && (wait < 0 || wait > TICK_MS))
            wait = TICK_MS;
        int n = epoll_wait(a->ep, ev, 64, wait);
        for (int i = 0; i < n; i++) {
            void *p = ev[i].data.ptr;
            if (p == &a->stop)
                goto out;
            if (p == &a->lfd)
                take(a);
            else
                look(a, p, ev[i].events);
        }
        /* the same wait for everyone: the oldest expires first */
        for (int64_t t = now_ms(); a->head && a->head->deadline <= t;)
            hand_on(a, a->head);
    }
out:
    while (a->head)
        drop(a, a->head);
    return NULL;
}

svc_accept *svc_accept_new(const svc_config *cfg)
{
    svc_accept *a = calloc(1, sizeof *a);
    if (a) {
        a->lfd = a->ep = a->stop = -1;
        a->max_conn = cfg->max_conn;
        a->max_per_ip = cfg->max_per_ip;
    }
    return a;
}

int svc_accept_start(svc_accept *a, int listen_fd, struct MHD_Daemon *daemon,
                     char *why, size_t cap)
{
    a->daemon = daemon;
    a->ep = epoll_create1(EPOLL_CLOEXEC);
    a->stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &a->stop};
    int fl = fcntl(listen_fd, F_GETFL);
    if (a->ep < 0 || a->stop < 0 || fl < 0 ||
        fcntl(listen_fd, F_SETFL, fl | O_NONBLOCK) ||
        epoll_ctl(a->ep, EPOLL_CTL_ADD, a->stop, &ev) ||
        (errno = pthread_create(&a->thread, NULL, loop, a)) != 0) {
        snprintf(why, cap, "cannot start the accept thread: %s",
                 strerror(errno));
        if (a->ep >= 0)
            close(a->ep);
        if (a->stop >= 0)
            close(a->stop);
        a->ep = a->stop = -1;
        return -1;
    }
    a->lfd = listen_fd;
    return 0;
}

void svc_accept_stop(svc_accept *a)
{
    if (a->lfd < 0)
        return;
    uint64_t one = 1;
    (void)!write(a->stop, &one, sizeof one);
    pthread_join(a->thread, NULL);
    close(a->ep);
    close(a->stop);
    close(a->lfd);
    a->lfd = a->ep = a->stop = -1;
}

void svc_accept_free(svc_accept *a)
{
    if (a)
        svc_accept_stop(a);
    free(a);
}
