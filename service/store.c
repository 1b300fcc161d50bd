/* store.c -- the service's SQLite database: one row per table (its current
 * period, with the secret server seed) and the log lines, each exactly the
 * JSON record the library wrote.  One writer connection (service/writer.c)
 * in WAL mode; readers open their own connections and see only committed
 * transactions.  A deal's line and its period's next nonce change in the
 * same transaction, so after any crash they agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <sqlite3.h>

#include "fairshuf/chain.h"
#include "seal.h"
#include "service.h"
#include "store_pg.h"
#include "vrf.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS tables("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " scheme TEXT NOT NULL, game TEXT NOT NULL,"
    " players INTEGER NOT NULL, decks INTEGER NOT NULL,"
    " server_seed BLOB NOT NULL,"      /* secret until its reveal record */
    " commitment BLOB NOT NULL,"
    " client_seed TEXT,"               /* NULL until the player sets it */
    " next_nonce INTEGER NOT NULL,"
    " lines INTEGER NOT NULL,"         /* log lines so far */
    " periods INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS log("
    " table_id INTEGER NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL,"
    " PRIMARY KEY(table_id, seq)) WITHOUT ROWID;";

enum { ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_INSERT, ST_LOAD, ST_SAVE,
       ST_APPEND, ST_COUNT };
static const char *const sql[ST_COUNT] = {
    "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK",
    "INSERT INTO tables(scheme, game, players, decks, server_seed,"
    " commitment, client_seed, next_nonce, lines, periods)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, 1)",
    "SELECT scheme, game, players, decks, server_seed, commitment,"
    " client_seed, next_nonce, lines,"
    " (SELECT max(seq) FROM log WHERE table_id = ?1) FROM tables WHERE id = ?1",
    "UPDATE tables SET scheme = ?2, game = ?3, players = ?4, decks = ?5,"
    " server_seed = ?6, commitment = ?7, client_seed = ?8, next_nonce = ?9,"
    " lines = ?10, periods = periods + (commitment <> ?7) WHERE id = ?1",
    "INSERT INTO log(table_id, seq, line) VALUES(?1, ?2, ?3)",
};

struct svc_store {
    svc_pg *pg;              /* a postgresql:// database: store_pg.c */
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
};

/* The answer to a failed storage call: 507 when the disk is full (the
 * client may retry later), 503 otherwise.  SQLite's messages name no data. */
