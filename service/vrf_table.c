/* vrf_table.c -- the writer's operations on fairshuf-vrf-1 tables (vrf.h;
 * docs/service.md, "Tables of scheme fairshuf-vrf-1").
 *
 * Open: the players' commitments in, the table record (fs_vrf_record_write)
 * appended as line 0.  Client seeds: each must be the one its commitment
 * names (fs_vrf_seed_commitment); kept in the row, no record (every hand
 * record carries them).  Deal: hand number next_hand, proven and dealt by
 * fs_vrf_hand under the service's key, its record appended and next_hand
 * + 1 saved in the same transaction -- so a number is used up exactly when
 * its record is durable: a crash before the commit leaves no gap (the
 * number is given again), a crash after it leaves a hand in the log that
 * nobody was answered (the game reads it back with ?last=1), never a gap.
 *
 * The rows of the tables in use are cached like the writer's periods: an
 * operation works on a copy that becomes the cached state only after the
 * batch commits.  On a shared database (PostgreSQL) the row, locked in the
 * batch, is read again at each batch. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vrf.h"

typedef struct ventry {
    svc_vrf_row r, work;      /* committed state; state inside the batch */
    int in_batch;
    uint64_t pending;         /* hands prepared for it in this batch */
    struct ventry *next_touched;
} ventry;

/* A hand proven before its turn in the batch (svc_vrf_prepare). */
typedef struct vrf_job {
    svc_op *op;
    ventry *en;
    int rc;
    fs_vrf_record rec;
} vrf_job;

/* A thread's work space for fs_vrf_hand. */
typedef struct prover {
    vrf_job *jobs;
    size_t njobs;
    atomic_size_t *next;
    fs_dealer dealer;
    fs_deal deal;
} prover;

#define PROVERS_MAX 8

struct svc_vrf {
    svc_map cache;            /* table id -> ventry */
    ventry *touched;
    fs_vrf_record rec;        /* scratch, large */
    fs_dealer dealer;
    fs_deal deal;
    char line[FS_VRF_LINE_MAX + 1];
    vrf_job *jobs;            /* the batch's prepared hands */
    size_t cjobs;
    prover *provers[PROVERS_MAX];
};

svc_vrf *svc_vrf_new(void)
{
    return calloc(1, sizeof(svc_vrf));
}

void svc_vrf_free(svc_vrf *v)
{
    if (!v)
        return;
    svc_map_free(&v->cache, free);
    free(v->jobs);
    for (int i = 0; i < PROVERS_MAX; i++)
        free(v->provers[i]);
    free(v);
}

/* Table id's entry when it is a vrf table: 1 and *out, 0 not one, -1
 * storage error (e set). */
static int lookup(svc_vrf *v, svc_store *st, int64_t id, ventry **out,
                  svc_error *e)
{
    ventry *en = svc_map_get(&v->cache, id);
    if (en && svc_store_shared(st) && !en->in_batch) {
        free(svc_map_del(&v->cache, id)); /* the locked row is the truth */
        en = NULL;
    }
    if (!en) {
        if (id <= 0)
            return 0;
        if (!(en = calloc(1, sizeof *en))) {
            svc_error_set(e, 503, "out_of_memory", "out of memory");
            return -1;
        }
        int found = svc_vrf_store_load(st, id, &en->r, e);
        if (found == 1 && svc_map_put(&v->cache, id, en)) {
            svc_error_set(e, 503, "out_of_memory", "out of memory");
            found = -1;
        }
        if (found != 1) {
            free(en);
            return found;
        }
    }
    if (!en->in_batch) {
        en->work = en->r;
        en->in_batch = 1;
        en->next_touched = v->touched;
        v->touched = en;
    }
    *out = en;
    return 1;
}

/* Appends v->line as the table's next line, in the open transaction, and
 * saves the work state (next_hand as the caller set it) with it. */
