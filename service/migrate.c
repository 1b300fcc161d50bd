/* migrate.c -- fairshuf serve migrate --from=FILE --to=postgresql://...:
 * copies the tables and logs of a SQLite database into a PostgreSQL one,
 * with the same table ids, in one PostgreSQL transaction (all or nothing).
 * Idempotent: a table already there with the same log (its last line the
 * same) is left alone; one that differs stops the migration with nothing
 * written.  The seeds are opened with the key(s) (the SQLite file may hold
 * them plain or sealed) and sealed under --seed-key-file
 * (docs/service.md, "Moving from SQLite to PostgreSQL"). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sodium.h>
#include <sqlite3.h>

#include "cli.h"
#include "seal.h"
#include "service.h"
#include "store_pg.h"
#include "vrf.h"

static const char usage_text[] =
    "Usage: fairshuf serve migrate --from=FILE --to=URL --seed-key-file=F\n"
    "                              [--old-seed-key-file=F]\n"
    "Copies every table of the SQLite database FILE (its period, with the\n"
    "server seed, or a fairshuf-vrf-1 table's row; and its whole log) into\n"
    "the PostgreSQL database URL\n"
    "(postgresql://...), with the same table ids, in one transaction.\n"
    "Tables already there with the same log are left alone, so running it\n"
    "again copies only what is new; a table whose log differs between the\n"
    "two stops it with nothing written.  Stop the service on FILE first.\n"
    "\n"
    "      --from=FILE        the SQLite database (read only)\n"
    "      --to=URL           the PostgreSQL database (created tables if\n"
    "                         missing, as fairshuf serve does)\n"
    "      --seed-key-file=F  the key that seals the seeds in URL (and opens\n"
    "                         them in FILE when sealed there)\n"
    "      --old-seed-key-file=F  another key that opens FILE's seeds\n"
    "      --help             display this help and exit\n"
    "Exit status: 0 copied (or nothing to copy), 1 error, 2 usage.\n";

typedef struct mig {
    sqlite3 *lite;
    PGconn *pg;
    long copied, kept, lines;
} mig;

static int pg_ok(PGresult *r, const char *what, char *why, size_t cap,
                 PGconn *c)
{
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return 0;
    char m[200];
    snprintf(m, sizeof m, "%s", PQerrorMessage(c));
    m[strcspn(m, "\r\n")] = '\0';
    snprintf(why, cap, "%s: %s", what, m);
    return -1;
}

/* The PostgreSQL table `id`: -1 error, 0 absent, 1 present with *lines
 * and, when lines > 0, the line number want (0-based) in *line (malloc'd). */
static int pg_table(mig *m, long long id, long long want, long long *lines,
                    char **line, char *why, size_t cap)
{
    char a[24], b[24];
    snprintf(a, sizeof a, "%lld", id);
    snprintf(b, sizeof b, "%lld", want);
    const char *v[] = {a, b};
    PGresult *r = PQexecParams(
        m->pg, "SELECT t.lines, l.line FROM fairshuf_tables t LEFT JOIN"
               " fairshuf_log l ON l.table_id = t.id AND l.seq = $2"
               " WHERE t.id = $1", 2, NULL, v, NULL, NULL, 0);
    int rc = pg_ok(r, "reading the PostgreSQL tables", why, cap, m->pg);
    if (rc == 0 && PQntuples(r) == 1) {
        *lines = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        *line = PQgetisnull(r, 0, 1) ? NULL : strdup(PQgetvalue(r, 0, 1));
        rc = 1;
    }
    PQclear(r);
    return rc;
}

static void hexb(char *out, const uint8_t *p, size_t n)
{
    strcpy(out, "\\x");
    fs_hex_encode(p, n, out + 2);
}

/* One SQLite table row (id, scheme, game, players, decks, server_seed,
 * commitment, client_seed, next_nonce, lines, periods) into PostgreSQL. */