static int fail(svc_error *e, sqlite3 *db, int rc)
{
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) {
        svc_health_corrupt(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        svc_health_refuse(e);
    } else if (rc == SQLITE_FULL)
        svc_error_set(e, 507, "storage_full",
                      "the database's disk is full; nothing was written");
    else
        svc_error_set(e, 503, "storage_error",
                      "the database failed (%s); nothing was written",
                      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    return -1;
}

int svc_store_sqlite_fail(svc_error *e, sqlite3 *db, int rc)
{
    return fail(e, db, rc);
}

static int step_done(svc_store *s, int i, svc_error *e)
{
    int rc = sqlite3_step(s->st[i]);
    sqlite3_reset(s->st[i]);
    sqlite3_clear_bindings(s->st[i]);
    if (rc != SQLITE_DONE)
        return fail(e, s->db, rc);
    return 0;
}

svc_store *svc_store_open(const char *path, int sync_normal, char *why,
                          size_t cap)
{
    svc_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    if (svc_pg_url(path)) {
        if (!(s->pg = svc_pg_open(path, sync_normal, why, cap))) {
            free(s);
            return NULL;
        }
        return s;
    }
    int rc = sqlite3_open_v2(path, &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                 SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        goto bad;
    sqlite3_extended_result_codes(s->db, 0);
    sqlite3_busy_timeout(s->db, 5000);
    /* WAL: readers never block the writer, a commit is one append + one
     * fsync.  FULL: that fsync happens at every commit, so a deal is on
     * disk before its response (NORMAL would survive kill -9 but not a
     * power cut). */
    char pragmas[256];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s;"
             "PRAGMA foreign_keys=OFF;",
             sync_normal ? "NORMAL" : "FULL");
    char *msg = NULL;
    rc = sqlite3_exec(s->db, pragmas, NULL, NULL, &msg);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(s->db, schema, NULL, NULL, &msg);
    if (rc == SQLITE_OK) /* vrf.h: an older database gains vrf_tables */
        rc = sqlite3_exec(s->db, svc_vrf_sqlite_schema, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        snprintf(why, cap, "%s", msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        svc_store_close(s);
        return NULL;
    }
    sqlite3_stmt *jm = NULL; /* WAL must have been accepted */
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode", -1, &jm, NULL) ==
            SQLITE_OK &&
        sqlite3_step(jm) == SQLITE_ROW &&
        strcmp((const char *)sqlite3_column_text(jm, 0), "wal") != 0) {
        sqlite3_finalize(jm);
        snprintf(why, cap, "the database refuses WAL mode");
        svc_store_close(s);
        return NULL;
    }
    sqlite3_finalize(jm);
    for (int i = 0; i < ST_COUNT; i++) {
        rc = sqlite3_prepare_v2(s->db, sql[i], -1, &s->st[i], NULL);
        if (rc != SQLITE_OK)
            goto bad;
    }
    if (svc_sqlite_seal_check(s->db, why, cap)) { /* seal.h */
        svc_store_close(s);
        return NULL;
    }
    return s;
bad:
    snprintf(why, cap, "%s", s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    svc_store_close(s);
    return NULL;
}

void svc_store_close(svc_store *s)
{
    if (!s)
        return;
    svc_pg_close(s->pg);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    free(s);
}

int svc_store_begin(svc_store *s, svc_error *e)
{
    if (s->pg)
        return svc_pg_begin(s->pg, e);
    return step_done(s, ST_BEGIN, e);
}

int svc_store_commit(svc_store *s, svc_error *e)
{
    if (s->pg)
        return svc_pg_commit(s->pg, e);
    return step_done(s, ST_COMMIT, e);
}

void svc_store_rollback(svc_store *s)
{
    if (s->pg) {
        svc_pg_rollback(s->pg);
        return;
    }
    if (!sqlite3_get_autocommit(s->db)) {
        sqlite3_step(s->st[ST_ROLLBACK]);
        sqlite3_reset(s->st[ST_ROLLBACK]);
    }
}

static void bind_period(sqlite3_stmt *q, int first, const fs_fair_period *p)
{
    sqlite3_bind_text(q, first, p->scheme, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, first + 1, p->game, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, first + 2, p->players);
    sqlite3_bind_int64(q, first + 3, p->decks);
    uint8_t sealed[SVC_SEALED_LEN]; /* seal.h: never the seed itself */
    size_t n = svc_seal_seed(p->server_seed, p->commitment, sealed);
    sqlite3_bind_blob(q, first + 4, sealed, (int)n, SQLITE_TRANSIENT);
    sodium_memzero(sealed, sizeof sealed);
    sqlite3_bind_blob(q, first + 5, p->commitment, 32, SQLITE_STATIC);
    if (p->has_client_seed)
        sqlite3_bind_text(q, first + 6, p->client_seed, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(q, first + 6);
    sqlite3_bind_int64(q, first + 7, (sqlite3_int64)p->next_nonce);
}

int svc_store_new_table(svc_store *s, const fs_fair_period *p, int64_t *id,
                        svc_error *e)
{
    if (s->pg)
        return svc_pg_new_table(s->pg, p, id, e);
    bind_period(s->st[ST_INSERT], 1, p);
    if (step_done(s, ST_INSERT, e))
        return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

static int copy_text(char *dst, size_t cap, const unsigned char *src)
{
    if (!src || strlen((const char *)src) >= cap)
        return -1;
    strcpy(dst, (const char *)src);
    return 0;
}

int svc_store_load(svc_store *s, int64_t id, fs_fair_period *p,
                   uint64_t *lines, svc_error *e)
{
    if (s->pg)
        return svc_pg_load(s->pg, id, p, lines, e);
    sqlite3_stmt *q = s->st[ST_LOAD];
    sqlite3_bind_int64(q, 1, id);
    int rc = sqlite3_step(q), found = 0, current;
    const char *no = "a damaged row";
    if (rc == SQLITE_ROW) {
        memset(p, 0, sizeof *p);
        found = 1;
        if (copy_text(p->scheme, sizeof p->scheme, sqlite3_column_text(q, 0)) ||
            copy_text(p->game, sizeof p->game, sqlite3_column_text(q, 1)) ||
            sqlite3_column_bytes(q, 5) != 32 ||
            svc_unseal_seed(sqlite3_column_blob(q, 4),
                            (size_t)sqlite3_column_bytes(q, 4),
                            sqlite3_column_blob(q, 5), p->server_seed,
                            &current, &no))
            found = -1;
        else {
            p->players = (unsigned)sqlite3_column_int64(q, 2);
            p->decks = (unsigned)sqlite3_column_int64(q, 3);
            memcpy(p->commitment, sqlite3_column_blob(q, 5), 32);
            if (sqlite3_column_type(q, 6) != SQLITE_NULL) {
                p->has_client_seed = 1;
                if (copy_text(p->client_seed, sizeof p->client_seed,
                              sqlite3_column_text(q, 6)))
                    found = -1;
            }
            p->next_nonce = (uint64_t)sqlite3_column_int64(q, 7);
            *lines = (uint64_t)sqlite3_column_int64(q, 8);
            /* the log's last line must be line `lines` (a cut log: damage) */
            if (*lines == 0 ? sqlite3_column_type(q, 9) != SQLITE_NULL
                            : sqlite3_column_type(q, 9) != SQLITE_INTEGER ||
                                  (uint64_t)sqlite3_column_int64(q, 9) !=
                                      *lines - 1) {
                found = -1;
                no = "its log is cut short";
            }
        }
    } else if (rc != SQLITE_DONE)
        found = -2;
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    if (found == -1) {
        char why[96];
        snprintf(why, sizeof why, "table %lld: %s", (long long)id, no);
        svc_health_corrupt(why);
        svc_health_refuse(e);
    }
    if (found == -2)
        return fail(e, s->db, rc);
    return found;
}

int svc_store_save(svc_store *s, int64_t id, const fs_fair_period *p,
                   uint64_t lines, svc_error *e)
{
    if (s->pg)
        return svc_pg_save(s->pg, id, p, lines, e);
    sqlite3_stmt *q = s->st[ST_SAVE];
    sqlite3_bind_int64(q, 1, id);
    bind_period(q, 2, p);
    sqlite3_bind_int64(q, 10, (sqlite3_int64)lines);
    if (step_done(s, ST_SAVE, e))
        return -1;
    if (sqlite3_changes(s->db) != 1) {
        svc_error_set(e, 503, "storage_error", "table %lld vanished",
                      (long long)id);
        return -1;
    }
    return 0;
}

int svc_store_append(svc_store *s, int64_t id, uint64_t seq,
                     const char *line, svc_error *e)
{
    if (s->pg)
        return svc_pg_append(s->pg, id, seq, line, e);
    sqlite3_stmt *q = s->st[ST_APPEND];
    sqlite3_bind_int64(q, 1, id);
    sqlite3_bind_int64(q, 2, (sqlite3_int64)seq);
    sqlite3_bind_text(q, 3, line, -1, SQLITE_STATIC);
    return step_done(s, ST_APPEND, e);
}

/* The table's client_seed records, on the writer's connection (so the
 * open transaction's own lines count too).  The library writes every
 * record with its keys in one order, so instr() finds them all; a pf-2
 * period's deals repeat its client_seed record's seed.  Prepared at each
 * call: a client seed is set once a period. */
int svc_store_client_seeds(svc_store *s, int64_t id, svc_buf *out,
                           svc_error *e)
{
    if (s->pg)
        return svc_pg_client_seeds(s->pg, id, out, e);
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT line FROM log WHERE table_id = ?1 AND"
                                " instr(line, '\"event\":\"client_seed\"')"
                                " > 0 ORDER BY seq", -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, id);
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            svc_buf_add(out, (const char *)sqlite3_column_text(q, 0),
                        (size_t)sqlite3_column_bytes(q, 0));
            svc_buf_add(out, "\n", 1);
        }
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return fail(e, s->db, rc);
    if (out->failed) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    return 0;
}

/* ---- readers ------------------------------------------------------- */

static sqlite3 *reader(const char *path, svc_error *e)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE |
                                            SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_exec(db, "PRAGMA query_only=1", NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        fail(e, db, rc);
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* Runs one query with ?1 = id; row(q, out) formats each row.
 * 1 when at least one row came, 0 none, -1 error. */
static int read_rows(const char *path, const char *text, int64_t id,
                     void (*row)(sqlite3_stmt *, svc_buf *), svc_buf *out,
                     svc_error *e)
{
    sqlite3 *db = reader(path, e);
    if (!db)
        return -1;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, text, -1, &q, NULL), rows = 0;
    /* One read transaction: every row from the same committed state. */
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, id);
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            row(q, out);
            rows++;
        }
    }
    int result = rc == SQLITE_DONE ? rows > 0 : fail(e, db, rc);
    if (result >= 0 && out->failed) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        result = -1;
    }
    sqlite3_finalize(q);
    sqlite3_close(db); /* ends the read transaction */
    return result;
}

