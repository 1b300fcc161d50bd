/* store_vrf.c -- the rows of fairshuf-vrf-1 tables in SQLite (vrf.h), and
 * the dispatch to PostgreSQL (store_vrf_pg.c).  A vrf table's log lines go
 * to the `log` table like a pf-2 table's (ids are shared, so one id names
 * one table); its row is in vrf_tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>
#include <sqlite3.h>

#include "store_pg.h"
#include "vrf.h"

const char svc_vrf_sqlite_schema[] =
    "CREATE TABLE IF NOT EXISTS vrf_tables("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    " public_key BLOB NOT NULL, game TEXT NOT NULL,"
    " players INTEGER NOT NULL, decks INTEGER NOT NULL,"
    " commitments TEXT NOT NULL,"      /* hex, joined by spaces */
    " client_seeds TEXT,"              /* NULL until revealed; tab-joined */
    " next_hand INTEGER NOT NULL, lines INTEGER NOT NULL);";

#define COLS "id, name, public_key, game, players, decks, commitments," \
             " client_seeds, next_hand, lines"

static int fail(svc_error *e, sqlite3 *db, int rc)
{
    return svc_store_sqlite_fail(e, db, rc);
}

void svc_vrf_commitments_text(const svc_vrf_row *r, svc_buf *out)
{
    char hex[65];
    for (size_t i = 0; i < r->nseeds; i++) {
        fs_hex_encode(r->commitments[i], 32, hex);
        if (i)
            svc_buf_add(out, " ", 1);
        svc_buf_str(out, hex);
    }
}

int svc_vrf_row_texts(svc_vrf_row *r, const char *commitments,
                      const char *seeds)
{
    size_t n = 0;
    for (const char *p = commitments; p && *p; n++) {
        char hex[65];
        if (n == FS_VRF_SEATS_MAX || strspn(p, "0123456789abcdef") != 64 ||
            (p[64] && p[64] != ' '))
            return -1;
        memcpy(hex, p, 64);
        hex[64] = '\0';
        if (fs_hex_decode(hex, r->commitments[n], 32) != FS_OK)
            return -1;
        p += p[64] ? 65 : 64;
    }
    if (n == 0)
        return -1;
    r->nseeds = n;
    r->has_seeds = seeds != NULL;
    for (size_t i = 0; seeds && i < n; i++) {
        size_t len = strcspn(seeds, "\t");
        if (len == 0 || len > FS_VRF_NAME_MAX || (i + 1 < n) != (seeds[len] == '\t'))
            return -1;
        memcpy(r->seeds[i], seeds, len);
        r->seeds[i][len] = '\0';
        seeds += len + (seeds[len] == '\t');
    }
    return 0;
}

void svc_vrf_row_json(const svc_vrf_row *r, svc_buf *b)
{
    svc_buf_printf(b, "\"table\":%lld,\"scheme\":\"" FS_VRF_SCHEME
                      "\",\"name\":", (long long)r->id);
    svc_buf_json(b, r->name);
    svc_buf_str(b, ",\"public_key\":");
    svc_buf_hex(b, r->public_key, 32);
    svc_buf_str(b, ",\"game\":");
    svc_buf_json(b, r->game);
    svc_buf_printf(b, ",\"players\":%u,\"decks\":%u,\"commitments\":[",
                   r->players, r->decks);
    for (size_t i = 0; i < r->nseeds; i++) {
        if (i)
            svc_buf_add(b, ",", 1);
        svc_buf_hex(b, r->commitments[i], 32);
    }
    svc_buf_str(b, "],\"client_seeds\":");
    if (r->has_seeds) {
        svc_buf_add(b, "[", 1);
        for (size_t i = 0; i < r->nseeds; i++) {
            if (i)
                svc_buf_add(b, ",", 1);
            svc_buf_json(b, r->seeds[i]);
        }
        svc_buf_add(b, "]", 1);
    } else
        svc_buf_str(b, "null");
    svc_buf_printf(b, ",\"next_hand\":%llu,\"log_lines\":%llu",
                   (unsigned long long)r->next_hand,
                   (unsigned long long)r->lines);
}

