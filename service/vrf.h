/* vrf.h -- fairshuf serve's tables of scheme fairshuf-vrf-1
 * (docs/service.md, "Tables of scheme fairshuf-vrf-1"; the scheme:
 * docs/provably-fair.md, "Scheme fairshuf-vrf-1").  The library makes every
 * record (fs_vrf_record_write, fs_vrf_hand); the service keeps the VRF key
 * (vrf_key.c), a table's state -- its name, the players' commitments, the
 * seeds once revealed, the next hand number, its line count -- in the row
 * of vrf_tables / fairshuf_vrf_tables (store_vrf.c, store_vrf_pg.c) and its
 * records, unchained, in the log; vrf_table.c runs the writer's operations
 * on them. */
#ifndef FS_SERVICE_VRF_H
#define FS_SERVICE_VRF_H

#include "fairshuf/vrf.h"
#include "service.h"
#include "store_pg.h"

struct sqlite3;

/* ---- the key (vrf_key.c) -------------------------------------------- */
/* Reads --vrf-key-file (NULL: none): 64 hex digits and a newline, as
 * `fairshuf fair vrf-keygen` writes it, a regular file (no symlink) that
 * only its owner may read or write, a valid key.  0, or -1 and *why. */
int svc_vrf_key_init(const char *path, char *why, size_t cap);
void svc_vrf_key_free(void);
/* The secret and public keys; NULL when no key was given. */
const uint8_t *svc_vrf_sk(void);
const uint8_t *svc_vrf_pk(void);

/* ---- a table's row --------------------------------------------------- */
typedef struct svc_vrf_row {
    int64_t id;
    char name[FS_VRF_NAME_MAX + 1];   /* the table name in alpha */
    uint8_t public_key[32];           /* the key it was opened under */
    char game[32];
    unsigned players, decks;
    size_t nseeds;                    /* commitments; seeds once revealed */
    uint8_t commitments[FS_VRF_SEATS_MAX][32];
    int has_seeds;
    char seeds[FS_VRF_SEATS_MAX][FS_VRF_NAME_MAX + 1];
    uint64_t next_hand, lines;
} svc_vrf_row;

/* ---- the store (store_vrf.c: SQLite; store_vrf_pg.c: PostgreSQL) ----- */
/* SQLite's schema, run by svc_store_open (CREATE ... IF NOT EXISTS: an
 * older database gains the empty table, nothing else changes). */
extern const char svc_vrf_sqlite_schema[];
/* In the open transaction: a new table id (shared with the pf-2 tables:
 * one id names one table), r's row inserted with that id.  0 or -1. */
int svc_vrf_store_new(svc_store *s, svc_vrf_row *r, svc_error *e);
/* The row of table id (PostgreSQL: locked).  1 found, 0 not a vrf table,
 * -1 storage error. */
int svc_vrf_store_load(svc_store *s, int64_t id, svc_vrf_row *r,
                       svc_error *e);
/* PostgreSQL: the row locks of ids[0..n) (sorted), after the pf-2 rows'
 * (every instance locks in that order).  A no-op on SQLite. */
int svc_vrf_store_lock(svc_store *s, const int64_t *ids, size_t n,
                       svc_error *e);
/* Saves the seeds, next hand and line count of r, whose line count was
 * `was` (PostgreSQL: refused when it moved). */
int svc_vrf_store_save(svc_store *s, const svc_vrf_row *r, uint64_t was,
                       svc_error *e);
int svc_vrf_store_append(svc_store *s, int64_t id, uint64_t seq,
                         const char *line, svc_error *e);
/* GET /v1/tables/ID of a vrf table.  1, 0 not one, -1. */
int svc_vrf_read_table(const char *db, int64_t id, svc_buf *out,
                       svc_error *e);
/* r->name from r->id: "t" ID "-" 16 random hex digits (vrf_tables' name
 * is never used twice with one key, also across databases that share it). */
void svc_vrf_table_name(svc_vrf_row *r);
/* The table's public state as a JSON object's fields (no braces). */
void svc_vrf_row_json(const svc_vrf_row *r, svc_buf *out);

/* The store's connections (store.c), for store_vrf*.c, and the answer to
 * a failed SQLite call (503, 507 storage_full, storage_corrupt). */