static void table_row(sqlite3_stmt *q, svc_buf *out)
{
    svc_buf_printf(out, "{\"table\":%lld,\"scheme\":",
                   (long long)sqlite3_column_int64(q, 0));
    svc_buf_json(out, (const char *)sqlite3_column_text(q, 1));
    svc_buf_str(out, ",\"game\":");
    svc_buf_json(out, (const char *)sqlite3_column_text(q, 2));
    svc_buf_printf(out, ",\"players\":%lld,\"decks\":%lld,\"commitment\":",
                   (long long)sqlite3_column_int64(q, 3),
                   (long long)sqlite3_column_int64(q, 4));
    if (sqlite3_column_bytes(q, 5) == 32)
        svc_buf_hex(out, sqlite3_column_blob(q, 5), 32);
    else
        svc_buf_str(out, "null");
    svc_buf_str(out, ",\"client_seed\":");
    if (sqlite3_column_type(q, 6) == SQLITE_NULL)
        svc_buf_str(out, "null");
    else
        svc_buf_json(out, (const char *)sqlite3_column_text(q, 6));
    svc_buf_printf(out, ",\"next_nonce\":%lld,\"periods\":%lld,"
                        "\"log_lines\":%lld}\n",
                   (long long)sqlite3_column_int64(q, 7),
                   (long long)sqlite3_column_int64(q, 8),
                   (long long)sqlite3_column_int64(q, 9));
}

