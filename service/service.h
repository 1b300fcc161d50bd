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
#include "fairshuf/vrf.h"

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
    unsigned max_per_ip;     /* ... from one client address (0: no limit) */
    unsigned idle_timeout;   /* seconds a connection may stay silent */
    unsigned threads;        /* HTTP event-loop threads */
    unsigned batch;          /* most records in one transaction */
    int sync_normal;         /* 1: synchronous=NORMAL (not durable
                                against power loss; tests only) */
    const char *seed_key_file;     /* NULL, or the at-rest key (seal.h) */
    const char *old_seed_key_file; /* NULL, or the key being rotated out */
    const char *instance_id;       /* NULL: the host's name */
    const char *vrf_key_file;      /* NULL, or the VRF key (vrf.h) */
} svc_config;

/* fairshuf serve migrate (service/migrate.c): argv[0] is "migrate". */
int cmd_serve_migrate(int argc, char **argv);

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

/* ---- the store: SQLite (service/store.c) or, when the database is a
 * postgresql:// URL, PostgreSQL (service/store_pg.c) ---------------- */
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
/* In the open transaction: the table's client_seed records (the lines
 * as written, '\n' after each) appended to out, for the library's
 * fs_fair_client_seed_used.  0, or -1 with e set. */
int svc_store_client_seeds(svc_store *s, int64_t id, svc_buf *out,
                           svc_error *e);

/* A database several services share (PostgreSQL, store_pg.h): 1, and the
 * writer must read every table it touches from the database in each
 * batch, never from its cache.  0: SQLite, this service's alone. */
int svc_store_shared(const svc_store *s);
/* After svc_store_load: the SHA-256 of the table's last log line (line
 * lines - 1) as stored, the link of its next record (fairshuf/chain.h);
 * 32 zero bytes when lines is 0.  0, or -1 with e. */
int svc_store_head(svc_store *s, int64_t id, uint64_t lines,
                   uint8_t head[32], svc_error *e);
/* In the open transaction, before any load: locks the rows of tables
 * ids[0..n) (sorted, distinct) until the commit or rollback, so no other
 * service changes them meanwhile.  A no-op on SQLite.  0, or -1 with e. */
int svc_store_lock(svc_store *s, const int64_t *ids, size_t n, svc_error *e);

/* Readers: any thread, own connection (WAL: they never block the writer).
 * A whole SQLite log is streamed (service/log_stream.c); PostgreSQL's is
 * read by svc_pg_read_log (store_pg.h). */
/* Part of the log (service/recall.c): the lines after line `since`, or
 * with last > 0 the last `last` lines.  1, 0 unknown table, -1 error. */
int svc_read_log_range(const char *db, int64_t id, uint64_t since,
                       uint64_t last, svc_buf *out, svc_error *e);
/* ?since= / ?last= of GET .../log: 0 none, 1 one given, -1 (400 in e). */
int svc_recall_args(const char *since_s, const char *last_s, uint64_t *since,
                    uint64_t *last, svc_error *e);
/* The public part of a table (no server seed) as a JSON object. */
int svc_read_table(const char *db, int64_t id, svc_buf *out, svc_error *e);

/* ---- a table's log, streamed (service/log_stream.c) ----------------- */
typedef struct svc_log_stream svc_log_stream;
/* Opens table id's log as committed now (its own connection): 1 and *out,
 * 0 unknown table, -1 with e set (a log that does not end at the table's
 * last line is damage: 503 storage_corrupt). */
int svc_log_open(const char *db, int64_t id, svc_log_stream **out,
                 svc_error *e);
/* The next bytes of the log (lines, each with its '\n') into buf[0..max):
 * how many (> 0), 0 at the end, -1 on a failure or damage found on the way
 * (a line missing: the storage is marked damaged). */
long svc_log_read(svc_log_stream *s, char *buf, size_t max);
void svc_log_close(svc_log_stream *s);

