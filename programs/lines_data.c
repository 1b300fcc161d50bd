/* lines_data.c -- the data modes of `fairshuf lines`: --split (with
 * --stratify), --weights, --group-by.  The algorithms are the library's
 * (fairshuf/lines.h); this file wires the input, fields and outputs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lines_quote.h"
#include "lines_run.h"

#define VALUE_MAX 4096 /* field values compare on their first 4 KiB */

/* arg quoted as GNU does, in buf (nothing left to free before an exit). */
static const char *quoted(char *buf, size_t n, const char *arg)
{
    char *q = lines_quoteaf(arg);
    snprintf(buf, n, "%s", q);
    if (q != arg)
        free(q);
    return buf;
}

/* A field option resolved against the header (record 0). */
typedef struct field_ctx {
    const char *opt;      /* "--stratify", ... */
    fs_lines_field f;
    uint64_t header;      /* records before the data */
    char why[512];
    const char *whyp;
    unsigned char val[VALUE_MAX];
} field_ctx;

static void field_init(run *R, field_ctx *fc, const char *opt,
                       const char *spec)
{
    char qb[512];
    memset(fc, 0, sizeof *fc);
    fc->opt = opt;
    fc->whyp = fc->why;
    fc->header = R->o.header;
    int rc = fs_lines_field_parse(spec, R->o.csv, R->o.sep, &fc->f);
    if (rc != FS_OK) {
        cli_error("%s: invalid field %s (a column number from 1, or a "
                  "column name with --header)", opt, quoted(qb, sizeof qb, spec));
        exit(CLI_USAGE);
    }
    if (!fc->f.resolved && R->o.header == 0) {
        cli_error("%s: field %s is a name: it needs --header=1", opt,
                  quoted(qb, sizeof qb, spec));
        exit(CLI_USAGE);
    }
}

/* The field of a data record (i >= header) into fc->val, or a reason. */
static int field_of(field_ctx *fc, uint64_t i, const unsigned char *rec,
                    size_t len, size_t *vlen)
{
    if (i < fc->header) {
        if (i == 0 && fs_lines_field_resolve(&fc->f, rec, len) != FS_OK) {
            snprintf(fc->why, sizeof fc->why,
                     "%s: no field %s in the header", fc->opt,
                     fc->f.name);
            return FS_ENOTFOUND;
        }
        return 1; /* a header record */
    }
    int found;
    *vlen = fs_lines_field_get(&fc->f, rec, len, fc->val, VALUE_MAX, &found);
    if (!found) {
        snprintf(fc->why, sizeof fc->why,
                 "%s: record %llu has no field %zu", fc->opt,
                 (unsigned long long)(i + 1), fc->f.col + 1);
        return FS_ENOTFOUND;
    }
    return FS_OK;
}

/* Dies on a field problem found by the source (exit 2: a usage error). */
static void field_check(run *R, field_ctx *fc)
{
    int err;
    const char *why;
    if (fs_lines_source_end(R->src, &err, &why) != FS_OK && why == fc->why) {
        cli_error("%s", fc->why);
        exit(CLI_USAGE);
    }
    input_check(R);
}

/* ------------------------------------------------------------- --split */

typedef struct split_ctx {
    run *R;
    field_ctx fc;
    int stratify;
    fs_lines_values *vals;
    uint64_t *seen, scratch[64];
    size_t nparts;
    lines_out *outs;
    fs_lines_sink *sink;
    fs_lines_result res;
} split_ctx;

static int strata_record(void *arg, uint64_t i, const unsigned char *rec,
                         size_t len)
{
    split_ctx *S = arg;
    size_t vlen;
    int rc = field_of(&S->fc, i, rec, len, &vlen);
    if (rc != FS_OK)
        return rc == 1 ? FS_OK : rc;
    uint64_t id;
    return fs_lines_values_add(S->vals, S->fc.val, vlen, &id);
}

static size_t strata_choose(void *arg, uint64_t i, const unsigned char *rec,
                            size_t len)
{
    split_ctx *S = arg;
    size_t vlen;
    uint64_t id;
    (void)i;
    if (field_of(&S->fc, S->fc.header, rec, len, &vlen) != FS_OK ||
        fs_lines_values_find(S->vals, S->fc.val, vlen, &id) != FS_OK)
        return 0; /* cannot happen: every value was counted on input */
    return fs_lines_split_part(fs_lines_values_count(S->vals, id),
                               S->seen[id]++, S->R->o.split_w, S->nparts,
                               S->scratch);
}

/* Part k's name: -o 'NAME-%d' (k + 1 in place of the first %d), or the
 * k-th of -o NAME,NAME,... */