static int copy_table(mig *m, sqlite3_stmt *q, char *why, size_t cap)
{
    long long id = sqlite3_column_int64(q, 0),
              lines = sqlite3_column_int64(q, 9);
    uint8_t seed[32], sealed[SVC_SEALED_LEN];
    const char *no = "a damaged row";
    int current;
    if (sqlite3_column_bytes(q, 6) != 32 ||
        svc_unseal_seed(sqlite3_column_blob(q, 5),
                        (size_t)sqlite3_column_bytes(q, 5),
                        sqlite3_column_blob(q, 6), seed, &current, &no)) {
        snprintf(why, cap, "table %lld of the SQLite file: its server seed "
                           "cannot be used: %s", id, no);
        return -1;
    }
    /* the SQLite log's last line, to compare */
    sqlite3_stmt *lq = NULL;
    char *last = NULL;
    if (sqlite3_prepare_v2(m->lite, "SELECT line FROM log WHERE table_id = ?1"
                                    " ORDER BY seq", -1, &lq, NULL) != SQLITE_OK) {
        snprintf(why, cap, "%s", sqlite3_errmsg(m->lite));
        return -1;
    }
    long long pglines = 0;
    char *pgline = NULL;
    int there = pg_table(m, id, lines - 1, &pglines, &pgline, why, cap);
    int rc = there < 0 ? -1 : 0;
    sqlite3_bind_int64(lq, 1, id);
    if (there == 1) { /* already copied: the same log up to `lines`? */
        while (sqlite3_step(lq) == SQLITE_ROW) {
            free(last);
            last = strdup((const char *)sqlite3_column_text(lq, 0));
        }
        if (pglines < lines || (lines > 0 && (!pgline || !last ||
                                              strcmp(pgline, last) != 0))) {
            snprintf(why, cap, "table %lld is in both databases with "
                               "different logs (%lld lines in the SQLite "
                               "file, %lld in PostgreSQL): nothing written",
                     id, lines, pglines);
            rc = -1;
        } else
            m->kept++;
    } else if (there == 0) {
        char sid[24], players[24], decks[24], nonce[24], nlines[24],
            periods[24], hs[2 * SVC_SEALED_LEN + 3], hc[68];
        snprintf(sid, sizeof sid, "%lld", id);
        snprintf(players, sizeof players, "%lld", sqlite3_column_int64(q, 3));
        snprintf(decks, sizeof decks, "%lld", sqlite3_column_int64(q, 4));
        snprintf(nonce, sizeof nonce, "%lld", sqlite3_column_int64(q, 8));
        snprintf(nlines, sizeof nlines, "%lld", lines);
        snprintf(periods, sizeof periods, "%lld", sqlite3_column_int64(q, 10));
        hexb(hs, sealed, svc_seal_seed(seed, sqlite3_column_blob(q, 6),
                                       sealed));
        hexb(hc, sqlite3_column_blob(q, 6), 32);
        const char *v[] = {sid, (const char *)sqlite3_column_text(q, 1),
                           (const char *)sqlite3_column_text(q, 2), players,
                           decks, hs, hc,
                           (const char *)sqlite3_column_text(q, 7), nonce,
                           nlines, periods};
        PGresult *r = PQexecParams(
            m->pg,
            "INSERT INTO fairshuf_tables(id, scheme, game, players, decks,"
            " server_seed, commitment, client_seed, next_nonce, lines,"
            " periods) VALUES($1, $2, $3, $4, $5, $6::bytea, $7::bytea, $8,"
            " $9, $10, $11)", 11, NULL, v, NULL, NULL, 0);
        rc = pg_ok(r, "copying a table", why, cap, m->pg);
        PQclear(r);
        long long seq = 0;
        while (rc == 0 && sqlite3_step(lq) == SQLITE_ROW) {
            char s2[24];
            snprintf(s2, sizeof s2, "%lld", seq++);
            const char *lv[] = {sid, s2,
                                (const char *)sqlite3_column_text(lq, 0)};
            r = PQexecParams(m->pg, "INSERT INTO fairshuf_log(table_id, seq,"
                                    " line) VALUES($1, $2, $3)",
                             3, NULL, lv, NULL, NULL, 0);
            rc = pg_ok(r, "copying a log line", why, cap, m->pg);
            PQclear(r);
        }
        if (rc == 0 && seq != lines) {
            snprintf(why, cap, "table %lld of the SQLite file has %lld log "
                               "lines where its row says %lld", id, seq,
                     lines);
            rc = -1;
        }
        m->copied += rc == 0;
        m->lines += seq;
    }
    sodium_memzero(seed, sizeof seed);
    free(last);
    free(pgline);
    sqlite3_finalize(lq);
    return rc;
}