/* Row q (COLS) into r.  0, or -1 for a damaged row. */
static int row_of(sqlite3_stmt *q, svc_vrf_row *r)
{
    memset(r, 0, sizeof *r);
    const char *name = (const char *)sqlite3_column_text(q, 1);
    const char *game = (const char *)sqlite3_column_text(q, 3);
    if (!name || strlen(name) > FS_VRF_NAME_MAX || !game ||
        strlen(game) >= sizeof r->game || sqlite3_column_bytes(q, 2) != 32)
        return -1;
    r->id = sqlite3_column_int64(q, 0);
    strcpy(r->name, name);
    memcpy(r->public_key, sqlite3_column_blob(q, 2), 32);
    strcpy(r->game, game);
    r->players = (unsigned)sqlite3_column_int64(q, 4);
    r->decks = (unsigned)sqlite3_column_int64(q, 5);
    r->next_hand = (uint64_t)sqlite3_column_int64(q, 8);
    r->lines = (uint64_t)sqlite3_column_int64(q, 9);
    return svc_vrf_row_texts(r, (const char *)sqlite3_column_text(q, 6),
                             (const char *)sqlite3_column_text(q, 7));
}

/* One statement on the writer's connection; bind(q, ctx) binds it. */
static int run(sqlite3 *db, const char *text, int *changes, svc_error *e,
               void (*bind)(sqlite3_stmt *, const void *), const void *ctx)
{
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, text, -1, &q, NULL);
    if (rc == SQLITE_OK) {
        bind(q, ctx);
        rc = sqlite3_step(q);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return fail(e, db, rc);
    if (changes)
        *changes = sqlite3_changes(db);
    return 0;
}

