/* store_vrf_pg.c -- the rows and logs of fairshuf-vrf-1 tables on
 * PostgreSQL (vrf.h): fairshuf_vrf_tables and fairshuf_vrf_log, written in
 * the writer's transaction (store_pg.c's svc_pg_tx) one statement at a
 * time.  A batch locks its vrf rows in id order after its pf-2 rows, like
 * every instance, so two instances never deadlock; a save applies only
 * where the row's line count is still the one read under the lock, and
 * the log's primary key refuses a line given twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_pg.h"
#include "vrf.h"

#define COLS "id, name, encode(public_key, 'hex'), game, players, decks," \
             " commitments, client_seeds, next_hand, lines"

/* One statement with text parameters v[0..n); the result when it has the
 * status `want`, else NULL and e. */
static PGresult *exec(PGconn *c, const char *sql, int n, const char *const *v,
                      ExecStatusType want, svc_error *e)
{
    if (!c)
        return NULL;
    PGresult *r = PQexecParams(c, sql, n, NULL, v, NULL, NULL, 0);
    if (PQresultStatus(r) != want) {
        svc_pg_failed(c, r, e);
        PQclear(r);
        return NULL;
    }
    return r;
}

static void commitments_hex(const svc_vrf_row *r, svc_buf *b)
{
    svc_vrf_commitments_text(r, b);
    svc_buf_add(b, "", 1);
}

