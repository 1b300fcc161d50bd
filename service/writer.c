/* writer.c -- the one thread that changes the database, with group commit.
 *
 * HTTP threads queue operations (and suspend their connections).  The
 * writer takes every queued
 * operation (up to `batch`), runs them in ONE transaction -- each asks the
 * library for its record (fs_fair_period_*), appends it to the table's log
 * and saves the period -- then commits (one fsync for the whole batch) and
 * only then wakes the waiters, who answer.  So a response always follows
 * the durable commit of its record, and the nonces of one table, given out
 * here one after another, are consecutive whatever the concurrency.
 *
 * The periods of the tables in use are cached in memory.  Inside a batch
 * an operation works on a copy (`work`); the copies become the cached
 * state after the commit succeeds and are dropped when it fails, so a
 * failed batch changes nothing, in the database or here. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fairshuf/chain.h"
#include "service.h"
#include "vrf.h"

typedef struct entry {
    fs_fair_period p, work;   /* committed state; state inside the batch */
    uint64_t lines, work_lines;
    uint8_t head[32], work_head[32]; /* hash of the last line (chain.h) */
    int in_batch;
    struct entry *next_touched;
} entry;

struct svc_writer {
    svc_store *st;
    unsigned batch;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t queued;
    svc_op *head, *tail;
    int stop;
    svc_map cache;            /* table id -> entry, the tables loaded */
    entry *touched;           /* entries with a `work` copy in this batch */
    svc_vrf *vrf;             /* the fairshuf-vrf-1 tables (vrf_table.c) */
    fs_deal deal;             /* scratch, large */
    fs_dealer dealer;         /* scratch, large: fs_fair_period_deal's */
    char tsv[FS_FAIR_TSV_MAX + 1];
    char chained[FS_FAIR_LINE_MAX + FS_CHAIN_EXTRA + 1];
};

static void evict(svc_writer *w, int64_t id)
{
    free(svc_map_del(&w->cache, id));
}

/* The table's entry, loaded from the database when not cached (the cache
 * grows only for tables that exist).  NULL with e set: unknown table (404)
 * or a storage error. */
static entry *lookup(svc_writer *w, int64_t id, svc_error *e)
{
    entry *en = svc_map_get(&w->cache, id);
    /* A shared database: other services deal these tables too, so the row
     * locked in this transaction is the truth, never the cache. */
    if (en && svc_store_shared(w->st) && !en->in_batch) {
        evict(w, id);
        en = NULL;
    }
    if (!en) {
        en = calloc(1, sizeof *en);
        if (!en) {
            svc_error_set(e, 503, "out_of_memory", "out of memory");
            return NULL;
        }
        /* found: 1, 0 unknown, -1 storage error (e set) */
        int found = id > 0 ? svc_store_load(w->st, id, &en->p, &en->lines, e)
                           : 0;
        if (found == 1 && svc_store_head(w->st, id, en->lines, en->head, e))
            found = -1;
        if (found == 1 && svc_map_put(&w->cache, id, en)) {
            svc_error_set(e, 503, "out_of_memory", "out of memory");
            found = -1;
        }
        if (found != 1) {
            free(en);
            if (found == 0)
                svc_error_set(e, 404, "unknown_table", "no table %lld",
                              (long long)id);
            return NULL;
        }
    }
    if (!en->in_batch) {
        en->work = en->p;
        en->work_lines = en->lines;
        memcpy(en->work_head, en->head, 32);
        en->in_batch = 1;
        en->next_touched = w->touched;
        w->touched = en;
    }
    return en;
}

/* The lines of text[0..len) without their chain links (chain.h), in
 * place: the records the library's rules read.  Returns the new length. */
static size_t unchain(char *text, size_t len)
{
    size_t in = 0, out = 0;
    while (in < len) {
        char *nl = memchr(text + in, '\n', len - in);
        size_t n = (nl ? (size_t)(nl - text) : len) - in;
        memmove(text + out, text + in, n);
        out += fs_chain_unlink(text + out, n);
        in += n;
        if (nl) {
            text[out++] = '\n';
            in++;
        }
    }
    return out;
}

/* Appends the record, chained to the line before it (chain.h), and the
 * state after it, in the open transaction. */
static int store_record(svc_writer *w, int64_t id, entry *en,
                        const char *line, svc_error *e)
{
    if (fs_chain_link(en->work_head, line, w->chained, sizeof w->chained)) {
        svc_error_set(e, 500, "internal", "a record that cannot be chained");
        return -1;
    }
    if (svc_store_append(w->st, id, en->work_lines, w->chained, e))
        return -1;
    fs_fair_period next = en->work;
    if (fs_fair_period_applied(&next, line) != FS_OK) {
        svc_error_set(e, 500, "internal", "a record the period refuses");
        return -1;
    }
    if (svc_store_save(w->st, id, &next, en->work_lines + 1, e))
        return -1;
    en->work = next;
    en->work_lines++;
    fs_chain_hash(w->chained, strlen(w->chained), en->work_head);
    return 0;
}

