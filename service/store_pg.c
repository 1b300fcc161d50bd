/* store_pg.c -- the service's store on PostgreSQL (libpq), shared by
 * several fairshuf serve instances (store_pg.h; docs/service.md, "Several
 * instances on PostgreSQL").
 *
 * One batch of the writer is one transaction: BEGIN and the row locks of
 * its tables (SELECT ... ORDER BY id FOR UPDATE: every instance locks in
 * the same order) in one round trip, the records made in memory, then one
 * statement that appends every line and saves every period -- each save
 * only where the row's line count is still the one read under the lock --
 * and COMMIT.  The log's primary key (table_id, seq) refuses a line given
 * twice.  Whatever fails (a lost connection, a full disk, a count that
 * moved) fails the batch: its requests answer an error, never a deal. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sodium.h>

#include "seal.h"
#include "store_pg.h"
#include "vrf.h"

#define SCHEMA_VERSION "fairshuf-serve-1"

static const char schema[] =
    "BEGIN;"
    "SELECT pg_advisory_xact_lock(4711471147114711);" /* instances start at once */
    "CREATE TABLE IF NOT EXISTS fairshuf_meta("
    " key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO fairshuf_meta VALUES('schema', '" SCHEMA_VERSION "')"
    " ON CONFLICT DO NOTHING;"
    "CREATE TABLE IF NOT EXISTS fairshuf_tables("
    " id BIGSERIAL PRIMARY KEY,"
    " scheme TEXT NOT NULL, game TEXT NOT NULL,"
    " players INTEGER NOT NULL, decks INTEGER NOT NULL,"
    " server_seed BYTEA NOT NULL,"     /* secret until its reveal record */
    " commitment BYTEA NOT NULL,"
    " client_seed TEXT,"
    " next_nonce BIGINT NOT NULL CHECK (next_nonce >= 0),"
    " lines BIGINT NOT NULL CHECK (lines >= 0),"
    " periods BIGINT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS fairshuf_log("
    " table_id BIGINT NOT NULL REFERENCES fairshuf_tables(id),"
    " seq BIGINT NOT NULL CHECK (seq >= 0), line TEXT NOT NULL,"
    " PRIMARY KEY(table_id, seq));"
    SVC_VRF_PG_SCHEMA /* vrf.h: an older database gains two empty tables */
    "COMMIT;";

#define COLS "id, scheme, game, players, decks, server_seed, commitment," \
             " client_seed, next_nonce, lines"

/* The parameters of fs_write: the saves' columns, then the appends'. */
enum { A_ID, A_SCHEME, A_GAME, A_PLAYERS, A_DECKS, A_SEED, A_COMMIT,
       A_CLIENT, A_NONCE, A_LINES, A_WAS, A_PERIODS, A_LTAB, A_LSEQ, A_LLINE,
       A_N };

/* The statements the writer's connection prepares: the batch's row locks,
 * the hashes of the locked tables' last lines (for the chain: a statement
 * of its own, so its snapshot is taken after the locks are held and holds
 * the lines of the transaction that held them last -- a sub-select of the
 * lock statement would read its older snapshot) and the writes (arrays:
 * one plan for any batch). */
static const char lock_sql[] =
    "SELECT " COLS " FROM fairshuf_tables WHERE id = ANY($1::bigint[])"
    " ORDER BY id FOR UPDATE";
static const char heads_sql[] = /* one primary-key lookup per table */
    "SELECT k.id, (SELECT sha256(convert_to(l.line, 'UTF8'))"
    " FROM fairshuf_log l WHERE l.table_id = k.id AND l.seq = k.seq)"
    " FROM unnest($1::bigint[], $2::bigint[]) AS k(id, seq)";
static const char write_sql[] =
    "WITH v AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[],"
    " $4::int[], $5::int[], $6::bytea[], $7::bytea[], $8::text[],"
    " $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[])"
    " AS v(id, scheme, game, players, decks, seed, commitment, client_seed,"
    " nonce, lines, was, periods)),"
    " u AS (UPDATE fairshuf_tables t SET scheme = v.scheme, game = v.game,"
    " players = v.players, decks = v.decks, server_seed = v.seed,"
    " commitment = v.commitment, client_seed = v.client_seed,"
    " next_nonce = v.nonce, lines = v.lines, periods = t.periods + v.periods"
    " FROM v WHERE t.id = v.id AND t.lines = v.was RETURNING 1),"
    " l AS (INSERT INTO fairshuf_log(table_id, seq, line)"
    " SELECT * FROM unnest($13::bigint[], $14::bigint[], $15::text[])"
    " RETURNING 1)"
    " SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM l)";

