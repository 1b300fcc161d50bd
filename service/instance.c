/* instance.c -- who this service is among several (--instance-id: in the
 * metrics, in GET /v1/health and in its messages) and whether its database
 * answers (GET /v1/health: a load balancer takes an instance whose
 * database is unreachable out of rotation). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "service.h"
#include "store_pg.h"

static char id[65];

int svc_instance_set(const char *name)
{
    char host[65] = "";
    if (!name) { /* default: the host's name */
        if (gethostname(host, sizeof host - 1) != 0 || !host[0])
            snprintf(host, sizeof host, "fairshuf");
        name = host;
    }
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof id ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-") != n)
        return -1;
    memcpy(id, name, n + 1);
    return 0;
}

const char *svc_instance_id(void)
{
    return id;
}

void svc_instance_metrics(svc_buf *o)
{
    svc_buf_printf(o, "# HELP fairshuf_instance_info This instance "
                      "(--instance-id).\n# TYPE fairshuf_instance_info gauge\n"
                      "fairshuf_instance_info{instance_id=\"%s\"} 1\n", id);
}

static int sqlite_reachable(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int ok = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
                 SQLITE_OK &&
             sqlite3_prepare_v2(db, "SELECT count(*) FROM tables", -1, &q,
                                NULL) == SQLITE_OK &&
             sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
    sqlite3_close(db);
    return ok;
}

int svc_database_up(const char *db)
{
    return svc_pg_url(db) ? svc_pg_reachable(db) : sqlite_reachable(db);
}