static void bind_new(sqlite3_stmt *q, const void *ctx)
{
    const svc_vrf_row *r = ctx;
    svc_buf c = {0};
    svc_vrf_commitments_text(r, &c);
    sqlite3_bind_int64(q, 1, r->id);
    sqlite3_bind_text(q, 2, r->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(q, 3, r->public_key, 32, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 4, r->game, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(q, 5, r->players);
    sqlite3_bind_int64(q, 6, r->decks);
    if (!c.failed)
        sqlite3_bind_text(q, 7, c.p, (int)c.len, SQLITE_TRANSIENT);
    svc_buf_free(&c);
}

/* A table's name: "t" ID "-" 16 random hex digits.  Never used twice with
 * one key, also across databases (shards, a restored backup) that share
 * the key: the spec's rule (docs/provably-fair.md, "A table and its
 * hands", step 2). */
void svc_vrf_table_name(svc_vrf_row *r)
{
    uint8_t rnd[8];
    char hex[17];
    randombytes_buf(rnd, sizeof rnd);
    fs_hex_encode(rnd, sizeof rnd, hex);
    snprintf(r->name, sizeof r->name, "t%lld-%s", (long long)r->id, hex);
}

int svc_vrf_store_new(svc_store *s, svc_vrf_row *r, svc_error *e)
{
    if (svc_store_pg(s))
        return svc_vrf_pg_new(svc_store_pg(s), r, e);
    sqlite3 *db = svc_store_sqlite(s);
    /* tables' AUTOINCREMENT counter gives the id, so that no pf-2 table
     * ever gets it; the counter row exists once a pf-2 table was made */
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_exec(db, "INSERT INTO sqlite_sequence(name, seq)"
                              " SELECT 'tables', 0 WHERE NOT EXISTS (SELECT 1"
                              " FROM sqlite_sequence WHERE name = 'tables')",
                          NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            db, "UPDATE sqlite_sequence SET seq = max(seq, (SELECT"
                " coalesce(max(id), 0) FROM tables), (SELECT coalesce(max(id),"
                " 0) FROM vrf_tables)) + 1 WHERE name = 'tables' RETURNING seq",
            -1, &q, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        r->id = sqlite3_column_int64(q, 0);
        rc = sqlite3_step(q);
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return fail(e, db, rc);
    svc_vrf_table_name(r);
    return run(db, "INSERT INTO vrf_tables(" COLS ") VALUES(?1, ?2, ?3, ?4,"
                   " ?5, ?6, ?7, NULL, 0, 0)", NULL, e, bind_new, r);
}

int svc_vrf_store_load(svc_store *s, int64_t id, svc_vrf_row *r,
                       svc_error *e)
{
    if (svc_store_pg(s))
        return svc_vrf_pg_load(svc_store_pg(s), id, r, e);
    sqlite3 *db = svc_store_sqlite(s);
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT " COLS ", (SELECT max(seq) FROM"
                                    " log WHERE table_id = ?1) FROM"
                                    " vrf_tables WHERE id = ?1", -1, &q, NULL),
        found = 0;
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, id);
        rc = sqlite3_step(q);
    }
    if (rc == SQLITE_ROW) {
        found = 1;
        /* the log's last line must be line `lines` (a cut log: damage) */
        if (row_of(q, r) ||
            (r->lines == 0 ? sqlite3_column_type(q, 10) != SQLITE_NULL
                           : (uint64_t)sqlite3_column_int64(q, 10) !=
                                 r->lines - 1)) {
            char why[96];
            snprintf(why, sizeof why, "table %lld: a damaged row or a log "
                                      "cut short", (long long)id);
            svc_health_corrupt(why);
            svc_health_refuse(e);
            found = -1;
        }
    } else if (rc != SQLITE_DONE)
        found = fail(e, db, rc);
    sqlite3_finalize(q);
    return found;
}

int svc_vrf_store_lock(svc_store *s, const int64_t *ids, size_t n,
                       svc_error *e)
{
    /* SQLite: BEGIN IMMEDIATE already holds the whole file */
    return svc_store_pg(s) ? svc_vrf_pg_lock(svc_store_pg(s), ids, n, e) : 0;
}

typedef struct save_args {
    const svc_vrf_row *r;
    uint64_t was;
} save_args;

static void bind_save(sqlite3_stmt *q, const void *ctx)
{
    const save_args *a = ctx;
    const svc_vrf_row *r = a->r;
    sqlite3_bind_int64(q, 1, r->id);
    if (r->has_seeds) {
        svc_buf t = {0};
        for (size_t i = 0; i < r->nseeds; i++) {
            if (i)
                svc_buf_add(&t, "\t", 1);
            svc_buf_str(&t, r->seeds[i]);
        }
        if (!t.failed)
            sqlite3_bind_text(q, 2, t.p, (int)t.len, SQLITE_TRANSIENT);
        svc_buf_free(&t);
    }
    sqlite3_bind_int64(q, 3, (sqlite3_int64)r->next_hand);
    sqlite3_bind_int64(q, 4, (sqlite3_int64)r->lines);
    sqlite3_bind_int64(q, 5, (sqlite3_int64)a->was);
}

int svc_vrf_store_save(svc_store *s, const svc_vrf_row *r, uint64_t was,
                       svc_error *e)
{
    if (svc_store_pg(s))
        return svc_vrf_pg_save(svc_store_pg(s), r, was, e);
    save_args a = {r, was};
    int changes = 0;
    if (run(svc_store_sqlite(s), "UPDATE vrf_tables SET client_seeds = ?2,"
                                 " next_hand = ?3, lines = ?4 WHERE id = ?1"
                                 " AND lines = ?5", &changes, e, bind_save,
            &a))
        return -1;
    if (changes != 1) {
        svc_error_set(e, 503, "storage_error", "table %lld vanished",
                      (long long)r->id);
        return -1;
    }
    return 0;
}

int svc_vrf_store_append(svc_store *s, int64_t id, uint64_t seq,
                         const char *line, svc_error *e)
{
    if (svc_store_pg(s))
        return svc_vrf_pg_append(svc_store_pg(s), id, seq, line, e);
    /* the pf-2 tables' statement: the same `log` table */
    return svc_store_append(s, id, seq, line, e);
}

int svc_vrf_read_table(const char *path, int64_t id, svc_buf *out,
                       svc_error *e)
{
    if (svc_pg_url(path))
        return svc_vrf_pg_read_table(path, id, out, e);
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
        found = -1;
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_prepare_v2(db, "SELECT " COLS " FROM vrf_tables WHERE"
                                    " id = ?1", -1, &q, NULL);
    }
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, id);
        rc = sqlite3_step(q);
    }
    svc_vrf_row *r = malloc(sizeof *r);
    if (!r)
        svc_error_set(e, 503, "out_of_memory", "out of memory");
    else if (rc == SQLITE_DONE)
        found = 0;
    else if (rc != SQLITE_ROW)
        fail(e, db, rc);
    else if (row_of(q, r))
        svc_error_set(e, 503, "storage_error", "table %lld: a damaged row",
                      (long long)id);
    else {
        svc_buf_add(out, "{", 1);
        svc_vrf_row_json(r, out);
        svc_buf_str(out, "}\n");
        found = 1;
    }
    free(r);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return found;
}