int svc_read_table(const char *path, int64_t id, svc_buf *out, svc_error *e)
{
    if (svc_pg_url(path))
        return svc_pg_read_table(path, id, out, e);
    /* Never the server_seed column: what this answers is public. */
    return read_rows(path,
                     "SELECT id, scheme, game, players, decks, commitment,"
                     " client_seed, next_nonce, periods, lines"
                     " FROM tables WHERE id = ?1",
                     id, table_row, out, e);
}

/* ---- what only a shared database needs ----------------------------- */

sqlite3 *svc_store_sqlite(svc_store *s)
{
    return s->db;
}

svc_pg *svc_store_pg(svc_store *s)
{
    return s->pg;
}

int svc_store_shared(const svc_store *s)
{
    return s->pg != NULL;
}

int svc_store_lock(svc_store *s, const int64_t *ids, size_t n, svc_error *e)
{
    /* SQLite: BEGIN IMMEDIATE already holds the whole file */
    return s->pg ? svc_pg_lock(s->pg, ids, n, e) : 0;
}

int svc_store_head(svc_store *s, int64_t id, uint64_t lines,
                   uint8_t head[32], svc_error *e)
{
    memset(head, 0, 32);
    if (s->pg)
        return svc_pg_head(s->pg, id, head, e);
    if (lines == 0)
        return 0;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT line FROM log WHERE"
                                       " table_id = ?1 AND seq = ?2",
                                -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)(lines - 1));
        rc = sqlite3_step(q);
        if (rc == SQLITE_ROW)
            fs_chain_hash((const char *)sqlite3_column_text(q, 0),
                          (size_t)sqlite3_column_bytes(q, 0), head);
    }
    sqlite3_finalize(q);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc == SQLITE_DONE)
        svc_error_set(e, 503, "storage_error",
                      "table %lld: its log has no line %llu", (long long)id,
                      (unsigned long long)(lines - 1));
    else
        fail(e, s->db, rc);
    return -1;
}