/* The answer's fields every operation shares: the table and its period's
 * public state (never the seed), left open for the operation's own. */
static void reply_period(svc_buf *b, int64_t id, const fs_fair_period *p)
{
    svc_buf_printf(b, "{\"table\":%lld,\"scheme\":", (long long)id);
    svc_buf_json(b, p->scheme);
    svc_buf_str(b, ",\"game\":");
    svc_buf_json(b, p->game);
    svc_buf_printf(b, ",\"players\":%u,\"decks\":%u,\"commitment\":",
                   p->players, p->decks);
    svc_buf_hex(b, p->commitment, 32);
    svc_buf_str(b, ",\"client_seed\":");
    if (p->has_client_seed)
        svc_buf_json(b, p->client_seed);
    else
        svc_buf_str(b, "null");
    svc_buf_printf(b, ",\"next_nonce\":%llu",
                   (unsigned long long)p->next_nonce);
}

static void lib_error(svc_error *e, int rc, const char *what)
{
    svc_error_set(e, 500, "internal", "%s failed: %s", what, fs_strerror(rc));
}

static int op_open(svc_writer *w, svc_op *op, char *line, size_t cap)
{
    fs_fair_period np;
    int rc = fs_fair_period_begin(&np, op->game, op->players, op->decks,
                                  line, cap);
    if (rc != FS_OK) {
        if (rc == FS_EINVAL || rc == FS_ERANGE || rc == FS_ENOTFOUND)
            svc_error_set(&op->err, 400, "bad_table",
                          "game %s cannot be dealt to %u players from %u "
                          "decks", op->game, op->players, op->decks);
        else
            lib_error(&op->err, rc, "a new period");
        return 0;
    }
    int64_t id;
    if (svc_store_new_table(w->st, &np, &id, &op->err))
        return -1;
    op->table = id;
    entry *en = lookup(w, id, &op->err); /* the row just inserted */
    if (!en || store_record(w, id, en, line, &op->err))
        return -1;
    reply_period(&op->reply, id, &en->work);
    svc_buf_str(&op->reply, "}\n");
    op->status = 201;
    return 0;
}

static int op_client_seed(svc_writer *w, svc_op *op, entry *en, char *line,
                          size_t cap)
{
    if (en->work.has_client_seed) {
        svc_error_set(&op->err, 409, "client_seed_already_set",
                      "table %lld: this period's client seed is already set; "
                      "rotate to start a period with a new one",
                      (long long)op->table);
        return 0;
    }
    const char *why = NULL;
    int rc = fs_fair_period_client_seed(&en->work, op->client_seed, line, cap,
                                        &why);
    if (rc != FS_OK) {
        if (rc == FS_EINVAL)
            svc_error_set(&op->err, 400, "bad_client_seed",
                          "bad client seed: %s (1 to %d bytes of UTF-8 "
                          "without control characters)",
                          why ? why : "refused", FS_FAIR_CLIENT_SEED_MAX);
        else
            lib_error(&op->err, rc, "the client seed");
        return 0;
    }
    /* A seed of an earlier period would make the log dishonest for ever. */
    svc_buf seeds = {0};
    if (svc_store_client_seeds(w->st, op->table, &seeds, &op->err)) {
        svc_buf_free(&seeds);
        return op->err.status == 503 && !strcmp(op->err.code, "out_of_memory")
                   ? 0 : -1;
    }
    seeds.len = unchain(seeds.p, seeds.len);
    rc = fs_fair_client_seed_used(seeds.p, seeds.len, op->client_seed, NULL);
    svc_buf_free(&seeds);
    if (rc == 1) {
        svc_error_set(&op->err, 409, "client_seed_reused",
                      "table %lld: this client seed was used in an earlier "
                      "period of the table's log; a period needs a new one "
                      "(nothing was written)", (long long)op->table);
        return 0;
    }
    if (rc < 0) {
        if (rc == FS_ENOMEM)
            svc_error_set(&op->err, 503, "out_of_memory", "out of memory");
        else
            svc_error_set(&op->err, 503, "storage_error",
                          "table %lld: a damaged record in the log",
                          (long long)op->table);
        return 0;
    }
    if (store_record(w, op->table, en, line, &op->err))
        return -1;
    reply_period(&op->reply, op->table, &en->work);
    svc_buf_str(&op->reply, "}\n");
    op->status = 200;
    return 0;
}