static char *part_name(const char *o, size_t k, size_t nparts)
{
    char qb[512];
    const char *pct = strstr(o, "%d");
    char *name;
    if (pct) {
        size_t n = strlen(o) + 24;
        name = malloc(n);
        if (name)
            snprintf(name, n, "%.*s%zu%s", (int)(pct - o), o, k + 1,
                     pct + 2);
        return name;
    }
    const char *p = o;
    size_t commas = 0;
    for (const char *q = o; *q; q++)
        commas += *q == ',';
    if (commas + 1 != nparts) {
        cli_error("--split: -o %s names %zu outputs for %zu parts (or use "
                  "%%d in the name)", quoted(qb, sizeof qb, o), commas + 1, nparts);
        exit(CLI_USAGE);
    }
    for (size_t j = 0; j < k; j++)
        p = strchr(p, ',') + 1;
    const char *e = strchr(p, ',');
    return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

static int split_open(void *arg)
{
    split_ctx *S = arg;
    run *R = S->R;
    field_check(R, &S->fc); /* every record counted (or a damaged input) */
    fs_lines_part parts[64];
    uint64_t n = S->res.lines < R->o.head ? S->res.lines : R->o.head;
    uint64_t sizes[64];
    if (fs_lines_split_sizes(n, R->o.split_w, S->nparts, sizes) != FS_OK)
        cli_die(CLI_FAIL, "--split: %s", fs_strerror(FS_EINVAL));
    for (size_t k = 0; k < S->nparts; k++) {
        parts[k].fd = lines_out_open_file(&S->outs[k]);
        parts[k].codec = fs_lines_codec_of_name(S->outs[k].path);
        parts[k].records = sizes[k];
    }
    if (S->stratify) {
        S->seen = calloc(fs_lines_values_size(S->vals) + 1, sizeof *S->seen);
        if (S->seen == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
    }
    fs_lines_sink_config sc = {R->delim, R->o.csv, R->o.header, S->nparts,
                               parts, S->stratify ? strata_choose : NULL, S};
    int wfd;
    if (fs_lines_sink_open(&sc, &S->sink, &wfd) != FS_OK)
        cli_die(CLI_FAIL, "cannot start the output thread: %s",
                strerror(errno ? errno : ENOMEM));
    return wfd;
}

int run_split(run *R)
{
    split_ctx *S = calloc(1, sizeof *S);
    if (S == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    S->R = R;
    S->nparts = R->o.nsplit;
    S->outs = calloc(S->nparts, sizeof *S->outs);
    if (S->outs == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t k = 0; k < S->nparts; k++) {
        char *name = part_name(R->o.output, k, S->nparts);
        if (name == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        lines_out_init(&S->outs[k], name, R->delim);
    }
    if (R->o.stratify) {
        S->stratify = 1;
        field_init(R, &S->fc, "--stratify", R->o.stratify);
        if (fs_lines_values_new(&S->vals) != FS_OK)
            cli_die(CLI_FAIL, "memory exhausted");
        R->src_opts.record = strata_record;
        R->src_opts.record_arg = S;
        R->src_opts.why = &S->fc.whyp;
    }
    fs_lines_config c;
    keyed_config(R, &c);
    c.open_output = split_open;
    c.output_arg = S;
    int fd = open_input(R);
    int rc = fs_lines_shuffle(fd, &c, &S->res);
    if (rc != FS_OK) {
        field_check(R, &S->fc);
        engine_error(R, rc, &S->res);
    }
    lines_progress_end(R);
    close_input(R);
    int err = 0;
    if (fs_lines_sink_end(S->sink, &err, NULL) != FS_OK)
        cli_die(CLI_FAIL, "write error: %s", strerror(err ? err : ENOMEM));
    fs_lines_sink_free(S->sink);
    for (size_t k = 0; k < S->nparts; k++) {
        lines_out_commit(&S->outs[k]);
        free((char *)S->outs[k].path);
    }
    fs_lines_values_free(S->vals);
    free(S->seen);
    free(S->outs);
    free(S);
    return CLI_OK;
}

/* ----------------------------------------------------------- --weights */

typedef struct weights_ctx {
    run *R;
    field_ctx fc;
    fs_lines_wsample *ws;
    unsigned char *hdr;   /* the header records, written first */
    size_t hlen, hcap;
    char bad[600];
    const char *badp;
    int rc;
} weights_ctx;

static int keep_header(unsigned char **buf, size_t *len, size_t *cap,
                       const unsigned char *rec, size_t n)
{
    if (*len + n > *cap) {
        size_t nc = *cap ? *cap * 2 : 4096;
        while (nc < *len + n)
            nc *= 2;
        unsigned char *nb = realloc(*buf, nc);
        if (nb == NULL)
            return FS_ENOMEM;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, rec, n);
    *len += n;
    return FS_OK;
}

static int weights_record(void *arg, uint64_t i, const unsigned char *rec,
                          size_t len)
{
    weights_ctx *W = arg;
    size_t vlen;
    int rc = field_of(&W->fc, i, rec, len, &vlen);
    if (rc == 1)
        return keep_header(&W->hdr, &W->hlen, &W->hcap, rec, len);
    if (rc != FS_OK)
        return rc;
    char num[64];
    double w = NAN;
    if (vlen < sizeof num) {
        memcpy(num, W->fc.val, vlen);
        num[vlen] = '\0';
        char *end;
        w = strtod(num, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (end == num || *end != '\0')
            w = NAN;
    }
    rc = fs_lines_wsample_add(W->ws, i - W->fc.header, w, rec, len);
    if (rc == FS_EINVAL) {
        W->fc.whyp = W->bad;
        snprintf(W->bad, sizeof W->bad,
                 "--weights: record %llu: %.*s is not a weight (a number "
                 ">= 0)", (unsigned long long)(i + 1),
                 (int)(vlen < 200 ? vlen : 200), (const char *)W->fc.val);
    }
    W->rc = rc;
    return rc;
}

static int emit_out(void *arg, const unsigned char *p, size_t n)
{
    lines_out_put(arg, p, n);
    return FS_OK;
}

/* Reads every record through the source's hook (--weights, --group-by);
 * dies on a field problem (status 2), a bad value (bad: its message, or
 * NULL), the hook's temporary file or memory (*rc), or the input; then
 * opens the output with the header records kept by the hook. */
static void read_kept(run *R, const field_ctx *fc, const char *bad,
                      const int *rc, unsigned char *const *hdr,
                      const size_t *hlen)
{
    char qb[512];
    (void)open_input(R); /* the hook takes every record */
    int err;
    const char *why;
    if (fs_lines_source_end(R->src, &err, &why) != FS_OK) {
        if (why == fc->why) {
            cli_error("%s", why);
            exit(CLI_USAGE);
        }
        if (bad != NULL && why == bad)
            cli_die(CLI_FAIL, "%s", why);
        if (*rc == FS_EIO)
            cli_die(CLI_FAIL, "temporary file in %s: %s",
                    quoted(qb, sizeof qb, R->tmpdir), strerror(err));
        if (*rc == FS_ENOMEM)
            cli_die(CLI_FAIL, "memory exhausted (a smaller --memory=SIZE "
                    "keeps more on disk)");
        input_check(R);
    }
    close_input(R);
    lines_out_open(&R->out);
    if (*hlen)
        lines_out_put(&R->out, *hdr, *hlen);
}

/* Dies when writing the kept records (rc) failed on the temporary file. */
static void kept_written(run *R, int rc, int err)
{
    char qb[512];
    if (rc != FS_OK)
        cli_die(CLI_FAIL, "temporary file in %s: %s",
                quoted(qb, sizeof qb, R->tmpdir), strerror(err));
}

int run_weights(run *R)
{
    weights_ctx *W = calloc(1, sizeof *W);
    if (W == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    W->R = R;
    field_init(R, &W->fc, "--weights", R->o.weights);
    uint8_t key[32];
    make_key(R, key);
    if (fs_lines_wsample_new(&W->ws, key, R->o.head, (size_t)R->o.memory,
                             R->tmpdir) != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    R->src_opts.record = weights_record;
    R->src_opts.record_arg = W;
    R->src_opts.why = &W->fc.whyp;
    R->src_opts.no_pipe = 1;
    read_kept(R, &W->fc, W->bad, &W->rc, &W->hdr, &W->hlen);
    int err = 0;
    int rc = fs_lines_wsample_write(W->ws, emit_out, &R->out, &err);
    kept_written(R, rc, err);
    fs_lines_wsample_free(W->ws);
    free(W->hdr);
    free(W);
    return CLI_OK;
}

/* ---------------------------------------------------------- --group-by */

typedef struct group_ctx {
    field_ctx fc;
    fs_lines_groups *g;
    unsigned char *hdr;
    size_t hlen, hcap;
    int rc;
} group_ctx;

static int group_record(void *arg, uint64_t i, const unsigned char *rec,
                        size_t len)
{
    group_ctx *G = arg;
    size_t vlen;
    int rc = field_of(&G->fc, i, rec, len, &vlen);
    if (rc == 1)
        return keep_header(&G->hdr, &G->hlen, &G->hcap, rec, len);
    if (rc != FS_OK)
        return rc;
    return G->rc = fs_lines_groups_add(G->g, G->fc.val, vlen, rec, len);
}

int run_group(run *R)
{
    group_ctx *G = calloc(1, sizeof *G);
    if (G == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    field_init(R, &G->fc, "--group-by", R->o.group_by);
    uint8_t key[32];
    make_key(R, key);
    if (fs_lines_groups_new(&G->g, key, R->o.shuffle_within,
                            (size_t)R->o.memory, R->tmpdir) != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    R->src_opts.record = group_record;
    R->src_opts.record_arg = G;
    R->src_opts.why = &G->fc.whyp;
    R->src_opts.no_pipe = 1;
    read_kept(R, &G->fc, NULL, &G->rc, &G->hdr, &G->hlen);
    int err = 0;
    int rc = fs_lines_groups_write(G->g, emit_out, &R->out, &err);
    kept_written(R, rc, err);
    fs_lines_groups_free(G->g);
    free(G->hdr);
    free(G);
    return CLI_OK;
}