typedef struct row {
    int64_t id;
    fs_fair_period p;
    uint64_t lines;          /* committed, read under the lock */
    int saved;               /* a save is pending for the commit */
    uint64_t new_lines;
    fs_fair_period np;
    unsigned new_periods;    /* commitments changed in the batch */
    int current;             /* the seed is sealed under the current key */
    uint8_t head[32];        /* SHA-256 of its last log line (chain.h) */
} row;

static int parse_row(const PGresult *r, int i, row *rw, const char **why);
static void add_bytea(svc_buf *b, const uint8_t *p, size_t n);

struct svc_pg {
    PGconn *c;
    char *url;
    int sync_normal;
    int in_tx;
    row *rows;               /* the batch's tables, locked */
    size_t nrows, crows;
    svc_buf arr[A_N];        /* array literals of the statement fs_write */
    size_t nlog;
};

int svc_pg_url(const char *db)
{
    return db && (strncmp(db, "postgresql://", 13) == 0 ||
                  strncmp(db, "postgres://", 11) == 0);
}

static PGconn *connect_to(const char *url, int sync_normal)
{
    /* the URL's own settings come last, so they win */
    const char *keys[] = {"connect_timeout", "application_name", "dbname",
                          NULL};
    const char *vals[] = {"5", "fairshuf-serve", url, NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (c && PQstatus(c) == CONNECTION_OK) {
        char set[256];
        snprintf(set, sizeof set,
                 "SET client_min_messages = warning;"
                 " SET client_encoding = 'UTF8'; SET bytea_output = 'hex';"
                 " SET synchronous_commit = %s; SET lock_timeout = '10s';"
                 " SET statement_timeout = '30s'",
                 sync_normal ? "off" : "on");
        PGresult *r = PQexec(c, set);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            PQclear(r);
            return c; /* the caller sees the error message */
        }
        PQclear(r);
    }
    return c;
}

/* The writer's statements, on its connection (once the tables exist). */
static int prepare_all(PGconn *c)
{
    PGresult *r = PQprepare(c, "fs_lock", lock_sql, 0, NULL);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (ok) {
        r = PQprepare(c, "fs_heads", heads_sql, 0, NULL);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    }
    if (ok) {
        r = PQprepare(c, "fs_write", write_sql, 0, NULL);
        ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
    }
    return ok ? 0 : -1;
}

/* The first line of libpq's message (no DETAIL: it may hold values). */
static void first_line(const char *m, char *out, size_t cap)
{
    snprintf(out, cap, "%s", m && *m ? m : "unknown error");
    out[strcspn(out, "\r\n")] = '\0';
}

/* The answer to a failed call: 503 database_unreachable, 507 storage_full,
 * 503 storage_error.  r may be NULL. */
static int fail(PGconn *c, const PGresult *r, svc_error *e)
{
    char m[160];
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *prim = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY)
                         : NULL;
    first_line(prim ? prim : (c ? PQerrorMessage(c) : "out of memory"), m,
               sizeof m);
    if (!c || PQstatus(c) != CONNECTION_OK)
        svc_error_set(e, 503, "database_unreachable",
                      "the database is unreachable (%s); nothing was "
                      "written", m);
    else if (state && strcmp(state, "53100") == 0)
        svc_error_set(e, 507, "storage_full",
                      "the database's disk is full; nothing was written");
    else
        svc_error_set(e, 503, "storage_error",
                      "the database failed (%s); nothing was written", m);
    return -1;
}

static int exec_ok(PGconn *c, PGresult *r, svc_error *e)
{
    ExecStatusType st = PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        fail(c, r, e);
    PQclear(r);
    return ok ? 0 : -1;
}

/* Every row's seed opens (else the database is refused, naming the row),
 * and seeds not in the current form are sealed again: one transaction
 * that locks the rows it reads. */
