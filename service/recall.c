/* recall.c -- part of a table's log: GET /v1/tables/ID/log?since=L (the
 * lines after line L) and ?last=N (the last N lines), for an auditor who
 * holds the log up to line L, or a lab that asks for the last hands
 * (docs/service.md, "Recall").  The lines are the stored ones, chained
 * (fairshuf/chain.h): the first line returned links to line L (or to the
 * line before the last N), which the reader checks against what it holds. */
#include <stdio.h>
#include <stdlib.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "service.h"
#include "store_pg.h"

static int sqlite_range(const char *path, int64_t id, uint64_t since,
                        uint64_t last, svc_buf *out, svc_error *e)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), found = 0;
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT lines FROM tables WHERE id = ?1"
                                    " UNION ALL SELECT lines FROM vrf_tables"
                                    " WHERE id = ?1", /* vrf.h */
                                -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, id);
        rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) {
            uint64_t lines = (uint64_t)sqlite3_column_int64(q, 0);
            found = 1;
            if (last)
                since = lines > last ? lines - last : 0;
            rc = SQLITE_DONE;
        }
        sqlite3_finalize(q);
        q = NULL;
    }
    if (rc == SQLITE_DONE && found)
        rc = sqlite3_prepare_v2(db, "SELECT line FROM log WHERE table_id = ?1"
                                    " AND seq >= ?2 ORDER BY seq", -1, &q,
                                NULL);
    if (rc == SQLITE_OK && found) {
        sqlite3_bind_int64(q, 1, id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)since);
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            svc_buf_add(out, (const char *)sqlite3_column_text(q, 0),
                        (size_t)sqlite3_column_bytes(q, 0));
            svc_buf_add(out, "\n", 1);
        }
    }
    if (rc != SQLITE_DONE)
        svc_error_set(e, 503, "storage_error", "the database failed (%s)",
                      db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_finalize(q);
    sqlite3_close(db);
    return rc != SQLITE_DONE ? -1 : found;
}

int svc_read_log_range(const char *db, int64_t id, uint64_t since,
                       uint64_t last, svc_buf *out, svc_error *e)
{
    int rc = svc_pg_url(db) ? svc_pg_read_range(db, id, since, last, out, e)
                            : sqlite_range(db, id, since, last, out, e);
    if (rc >= 0 && out->failed) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    return rc;
}

/* ?since=L or ?last=N of a log request: 0 (none given), 1 (*since or
 * *last set), -1 (e: 400). */
int svc_recall_args(const char *since_s, const char *last_s, uint64_t *since,
                    uint64_t *last, svc_error *e)
{
    *since = *last = 0;
    const char *s = since_s ? since_s : last_s;
    if (!s)
        return 0;
    char *end = NULL;
    unsigned long long v = (s[0] >= '0' && s[0] <= '9')
                               ? strtoull(s, &end, 10) : 0;
    if ((since_s && last_s) || !end || *end || v > (1ull << 53) ||
        (last_s && v == 0)) {
        svc_error_set(e, 400, "bad_query",
                      "give ?since=L (the lines after line L, L >= 0) or "
                      "?last=N (the last N lines, N >= 1), not both");
        return -1;
    }
    if (since_s)
        *since = v;
    else
        *last = v;
    return 1;
}