static int migrate(const char *from, const char *to, char *why, size_t cap,
                   mig *m)
{
    /* the service holds an exclusive flock on its file while it runs */
    int fd = open(from, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, cap, "%s: %s", from, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(why, cap, "%s: in use by a running fairshuf serve: stop it "
                           "first", from);
        close(fd);
        return -1;
    }
    int rc = sqlite3_open_v2(from, &m->lite, SQLITE_OPEN_READONLY, NULL);
    sqlite3_stmt *q = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            m->lite, "SELECT id, scheme, game, players, decks, server_seed,"
                     " commitment, client_seed, next_nonce, lines, periods"
                     " FROM tables ORDER BY id", -1, &q, NULL);
    if (rc != SQLITE_OK) {
        snprintf(why, cap, "%s: not a fairshuf serve database (%s)", from,
                 sqlite3_errmsg(m->lite));
        sqlite3_close(m->lite);
        close(fd);
        return -1;
    }
    svc_pg *pg = svc_pg_open(to, 0, why, cap); /* the schema; seeds check */
    svc_pg_close(pg);
    int bad = pg == NULL;
    if (!bad) {
        const char *keys[] = {"application_name", "dbname", NULL};
        const char *vals[] = {"fairshuf-serve-migrate", to, NULL};
        m->pg = PQconnectdbParams(keys, vals, 1);
        PGresult *r = PQexec(m->pg, "BEGIN; LOCK TABLE fairshuf_tables IN"
                                    " SHARE ROW EXCLUSIVE MODE");
        bad = pg_ok(r, "starting the copy", why, cap, m->pg);
        PQclear(r);
    }
    while (!bad && (rc = sqlite3_step(q)) == SQLITE_ROW)
        bad = copy_table(m, q, why, cap) != 0;
    if (!bad && rc != SQLITE_DONE) {
        snprintf(why, cap, "%s: %s", from, sqlite3_errmsg(m->lite));
        bad = 1;
    }
    if (!bad) /* the fairshuf-vrf-1 tables (migrate_vrf.c) */
        bad = svc_migrate_vrf(m->lite, m->pg, &m->copied, &m->kept,
                              &m->lines, why, cap) != 0;
    if (!bad) { /* new tables continue after the copied ids */
        PGresult *r = PQexec(
            m->pg, "SELECT setval(pg_get_serial_sequence('fairshuf_tables',"
                   " 'id'), greatest((SELECT max(id) FROM fairshuf_tables),"
                   " (SELECT max(id) FROM fairshuf_vrf_tables), 1)); COMMIT");
        bad = pg_ok(r, "committing the copy", why, cap, m->pg);
        PQclear(r);
    }
    PQfinish(m->pg);       /* without COMMIT: rolled back */
    sqlite3_finalize(q);
    sqlite3_close(m->lite);
    close(fd);
    return bad ? -1 : 0;
}

int cmd_serve_migrate(int argc, char **argv)
{
    enum { OPT_FROM = 256, OPT_TO, OPT_KEY, OPT_OLD_KEY };
    static const struct option opts[] = {
        {"from", required_argument, NULL, OPT_FROM},
        {"to", required_argument, NULL, OPT_TO},
        {"seed-key-file", required_argument, NULL, OPT_KEY},
        {"old-seed-key-file", required_argument, NULL, OPT_OLD_KEY},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *from = NULL, *to = NULL, *key = NULL, *old = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case OPT_FROM: from = optarg; break;
        case OPT_TO: to = optarg; break;
        case OPT_KEY: key = optarg; break;
        case OPT_OLD_KEY: old = optarg; break;
        case 'h': cli_help("serve migrate", usage_text);
        default: cli_bad_option("serve migrate");
        }
    }
    if (optind < argc || !from || !to || !key || !svc_pg_url(to)) {
        cli_error("serve migrate: --from=FILE, --to=postgresql://... and "
                  "--seed-key-file are required");
        cli_try_help("serve migrate", CLI_USAGE);
    }
    char why[512];
    mig m = {0};
    if (svc_seal_init(key, old, why, sizeof why) ||
        migrate(from, to, why, sizeof why, &m)) {
        svc_seal_free();
        cli_die(CLI_FAIL, "serve migrate: %s", why);
    }
    svc_seal_free();
    printf("fairshuf serve migrate: %ld table%s copied (%ld log lines), %ld "
           "already there\n", m.copied, m.copied == 1 ? "" : "s", m.lines,
           m.kept);
    return 0;
}