static int seal_check(svc_pg *pg, char *why, size_t cap)
{
    char m[160];
    PGresult *r = PQexec(pg->c, "BEGIN; SELECT " COLS
                                " FROM fairshuf_tables ORDER BY id FOR UPDATE");
    int bad = PQresultStatus(r) != PGRES_TUPLES_OK;
    if (bad) {
        first_line(PQerrorMessage(pg->c), m, sizeof m);
        snprintf(why, cap, "cannot read the tables: %s", m);
    }
    svc_buf q = {0};
    for (int i = 0; !bad && i < PQntuples(r); i++) {
        row rw;
        const char *no = "a damaged row";
        if (parse_row(r, i, &rw, &no)) {
            snprintf(why, cap, "table %s: its server seed cannot be used: %s",
                     PQgetvalue(r, i, 0), no);
            bad = 1;
        } else if (!rw.current) { /* plain, or a rotation's old key */
            uint8_t sealed[SVC_SEALED_LEN];
            svc_buf_printf(&q, "UPDATE fairshuf_tables SET server_seed = ");
            add_bytea(&q, sealed, svc_seal_seed(rw.p.server_seed,
                                                rw.p.commitment, sealed));
            svc_buf_printf(&q, " WHERE id = %lld;", (long long)rw.id);
        }
        sodium_memzero(&rw, sizeof rw);
    }
    PQclear(r);
    if (!bad && q.len) {
        svc_buf_add(&q, "", 1);
        r = q.failed ? NULL : PQexec(pg->c, q.p);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            first_line(r ? PQerrorMessage(pg->c) : "out of memory", m,
                       sizeof m);
            snprintf(why, cap, "cannot seal the server seeds: %s", m);
            bad = 1;
        }
        PQclear(r);
    }
    svc_buf_free(&q);
    PQclear(PQexec(pg->c, bad ? "ROLLBACK" : "COMMIT"));
    return bad ? -1 : 0;
}

svc_pg *svc_pg_open(const char *url, int sync_normal, char *why, size_t cap)
{
    if (!svc_seal_on()) {
        snprintf(why, cap, "a PostgreSQL database needs --seed-key-file: "
                           "the server seeds leave this machine only "
                           "sealed (docs/service.md, \"Server seeds at "
                           "rest\")");
        return NULL;
    }
    svc_pg *pg = calloc(1, sizeof *pg);
    if (!pg || !(pg->url = strdup(url))) {
        free(pg);
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    pg->sync_normal = sync_normal;
    pg->c = connect_to(url, sync_normal);
    char m[200];
    if (!pg->c || PQstatus(pg->c) != CONNECTION_OK) {
        first_line(pg->c ? PQerrorMessage(pg->c) : "out of memory", m,
                   sizeof m);
        snprintf(why, cap, "cannot connect to the database: %s", m);
        svc_pg_close(pg);
        return NULL;
    }
    PGresult *r = PQexec(pg->c, schema);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        first_line(PQerrorMessage(pg->c), m, sizeof m);
        snprintf(why, cap, "cannot create the tables: %s", m);
        PQclear(r);
        svc_pg_close(pg);
        return NULL;
    }
    PQclear(r);
    r = PQexec(pg->c, "SELECT value FROM fairshuf_meta WHERE key = 'schema'");
    const char *v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                        ? PQgetvalue(r, 0, 0)
                        : NULL;
    if (!v || strcmp(v, SCHEMA_VERSION) != 0) {
        snprintf(why, cap, "not a fairshuf serve database of this version "
                           "(fairshuf_meta's schema is '%.60s', this "
                           "program's '" SCHEMA_VERSION "')",
                 v ? v : "missing");
        PQclear(r);
        svc_pg_close(pg);
        return NULL;
    }
    PQclear(r);
    if (prepare_all(pg->c)) {
        first_line(PQerrorMessage(pg->c), m, sizeof m);
        snprintf(why, cap, "cannot prepare the statements: %s", m);
        svc_pg_close(pg);
        return NULL;
    }
    if (seal_check(pg, why, cap)) {
        svc_pg_close(pg);
        return NULL;
    }
    return pg;
}

void svc_pg_close(svc_pg *pg)
{
    if (!pg)
        return;
    PQfinish(pg->c);
    free(pg->url);
    free(pg->rows);
    for (int i = 0; i < A_N; i++)
        svc_buf_free(&pg->arr[i]);
    free(pg);
}

/* ---- the writer's transaction -------------------------------------- */

