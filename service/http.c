/* http.c -- the HTTP side of fairshuf serve (libmicrohttpd: an epoll event
 * loop on a small thread pool).  A request that changes state is handed to
 * the writer and its connection suspended -- no thread waits for the group
 * commit -- and resumed when the writer is done with it.  Routing, the
 * bearer token, request bodies (jansson: strict JSON, duplicate keys
 * refused, unknown fields refused), JSON errors, the public reads, and the
 * drain on SIGTERM. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <sodium.h>

#include "accept.h"
#include "service.h"
#include "store_pg.h"
#include "vrf.h"

struct svc_http {
    struct MHD_Daemon *daemon;
    svc_accept *accept;         /* accepts on fd, hands connections on */
    int fd;
    const svc_config *cfg;
    svc_writer *writer;
    uint8_t token_hash[32];     /* SHA-256 of the token, compared in constant time */
    char web_page[4096];        /* verify.html, or "" */
    atomic_int in_flight;
    atomic_int draining;
};

typedef struct request {
    double t0;
    svc_buf body;
    int too_big, counted;
    const char *route;          /* for the metrics of a resumed answer */
    svc_op *op;                 /* with the writer, or done */
    struct MHD_Connection *conn;
    atomic_int op_state;        /* OP_PENDING -> OP_DONE, or OP_ORPHAN when
                                   the connection ended first */
} request;
enum { OP_PENDING, OP_DONE, OP_ORPHAN };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- answers -------------------------------------------------------- */

/* Queues response r (the headers every answer has) and records the
 * request's metric. */
static enum MHD_Result queue(svc_http *h, struct MHD_Connection *c,
                             request *rq, const char *route, unsigned status,
                             const char *type, struct MHD_Response *r)
{
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (status == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Bearer realm=\"fairshuf\"");
    if (atomic_load(&h->draining))
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    svc_metric_request(route, status, now() - rq->t0);
    return ok;
}

static enum MHD_Result send_buf(svc_http *h, struct MHD_Connection *c,
                                request *rq, const char *route,
                                unsigned status, const char *type,
                                svc_buf *b)
{
    if (b->failed) {
        svc_buf_free(b);
        static const char oom[] =
            "{\"error\":{\"code\":\"out_of_memory\",\"message\":\"out of memory\"}}\n";
        svc_buf_str(b, oom);
        status = 503;
        type = "application/json";
    }
    struct MHD_Response *r;
    if (b->len) {
        r = MHD_create_response_from_buffer(b->len, b->p, MHD_RESPMEM_MUST_FREE);
        if (r)
            memset(b, 0, sizeof *b); /* the response owns the text now */
    } else
        r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    svc_buf_free(b);
    if (!r)
        return MHD_NO;
    return queue(h, c, rq, route, status, type, r);
}

static enum MHD_Result send_json(svc_http *h, struct MHD_Connection *c,
                                 request *rq, const char *route,
                                 unsigned status, svc_buf *b)
{
    return send_buf(h, c, rq, route, status, "application/json", b);
}

static enum MHD_Result send_error(svc_http *h, struct MHD_Connection *c,
                                  request *rq, const char *route,
                                  const svc_error *e)
{
    svc_buf b = {0};
    svc_error_json(e, &b);
    return send_json(h, c, rq, route, e->status, &b);
}

static ssize_t log_block(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    long n = svc_log_read(cls, buf, max);
    return n > 0 ? (ssize_t)n
                 : n == 0 ? MHD_CONTENT_READER_END_OF_STREAM
                          : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void log_end(void *cls)
{
    svc_log_close(cls);
}

/* GET /v1/tables/ID/log: streamed in blocks of 32 KiB (chunked). */
static enum MHD_Result send_log(svc_http *h, struct MHD_Connection *c,
                                request *rq, int64_t table)
{
    svc_error e = {0};
    svc_log_stream *ls = NULL;
    int found = svc_log_open(h->cfg->db, table, &ls, &e);
    if (found == 0)
        svc_error_set(&e, 404, "unknown_table", "no table %lld",
                      (long long)table);
    if (found != 1)
        return send_error(h, c, rq, "log", &e);
    struct MHD_Response *r = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, 32 * 1024, log_block, ls, log_end);
    if (!r) {
        svc_log_close(ls);
        return MHD_NO;
    }
    return queue(h, c, rq, "log", 200, "application/x-ndjson", r);
}