static int op_deal(svc_writer *w, svc_op *op, entry *en, char *line,
                   size_t cap)
{
    if (!en->work.has_client_seed) {
        svc_error_set(&op->err, 409, "client_seed_required",
                      "table %lld: the player sets this period's client seed "
                      "(POST /v1/tables/%lld/client-seed) before its first "
                      "deal", (long long)op->table, (long long)op->table);
        return 0;
    }
    uint64_t nonce;
    int rc = fs_fair_period_deal(&en->work, &w->dealer, &w->deal, &nonce,
                                 line, cap);
    if (rc == FS_OK) /* exactly `fair deal --format=tsv`, as in the record */
        rc = fs_fair_deal_tsv(&w->deal, &w->dealer, w->tsv, sizeof w->tsv);
    if (rc < 0) {
        lib_error(&op->err, rc, "the deal");
        return 0;
    }
    if (store_record(w, op->table, en, line, &op->err))
        return -1;
    reply_period(&op->reply, op->table, &en->work);
    svc_buf_printf(&op->reply, ",\"nonce\":%llu,\"deal\":",
                   (unsigned long long)nonce);
    svc_buf_json(&op->reply, w->tsv);
    svc_buf_str(&op->reply, "}\n");
    op->status = 200;
    return 0;
}

static int op_rotate(svc_writer *w, svc_op *op, entry *en, char *line,
                     size_t cap)
{
    if (en->work.next_nonce == 0) {
        svc_error_set(&op->err, 409, "no_deal",
                      "table %lld: this period has no deal yet; revealing it "
                      "now would leave an empty period in the log",
                      (long long)op->table);
        return 0;
    }
    fs_fair_period old = en->work, np;
    int rc = fs_fair_period_reveal(&old, line, cap);
    if (rc != FS_OK) {
        lib_error(&op->err, rc, "the reveal");
        return 0;
    }
    if (store_record(w, op->table, en, line, &op->err))
        return -1;
    rc = fs_fair_period_begin(&np, old.game, old.players, old.decks, line,
                              cap);
    if (rc != FS_OK) {
        lib_error(&op->err, rc, "a new period");
        return -1; /* the reveal must not stand alone: undo the batch */
    }
    en->work = np;
    if (store_record(w, op->table, en, line, &op->err))
        return -1;
    reply_period(&op->reply, op->table, &en->work); /* the new period */
    svc_buf_str(&op->reply, ",\"server_seed\":");
    svc_buf_hex(&op->reply, old.server_seed, 32); /* revealed: durable now */
    svc_buf_str(&op->reply, ",\"previous_commitment\":");
    svc_buf_hex(&op->reply, old.commitment, 32);
    svc_buf_str(&op->reply, "}\n");
    op->status = 200;
    return 0;
}

/* One operation in the open transaction.  0: done (op->err may hold a
 * refusal, nothing written for it); -1: a storage failure that dooms the
 * whole batch. */
static int run_op(svc_writer *w, svc_op *op)
{
    char line[FS_FAIR_LINE_MAX + 1];
    if (op->kind == SVC_OP_OPEN)
        return op_open(w, op, line, sizeof line);
    /* a vrf table's (or an open of one); a cached id is a pf-2 table's */
    if (op->kind == SVC_OP_VRF_OPEN || !svc_map_get(&w->cache, op->table)) {
        int vrf = svc_vrf_run(w->vrf, w->st, op);
        if (vrf)
            return vrf < 0 ? -1 : 0;
    }
    entry *en = lookup(w, op->table, &op->err);
    if (!en) /* an unknown table is its own refusal; storage dooms all */
        return op->err.status >= 500 ? -1 : 0;
    switch (op->kind) {
    case SVC_OP_VRF_SEEDS:
        svc_error_set(&op->err, 409, "wrong_scheme",
                      "table %lld is a %s table: its player sets one client "
                      "seed with POST /v1/tables/%lld/client-seed",
                      (long long)op->table, en->work.scheme,
                      (long long)op->table);
        return 0;
    case SVC_OP_CLIENT_SEED:
        return op_client_seed(w, op, en, line, sizeof line);
    case SVC_OP_DEAL: return op_deal(w, op, en, line, sizeof line);
    default: return op_rotate(w, op, en, line, sizeof line);
    }
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The row locks of the batch's tables, in id order (store_pg.c). */
static int lock_batch(svc_writer *w, svc_op *ops, svc_error *e)
{
    if (!svc_store_shared(w->st))
        return 0;
    size_t n = 0, k = 0;
    for (svc_op *op = ops; op; op = op->next)
        n++;
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) {
        svc_error_set(e, 503, "out_of_memory", "out of memory");
        return -1;
    }
    for (svc_op *op = ops; op; op = op->next)
        if (op->kind != SVC_OP_OPEN && op->kind != SVC_OP_VRF_OPEN &&
            op->table > 0)
            ids[k++] = op->table;
    qsort(ids, k, sizeof *ids, cmp_id);
    n = 0;
    for (size_t i = 0; i < k; i++)
        if (!n || ids[n - 1] != ids[i])
            ids[n++] = ids[i];
    int rc = svc_store_lock(w->st, ids, n, e);
    /* then the vrf rows (every instance in this order), of the ids not
     * known as pf-2 tables: a pf-2 batch pays no second query */
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (!svc_map_get(&w->cache, ids[i]))
            ids[k++] = ids[i];
    if (!rc)
        rc = svc_vrf_store_lock(w->st, ids, k, e);
    free(ids);
    return rc;
}

