/* log_stream.c -- GET /v1/tables/ID/log sent as it is read: a few rows of
 * the database at a time into the HTTP library's block, never the whole
 * log in memory (300 readers of a long log took 800 MB when each answer
 * was built first).
 *
 * The log is append-only: the line count read at the start (the table's
 * `lines`, in one read transaction with the log's last line, which must
 * be line lines-1) fixes the answer, and the rows below it never change,
 * so each block is its own short read transaction (a slow reader holds no
 * snapshot that would keep the WAL from being checkpointed).  A missing
 * row found on the way is damage: the answer is cut (the client sees an
 * incomplete transfer, never a short log with a clean end) and the
 * storage is marked damaged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "service.h"

struct svc_log_stream {
    sqlite3 *db;
    sqlite3_stmt *rows;
    int64_t id;
    uint64_t next, total;    /* next line number; lines in the answer */
    char *pend;              /* the rest of a line that did not fit */
    size_t plen, poff;
};

static int damaged(svc_log_stream *s, svc_error *e, const char *what)
{
    char why[96];
    snprintf(why, sizeof why, "table %lld: %s", (long long)s->id, what);
    svc_health_corrupt(why);
    if (e)
        svc_health_refuse(e);
    return -1;
}

static int sql_failed(svc_log_stream *s, int rc, svc_error *e)
{
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
        return damaged(s, e, sqlite3_errmsg(s->db));
    if (e)
        svc_error_set(e, 503,
                      rc == SQLITE_NOMEM ? "out_of_memory" : "storage_error",
                      "the database failed (%s)", sqlite3_errmsg(s->db));
    return -1;
}

int svc_log_open(const char *path, int64_t id, svc_log_stream **out,
                 svc_error *e)
{
    svc_log_stream *s = calloc(1, sizeof *s);
    if (!s) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    s->id = id;
    sqlite3_stmt *head = NULL;
    int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE |
                                               SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, 5000);
        /* a small page cache: many readers at once stay cheap */
        rc = sqlite3_exec(s->db, "PRAGMA query_only=1; PRAGMA cache_size=-64",
                          NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db,
                                "SELECT lines, (SELECT max(seq) FROM log WHERE"
                                " table_id = ?1) FROM tables WHERE id = ?1"
                                " UNION ALL SELECT lines, (SELECT max(seq)"
                                " FROM log WHERE table_id = ?1) FROM"
                                " vrf_tables WHERE id = ?1", /* vrf.h */
                                -1, &head, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db,
                                "SELECT seq, line FROM log WHERE table_id = ?1"
                                " AND seq >= ?2 AND seq < ?3 ORDER BY seq",
                                -1, &s->rows, NULL);
    int found = -1;
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(head, 1, id);
        rc = sqlite3_step(head);
        if (rc == SQLITE_DONE)
            found = 0;
        else if (rc == SQLITE_ROW) {
            s->total = (uint64_t)sqlite3_column_int64(head, 0);
            int has_last = sqlite3_column_type(head, 1) == SQLITE_INTEGER;
            uint64_t last = (uint64_t)sqlite3_column_int64(head, 1);
            found = (s->total == 0 ? !has_last
                                   : has_last && last == s->total - 1)
                        ? 1
                        : damaged(s, e, "the log does not end at the table's "
                                        "last line");
        } else
            sql_failed(s, rc, e);
    } else
        sql_failed(s, rc, e);
    sqlite3_finalize(head); /* ends the read transaction */
    if (found != 1) {
        svc_log_close(s);
        return found;
    }
    *out = s;
    return 1;
}

/* Copies the pending rest of a line into buf; returns the bytes copied. */
static size_t drain(svc_log_stream *s, char *buf, size_t max)
{
    size_t n = s->plen - s->poff < max ? s->plen - s->poff : max;
    if (n == 0)
        return 0;
    memcpy(buf, s->pend + s->poff, n);
    s->poff += n;
    return n;
}

long svc_log_read(svc_log_stream *s, char *buf, size_t max)
{
    size_t used = drain(s, buf, max);
    if (s->poff < s->plen || s->next >= s->total)
        return (long)used;
    sqlite3_bind_int64(s->rows, 1, s->id);
    sqlite3_bind_int64(s->rows, 2, (sqlite3_int64)s->next);
    sqlite3_bind_int64(s->rows, 3, (sqlite3_int64)s->total);
    int rc = SQLITE_OK, bad = 0;
    while (used < max && (rc = sqlite3_step(s->rows)) == SQLITE_ROW) {
        if ((uint64_t)sqlite3_column_int64(s->rows, 0) != s->next) {
            bad = damaged(s, NULL, "a line is missing from the log");
            break;
        }
        const char *t = (const char *)sqlite3_column_text(s->rows, 1);
        size_t n = (size_t)sqlite3_column_bytes(s->rows, 1);
        s->next++;
        if (used + n + 1 <= max) {
            memcpy(buf + used, t, n);
            buf[used + n] = '\n';
            used += n + 1;
            continue;
        }
        /* the line does not fit: keep it whole, send what fits */
        char *p = realloc(s->pend, n + 1);
        if (!p) {
            bad = -1;
            break;
        }
        s->pend = p;
        memcpy(p, t, n);
        p[n] = '\n';
        s->plen = n + 1;
        s->poff = 0;
        used += drain(s, buf + used, max - used);
        rc = SQLITE_DONE;
        break;
    }
    if (!bad && used < max && rc != SQLITE_DONE)
        bad = sql_failed(s, rc, NULL);
    if (!bad && used < max && s->next < s->total && rc == SQLITE_DONE &&
        s->poff >= s->plen)
        bad = damaged(s, NULL, "the log has fewer lines than its table");
    sqlite3_reset(s->rows); /* ends this block's read transaction */
    sqlite3_clear_bindings(s->rows);
    return bad ? -1 : (long)used;
}

void svc_log_close(svc_log_stream *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->rows);
    sqlite3_close(s->db);
    free(s->pend);
    free(s);
}