static enum MHD_Result fail(svc_http *h, struct MHD_Connection *c,
                            request *rq, const char *route, unsigned status,
                            const char *code, const char *fmt, const char *arg)
{
    svc_error e;
    svc_error_set(&e, status, code, fmt, arg);
    return send_error(h, c, rq, route, &e);
}

/* ---- requests ------------------------------------------------------- */

/* 1 the operator's token; 0 no bearer token; -1 another token. */
static int authorized(svc_http *h, struct MHD_Connection *c)
{
    const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    if (!a || strncasecmp(a, "Bearer ", 7) != 0)
        return 0;
    a += 7;
    while (*a == ' ')
        a++;
    uint8_t hash[32];
    crypto_hash_sha256(hash, (const unsigned char *)a, strlen(a));
    return sodium_memcmp(hash, h->token_hash, 32) == 0 ? 1 : -1;
}

/* "/v1/tables/ID/rest" -> id and rest ("" for /v1/tables/ID); 0 if not. */
static int table_path(const char *url, int64_t *id, const char **rest)
{
    static const char pre[] = "/v1/tables/";
    if (strncmp(url, pre, sizeof pre - 1) != 0)
        return 0;
    const char *p = url + sizeof pre - 1;
    int64_t v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (digits == 18)
            return 0;
        v = v * 10 + (*p - '0');
    }
    if (!digits || (*p && *p != '/'))
        return 0;
    *id = v;
    *rest = *p ? p + 1 : p;
    return 1;
}

static enum MHD_Result serve_file(svc_http *h, struct MHD_Connection *c,
                                  request *rq)
{
    svc_buf b = {0};
    FILE *f = h->web_page[0] ? fopen(h->web_page, "rb") : NULL;
    if (!f)
        return fail(h, c, rq, "verify", 404, "not_found",
                    "the verifier page is not installed (%s); build it with "
                    "the web/ package or start with --web-root=DIR",
                    h->web_page[0] ? "no verify.html" : "no web root");
    char chunk[16384];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        svc_buf_add(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        svc_buf_free(&b);
        return fail(h, c, rq, "verify", 503, "read_error",
                    "cannot read the verifier page%s", "");
    }
    return send_buf(h, c, rq, "verify", 200, "text/html; charset=utf-8", &b);
}

static const char *route_name(const char *rest)
{
    if (!*rest)
        return "table";
    if (strcmp(rest, "client-seed") == 0)
        return "client_seed";
    if (strcmp(rest, "client-seeds") == 0) /* a vrf table's (vrf.h) */
        return "client_seeds";
    if (strcmp(rest, "deals") == 0 || strcmp(rest, "rotate") == 0 ||
        strcmp(rest, "log") == 0)
        return rest;
    return NULL;
}

/* What the request is: route name, whether it writes (POST + token). */
typedef struct route {
    const char *name;
    const char *method;         /* the one method it answers */
    int64_t table;
    svc_op_kind kind;
} route;

