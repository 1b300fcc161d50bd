/* lines_data.c -- the data modes of `fairshuf lines`: --split (with
 * --stratify), --weights, --group-by.  The algorithms are the library's
 * (fairshuf/lines.h); this file wires the input, fields and outputs. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    unsigned char *hdr;   /* -n 0: the header records */
    size_t hlen, hcap;
    int rc;
} split_ctx;

static int split_empty(split_ctx *S);

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

/* name as a path that another spelling of the same file also gives: the
 * file's real path, or (a new file) its folder's real path and its base
 * name.  NULL when the folder cannot be resolved either. */
static char *canon(const char *name)
{
    char *r = realpath(name, NULL);
    if (r != NULL || errno != ENOENT)
        return r;
    char *d = strdup(name), *b = strdup(name);
    char *rd = d && b ? realpath(dirname(d), NULL) : NULL;
    if (rd != NULL) {
        const char *base = basename(b);
        size_t n = strlen(rd) + strlen(base) + 2;
        r = malloc(n);
        if (r)
            snprintf(r, n, "%s/%s", rd, base);
    }
    free(rd);
    free(d);
    free(b);
    return r;
}

/* Dies (usage error) when two parts would be the same file (the second
 * would replace the first: half the records lost) or a part is the input
 * (replaced before the run ends).  Same file: the same real path, or the
 * same device and inode (a hard link). */
static void check_outputs(const run *R, const lines_out *outs, size_t n)
{
    char qb[512];
    struct stat in, st[64];
    int have_in = R->o.noperands > 0 && strcmp(R->o.operands[0], "-") != 0
                      ? stat(R->o.operands[0], &in) == 0
                      : fstat(0, &in) == 0;
    char *c[64];
    for (size_t k = 0; k < n; k++) {
        const char *name = outs[k].path;
        int have = stat(name, &st[k]) == 0;
        c[k] = canon(name);
        if (have && have_in && S_ISREG(in.st_mode) &&
            st[k].st_dev == in.st_dev && st[k].st_ino == in.st_ino) {
            cli_error("--split: output %s is the input",
                      quoted(qb, sizeof qb, name));
            exit(CLI_USAGE);
        }
        for (size_t j = 0; j < k; j++) {
            int same = c[j] && c[k] ? strcmp(c[j], c[k]) == 0
                                    : strcmp(outs[j].path, name) == 0;
            if (!same && have && stat(outs[j].path, &st[j]) == 0)
                same = st[j].st_dev == st[k].st_dev &&
                       st[j].st_ino == st[k].st_ino;
            if (same && !(have && S_ISCHR(st[k].st_mode))) { /* /dev/null */
                cli_error("--split: parts %zu and %zu are the same file %s",
                          j + 1, k + 1, quoted(qb, sizeof qb, name));
                exit(CLI_USAGE);
            }
        }
    }
    for (size_t k = 0; k < n; k++)
        free(c[k]);
}

