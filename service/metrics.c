/* metrics.c -- counters for GET /metrics (Prometheus text format 0.0.4).
 * Counts and durations only: no seed, table or client data appears here. */
#include <stdatomic.h>
#include <string.h>

#include "service.h"

static const char *const routes[] = {
    "health", "tables", "table", "client_seed", "deals", "rotate", "log",
    "metrics", "verify", "games", "client_seeds", "vrf_key", "other",
};
#define NROUTES (sizeof routes / sizeof routes[0])
static const unsigned statuses[] = {200, 201, 400, 401, 404, 405, 409,
                                    413, 415, 500, 503, 507};
#define NSTATUS (sizeof statuses / sizeof statuses[0])
static const double bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                0.05, 0.1, 0.25, 0.5, 1, 2.5};
#define NBOUNDS (sizeof bounds / sizeof bounds[0])

static atomic_ullong responses[NROUTES][NSTATUS + 1]; /* last: other */
static atomic_ullong buckets[NBOUNDS + 1], duration_ns, requests;
static atomic_ullong events[4], batches, batch_ops;

void svc_metric_request(const char *route, unsigned status, double seconds)
{
    size_t r = NROUTES - 1, s = NSTATUS, b = NBOUNDS;
    for (size_t i = 0; i < NROUTES; i++)
        if (strcmp(routes[i], route) == 0)
            r = i;
    for (size_t i = 0; i < NSTATUS; i++)
        if (statuses[i] == status)
            s = i;
    for (size_t i = NBOUNDS; i-- > 0;)
        if (seconds <= bounds[i])
            b = i;
    atomic_fetch_add(&responses[r][s], 1);
    atomic_fetch_add(&buckets[b], 1);
    atomic_fetch_add(&requests, 1);
    atomic_fetch_add(&duration_ns, (unsigned long long)(seconds * 1e9));
}

void svc_metric_batch(size_t ops)
{
    atomic_fetch_add(&batches, 1);
    atomic_fetch_add(&batch_ops, ops);
}

void svc_metric_event(svc_op_kind kind)
{
    /* a vrf table's open and seeds count with the pf-2 ones */
    atomic_fetch_add(&events[kind == SVC_OP_VRF_OPEN    ? SVC_OP_OPEN
                             : kind == SVC_OP_VRF_SEEDS ? SVC_OP_CLIENT_SEED
                                                        : kind], 1);
}

void svc_metrics_text(svc_buf *o)
{
    static const char *const names[] = {
        "fairshuf_tables_opened_total", "fairshuf_client_seeds_total",
        "fairshuf_deals_total", "fairshuf_rotations_total"};
    static const char *const help[] = {
        "Tables opened (durable).", "Client seeds set (durable).",
        "Deals made (durable before their response).",
        "Periods revealed and replaced (durable)."};
    for (int k = 0; k < 4; k++)
        svc_buf_printf(o, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n",
                       names[k], help[k], names[k], names[k],
                       atomic_load(&events[k]));
    svc_buf_str(o, "# HELP fairshuf_http_responses_total Responses by route "
                   "and status.\n# TYPE fairshuf_http_responses_total "
                   "counter\n");
    unsigned long long errors = 0;
    for (size_t r = 0; r < NROUTES; r++)
        for (size_t s = 0; s <= NSTATUS; s++) {
            unsigned long long n = atomic_load(&responses[r][s]);
            if (!n)
                continue;
            if (s == NSTATUS || statuses[s] >= 400)
                errors += n;
            if (s < NSTATUS)
                svc_buf_printf(o, "fairshuf_http_responses_total{route=\"%s\","
                                  "status=\"%u\"} %llu\n", routes[r],
                               statuses[s], n);
            else
                svc_buf_printf(o, "fairshuf_http_responses_total{route=\"%s\","
                                  "status=\"other\"} %llu\n", routes[r], n);
        }
    svc_buf_printf(o, "# HELP fairshuf_errors_total Responses with status "
                      ">= 400.\n# TYPE fairshuf_errors_total counter\n"
                      "fairshuf_errors_total %llu\n", errors);
    svc_buf_str(o, "# HELP fairshuf_request_duration_seconds Time from the "
                   "request to its answer.\n# TYPE "
                   "fairshuf_request_duration_seconds histogram\n");
    unsigned long long cum = 0;
    for (size_t b = 0; b < NBOUNDS; b++) {
        cum += atomic_load(&buckets[b]);
        svc_buf_printf(o, "fairshuf_request_duration_seconds_bucket{le=\"%g\"}"
                          " %llu\n", bounds[b], cum);
    }
    cum += atomic_load(&buckets[NBOUNDS]);
    svc_buf_printf(o, "fairshuf_request_duration_seconds_bucket{le=\"+Inf\"} "
                      "%llu\nfairshuf_request_duration_seconds_sum %.6f\n"
                      "fairshuf_request_duration_seconds_count %llu\n",
                   cum, (double)atomic_load(&duration_ns) / 1e9,
                   atomic_load(&requests));
    svc_buf_printf(o, "# HELP fairshuf_commits_total Transactions committed "
                      "or failed (group commit: several requests each).\n"
                      "# TYPE fairshuf_commits_total counter\n"
                      "fairshuf_commits_total %llu\n"
                      "# HELP fairshuf_commit_requests_total Requests "
                      "handled by those transactions.\n"
                      "# TYPE fairshuf_commit_requests_total counter\n"
                      "fairshuf_commit_requests_total %llu\n",
                   atomic_load(&batches), atomic_load(&batch_ops));
    svc_instance_metrics(o);
}