static int find_route(const char *url, route *r)
{
    memset(r, 0, sizeof *r);
    const char *rest;
    if (strcmp(url, "/v1/health") == 0)
        *r = (route){"health", "GET", 0, 0};
    else if (strcmp(url, "/v1/games") == 0)
        *r = (route){"games", "GET", 0, 0};
    else if (strcmp(url, "/v1/vrf-key") == 0)
        *r = (route){"vrf_key", "GET", 0, 0};
    else if (strcmp(url, "/metrics") == 0)
        *r = (route){"metrics", "GET", 0, 0};
    else if (strcmp(url, "/verify") == 0 || strcmp(url, "/verify/") == 0)
        *r = (route){"verify", "GET", 0, 0};
    else if (strcmp(url, "/v1/tables") == 0)
        *r = (route){"tables", "POST", 0, SVC_OP_OPEN};
    else if (table_path(url, &r->table, &rest) && (r->name = route_name(rest))) {
        if (!strcmp(r->name, "table") || !strcmp(r->name, "log"))
            r->method = "GET";
        else {
            r->method = "POST";
            r->kind = !strcmp(r->name, "deals")          ? SVC_OP_DEAL
                      : !strcmp(r->name, "rotate")       ? SVC_OP_ROTATE
                      : !strcmp(r->name, "client_seeds") ? SVC_OP_VRF_SEEDS
                                                         : SVC_OP_CLIENT_SEED;
        }
    } else
        return 0;
    return 1;
}

static void free_request(request *rq)
{
    svc_buf_free(&rq->body);
    free(rq);
}

/* Called by the writer thread. */
static void op_done(svc_op *op)
{
    request *rq = op->ctx;
    int pending = OP_PENDING;
    if (atomic_compare_exchange_strong(&rq->op_state, &pending, OP_DONE))
        MHD_resume_connection(rq->conn);
    else { /* the connection is gone: nobody to answer */
        svc_buf_free(&op->reply);
        free(op);
        free_request(rq);
    }
}

static enum MHD_Result answer(svc_http *h, struct MHD_Connection *c,
                              request *rq, const route *r)
{
    svc_error e = {0};
    svc_buf b = {0};
    if (!strcmp(r->name, "health")) {
        unsigned status = svc_health_json(h->cfg->db, &b);
        return send_json(h, c, rq, r->name, status, &b);
    }
    if (!strcmp(r->name, "games")) {
        svc_games_json(&b);
        return send_json(h, c, rq, r->name, 200, &b);
    }
    if (!strcmp(r->name, "vrf_key")) { /* public: what players check with */
        const uint8_t *pk = svc_vrf_pk();
        if (!pk)
            return fail(h, c, rq, r->name, 404, "no_vrf_key",
                        "this service has no VRF key (it deals "
                        "fairshuf-vrf-1 tables only with --vrf-key-file)%s",
                        "");
        svc_buf_str(&b, "{\"scheme\":\"" FS_VRF_SCHEME "\",\"public_key\":");
        svc_buf_hex(&b, pk, 32);
        svc_buf_str(&b, "}\n");
        return send_json(h, c, rq, r->name, 200, &b);
    }
    if (!strcmp(r->name, "metrics")) {
        svc_metrics_text(&b);
        return send_buf(h, c, rq, r->name, 200,
                        "text/plain; version=0.0.4; charset=utf-8", &b);
    }
    if (!strcmp(r->name, "verify"))
        return serve_file(h, c, rq);
    if (svc_health_refuse(&e)) /* a damaged database serves no table */
        return send_error(h, c, rq, r->name, &e);
    if (!strcmp(r->name, "table") || !strcmp(r->name, "log")) {
        uint64_t since, last; /* recall.c: ?since=L, ?last=N */
        int log = !strcmp(r->name, "log");
        int part = log
            ? svc_recall_args(
                  MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since"),
                  MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "last"),
                  &since, &last, &e)
            : 0;
        if (part < 0)
            return send_error(h, c, rq, r->name, &e);
        /* a whole SQLite log is streamed (log_stream.c), never held */
        if (log && !part && !svc_pg_url(h->cfg->db))
            return send_log(h, c, rq, r->table);
        int found = part ? svc_read_log_range(h->cfg->db, r->table, since,
                                              last, &b, &e)
                    : log ? svc_pg_read_log(h->cfg->db, r->table, &b, &e)
                          : svc_read_table(h->cfg->db, r->table, &b, &e);
        if (found == 0 && !log) /* not a pf-2 table: a vrf table? */
            found = svc_vrf_read_table(h->cfg->db, r->table, &b, &e);
        else if (found == 0 && svc_pg_url(h->cfg->db)) /* its own log */
            found = svc_vrf_pg_read_log(h->cfg->db, r->table,
                                        part ? since : 0, part ? last : 0,
                                        &b, &e);
        if (found == 0)
            svc_error_set(&e, 404, "unknown_table", "no table %lld",
                          (long long)r->table);
        if (found != 1) {
            svc_buf_free(&b);
            return send_error(h, c, rq, r->name, &e);
        }
        if (log)
            return send_buf(h, c, rq, r->name, 200, "application/x-ndjson", &b);
        return send_json(h, c, rq, r->name, 200, &b);
    }
    /* the operator's calls: the writer, one transaction per batch */
    svc_op *op = calloc(1, sizeof *op);
    if (!op)
        return fail(h, c, rq, r->name, 503, "out_of_memory", "out of memory%s", "");
    op->kind = r->kind;
    op->table = r->table;
    int bad = svc_parse_body(&rq->body, op, &e);
    if (bad) {
        free(op);
        return send_error(h, c, rq, r->name, &e);
    }
    rq->op = op;
    rq->conn = c;
    rq->route = r->name;
    op->done = op_done;
    op->ctx = rq;
    MHD_suspend_connection(c);   /* before the writer can resume it */
    svc_writer_submit(h->writer, op);
    return MHD_YES;
}