/* The parts' outputs, checked (check_outputs); csv: framed records. */
static lines_out *parts_init(run *R, size_t nparts)
{
    lines_out *outs = calloc(nparts, sizeof *outs);
    if (outs == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t k = 0; k < nparts; k++) {
        char *name = part_name(R->o.output, k, nparts);
        if (name == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        lines_out_init(&outs[k], name, R->delim);
        outs[k].csv = R->o.csv;
    }
    check_outputs(R, outs, nparts);
    return outs;
}

static void parts_commit(lines_out *outs, size_t nparts)
{
    for (size_t k = 0; k < nparts; k++) {
        lines_out_commit(&outs[k]);
        free((char *)outs[k].path);
    }
    free(outs);
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
    S->fc.whyp = S->fc.why;
    if (R->o.stratify) {
        S->stratify = 1;
        field_init(R, &S->fc, "--stratify", R->o.stratify);
        if (fs_lines_values_new(&S->vals) != FS_OK)
            cli_die(CLI_FAIL, "memory exhausted");
        R->src_opts.record = strata_record;
        R->src_opts.record_arg = S;
        R->src_opts.why = &S->fc.whyp;
    }
    S->outs = parts_init(R, S->nparts);
    if (R->o.head == 0)
        return split_empty(S);
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
    parts_commit(S->outs, S->nparts);
    fs_lines_values_free(S->vals);
    free(S->seen);
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

/* A weight as docs/lines.md ("--weights") defines it: blanks (space,
 * tab; a CR at the end too), an optional '+', decimal digits with an
 * optional point and fraction (at least one digit), an optional exponent
 * e[+-]digits, blanks.  No '-', hex, inf or nan: strtod alone took
 * "0x10" and " 1". */
static int weight_syntax(const char *p)
{
    int digits = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '+')
        p++;
    for (; *p >= '0' && *p <= '9'; p++)
        digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (digits == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return *p == '\0';
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
        if (weight_syntax(num))
            w = strtod(num, NULL);
    }
    rc = fs_lines_wsample_add(W->ws, i - W->fc.header, w, rec, len);
    if (rc == FS_EINVAL) {
        W->fc.whyp = W->bad;
        snprintf(W->bad, sizeof W->bad,
                 "--weights: record %llu: %.*s is not a weight (a decimal "
                 "number >= 0)", (unsigned long long)(i + 1),
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
static void read_records(run *R, const field_ctx *fc, const char *bad,
                         const int *rc)
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
}

static void read_kept(run *R, const field_ctx *fc, const char *bad,
                      const int *rc, unsigned char *const *hdr,
                      const size_t *hlen)
{
    read_records(R, fc, bad, rc);
    lines_out_open(&R->out);
    if (*hlen)
        lines_out_put(&R->out, *hdr, *hlen);
}

/* ----------------------------------------------------- --split -n 0 */

static int empty_record(void *arg, uint64_t i, const unsigned char *rec,
                        size_t len)
{
    split_ctx *S = arg;
    if (S->stratify) {
        int rc = strata_record(S, i, rec, len);
        if (rc != FS_OK)
            return rc;
    }
    if (i < S->R->o.header)
        return S->rc = keep_header(&S->hdr, &S->hlen, &S->hcap, rec, len);
    return FS_OK;
}

/* --split -n 0: the input is read and checked as in a full run (fields,
 * CSV, a damaged stream); each part gets the header records only. */
static int split_empty(split_ctx *S)
{
    run *R = S->R;
    R->src_opts.record = empty_record;
    R->src_opts.record_arg = S;
    R->src_opts.why = &S->fc.whyp;
    R->src_opts.no_pipe = 1;
    read_records(R, &S->fc, NULL, &S->rc);
    for (size_t k = 0; k < S->nparts; k++) {
        lines_out_open(&S->outs[k]);
        if (S->hlen)
            lines_out_put(&S->outs[k], S->hdr, S->hlen);
    }
    parts_commit(S->outs, S->nparts);
    fs_lines_values_free(S->vals);
    free(S->hdr);
    free(S);
    return CLI_OK;
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

/* -n K: the first K records of the grouped order, then stop. */
typedef struct group_out {
    lines_out *outs;     /* one per part (R->out alone without --split) */
    uint64_t left;
} group_out;

#define GROUP_DONE 1 /* not an FS_ code: the head is written */

static int group_emit(void *arg, size_t part, const unsigned char *p,
                      size_t n)
{
    group_out *o = arg;
    if (o->left == 0)
        return GROUP_DONE;
    o->left--;
    lines_out_put(&o->outs[part], p, n);
    return FS_OK;
}

static int group_emit1(void *arg, const unsigned char *p, size_t n)
{
    return group_emit(arg, 0, p, n);
}

int run_group(run *R)
{
    group_ctx *G = calloc(1, sizeof *G);
    if (G == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    field_init(R, &G->fc, "--group-by", R->o.group_by);
    lines_out *parts = R->o.split ? parts_init(R, R->o.nsplit) : NULL;
    uint8_t key[32];
    make_key(R, key);
    if (fs_lines_groups_new(&G->g, key, R->o.shuffle_within,
                            (size_t)R->o.memory, R->tmpdir) != FS_OK)
        cli_die(CLI_FAIL, "memory exhausted");
    R->src_opts.record = group_record;
    R->src_opts.record_arg = G;
    R->src_opts.why = &G->fc.whyp;
    R->src_opts.no_pipe = 1;
    int err = 0, rc;
    if (parts == NULL) {
        read_kept(R, &G->fc, NULL, &G->rc, &G->hdr, &G->hlen);
        group_out o = {&R->out, R->o.head};
        rc = fs_lines_groups_write(G->g, group_emit1, &o, &err);
    } else { /* every part: the header, then its whole groups */
        read_records(R, &G->fc, NULL, &G->rc);
        for (size_t k = 0; k < R->o.nsplit; k++) {
            lines_out_open(&parts[k]);
            if (G->hlen)
                lines_out_put(&parts[k], G->hdr, G->hlen);
        }
        group_out o = {parts, UINT64_MAX};
        rc = fs_lines_groups_write_parts(G->g, R->o.split_w, R->o.nsplit,
                                         group_emit, &o, &err);
    }
    kept_written(R, rc == GROUP_DONE ? FS_OK : rc, err);
    if (parts)
        parts_commit(parts, R->o.nsplit);
    fs_lines_groups_free(G->g);
    free(G->hdr);
    free(G);
    return CLI_OK;
}