int svc_pg_begin(svc_pg *pg, svc_error *e)
{
    pg->nrows = 0;
    pg->nlog = 0;
    for (int i = 0; i < A_N; i++)
        pg->arr[i].len = 0;
    pg->in_tx = 0;
    if (PQstatus(pg->c) != CONNECTION_OK) {
        PQfinish(pg->c); /* the database came back, or a new primary */
        pg->c = connect_to(pg->url, pg->sync_normal);
        if (PQstatus(pg->c) != CONNECTION_OK || prepare_all(pg->c))
            return fail(pg->c, NULL, e);
    }
    return 0;
}

static int ensure_tx(svc_pg *pg, svc_error *e)
{
    if (pg->in_tx)
        return 0;
    if (exec_ok(pg->c, PQexec(pg->c, "BEGIN"), e))
        return -1;
    pg->in_tx = 1;
    return 0;
}

PGconn *svc_pg_tx(svc_pg *pg, svc_error *e)
{
    return ensure_tx(pg, e) ? NULL : pg->c;
}

int svc_pg_failed(PGconn *c, const PGresult *r, svc_error *e)
{
    return fail(c, r, e);
}

static int hex_field(const PGresult *r, int i, int col, uint8_t *out,
                     size_t n)
{
    const char *v = PQgetvalue(r, i, col);
    if ((size_t)PQgetlength(r, i, col) != 2 + 2 * n || v[0] != '\\' ||
        v[1] != 'x')
        return -1;
    return fs_hex_decode(v + 2, out, n) == FS_OK ? 0 : -1;
}

static int text_field(const PGresult *r, int i, int col, char *out,
                      size_t cap)
{
    if (PQgetisnull(r, i, col) || (size_t)PQgetlength(r, i, col) >= cap)
        return -1;
    memcpy(out, PQgetvalue(r, i, col), (size_t)PQgetlength(r, i, col) + 1);
    return 0;
}

/* Row i of a COLS result into *rw, the seed opened (seal.h).  0, or -1
 * and *why (a damaged row, a seed that does not open). */
static int parse_row(const PGresult *r, int i, row *rw, const char **why)
{
    memset(rw, 0, sizeof *rw);
    fs_fair_period *p = &rw->p;
    rw->id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
    uint8_t sealed[SVC_SEALED_LEN];
    size_t n = (size_t)PQgetlength(r, i, 5) / 2 - 1;
    if (text_field(r, i, 1, p->scheme, sizeof p->scheme) ||
        text_field(r, i, 2, p->game, sizeof p->game) ||
        n > sizeof sealed || hex_field(r, i, 5, sealed, n) ||
        hex_field(r, i, 6, p->commitment, 32) ||
        svc_unseal_seed(sealed, n, p->commitment, p->server_seed,
                        &rw->current, why))
        return -1;
    p->players = (unsigned)strtoul(PQgetvalue(r, i, 3), NULL, 10);
    p->decks = (unsigned)strtoul(PQgetvalue(r, i, 4), NULL, 10);
    if (!PQgetisnull(r, i, 7)) {
        p->has_client_seed = 1;
        if (text_field(r, i, 7, p->client_seed, sizeof p->client_seed))
            return -1;
    }
    p->next_nonce = strtoull(PQgetvalue(r, i, 8), NULL, 10);
    rw->lines = strtoull(PQgetvalue(r, i, 9), NULL, 10);
    return 0;
}

static row *find_row(svc_pg *pg, int64_t id)
{
    for (size_t i = 0; i < pg->nrows; i++)
        if (pg->rows[i].id == id)
            return &pg->rows[i];
    return NULL;
}

static row *add_row(svc_pg *pg)
{
    if (pg->nrows == pg->crows) {
        size_t n = pg->crows ? 2 * pg->crows : 64;
        row *r = realloc(pg->rows, n * sizeof *r);
        if (!r)
            return NULL;
        pg->rows = r;
        pg->crows = n;
    }
    return &pg->rows[pg->nrows++];
}

/* Keeps the rows of result r (COLS) as the batch's locked rows. */
static int keep_rows(svc_pg *pg, const PGresult *r, svc_error *e)
{
    for (int i = 0; i < PQntuples(r); i++) {
        row *rw = add_row(pg);
        if (!rw) {
            svc_error_set(e, 503, "out_of_memory", "out of memory");
            return -1;
        }
        const char *why = "a damaged row";
        if (parse_row(r, i, rw, &why)) {
            svc_error_set(e, 503, "storage_error", "table %s: %s",
                          PQgetvalue(r, i, 0), why);
            return -1;
        }
    }
    return 0;
}

/* ---- array literals: the parameters of the prepared statements ---- */