int svc_store_sqlite_fail(svc_error *e, struct sqlite3 *db, int rc);
struct sqlite3 *svc_store_sqlite(svc_store *s);
struct svc_pg *svc_store_pg(svc_store *s);

/* PostgreSQL's tables, created by svc_pg_open with its own (store_pg.c;
 * IF NOT EXISTS: an older database gains them empty, nothing else
 * changes).  Ids come from fairshuf_tables' sequence: one id, one table. */
#define SVC_VRF_PG_SCHEMA                                                   \
    "CREATE TABLE IF NOT EXISTS fairshuf_vrf_tables("                      \
    " id BIGINT PRIMARY KEY, name TEXT NOT NULL UNIQUE,"                    \
    " public_key BYTEA NOT NULL, game TEXT NOT NULL,"                       \
    " players INTEGER NOT NULL, decks INTEGER NOT NULL,"                    \
    " commitments TEXT NOT NULL, client_seeds TEXT,"                        \
    " next_hand BIGINT NOT NULL CHECK (next_hand >= 0),"                    \
    " lines BIGINT NOT NULL CHECK (lines >= 0));"                           \
    "CREATE TABLE IF NOT EXISTS fairshuf_vrf_log("                         \
    " table_id BIGINT NOT NULL REFERENCES fairshuf_vrf_tables(id),"        \
    " seq BIGINT NOT NULL CHECK (seq >= 0), line TEXT NOT NULL,"            \
    " PRIMARY KEY(table_id, seq));"

/* store_vrf_pg.c */
int svc_vrf_pg_new(struct svc_pg *pg, svc_vrf_row *r, svc_error *e);
int svc_vrf_pg_load(struct svc_pg *pg, int64_t id, svc_vrf_row *r,
                    svc_error *e);
int svc_vrf_pg_lock(struct svc_pg *pg, const int64_t *ids, size_t n,
                    svc_error *e);
int svc_vrf_pg_save(struct svc_pg *pg, const svc_vrf_row *r, uint64_t was,
                    svc_error *e);
int svc_vrf_pg_append(struct svc_pg *pg, int64_t id, uint64_t seq,
                      const char *line, svc_error *e);
int svc_vrf_pg_read_table(const char *url, int64_t id, svc_buf *out,
                          svc_error *e);
int svc_vrf_pg_read_log(const char *url, int64_t id, uint64_t since,
                        uint64_t last, svc_buf *out, svc_error *e);
/* Row text <-> fields: commitments as hex joined by spaces, seeds joined
 * by tabs (a seed holds no tab).  0, or -1 for a damaged value. */
void svc_vrf_commitments_text(const svc_vrf_row *r, svc_buf *out);
int svc_vrf_row_texts(svc_vrf_row *r, const char *commitments,
                      const char *seeds);

/* fairshuf serve migrate (migrate_vrf.c): the SQLite file's vrf tables
 * and logs into PostgreSQL, in the migration's open transaction; then
 * refuses an id both kinds of table hold.  0, or -1 and *why. */
int svc_migrate_vrf(struct sqlite3 *lite, PGconn *c, long *copied,
                    long *kept, long *lines, char *why, size_t cap);

/* ---- the writer's operations (vrf_table.c) ---------------------------- */
typedef struct svc_vrf svc_vrf;
svc_vrf *svc_vrf_new(void);
void svc_vrf_free(svc_vrf *v);
/* SVC_OP_VRF_OPEN, or any operation on a table id: 1 it was a vrf table
 * (or an open) and op is answered (op->err may hold a refusal), 0 the id
 * is not a vrf table (the pf-2 path takes it), -1 a storage failure that
 * dooms the batch. */
int svc_vrf_run(svc_vrf *v, svc_store *st, svc_op *op);
/* Before a batch's operations run (its rows locked): the hands of its
 * deals on vrf tables (ids not in pf2, the writer's pf-2 cache) numbered
 * in batch order and proven on up to one thread per CPU (at most 8), the
 * writer's among them; each deal's turn then takes its proof when the
 * number is still the one due, else proves its hand itself.  Nothing is
 * written here; a table refused or a failure leaves the turn to prove. */
void svc_vrf_prepare(svc_vrf *v, svc_store *st, svc_op *ops,
                     const svc_map *pf2);
/* At the end of a batch: the work copies become the cached state, or are
 * dropped when the batch failed. */
void svc_vrf_batch_end(svc_vrf *v, int failed);

#endif
