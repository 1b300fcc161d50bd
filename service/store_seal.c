/* store_seal.c -- at start, every server seed of the SQLite database is
 * opened (seal.h): a database whose seeds this key cannot open is refused,
 * and the seeds not in the current form (stored plain before a key was
 * given, or under the old key of a rotation) are sealed again under the
 * current key, all in one transaction. */
#include <stdio.h>

#include <sodium.h>
#include <sqlite3.h>

#include "seal.h"
#include "service.h"

int svc_sqlite_seal_check(sqlite3 *db, char *why, size_t cap)
{
    sqlite3_stmt *q = NULL, *u = NULL;
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), bad = 0;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "SELECT id, server_seed, commitment"
                                    " FROM tables", -1, &q, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "UPDATE tables SET server_seed = ?2"
                                    " WHERE id = ?1", -1, &u, NULL);
    while (rc == SQLITE_OK && !bad && sqlite3_step(q) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(q, 0);
        uint8_t seed[32], sealed[SVC_SEALED_LEN];
        const char *no = "a damaged row";
        int current = 0;
        if (sqlite3_column_bytes(q, 2) != 32 ||
            svc_unseal_seed(sqlite3_column_blob(q, 1),
                            (size_t)sqlite3_column_bytes(q, 1),
                            sqlite3_column_blob(q, 2), seed, &current,
                            &no)) {
            snprintf(why, cap, "table %lld: its server seed cannot be "
                               "used: %s", id, no);
            bad = 1;
            break;
        }
        if (!current) {
            size_t n = svc_seal_seed(seed, sqlite3_column_blob(q, 2), sealed);
            sqlite3_bind_int64(u, 1, id);
            sqlite3_bind_blob(u, 2, sealed, (int)n, SQLITE_TRANSIENT);
            rc = sqlite3_step(u) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
            sqlite3_reset(u);
        }
        sodium_memzero(seed, sizeof seed);
    }
    if (rc != SQLITE_OK && !bad) {
        snprintf(why, cap, "%s", sqlite3_errmsg(db));
        bad = 1;
    }
    sqlite3_finalize(q);
    sqlite3_finalize(u);
    if (bad || sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        if (!bad)
            snprintf(why, cap, "%s", sqlite3_errmsg(db));
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}