static void arr_next(svc_buf *b)
{
    svc_buf_str(b, b->len ? "," : "{");
}

static void arr_int(svc_buf *b, long long v)
{
    arr_next(b);
    svc_buf_printf(b, "%lld", v);
}

/* "s" with " and \ escaped by a backslash */
static void arr_text(svc_buf *b, const char *s)
{
    arr_next(b);
    svc_buf_str(b, "\"");
    for (const char *p = s; *p; p++) {
        size_t k = strcspn(p, "\"\\");
        svc_buf_add(b, p, k);
        p += k;
        if (!*p)
            break;
        char esc[2] = {'\\', *p};
        svc_buf_add(b, esc, 2);
    }
    svc_buf_str(b, "\"");
}

static void arr_bytea(svc_buf *b, const uint8_t *p, size_t n)
{
    char hex[2 * 128 + 1];
    fs_hex_encode(p, n, hex);
    arr_next(b);
    svc_buf_printf(b, "\"\\\\x%s\"", hex); /* the element is \x<hex> */
}

/* The NUL-terminated literal ("{}" when empty); NULL out of memory. */
static const char *arr_end(svc_buf *b)
{
    if (!b->len)
        svc_buf_str(b, "{");
    svc_buf_add(b, "}", 2);
    return b->failed ? NULL : b->p;
}

/* The hashes of the last lines of rows[first..]: a table whose log lacks
 * the line its count names is refused (503), as a damaged row. */
static int load_heads(svc_pg *pg, size_t first, svc_error *e)
{
    svc_buf ids = {0}, seqs = {0};
    size_t want = 0;
    for (size_t i = first; i < pg->nrows; i++)
        if (pg->rows[i].lines > 0) {
            arr_int(&ids, (long long)pg->rows[i].id);
            arr_int(&seqs, (long long)pg->rows[i].lines - 1);
            want++;
        }
    const char *v[2] = {arr_end(&ids), arr_end(&seqs)};
    PGresult *r = NULL;
    int rc = -1;
    if (!want)
        rc = 0;
    else if (!v[0] || !v[1])
        svc_error_set(e, 503, "out_of_memory", "out of memory");
    else if (PQresultStatus(r = PQexecPrepared(pg->c, "fs_heads", 2, v, NULL,
                                               NULL, 0)) != PGRES_TUPLES_OK)
        fail(pg->c, r, e);
    else {
        size_t got = 0;
        for (int k = 0; k < PQntuples(r); k++) {
            row *rw = find_row(pg, strtoll(PQgetvalue(r, k, 0), NULL, 10));
            if (rw && !PQgetisnull(r, k, 1) &&
                hex_field(r, k, 1, rw->head, 32) == 0)
                got++;
        }
        rc = got == want ? 0 : -1;
        if (rc)
            svc_error_set(e, 503, "storage_error",
                          "a table's log lacks its last line");
    }
    PQclear(r);
    svc_buf_free(&ids);
    svc_buf_free(&seqs);
    return rc;
}

int svc_pg_lock(svc_pg *pg, const int64_t *ids, size_t n, svc_error *e)
{
    if (ensure_tx(pg, e))
        return -1;
    if (n == 0)
        return 0;
    svc_buf q = {0};
    for (size_t i = 0; i < n; i++)
        arr_int(&q, (long long)ids[i]);
    const char *v[1] = {arr_end(&q)};
    if (!v[0]) {
        svc_buf_free(&q);
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    PGresult *r = PQexecPrepared(pg->c, "fs_lock", 1, v, NULL, NULL, 0);
    svc_buf_free(&q);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        fail(pg->c, r, e);
        PQclear(r);
        return -1;
    }
    size_t first = pg->nrows;
    int rc = keep_rows(pg, r, e);
    PQclear(r);
    return rc ? rc : load_heads(pg, first, e);
}

static void add_bytea(svc_buf *b, const uint8_t *p, size_t n)
{
    char hex[2 * 128 + 1];
    fs_hex_encode(p, n, hex);
    svc_buf_printf(b, "'\\x%s'::bytea", hex);
}