static int store_line(svc_vrf *v, svc_store *st, ventry *en, svc_error *e)
{
    uint64_t was = en->work.lines;
    if (svc_vrf_store_append(st, en->work.id, was, v->line, e))
        return -1;
    en->work.lines = was + 1;
    return svc_vrf_store_save(st, &en->work, was, e);
}

/* The key a table's records need: the service's, and the one the table
 * was opened under.  0, or a refusal in e. */
static int key_ok(const ventry *en, svc_error *e)
{
    const uint8_t *pk = svc_vrf_pk();
    if (!pk)
        svc_error_set(e, 409, "no_vrf_key",
                      "this service has no VRF key: it deals fairshuf-vrf-1 "
                      "tables only when started with --vrf-key-file=F");
    else if (en && memcmp(pk, en->work.public_key, 32) != 0)
        svc_error_set(e, 409, "vrf_key_changed",
                      "table %lld was opened under another VRF key than "
                      "this service's: its hands cannot be dealt here",
                      (long long)en->work.id);
    else
        return 0;
    return -1;
}

/* The record's table fields from the row. */
static void record_of(fs_vrf_record *rec, const svc_vrf_row *r,
                      fs_vrf_event ev)
{
    memset(rec, 0, sizeof *rec);
    rec->event = ev;
    memcpy(rec->public_key, r->public_key, 32);
    strcpy(rec->table, r->name);
    strcpy(rec->game, r->game);
    rec->players = r->players;
    rec->decks = r->decks;
    rec->nseeds = r->nseeds;
}

static int write_line(svc_vrf *v, const fs_vrf_record *rec, svc_error *e)
{
    int n = fs_vrf_record_write(rec, v->line, sizeof v->line);
    if (n < 0)
        svc_error_set(e, 500, "internal", "a record the library refuses: %s",
                      fs_strerror(n));
    return n < 0 ? -1 : 0;
}

static void reply_row(svc_op *op, const svc_vrf_row *r, const char *record)
{
    svc_buf_add(&op->reply, "{", 1);
    svc_vrf_row_json(r, &op->reply);
    if (record) { /* the record exactly as logged: a JSON object */
        svc_buf_str(&op->reply, ",\"record\":");
        svc_buf_str(&op->reply, record);
    }
    svc_buf_str(&op->reply, "}\n");
}

static int op_open(svc_vrf *v, svc_store *st, svc_op *op)
{
    if (key_ok(NULL, &op->err))
        return 0;
    svc_vrf_row r;
    memset(&r, 0, sizeof r);
    memcpy(r.public_key, svc_vrf_pk(), 32);
    snprintf(r.game, sizeof r.game, "%s", op->game);
    r.players = op->players;
    r.decks = op->decks;
    r.nseeds = op->nseeds;
    memcpy(r.commitments, op->commitments, sizeof r.commitments);
    if (svc_vrf_store_new(st, &r, &op->err))
        return -1;
    op->table = r.id;
    ventry *en = NULL;
    record_of(&v->rec, &r, FS_VRF_TABLE);
    memcpy(v->rec.commitments, r.commitments, sizeof r.commitments);
    /* a failure now leaves a row without its record: undo the batch */
    if (write_line(v, &v->rec, &op->err) ||
        lookup(v, st, r.id, &en, &op->err) != 1 ||
        store_line(v, st, en, &op->err)) {
        if (!op->err.status)
            svc_error_set(&op->err, 503, "storage_error",
                          "table %lld vanished", (long long)r.id);
        return -1;
    }
    reply_row(op, &en->work, v->line);
    op->status = 201;
    return 0;
}