/* The writer's answer is ready: the resumed connection sends it. */
static enum MHD_Result answer_op(svc_http *h, struct MHD_Connection *c,
                                 request *rq)
{
    svc_op *op = rq->op;
    rq->op = NULL;
    enum MHD_Result res = op->err.status
        ? send_error(h, c, rq, rq->route, &op->err)
        : send_json(h, c, rq, rq->route, op->status, &op->reply);
    svc_buf_free(&op->reply);
    free(op);
    return res;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)version;
    svc_http *h = cls;
    request *rq = *con_cls;
    route r;
    int known = find_route(url, &r);
    int head = strcmp(method, "HEAD") == 0;
    if (!rq) { /* first call: headers only */
        rq = calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        rq->t0 = now();
        rq->counted = 1;
        atomic_fetch_add(&h->in_flight, 1);
        *con_cls = rq;
        if (!known)
            return fail(h, c, rq, "other", 404, "not_found",
                        "no such resource%s (the API is under /v1/)", "");
        if (strcmp(method, r.method) != 0 &&
            !(head && strcmp(r.method, "GET") == 0))
            return fail(h, c, rq, r.name, 405, "method_not_allowed",
                        "this resource answers %s only", r.method);
        int auth = strcmp(r.method, "POST") ? 1 : authorized(h, c);
        if (auth == 0)
            return fail(h, c, rq, r.name, 401, "unauthorized",
                        "operator calls need 'Authorization: Bearer TOKEN'"
                        "%s", "");
        if (auth < 0)
            return fail(h, c, rq, r.name, 401, "bad_token",
                        "the bearer token is not the operator's%s", "");
        const char *len = MHD_lookup_connection_value(
            c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (len && strtoull(len, NULL, 10) > h->cfg->max_body)
            rq->too_big = 1;
        if (rq->too_big)
            return fail(h, c, rq, r.name, 413, "body_too_large",
                        "the request body is over the limit%s", "");
        return MHD_YES;
    }
    if (rq->op) /* resumed by the writer */
        return atomic_load(&rq->op_state) == OP_DONE ? answer_op(h, c, rq)
                                                     : MHD_YES;
    if (*upload_size) {
        if (rq->body.len + *upload_size > h->cfg->max_body)
            rq->too_big = 1;
        else
            svc_buf_add(&rq->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (rq->too_big)
        return fail(h, c, rq, r.name, 413, "body_too_large",
                    "the request body is over the limit%s", "");
    if (rq->body.failed)
        return fail(h, c, rq, r.name, 503, "out_of_memory", "out of memory%s", "");
    return answer(h, c, rq, &r);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode why)
{
    (void)c;
    (void)why;
    svc_http *h = cls;
    request *rq = *con_cls;
    if (!rq)
        return;
    if (rq->counted)
        atomic_fetch_sub(&h->in_flight, 1);
    *con_cls = NULL;
    int pending = OP_PENDING;
    if (rq->op && atomic_compare_exchange_strong(&rq->op_state, &pending,
                                                 OP_ORPHAN))
        return; /* the writer still has the op: op_done frees both */
    if (rq->op) {
        svc_buf_free(&rq->op->reply);
        free(rq->op);
    }
    free_request(rq);
}

/* ---- start and stop ------------------------------------------------- */

static int listen_on(const char *spec, unsigned *port, char *why, size_t cap)
{
    char host[256];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof host ||
        !colon[1]) {
        snprintf(why, cap, "invalid --listen '%s' (HOST:PORT)", spec);
        return -1;
    }
    const char *port_text = colon + 1;
    size_t digits = strspn(port_text, "0123456789");
    if (port_text[digits] || digits > 5 || strtoul(port_text, NULL, 10) > 65535) {
        snprintf(why, cap, "invalid --listen '%s': the port is 0 to 65535",
                 spec);
        return -1;
    }
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *ai;
    int rc = getaddrinfo(host, colon + 1, &hints, &ai);
    if (rc) {
        snprintf(why, cap, "invalid --listen '%s': %s", spec, gai_strerror(rc));
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1024)) {
        snprintf(why, cap, "cannot listen on %s: %s", spec, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return -1;
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    *port = ntohs(ss.ss_family == AF_INET6
                      ? ((struct sockaddr_in6 *)&ss)->sin6_port
                      : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

svc_http *svc_http_start(const svc_config *cfg, svc_writer *w,
                         const char *token, size_t token_len,
                         const char *web_page, unsigned *port, char *why,
                         size_t cap)
{
    svc_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    h->cfg = cfg;
    h->writer = w;
    crypto_hash_sha256(h->token_hash, (const unsigned char *)token, token_len);
    snprintf(h->web_page, sizeof h->web_page, "%s", web_page ? web_page : "");
    h->fd = listen_on(cfg->listen, port, why, cap);
    h->accept = h->fd < 0 ? NULL : svc_accept_new(cfg);
    if (!h->accept) {
        if (h->fd >= 0) {
            snprintf(why, cap, "out of memory");
            close(h->fd);
        }
        free(h);
        return NULL;
    }
    h->daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
            MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET,
        0, NULL, NULL, handler, h,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)cfg->threads,
        /* the accept loop keeps to --max-connections (service/accept.c) */
        MHD_OPTION_CONNECTION_LIMIT,
        (unsigned int)(cfg->max_conn * cfg->threads),
        /* slowloris: one address cannot take every connection, and a
         * connection that sends nothing (or reads nothing) is closed */
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)cfg->max_per_ip,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->idle_timeout,
        MHD_OPTION_NOTIFY_COMPLETED, completed, h,
        MHD_OPTION_NOTIFY_CONNECTION, svc_accept_notify, h->accept,
        MHD_OPTION_END);
    int ok = h->daemon != NULL;
    if (!ok)
        snprintf(why, cap, "cannot start the HTTP server on %s", cfg->listen);
    else if (!(ok = !svc_accept_start(h->accept, h->fd, h->daemon, why, cap)))
        MHD_stop_daemon(h->daemon);
    if (!ok) {
        svc_accept_free(h->accept);
        close(h->fd);
        free(h);
        return NULL;
    }
    return h;
}

void svc_http_drain(svc_http *h, double seconds)
{
    atomic_store(&h->draining, 1);
    svc_accept_stop(h->accept); /* no new connections */
    double end = now() + seconds;
    while (atomic_load(&h->in_flight) > 0 && now() < end) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(h->daemon);
    svc_accept_free(h->accept);
    free(h);
}