int svc_pg_new_table(svc_pg *pg, const fs_fair_period *p, int64_t *id,
                     svc_error *e)
{
    if (ensure_tx(pg, e))
        return -1;
    char players[24], decks[24], nonce[24], seed[2 * SVC_SEALED_LEN + 3],
        commit[68];
    uint8_t sealed[SVC_SEALED_LEN];
    size_t n = svc_seal_seed(p->server_seed, p->commitment, sealed);
    snprintf(players, sizeof players, "%u", p->players);
    snprintf(decks, sizeof decks, "%u", p->decks);
    snprintf(nonce, sizeof nonce, "%llu", (unsigned long long)p->next_nonce);
    strcpy(seed, "\\x");
    fs_hex_encode(sealed, n, seed + 2);
    strcpy(commit, "\\x");
    fs_hex_encode(p->commitment, 32, commit + 2);
    const char *v[] = {p->scheme, p->game, players, decks, seed, commit,
                       p->has_client_seed ? p->client_seed : NULL, nonce};
    PGresult *r = PQexecParams(
        pg->c,
        "INSERT INTO fairshuf_tables(scheme, game, players, decks,"
        " server_seed, commitment, client_seed, next_nonce, lines, periods)"
        " VALUES($1, $2, $3, $4, $5::bytea, $6::bytea, $7, $8, 0, 1)"
        " RETURNING id",
        8, NULL, v, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        fail(pg->c, r, e);
        PQclear(r);
        return -1;
    }
    *id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    row *rw = add_row(pg);
    if (!rw) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    memset(rw, 0, sizeof *rw);
    rw->id = *id;
    rw->p = *p;
    return 0;
}

int svc_pg_load(svc_pg *pg, int64_t id, fs_fair_period *p, uint64_t *lines,
                svc_error *e)
{
    row *rw = find_row(pg, id);
    if (!rw) { /* not among the batch's locks: lock it now */
        int64_t one[1] = {id};
        size_t before = pg->nrows;
        if (svc_pg_lock(pg, one, 1, e))
            return -1;
        if (pg->nrows == before)
            return 0;
        rw = &pg->rows[before];
    }
    *p = rw->saved ? rw->np : rw->p;
    *lines = rw->saved ? rw->new_lines : rw->lines;
    return 1;
}

int svc_pg_head(svc_pg *pg, int64_t id, uint8_t head[32], svc_error *e)
{
    const row *rw = find_row(pg, id);
    if (!rw) {
        svc_error_set(e, 503, "storage_error",
                      "table %lld: read without its lock", (long long)id);
        return -1;
    }
    memcpy(head, rw->head, 32);
    return 0;
}

int svc_pg_client_seeds(svc_pg *pg, int64_t id, svc_buf *out, svc_error *e)
{
    if (ensure_tx(pg, e))
        return -1;
    char idt[24];
    snprintf(idt, sizeof idt, "%lld", (long long)id);
    const char *v[1] = {idt};
    PGresult *r = PQexecParams(
        pg->c, "SELECT line FROM fairshuf_log WHERE table_id = $1 AND "
               "position('\"event\":\"client_seed\"' in line) > 0 ORDER BY seq",
        1, NULL, v, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        fail(pg->c, r, e);
        PQclear(r);
        return -1;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        svc_buf_add(out, PQgetvalue(r, i, 0), (size_t)PQgetlength(r, i, 0));
        svc_buf_add(out, "\n", 1);
    }
    PQclear(r);
    if (out->failed) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    return 0;
}

int svc_pg_save(svc_pg *pg, int64_t id, const fs_fair_period *p,
                uint64_t lines, svc_error *e)
{
    row *rw = find_row(pg, id);
    if (!rw) {
        svc_error_set(e, 503, "storage_error",
                      "table %lld: saved without its lock", (long long)id);
        return -1;
    }
    const fs_fair_period *was = rw->saved ? &rw->np : &rw->p;
    rw->new_periods += memcmp(was->commitment, p->commitment, 32) != 0;
    rw->saved = 1;
    rw->np = *p;
    rw->new_lines = lines;
    return 0;
}

int svc_pg_append(svc_pg *pg, int64_t id, uint64_t seq, const char *line,
                  svc_error *e)
{
    (void)e;
    arr_int(&pg->arr[A_LTAB], (long long)id);
    arr_int(&pg->arr[A_LSEQ], (long long)seq);
    arr_text(&pg->arr[A_LLINE], line);
    pg->nlog++;
    return 0;
}

/* The saves' parameters of fs_write: each save applies only where the row
 * still has the line count read under the lock.  Returns their number. */