static int op_seeds(svc_vrf *v, svc_store *st, svc_op *op, ventry *en)
{
    svc_vrf_row *w = &en->work;
    if (key_ok(en, &op->err))
        return 0;
    if (w->has_seeds) {
        svc_error_set(&op->err, 409, "client_seeds_already_set",
                      "table %lld: its client seeds are already revealed "
                      "(a table's seeds never change: open a new table)",
                      (long long)op->table);
        return 0;
    }
    if (op->nseeds != w->nseeds) {
        svc_error_set(&op->err, 400, "bad_client_seeds",
                      "table %lld has %zu commitments: send %zu client seeds "
                      "in seat order", (long long)op->table, w->nseeds,
                      w->nseeds);
        return 0;
    }
    for (size_t i = 0; i < op->nseeds; i++) {
        uint8_t h[32];
        fs_vrf_seed_commitment(op->seeds[i], h);
        if (memcmp(h, w->commitments[i], 32) != 0) {
            svc_error_set(&op->err, 400, "seed_not_committed",
                          "table %lld: client seed %zu is not the one its "
                          "commitment names (SHA-256 of the seed's bytes); "
                          "nothing was written", (long long)op->table, i + 1);
            return 0;
        }
    }
    w->has_seeds = 1;
    memcpy(w->seeds, op->seeds, sizeof w->seeds);
    if (svc_vrf_store_save(st, w, w->lines, &op->err))
        return -1;
    (void)v;
    reply_row(op, w, NULL);
    op->status = 200;
    return 0;
}

static int op_deal(svc_vrf *v, svc_store *st, svc_op *op, ventry *en)
{
    svc_vrf_row *w = &en->work;
    if (key_ok(en, &op->err))
        return 0;
    if (!w->has_seeds) {
        svc_error_set(&op->err, 409, "client_seeds_required",
                      "table %lld: the players reveal their client seeds "
                      "(POST /v1/tables/%lld/client-seeds) before the first "
                      "hand", (long long)op->table, (long long)op->table);
        return 0;
    }
    vrf_job *job = op->prep;  /* proven in advance (svc_vrf_prepare)? */
    fs_vrf_record *rec = &v->rec;
    int rc = FS_OK;
    if (job && job->en == en && job->rc == FS_OK &&
        job->rec.hand == w->next_hand)
        rec = &job->rec;
    else {
        record_of(rec, w, FS_VRF_HAND);
        memcpy(rec->client_seeds, w->seeds, sizeof rec->client_seeds);
        rec->hand = w->next_hand;
        rc = fs_vrf_hand(svc_vrf_sk(), rec, &v->dealer, &v->deal);
    }
    if (rc != FS_OK) {
        svc_error_set(&op->err, 500, "internal", "the hand failed: %s",
                      fs_strerror(rc));
        return 0;
    }
    if (write_line(v, rec, &op->err))
        return 0;
    w->next_hand = rec->hand + 1; /* used up with its record, no sooner */
    if (store_line(v, st, en, &op->err))
        return -1;
    svc_buf *b = &op->reply;
    svc_buf_printf(b, "{\"table\":%lld,\"scheme\":\"" FS_VRF_SCHEME
                      "\",\"name\":", (long long)w->id);
    svc_buf_json(b, w->name);
    svc_buf_printf(b, ",\"hand\":%llu,\"deal\":",
                   (unsigned long long)rec->hand);
    svc_buf_json(b, rec->deal);
    svc_buf_printf(b, ",\"next_hand\":%llu,\"record\":",
                   (unsigned long long)w->next_hand);
    svc_buf_str(b, v->line);
    svc_buf_str(b, "}\n");
    op->status = 200;
    return 0;
}

int svc_vrf_run(svc_vrf *v, svc_store *st, svc_op *op)
{
    if (op->kind == SVC_OP_VRF_OPEN)
        return op_open(v, st, op) ? -1 : 1;
    ventry *en = NULL;
    int found = lookup(v, st, op->table, &en, &op->err);
    if (found <= 0)
        return found;
    switch (op->kind) {
    case SVC_OP_VRF_SEEDS: return op_seeds(v, st, op, en) ? -1 : 1;
    case SVC_OP_DEAL: return op_deal(v, st, op, en) ? -1 : 1;
    default:
        svc_error_set(&op->err, 409, "wrong_scheme",
                      "table %lld is a " FS_VRF_SCHEME " table: it has no "
                      "server seed period (%s is for " FS_FAIR_SCHEME
                      " tables); its players reveal their seeds with POST "
                      "/v1/tables/%lld/client-seeds", (long long)op->table,
                      op->kind == SVC_OP_ROTATE ? "rotate" : "client-seed",
                      (long long)op->table);
        return 1;
    }
}