/* ---- the storage's health (service/health.c) ------------------------ */
#define SVC_DISK_LOW (1 << 20) /* free bytes under which health says so */
/* PRAGMA quick_check of the database (read only).  0 when it is sound;
 * -1 and *why (SQLite's first findings) otherwise. */
int svc_db_quick_check(const char *path, char *why, size_t cap);
/* Damage found while serving (a corrupt page, a log that disagrees with
 * its table): from now on svc_health_refuse refuses the tables. */
void svc_health_corrupt(const char *why);
/* 1 and e = 503 storage_corrupt once damage was found; else 0. */
int svc_health_refuse(svc_error *e);
/* The writer's last commit: NULL when it succeeded, else its error (only
 * the storage's are kept: 507 storage_full, storage_error, ...). */
void svc_health_write(const svc_error *e);
/* GET /v1/health: the JSON object into out; returns the HTTP status (200
 * healthy, 503 not). */
unsigned svc_health_json(const char *db, svc_buf *out);

/* ---- a map from table id (> 0) to a pointer (service/table_map.c) ---- */
typedef struct svc_map {
    int64_t *keys;           /* 0: a free slot */
    void **vals;
    size_t cap, n;           /* cap a power of two (or 0), n keys */
} svc_map;                   /* {0}: empty */
/* The value of key, or NULL.  O(1) expected. */
void *svc_map_get(const svc_map *m, int64_t key);
/* Sets key's value (replacing any).  0, or -1 (key <= 0, out of memory:
 * the map as it was).  O(1) amortized. */
int svc_map_put(svc_map *m, int64_t key, void *val);
/* Removes key; returns its value (NULL when absent). */
void *svc_map_del(svc_map *m, int64_t key);
/* Calls free_val (if not NULL) on every value, then empties the map. */
void svc_map_free(svc_map *m, void (*free_val)(void *));

/* ---- the writer: one thread, group commit (service/writer.c) -------- */
typedef enum svc_op_kind {
    SVC_OP_OPEN, SVC_OP_CLIENT_SEED, SVC_OP_DEAL, SVC_OP_ROTATE,
    SVC_OP_VRF_OPEN, SVC_OP_VRF_SEEDS  /* fairshuf-vrf-1 (vrf.h) */
} svc_op_kind;

typedef struct svc_op {
    svc_op_kind kind;
    int64_t table;                       /* all but OPEN */
    char game[32];                       /* OPEN */
    unsigned players, decks;             /* OPEN */
    char client_seed[FS_FAIR_CLIENT_SEED_MAX + 1]; /* CLIENT_SEED */
    size_t nseeds;                       /* VRF_OPEN, VRF_SEEDS */
    uint8_t commitments[FS_VRF_SEATS_MAX][32];      /* VRF_OPEN */
    char seeds[FS_VRF_SEATS_MAX][FS_VRF_NAME_MAX + 1]; /* VRF_SEEDS */
    /* results, set by the writer */
    void (*done)(struct svc_op *op);     /* called by the writer when the
                                            batch ended (committed or not);
                                            the op is the caller's again */
    void *ctx;                           /* for done */
    svc_error err;                       /* err.status 0: success */
    unsigned status;                     /* success status (200/201) */
    svc_buf reply;                       /* the JSON answer */
    void *prep;                          /* the writer's: a vrf hand proven
                                            before its turn (vrf_table.c) */
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

/* GET /v1/games: {"games":[{"name","description","players",
 * "min_players","max_players","decks"},...]} (service/games.c). */
void svc_games_json(svc_buf *out);

/* ---- this instance (service/instance.c) ----------------------------- */
/* Sets the instance's name (NULL: the host's name): 1 to 64 of
 * [A-Za-z0-9._-].  0, or -1 for a name outside that. */
int svc_instance_set(const char *name);
const char *svc_instance_id(void);
/* fairshuf_instance_info{instance_id="..."} 1 */
void svc_instance_metrics(svc_buf *out);
/* 1 when the database answers a query now, else 0 (GET /v1/health). */
int svc_database_up(const char *db);

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