static size_t build_saves(svc_pg *pg)
{
    size_t nsaves = 0;
    svc_buf *a = pg->arr;
    for (size_t i = 0; i < pg->nrows; i++) {
        const row *rw = &pg->rows[i];
        if (!rw->saved)
            continue;
        const fs_fair_period *p = &rw->np;
        uint8_t sealed[SVC_SEALED_LEN];
        arr_int(&a[A_ID], (long long)rw->id);
        arr_text(&a[A_SCHEME], p->scheme);
        arr_text(&a[A_GAME], p->game);
        arr_int(&a[A_PLAYERS], (long long)p->players);
        arr_int(&a[A_DECKS], (long long)p->decks);
        arr_bytea(&a[A_SEED], sealed,
                  svc_seal_seed(p->server_seed, p->commitment, sealed));
        arr_bytea(&a[A_COMMIT], p->commitment, 32);
        if (p->has_client_seed)
            arr_text(&a[A_CLIENT], p->client_seed);
        else {
            arr_next(&a[A_CLIENT]);
            svc_buf_str(&a[A_CLIENT], "NULL");
        }
        arr_int(&a[A_NONCE], (long long)p->next_nonce);
        arr_int(&a[A_LINES], (long long)rw->new_lines);
        arr_int(&a[A_WAS], (long long)rw->lines);
        arr_int(&a[A_PERIODS], (long long)rw->new_periods);
        nsaves++;
    }
    return nsaves;
}

int svc_pg_commit(svc_pg *pg, svc_error *e)
{
    if (ensure_tx(pg, e))
        return -1;
    size_t nsaves = build_saves(pg);
    const char *v[A_N];
    for (int i = 0; i < A_N; i++)
        if (!(v[i] = arr_end(&pg->arr[i]))) {
            svc_error_set(e, 503, "out_of_memory", "out of memory");
            return -1;
        }
    PGresult *r = PQexecPrepared(pg->c, "fs_write", A_N, v, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        fail(pg->c, r, e);
        PQclear(r);
        return -1;
    }
    unsigned long long saved = strtoull(PQgetvalue(r, 0, 0), NULL, 10),
                       added = strtoull(PQgetvalue(r, 0, 1), NULL, 10);
    PQclear(r);
    if (saved != nsaves || added != pg->nlog) {
        svc_error_set(e, 503, "storage_conflict",
                      "another instance changed a table of this batch "
                      "under its lock; nothing was written");
        return -1;
    }
    r = PQexec(pg->c, "COMMIT");
    /* COMMIT of a failed transaction answers ROLLBACK, not an error */
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK &&
             strcmp(PQcmdStatus(r), "COMMIT") == 0;
    if (!ok)
        fail(pg->c, r, e);
    PQclear(r);
    if (ok)
        pg->in_tx = 0;
    return ok ? 0 : -1;
}

void svc_pg_rollback(svc_pg *pg)
{
    if (pg->in_tx && PQstatus(pg->c) == CONNECTION_OK &&
        PQtransactionStatus(pg->c) != PQTRANS_IDLE)
        PQclear(PQexec(pg->c, "ROLLBACK"));
    pg->in_tx = 0;
    pg->nrows = 0;
    pg->nlog = 0;
    for (int i = 0; i < A_N; i++)
        pg->arr[i].len = 0;
}

/* ---- readers: a small pool of connections ------------------------- */

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static PGconn *pool[16];
static size_t npool;

static PGconn *take(const char *url, svc_error *e)
{
    PGconn *c = NULL;
    pthread_mutex_lock(&pool_mu);
    if (npool)
        c = pool[--npool];
    pthread_mutex_unlock(&pool_mu);
    if (c && PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        c = NULL;
    }
    if (!c)
        c = connect_to(url, 0);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        fail(c, NULL, e);
        PQfinish(c);
        return NULL;
    }
    return c;
}

PGconn *svc_pg_take(const char *url, svc_error *e)
{
    return take(url, e);
}

