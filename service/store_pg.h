/* store_pg.h -- the PostgreSQL backend of the service's store (libpq;
 * service/store_pg.c).  store.c hands every svc_store_* call to these when
 * --db is a postgresql:// or postgres:// URL; the contracts are those of
 * svc_store_* in service.h, with these differences:
 *  - several services may share the database: svc_pg_lock takes the row
 *    locks of a batch's tables (in id order, so two instances never
 *    deadlock) and reads their rows, so the writer works on the committed
 *    state of every instance, never on its own cache;
 *  - appends and saves are kept in memory and sent with COMMIT in one
 *    round trip; the save of a table is refused (the batch fails, 503) when
 *    the row's line count is not the one read under the lock.
 * Errors: 503 database_unreachable (no connection), 507 storage_full (the
 * database's disk is full: SQLSTATE 53100), 503 storage_error otherwise. */
#ifndef FS_SERVICE_STORE_PG_H
#define FS_SERVICE_STORE_PG_H

#include "service.h"

typedef struct svc_pg svc_pg;

/* 1 when db names a PostgreSQL database (postgresql:// or postgres://). */
int svc_pg_url(const char *db);

svc_pg *svc_pg_open(const char *url, int sync_normal, char *why, size_t cap);
void svc_pg_close(svc_pg *pg);
int svc_pg_begin(svc_pg *pg, svc_error *e);
int svc_pg_lock(svc_pg *pg, const int64_t *ids, size_t n, svc_error *e);
int svc_pg_commit(svc_pg *pg, svc_error *e);
void svc_pg_rollback(svc_pg *pg);
int svc_pg_new_table(svc_pg *pg, const fs_fair_period *p, int64_t *id,
                     svc_error *e);
int svc_pg_load(svc_pg *pg, int64_t id, fs_fair_period *p, uint64_t *lines,
                svc_error *e);
int svc_pg_head(svc_pg *pg, int64_t id, uint8_t head[32], svc_error *e);
/* svc_store_client_seeds: the table's committed client_seed lines (a
 * reuse within the open batch is not among them). */
int svc_pg_client_seeds(svc_pg *pg, int64_t id, svc_buf *out, svc_error *e);
int svc_pg_save(svc_pg *pg, int64_t id, const fs_fair_period *p,
                uint64_t lines, svc_error *e);
int svc_pg_append(svc_pg *pg, int64_t id, uint64_t seq, const char *line,
                  svc_error *e);

/* Readers: any thread; a small pool of connections to url. */
int svc_pg_read_log(const char *url, int64_t id, svc_buf *out, svc_error *e);
int svc_pg_read_table(const char *url, int64_t id, svc_buf *out,
                      svc_error *e);
int svc_pg_read_range(const char *url, int64_t id, uint64_t since,
                      uint64_t last, svc_buf *out, svc_error *e);
/* 1 when the database answers a query now (GET /v1/health), else 0. */
int svc_pg_reachable(const char *url);

/* For the other tables of the store (store_vrf_pg.c): the writer's
 * connection in its open transaction (BEGIN sent once; NULL and e), the
 * answer to a failed call (as above; returns -1), a reader connection
 * from the pool and its return. */
#include <libpq-fe.h>
PGconn *svc_pg_tx(svc_pg *pg, svc_error *e);
int svc_pg_failed(PGconn *c, const PGresult *r, svc_error *e);
PGconn *svc_pg_take(const char *url, svc_error *e);
void svc_pg_give(PGconn *c);

#endif