static void run_batch(svc_writer *w, svc_op *ops)
{
    svc_error fatal = {0};
    int failed = svc_store_begin(w->st, &fatal) ||
                 lock_batch(w, ops, &fatal);
    if (!failed) /* the batch's vrf hands proven at once, on every core */
        svc_vrf_prepare(w->vrf, w->st, ops, &w->cache);
    for (svc_op *op = ops; op && !failed; op = op->next) {
        if (run_op(w, op)) {
            fatal = op->err;
            failed = 1;
        }
        if (!failed && op->reply.failed) {
            svc_error_set(&fatal, 503, "out_of_memory", "out of memory");
            failed = 1;
        }
    }
    if (!failed && svc_store_commit(w->st, &fatal))
        failed = 1;
    int wrote = 0;               /* a commit with no record proves nothing */
    for (svc_op *op = ops; op; op = op->next)
        wrote |= !op->err.status;
    if (failed || wrote)
        svc_health_write(failed ? &fatal : NULL);
    size_t n = 0;
    for (svc_op *op = ops; op; op = op->next, n++)
        if (failed) { /* a refusal keeps its own answer */
            if (!op->err.status)
                op->err = fatal;
            svc_buf_free(&op->reply);
        } else if (!op->err.status)
            svc_metric_event(op->kind);
    if (failed)
        svc_store_rollback(w->st);
    for (entry *en = w->touched, *next; en; en = next) {
        next = en->next_touched;
        en->in_batch = 0;
        en->next_touched = NULL;
        if (!failed) {
            en->p = en->work;
            en->lines = en->work_lines;
            memcpy(en->head, en->work_head, 32);
        }
    }
    w->touched = NULL;
    svc_vrf_batch_end(w->vrf, failed);
    if (failed) /* reload from the database: it is the truth */
        for (svc_op *op = ops; op; op = op->next)
            evict(w, op->table);
    svc_metric_batch(n);
}

static void *writer_main(void *arg)
{
    svc_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->head && !w->stop)
            pthread_cond_wait(&w->queued, &w->mu);
        if (!w->head)
            break;
        svc_op *ops = w->head, *last = ops;
        for (unsigned n = 1; n < w->batch && last->next; n++)
            last = last->next;
        w->head = last->next;
        if (!w->head)
            w->tail = NULL;
        last->next = NULL;
        pthread_mutex_unlock(&w->mu);
        run_batch(w, ops);
        for (svc_op *op = ops, *next; op; op = next) {
            next = op->next; /* op is the caller's once done */
            op->done(op);
        }
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

svc_writer *svc_writer_start(svc_store *st, unsigned batch, char *why,
                             size_t cap)
{
    svc_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    w->st = st;
    w->batch = batch ? batch : 1;
    if (!(w->vrf = svc_vrf_new())) {
        snprintf(why, cap, "out of memory");
        free(w);
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->queued, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        snprintf(why, cap, "cannot start the writer thread");
        svc_vrf_free(w->vrf);
        free(w);
        return NULL;
    }
    return w;
}

void svc_writer_submit(svc_writer *w, svc_op *op)
{
    op->next = NULL;
    pthread_mutex_lock(&w->mu);
    if (w->tail)
        w->tail->next = op;
    else
        w->head = op;
    w->tail = op;
    pthread_cond_signal(&w->queued);
    pthread_mutex_unlock(&w->mu);
}

void svc_writer_stop(svc_writer *w)
{
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->queued);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    svc_map_free(&w->cache, free);
    svc_vrf_free(w->vrf);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->queued);
    free(w);
}
