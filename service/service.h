/* service.h -- fairshuf serve: the HTTP/JSON dealing service
 * (docs/service.md).  The service is a thin door onto the library: the
 * provably-fair period (commitment, client seed, deals, reveal) and every
 * log record come from fs_fair_period_* (<fairshuf/cards.h>); the service
 * stores them durably in SQLite and answers over HTTP. */
#ifndef FS_SERVICE_H
#define FS_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "fairshuf/cards.h"

/* ---- configuration (service/options.c fills it) --------------------- */
typedef struct svc_config {
    const char *db;          /* SQLite file, created if missing */
    const char *token_file;  /* the operator's bearer token */
    const char *listen;      /* HOST:PORT (port 0: a free port) */
    const char *web_root;    /* folder with verify.html (NULL: default) */
    const char *port_file;   /* NULL, or where to write the bound port */
    const char *exe;         /* argv[0], to find the default web root */
    size_t max_body;         /* request body limit, bytes */
    unsigned max_conn;       /* concurrent connections */
    unsigned threads;        /* HTTP event-loop threads */
    unsigned batch;          /* most records in one transaction */
    int sync_normal;         /* 1: synchronous=NORMAL (not durable
                                against power loss; tests only) */
} svc_config;

/* Runs the service until SIGTERM or SIGINT; returns the exit status
 * (0 after a clean drain).  Messages go to stderr as "fairshuf: ...". */
int svc_run(const svc_config *cfg);

/* ---- a growing byte buffer (replies, logs) ------------------------- */
typedef struct svc_buf {
    char *p;
    size_t len, cap;
    int failed;              /* an allocation failed: the text is cut */
} svc_buf;
void svc_buf_add(svc_buf *b, const char *p, size_t n);
void svc_buf_str(svc_buf *b, const char *s);
void svc_buf_printf(svc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void svc_buf_json(svc_buf *b, const char *s);   /* a JSON string literal */
void svc_buf_hex(svc_buf *b, const uint8_t *p, size_t n); /* "hex" quoted */
void svc_buf_free(svc_buf *b);

/* ---- errors: what a failed request answers ------------------------- */
typedef struct svc_error {
    unsigned status;         /* HTTP status */
    const char *code;        /* machine-readable, e.g. "client_seed_required" */
    char message[200];       /* English; never a seed */
} svc_error;
void svc_error_set(svc_error *e, unsigned status, const char *code,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* {"error":{"code":...,"message":...}} */
void svc_error_json(const svc_error *e, svc_buf *out);

/* ---- the store: SQLite (service/store.c) --------------------------- */
typedef struct svc_store svc_store;
/* Opens (creating if missing) the database for the one writer: WAL,
 * synchronous FULL (or NORMAL), the schema.  NULL and *why on failure. */
svc_store *svc_store_open(const char *path, int sync_normal, char *why,
                          size_t cap);
void svc_store_close(svc_store *s);
/* Transactions of the writer. 0 or an svc_error (status 507 when the disk
 * is full, 503 for other storage failures). */
int svc_store_begin(svc_store *s, svc_error *e);
int svc_store_commit(svc_store *s, svc_error *e);
void svc_store_rollback(svc_store *s);
/* A new table row with its first period; *id receives its number. */
int svc_store_new_table(svc_store *s, const fs_fair_period *p, int64_t *id,
                        svc_error *e);
/* Loads a table's current period and its number of log lines.
 * 1 found, 0 unknown table, -1 storage error (e set). */
int svc_store_load(svc_store *s, int64_t id, fs_fair_period *p,
                   uint64_t *lines, svc_error *e);
/* In the open transaction: saves a table's period and its number of log
 * lines; appends one log line as line number `seq` (0-based). */
int svc_store_save(svc_store *s, int64_t id, const fs_fair_period *p,
                   uint64_t lines, svc_error *e);
int svc_store_append(svc_store *s, int64_t id, uint64_t seq,
                     const char *line, svc_error *e);

/* Readers: any thread, own connection (WAL: they never block the writer).
 * The log as it is committed, lines joined by '\n' with a final '\n'.
 * 1 found, 0 unknown table, -1 error. */
int svc_read_log(const char *db, int64_t id, svc_buf *out, svc_error *e);
/* The public part of a table (no server seed) as a JSON object. */
int svc_read_table(const char *db, int64_t id, svc_buf *out, svc_error *e);

/* ---- the writer: one thread, group commit (service/writer.c) -------- */
typedef enum svc_op_kind {
    SVC_OP_OPEN, SVC_OP_CLIENT_SEED, SVC_OP_DEAL, SVC_OP_ROTATE
} svc_op_kind;

typedef struct svc_op {
    svc_op_kind kind;
    int64_t table;                       /* all but OPEN */
    char game[32];                       /* OPEN */
    unsigned players, decks;             /* OPEN */
    char client_seed[FS_FAIR_CLIENT_SEED_MAX + 1]; /* CLIENT_SEED */
    /* results, set by the writer */
    void (*done)(struct svc_op *op);     /* called by the writer when the
                                            batch ended (committed or not);
                                            the op is the caller's again */
    void *ctx;                           /* for done */
    svc_error err;                       /* err.status 0: success */
    unsigned status;                     /* success status (200/201) */
    svc_buf reply;                       /* the JSON answer */
    struct svc_op *next;
} svc_op;

/* Reads the body of op->kind's request into op (game, players, decks;
 * client seed; nothing).  0, or -1 with e set (400, or 503 out of memory). */
int svc_parse_body(const svc_buf *body, svc_op *op, svc_error *e);

typedef struct svc_writer svc_writer;
svc_writer *svc_writer_start(svc_store *st, unsigned batch, char *why,
                             size_t cap);
/* Queues op (op->done and op->ctx set) and returns at once; the writer
 * calls op->done(op) from its thread after op's transaction committed or
 * failed.  Until then the op is the writer's. */
void svc_writer_submit(svc_writer *w, svc_op *op);
/* Finishes the queued work, stops the thread. */
void svc_writer_stop(svc_writer *w);

/* ---- metrics (service/metrics.c), Prometheus text ------------------- */
void svc_metric_request(const char *route, unsigned status, double seconds);
void svc_metric_batch(size_t ops);
void svc_metric_event(svc_op_kind kind);
void svc_metrics_text(svc_buf *out);

/* ---- HTTP (service/http.c) ------------------------------------------ */
typedef struct svc_http svc_http;
/* Binds and starts serving; *port receives the bound port. */
svc_http *svc_http_start(const svc_config *cfg, svc_writer *w,
                         const char *token_file_text, size_t token_len,
                         const char *web_page, unsigned *port, char *why,
                         size_t cap);
/* Stops accepting, waits for requests in flight (at most `seconds`), stops. */
void svc_http_drain(svc_http *h, double seconds);

#endif
