/* migrate_vrf.c -- fairshuf serve migrate's copy of the fairshuf-vrf-1
 * tables (vrf.h): each row of the SQLite file's vrf_tables and its log
 * lines into fairshuf_vrf_tables and fairshuf_vrf_log, in the migration's
 * transaction, with the same ids; like the pf-2 tables, a table already
 * there with the same log is left alone and one whose log differs stops
 * the migration.  An id that would name a pf-2 table and a vrf table at
 * once stops it too.  (A vrf table's row holds no secret: the VRF key is
 * the service's, given to each instance with --vrf-key-file.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "vrf.h"

static int bad_pg(PGresult *r, PGconn *c, const char *what, char *why,
                  size_t cap)
{
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return 0;
    snprintf(why, cap, "%s: %s", what, PQerrorMessage(c));
    why[strcspn(why, "\r\n")] = '\0';
    return -1;
}

/* PostgreSQL's copy of table id: -1 error, 0 absent, 1 the same log up to
 * the file's `lines`, 2 another log. */
static int pg_has(PGconn *c, const char *id, long long lines,
                  const char *last, char *why, size_t cap)
{
    char seq[24];
    snprintf(seq, sizeof seq, "%lld", lines - 1);
    const char *v[] = {id, seq};
    PGresult *r = PQexecParams(
        c, "SELECT t.lines, l.line FROM fairshuf_vrf_tables t LEFT JOIN"
           " fairshuf_vrf_log l ON l.table_id = t.id AND l.seq = $2"
           " WHERE t.id = $1", 2, NULL, v, NULL, NULL, 0);
    int rc = bad_pg(r, c, "reading the PostgreSQL vrf tables", why, cap);
    if (!rc && PQntuples(r) == 1)
        rc = strtoll(PQgetvalue(r, 0, 0), NULL, 10) >= lines &&
                     !PQgetisnull(r, 0, 1) && last &&
                     strcmp(PQgetvalue(r, 0, 1), last) == 0
                 ? 1 : 2;
    PQclear(r);
    return rc;
}

/* Row q (id, name, hex(public_key), game, players, decks, commitments,
 * client_seeds, next_hand, lines) and its log into PostgreSQL. */
static int copy_one(sqlite3 *lite, PGconn *c, sqlite3_stmt *q, long *copied,
                    long *kept, long *nlines, char *why, size_t cap)
{
    char id[24], pk[68];
    long long lines = sqlite3_column_int64(q, 9);
    snprintf(id, sizeof id, "%lld", (long long)sqlite3_column_int64(q, 0));
    snprintf(pk, sizeof pk, "\\x%s", (const char *)sqlite3_column_text(q, 2));
    sqlite3_stmt *lq = NULL;
    if (sqlite3_prepare_v2(lite, "SELECT line FROM log WHERE table_id = ?1"
                                 " ORDER BY seq", -1, &lq, NULL) != SQLITE_OK) {
        snprintf(why, cap, "%s", sqlite3_errmsg(lite));
        return -1;
    }
    sqlite3_bind_int64(lq, 1, sqlite3_column_int64(q, 0));
    char *last = NULL;
    long long n = 0;
    while (sqlite3_step(lq) == SQLITE_ROW) {
        free(last);
        last = strdup((const char *)sqlite3_column_text(lq, 0));
        n++;
    }
    sqlite3_reset(lq);
    int there = n == lines ? pg_has(c, id, lines, last, why, cap) : -1;
    if (n != lines)
        snprintf(why, cap, "vrf table %s of the SQLite file has %lld log "
                           "lines where its row says %lld", id, n, lines);
    else if (there == 2)
        snprintf(why, cap, "vrf table %s is in both databases with "
                           "different logs: nothing written", id);
    int rc = there == 0 || there == 1 ? 0 : -1;
    *kept += there == 1;
    if (there == 0) {
        const char *v[10] = {id, (const char *)sqlite3_column_text(q, 1), pk};
        for (int i = 3; i < 10; i++)
            v[i] = (const char *)sqlite3_column_text(q, i); /* NULL: NULL */
        PGresult *r = PQexecParams(
            c, "INSERT INTO fairshuf_vrf_tables(id, name, public_key, game,"
               " players, decks, commitments, client_seeds, next_hand, lines)"
               " VALUES($1, $2, $3::bytea, $4, $5, $6, $7, $8, $9, $10)",
            10, NULL, v, NULL, NULL, 0);
        rc = bad_pg(r, c, "copying a vrf table", why, cap);
        PQclear(r);
        long long seq = 0;
        while (!rc && sqlite3_step(lq) == SQLITE_ROW) {
            char s[24];
            snprintf(s, sizeof s, "%lld", seq++);
            const char *lv[] = {id, s, (const char *)sqlite3_column_text(lq, 0)};
            r = PQexecParams(c, "INSERT INTO fairshuf_vrf_log(table_id, seq,"
                                " line) VALUES($1, $2, $3)", 3, NULL, lv,
                             NULL, NULL, 0);
            rc = bad_pg(r, c, "copying a vrf log line", why, cap);
            PQclear(r);
        }
        *copied += !rc;
        *nlines += seq;
    }
    free(last);
    sqlite3_finalize(lq);
    return rc;
}

int svc_migrate_vrf(sqlite3 *lite, PGconn *c, long *copied, long *kept,
                    long *nlines, char *why, size_t cap)
{
    sqlite3_stmt *q = NULL;
    /* a file made before vrf tables has none to copy */
    if (sqlite3_prepare_v2(lite, "SELECT id, name, lower(hex(public_key)),"
                                 " game, players, decks, commitments,"
                                 " client_seeds, next_hand, lines FROM"
                                 " vrf_tables ORDER BY id", -1, &q,
                           NULL) != SQLITE_OK)
        return 0;
    int rc = 0, step;
    while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW)
        rc = copy_one(lite, c, q, copied, kept, nlines, why, cap);
    if (!rc && step != SQLITE_DONE) {
        snprintf(why, cap, "%s", sqlite3_errmsg(lite));
        rc = -1;
    }
    sqlite3_finalize(q);
    if (rc)
        return rc;
    PGresult *r = PQexec(c, "SELECT t.id FROM fairshuf_tables t JOIN"
                            " fairshuf_vrf_tables v ON v.id = t.id LIMIT 1");
    rc = bad_pg(r, c, "checking the table ids", why, cap);
    if (!rc && PQntuples(r) == 1) {
        snprintf(why, cap, "table id %s would name a fairshuf-pf-2 table and "
                           "a fairshuf-vrf-1 table: nothing written",
                 PQgetvalue(r, 0, 0));
        rc = -1;
    }
    PQclear(r);
    return rc;
}
