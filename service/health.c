/* health.c -- the storage's health for GET /v1/health and the refusals:
 * the database's check at start (PRAGMA quick_check), damage found later
 * (a SQLite error saying so, or a log that disagrees with its table's
 * line count) after which the tables are no longer served, the last write
 * error (cleared by the next commit) and the disk's free space. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include <sqlite3.h>

#include "service.h"
#include "store_pg.h"

static atomic_int corrupt;           /* once set, never cleared */
static char corrupt_why[160];        /* written once, before corrupt = 1 */
static atomic_int write_status;      /* 0, or the last failed commit's */
static const char *_Atomic write_code;

int svc_db_quick_check(const char *path, char *why, size_t cap)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), bad = 0;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(3)", -1, &q, NULL);
    if (rc == SQLITE_OK) {
        size_t used = 0;
        why[0] = '\0';
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(q, 0);
            if (t && strcmp(t, "ok") != 0 && used + 3 < cap) {
                int n = snprintf(why + used, cap - used, "%s%s",
                                 bad ? "; " : "", t);
                used += n > 0 ? (size_t)n : 0;
                if (used >= cap)
                    used = cap - 1;
                bad = 1;
            }
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        snprintf(why, cap, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_finalize(q);
    sqlite3_close(db);
    for (char *c = why; *c; c++) /* its findings come one a line */
        if ((unsigned char)*c < ' ')
            *c = ' ';
    return rc != SQLITE_OK || bad ? -1 : 0;
}

void svc_health_corrupt(const char *why)
{
    int expected = 0;
    static atomic_int claimed;
    if (atomic_compare_exchange_strong(&claimed, &expected, 1)) {
        snprintf(corrupt_why, sizeof corrupt_why, "%s", why);
        atomic_store(&corrupt, 1);
    }
}

int svc_health_refuse(svc_error *e)
{
    if (!atomic_load(&corrupt))
        return 0;
    svc_error_set(e, 503, "storage_corrupt",
                  "the database is damaged (%s): no table is served until it "
                  "is repaired", corrupt_why);
    return 1;
}

void svc_health_write(const svc_error *e)
{
    if (e && e->status != 507 && strcmp(e->code, "storage_error") &&
        strcmp(e->code, "storage_corrupt"))
        return; /* out of memory and the like: not the storage's */
    atomic_store(&write_code, e ? e->code : NULL);
    atomic_store(&write_status, e ? (int)e->status : 0);
}

unsigned svc_health_json(const char *db, svc_buf *out)
{
    /* the folder of the database: where the WAL grows */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", db);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    struct statvfs vs;
    long long avail = statvfs(dir, &vs) == 0
                          ? (long long)vs.f_bavail * (long long)vs.f_frsize
                          : -1;
    if (svc_pg_url(db))
        avail = -1; /* the database server's disk: not this host's */
    int bad = atomic_load(&corrupt);
    const char *wcode = atomic_load(&write_code);
    int low = avail >= 0 && avail < SVC_DISK_LOW;
    int up = svc_database_up(db);
    int ok = !bad && !wcode && !low && up;
    svc_buf_printf(out, "{\"status\":\"%s\",\"instance_id\":",
                   ok ? "ok" : "error");
    svc_buf_json(out, svc_instance_id());
    svc_buf_printf(out, ",\"database\":\"%s\",\"storage\":\"%s\"",
                   up ? "reachable" : "unreachable", bad ? "corrupt" : "ok");
    if (bad) {
        svc_buf_str(out, ",\"storage_message\":");
        svc_buf_json(out, corrupt_why);
    }
    if (avail >= 0)
        svc_buf_printf(out, ",\"disk_free_bytes\":%lld", avail);
    else
        svc_buf_str(out, ",\"disk_free_bytes\":null");
    svc_buf_printf(out, ",\"disk_low\":%s,\"last_write_error\":",
                   low ? "true" : "false");
    if (wcode)
        svc_buf_json(out, wcode);
    else
        svc_buf_str(out, "null");
    svc_buf_str(out, "}\n");
    return ok ? 200 : 503;
}