static void *prove_some(void *arg)
{
    prover *p = arg;
    const uint8_t *sk = svc_vrf_sk();
    for (size_t i; (i = atomic_fetch_add(p->next, 1)) < p->njobs;)
        p->jobs[i].rc = fs_vrf_hand(sk, &p->jobs[i].rec, &p->dealer,
                                    &p->deal);
    return NULL;
}

void svc_vrf_prepare(svc_vrf *v, svc_store *st, svc_op *ops,
                     const svc_map *pf2)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = 0, k = 0;
    for (svc_op *op = ops; op; op = op->next)
        n += op->kind == SVC_OP_DEAL && !svc_map_get(pf2, op->table);
    if (!svc_vrf_sk() || n < 2 || cpus < 2)
        return; /* one proof, or one core: no thread is worth starting */
    if (n > v->cjobs) {
        vrf_job *j = realloc(v->jobs, n * sizeof *j);
        if (!j)
            return; /* each hand is proven in its turn */
        v->jobs = j;
        v->cjobs = n;
    }
    /* numbers in the order of the batch, as the hands' turns will give
     * them; a turn that finds another number proves its hand itself */
    for (svc_op *op = ops; op; op = op->next) {
        ventry *en = NULL;
        svc_error e = {0};
        if (op->kind != SVC_OP_DEAL || svc_map_get(pf2, op->table) ||
            lookup(v, st, op->table, &en, &e) != 1 || key_ok(en, &e) ||
            !en->work.has_seeds)
            continue;
        vrf_job *j = &v->jobs[k++];
        j->op = op;
        j->en = en;
        record_of(&j->rec, &en->work, FS_VRF_HAND);
        memcpy(j->rec.client_seeds, en->work.seeds,
               sizeof j->rec.client_seeds);
        j->rec.hand = en->work.next_hand + en->pending++;
    }
    atomic_size_t next = 0;
    size_t threads = k < (size_t)cpus ? k : (size_t)cpus, started = 0;
    pthread_t th[PROVERS_MAX];
    if (threads > PROVERS_MAX)
        threads = PROVERS_MAX;
    for (size_t t = 0; t < threads; t++) {
        if (!v->provers[t] && !(v->provers[t] = malloc(sizeof(prover))))
            break;
        v->provers[t]->jobs = v->jobs;
        v->provers[t]->njobs = k;
        v->provers[t]->next = &next;
        if (t > 0 && pthread_create(&th[t], NULL, prove_some, v->provers[t]))
            break;
        started = t + 1;
    }
    if (started) /* the writer proves too; a thread not started: less help */
        prove_some(v->provers[0]);
    for (size_t t = 1; t < started; t++)
        pthread_join(th[t], NULL);
    for (size_t i = 0; i < k; i++) {
        v->jobs[i].en->pending = 0;
        if (!started)
            v->jobs[i].rc = FS_EINVAL; /* not proven: its turn proves it */
    }
    for (size_t i = 0; i < k; i++) /* the array stays put until then */
        v->jobs[i].op->prep = &v->jobs[i];
}

void svc_vrf_batch_end(svc_vrf *v, int failed)
{
    for (ventry *en = v->touched, *next; en; en = next) {
        next = en->next_touched;
        en->in_batch = 0;
        en->next_touched = NULL;
        if (failed) /* reload from the database: it is the truth */
            free(svc_map_del(&v->cache, en->r.id ? en->r.id : en->work.id));
        else
            en->r = en->work;
    }
    v->touched = NULL;
}