int svc_vrf_pg_new(svc_pg *pg, svc_vrf_row *r, svc_error *e)
{
    PGconn *c = svc_pg_tx(pg, e);
    PGresult *q = exec(c, "SELECT nextval(pg_get_serial_sequence("
                          "'fairshuf_tables', 'id'))", 0, NULL,
                       PGRES_TUPLES_OK, e);
    if (!q)
        return -1;
    r->id = strtoll(PQgetvalue(q, 0, 0), NULL, 10);
    PQclear(q);
    svc_vrf_table_name(r);
    char id[24], players[24], decks[24], pk[68];
    snprintf(id, sizeof id, "%lld", (long long)r->id);
    snprintf(players, sizeof players, "%u", r->players);
    snprintf(decks, sizeof decks, "%u", r->decks);
    strcpy(pk, "\\x");
    fs_hex_encode(r->public_key, 32, pk + 2);
    svc_buf cm = {0};
    commitments_hex(r, &cm);
    if (cm.failed) {
        svc_buf_free(&cm);
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    const char *v[] = {id, r->name, pk, r->game, players, decks, cm.p};
    q = exec(c, "INSERT INTO fairshuf_vrf_tables(id, name, public_key, game,"
                " players, decks, commitments, client_seeds, next_hand,"
                " lines) VALUES($1, $2, $3::bytea, $4, $5, $6, $7, NULL, 0,"
                " 0)", 7, v, PGRES_COMMAND_OK, e);
    svc_buf_free(&cm);
    PQclear(q);
    return q ? 0 : -1;
}

/* Row i of a COLS result into r.  0, or -1 for a damaged row. */
static int row_of(const PGresult *q, int i, svc_vrf_row *r)
{
    memset(r, 0, sizeof *r);
    const char *name = PQgetvalue(q, i, 1), *game = PQgetvalue(q, i, 3);
    if (strlen(name) > FS_VRF_NAME_MAX || strlen(game) >= sizeof r->game ||
        PQgetlength(q, i, 2) != 64 ||
        fs_hex_decode(PQgetvalue(q, i, 2), r->public_key, 32) != FS_OK)
        return -1;
    r->id = strtoll(PQgetvalue(q, i, 0), NULL, 10);
    strcpy(r->name, name);
    strcpy(r->game, game);
    r->players = (unsigned)strtoul(PQgetvalue(q, i, 4), NULL, 10);
    r->decks = (unsigned)strtoul(PQgetvalue(q, i, 5), NULL, 10);
    r->next_hand = strtoull(PQgetvalue(q, i, 8), NULL, 10);
    r->lines = strtoull(PQgetvalue(q, i, 9), NULL, 10);
    return svc_vrf_row_texts(r, PQgetvalue(q, i, 6),
                             PQgetisnull(q, i, 7) ? NULL
                                                  : PQgetvalue(q, i, 7));
}

int svc_vrf_pg_load(svc_pg *pg, int64_t id, svc_vrf_row *r, svc_error *e)
{
    char idt[24];
    snprintf(idt, sizeof idt, "%lld", (long long)id);
    const char *v[] = {idt};
    PGresult *q = exec(svc_pg_tx(pg, e),
                       "SELECT " COLS ", (SELECT max(seq) FROM"
                       " fairshuf_vrf_log WHERE table_id = $1) FROM"
                       " fairshuf_vrf_tables WHERE id = $1 FOR UPDATE",
                       1, v, PGRES_TUPLES_OK, e);
    if (!q)
        return -1;
    int found = PQntuples(q) == 1;
    if (found &&
        (row_of(q, 0, r) ||
         (r->lines == 0 ? !PQgetisnull(q, 0, 10)
                        : PQgetisnull(q, 0, 10) ||
                              strtoull(PQgetvalue(q, 0, 10), NULL, 10) !=
                                  r->lines - 1))) {
        svc_error_set(e, 503, "storage_error",
                      "table %lld: a damaged row or a log cut short",
                      (long long)id);
        found = -1;
    }
    PQclear(q);
    return found;
}

int svc_vrf_pg_lock(svc_pg *pg, const int64_t *ids, size_t n, svc_error *e)
{
    if (n == 0)
        return 0;
    svc_buf a = {0};
    for (size_t i = 0; i < n; i++)
        svc_buf_printf(&a, "%s%lld", i ? "," : "{", (long long)ids[i]);
    svc_buf_add(&a, "}", 2);
    if (a.failed) {
        svc_buf_free(&a);
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    const char *v[] = {a.p};
    PGresult *q = exec(svc_pg_tx(pg, e),
                       "SELECT id FROM fairshuf_vrf_tables WHERE id ="
                       " ANY($1::bigint[]) ORDER BY id FOR UPDATE",
                       1, v, PGRES_TUPLES_OK, e);
    svc_buf_free(&a);
    PQclear(q);
    return q ? 0 : -1;
}

int svc_vrf_pg_save(svc_pg *pg, const svc_vrf_row *r, uint64_t was,
                    svc_error *e)
{
    char id[24], hand[24], lines[24], wast[24];
    snprintf(id, sizeof id, "%lld", (long long)r->id);
    snprintf(hand, sizeof hand, "%llu", (unsigned long long)r->next_hand);
    snprintf(lines, sizeof lines, "%llu", (unsigned long long)r->lines);
    snprintf(wast, sizeof wast, "%llu", (unsigned long long)was);
    svc_buf seeds = {0};
    for (size_t i = 0; r->has_seeds && i < r->nseeds; i++) {
        if (i)
            svc_buf_add(&seeds, "\t", 1);
        svc_buf_str(&seeds, r->seeds[i]);
    }
    svc_buf_add(&seeds, "", 1);
    if (seeds.failed) {
        svc_buf_free(&seeds);
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    const char *v[] = {id, r->has_seeds ? seeds.p : NULL, hand, lines, wast};
    PGresult *q = exec(svc_pg_tx(pg, e),
                       "UPDATE fairshuf_vrf_tables SET client_seeds = $2,"
                       " next_hand = $3, lines = $4 WHERE id = $1 AND"
                       " lines = $5", 5, v, PGRES_COMMAND_OK, e);
    svc_buf_free(&seeds);
    int ok = q && strcmp(PQcmdTuples(q), "1") == 0;
    if (q && !ok)
        svc_error_set(e, 503, "storage_conflict",
                      "another instance changed table %lld under its lock; "
                      "nothing was written", (long long)r->id);
    PQclear(q);
    return ok ? 0 : -1;
}

int svc_vrf_pg_append(svc_pg *pg, int64_t id, uint64_t seq, const char *line,
                      svc_error *e)
{
    char idt[24], seqt[24];
    snprintf(idt, sizeof idt, "%lld", (long long)id);
    snprintf(seqt, sizeof seqt, "%llu", (unsigned long long)seq);
    const char *v[] = {idt, seqt, line};
    PGresult *q = exec(svc_pg_tx(pg, e),
                       "INSERT INTO fairshuf_vrf_log(table_id, seq, line)"
                       " VALUES($1, $2, $3)", 3, v, PGRES_COMMAND_OK, e);
    PQclear(q);
    return q ? 0 : -1;
}

/* ---- readers: store_pg.c's pool ----------------------------------- */

int svc_vrf_pg_read_table(const char *url, int64_t id, svc_buf *out,
                          svc_error *e)
{
    PGconn *c = svc_pg_take(url, e);
    char idt[24];
    snprintf(idt, sizeof idt, "%lld", (long long)id);
    const char *v[] = {idt};
    PGresult *q = exec(c, "SELECT " COLS " FROM fairshuf_vrf_tables WHERE"
                          " id = $1", 1, v, PGRES_TUPLES_OK, e);
    if (c)
        svc_pg_give(c);
    if (!q)
        return -1;
    int found = PQntuples(q) == 1;
    svc_vrf_row *r = found ? malloc(sizeof *r) : NULL;
    if (found && (!r || row_of(q, 0, r))) {
        svc_error_set(e, 503, r ? "storage_error" : "out_of_memory",
                      r ? "a damaged row" : "out of memory");
        found = -1;
    } else if (found) {
        svc_buf_add(out, "{", 1);
        svc_vrf_row_json(r, out);
        svc_buf_str(out, "}\n");
    }
    free(r);
    PQclear(q);
    return found;
}

int svc_vrf_pg_read_log(const char *url, int64_t id, uint64_t since,
                        uint64_t last, svc_buf *out, svc_error *e)
{
    PGconn *c = svc_pg_take(url, e);
    char v3[3][24];
    snprintf(v3[0], sizeof v3[0], "%lld", (long long)id);
    snprintf(v3[1], sizeof v3[1], "%llu", (unsigned long long)since);
    snprintf(v3[2], sizeof v3[2], "%llu", (unsigned long long)last);
    const char *v[] = {v3[0], v3[1], v3[2]};
    /* one statement: the table's count and its lines from one snapshot */
    PGresult *q = exec(
        c, "SELECT t.lines, l.line FROM fairshuf_vrf_tables t LEFT JOIN"
           " fairshuf_vrf_log l ON l.table_id = t.id AND l.seq >= CASE WHEN"
           " $3::bigint > 0 THEN greatest(t.lines - $3::bigint, 0) ELSE"
           " $2::bigint END WHERE t.id = $1 ORDER BY l.seq",
        3, v, PGRES_TUPLES_OK, e);
    if (c)
        svc_pg_give(c);
    if (!q)
        return -1;
    int found = PQntuples(q) > 0;
    for (int i = 0; i < PQntuples(q); i++)
        if (!PQgetisnull(q, i, 1)) {
            svc_buf_add(out, PQgetvalue(q, i, 1), (size_t)PQgetlength(q, i, 1));
            svc_buf_add(out, "\n", 1);
        }
    PQclear(q);
    if (out->failed) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    return found;
}