static void give(PGconn *c)
{
    pthread_mutex_lock(&pool_mu);
    if (PQstatus(c) == CONNECTION_OK &&
        PQtransactionStatus(c) == PQTRANS_IDLE &&
        npool < sizeof pool / sizeof pool[0]) {
        pool[npool++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&pool_mu);
    PQfinish(c);
}

/* One query with $1 = id.  The result, or NULL with e set. */
static PGresult *read_query(const char *url, const char *sql, int64_t id,
                            svc_error *e)
{
    PGconn *c = take(url, e);
    if (!c)
        return NULL;
    char v[24];
    snprintf(v, sizeof v, "%lld", (long long)id);
    const char *vals[] = {v};
    PGresult *r = PQexecParams(c, sql, 1, NULL, vals, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        fail(c, r, e);
        PQclear(r);
        r = NULL;
    }
    give(c);
    return r;
}

int svc_pg_read_log(const char *url, int64_t id, svc_buf *out, svc_error *e)
{
    PGresult *r = read_query(url,
                             "SELECT line FROM fairshuf_log WHERE table_id = $1"
                             " ORDER BY seq", id, e);
    if (!r)
        return -1;
    int n = PQntuples(r);
    for (int i = 0; i < n; i++) {
        svc_buf_add(out, PQgetvalue(r, i, 0), (size_t)PQgetlength(r, i, 0));
        svc_buf_add(out, "\n", 1);
    }
    PQclear(r);
    if (out->failed) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    return n > 0;
}

int svc_pg_read_table(const char *url, int64_t id, svc_buf *out,
                      svc_error *e)
{
    /* Never the server_seed column: what this answers is public. */
    PGresult *r = read_query(url,
                             "SELECT id, scheme, game, players, decks,"
                             " encode(commitment, 'hex'), client_seed,"
                             " next_nonce, periods, lines"
                             " FROM fairshuf_tables WHERE id = $1", id, e);
    if (!r)
        return -1;
    int n = PQntuples(r);
    if (n == 1) {
        svc_buf_printf(out, "{\"table\":%s,\"scheme\":", PQgetvalue(r, 0, 0));
        svc_buf_json(out, PQgetvalue(r, 0, 1));
        svc_buf_str(out, ",\"game\":");
        svc_buf_json(out, PQgetvalue(r, 0, 2));
        svc_buf_printf(out, ",\"players\":%s,\"decks\":%s,\"commitment\":",
                       PQgetvalue(r, 0, 3), PQgetvalue(r, 0, 4));
        svc_buf_json(out, PQgetvalue(r, 0, 5));
        svc_buf_str(out, ",\"client_seed\":");
        if (PQgetisnull(r, 0, 6))
            svc_buf_str(out, "null");
        else
            svc_buf_json(out, PQgetvalue(r, 0, 6));
        svc_buf_printf(out, ",\"next_nonce\":%s,\"periods\":%s,"
                            "\"log_lines\":%s}\n",
                       PQgetvalue(r, 0, 7), PQgetvalue(r, 0, 8),
                       PQgetvalue(r, 0, 9));
    }
    PQclear(r);
    if (out->failed) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    return n == 1;
}

int svc_pg_reachable(const char *url)
{
    svc_error e;
    PGconn *c = take(url, &e);
    if (!c)
        return 0;
    PGresult *r = PQexec(c, "SELECT 1");
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    give(c);
    return ok;
}

int svc_pg_read_range(const char *url, int64_t id, uint64_t since,
                      uint64_t last, svc_buf *out, svc_error *e)
{
    PGconn *c = take(url, e);
    if (!c)
        return -1;
    char v[3][24];
    snprintf(v[0], sizeof v[0], "%lld", (long long)id);
    snprintf(v[1], sizeof v[1], "%llu", (unsigned long long)since);
    snprintf(v[2], sizeof v[2], "%llu", (unsigned long long)last);
    const char *vals[] = {v[0], v[1], v[2]};
    /* one statement: the table's count and its lines from one snapshot */
    PGresult *r = PQexecParams(
        c,
        "SELECT t.lines, l.line FROM fairshuf_tables t LEFT JOIN fairshuf_log l"
        " ON l.table_id = t.id AND l.seq >= CASE WHEN $3::bigint > 0 THEN"
        " greatest(t.lines - $3::bigint, 0) ELSE $2::bigint END"
        " WHERE t.id = $1 ORDER BY l.seq",
        3, NULL, vals, NULL, NULL, 0);
    int rc = -1;
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        rc = PQntuples(r) > 0;
        for (int i = 0; i < PQntuples(r); i++)
            if (!PQgetisnull(r, i, 1)) {
                svc_buf_add(out, PQgetvalue(r, i, 1),
                            (size_t)PQgetlength(r, i, 1));
                svc_buf_add(out, "\n", 1);
            }
    } else
        fail(c, r, e);
    PQclear(r);
    give(c);
    return rc;
}

void svc_pg_give(PGconn *c)
{
    give(c);
}
