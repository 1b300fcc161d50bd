/* verify_input.c -- `fairshuf verify --input`: permutations from any
 * program, one per line, numbers separated by spaces, tabs or commas.
 * The first line fixes n and the base: it holds 0 (0-based) or n
 * (1-based).  Every line after must be a permutation in the same base;
 * the first one that is not stops the run with its line number. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "verify.h"

/* realloc or die (never returns NULL). */
static void *grow(void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    if (q == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    return q;
}

/* Splits line into numbers; returns their count, or -1 with *bad set to
 * the offending token. */
static long parse_line(char *line, uint64_t **vals, size_t *cap,
                       const char **bad)
{
    long k = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r')
            p++;
        if (*p == '\0' || *p == '\n')
            return k;
        char *start = p;
        while (*p && !strchr(" \t,\r\n", *p))
            p++;
        char save = *p;
        *p = '\0';
        uint64_t v;
        if (cli_parse_u64(start, &v) != 0) {
            *bad = start;
            return -1;
        }
        *p = save;
        if ((size_t)k == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *vals = grow(*vals, *cap * sizeof **vals);
        }
        (*vals)[k++] = v;
    }
}

typedef struct reader {
    const char *name;
    vrun *r;
    long n;          /* -1 until known */
    uint64_t base;
    uint32_t *perm;
} reader;

/* Fixes n and the base from the first permutation. */
static void start(reader *rd, const uint64_t *v, long k,
                  unsigned long long lineno)
{
    if (k < 2)
        cli_die(CLI_FAIL, "%s:%llu: need at least 2 numbers per permutation",
                rd->name, lineno);
    if (k > 100000)
        cli_die(CLI_FAIL, "%s:%llu: more than 100000 numbers", rd->name,
                lineno);
    int zero = 0, top = 0;
    for (long i = 0; i < k; i++) {
        zero |= v[i] == 0;
        top |= v[i] == (uint64_t)k;
    }
    if (zero == top)
        cli_die(CLI_FAIL, "%s:%llu: not a permutation of 0..%ld or 1..%ld",
                rd->name, lineno, k - 1, k);
    rd->n = k;
    rd->base = zero ? 0 : 1;
    rd->r->n = (unsigned)k;
    cli_check(fs_tally_new(&rd->r->tally, rd->r->n, rd->r->tests, 0),
              "tally");
    rd->perm = malloc((size_t)k * sizeof *rd->perm);
    if (rd->perm == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
}

static void accept(reader *rd, const uint64_t *v, long k,
                   unsigned long long lineno)
{
    if (rd->n < 0)
        start(rd, v, k, lineno);
    if (k != rd->n)
        cli_die(CLI_FAIL, "%s:%llu: %ld numbers, expected %ld", rd->name,
                lineno, k, rd->n);
    for (long i = 0; i < k; i++) {
        if (v[i] < rd->base || v[i] - rd->base >= (uint64_t)k)
            cli_die(CLI_FAIL, "%s:%llu: %llu is out of range %llu..%llu",
                    rd->name, lineno, (unsigned long long)v[i],
                    (unsigned long long)rd->base,
                    (unsigned long long)(rd->base + (uint64_t)k - 1));
        rd->perm[i] = (uint32_t)(v[i] - rd->base);
    }
    if (verify_add(rd->r, rd->perm) != FS_OK)
        cli_die(CLI_FAIL, "%s:%llu: not a permutation (a number repeats)",
                rd->name, lineno);
}

void verify_read_input(vrun *r, const char *path, unsigned group)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    if (f == NULL)
        cli_die(CLI_FAIL, "%s: %s", path, strerror(errno));
    reader rd = {is_stdin ? "-" : path, r, -1, 0, NULL};
    snprintf(r->label, sizeof r->label, "%s", is_stdin ? "(stdin)" : path);
    char *line = NULL;
    size_t len = 0, cap = 0, gcap = 0;
    uint64_t *vals = NULL, *g = NULL;
    long glen = 0;
    int column = -1; /* one number per line (GNU shuf -e output)? */
    unsigned long long lineno = 0;
    ssize_t got;
    while ((got = getline(&line, &len, f)) != -1) {
        lineno++;
        if ((size_t)got != strlen(line))
            cli_die(CLI_FAIL, "%s:%llu: NUL byte in line", rd.name, lineno);
        const char *bad = NULL;
        long k = parse_line(line, &vals, &cap, &bad);
        if (k < 0) {
            char tok[32];
            snprintf(tok, sizeof tok, "%.*s", (int)strcspn(bad, " \t,\r\n"),
                     bad);
            cli_die(CLI_FAIL, "%s:%llu: not a number: '%s'", rd.name, lineno,
                    tok);
        }
        if (k == 0)
            continue; /* blank line */
        if (column < 0)
            column = k == 1;
        if (!column) {
            if (group && rd.n < 0 && k != (long)group)
                cli_die(CLI_FAIL, "%s:%llu: %ld numbers, but --n=%u", rd.name,
                        lineno, k, group);
            accept(&rd, vals, k, lineno);
            continue;
        }
        if (k != 1)
            cli_die(CLI_FAIL,
                    "%s:%llu: %ld numbers, expected one per line (the "
                    "input started with one number per line)",
                    rd.name, lineno, k);
        /* Column mode: permutations are runs of n lines.  Unless --n gave
         * it, n is where the first value repeats. */
        if (rd.n < 0 && group == 0)
            for (long i = 0; i < glen; i++)
                if (g[i] == vals[0]) {
                    accept(&rd, g, glen, lineno - 1);
                    glen = 0;
                    break;
                }
        if ((size_t)glen == gcap) {
            gcap = gcap ? gcap * 2 : 64;
            g = grow(g, gcap * sizeof *g);
        }
        g[glen++] = vals[0];
        long want = rd.n >= 0 ? rd.n : (long)group;
        if (want > 0 && glen == want) {
            accept(&rd, g, glen, lineno);
            glen = 0;
        }
    }
    if (ferror(f))
        cli_die(CLI_FAIL, "%s: read error: %s", rd.name, strerror(errno));
    if (column == 1 && rd.n < 0 && glen > 0 && group == 0) {
        accept(&rd, g, glen, lineno); /* a single permutation */
        glen = 0;
    }
    if (glen > 0)
        cli_die(CLI_FAIL,
                "%s:%llu: input ends inside a permutation (%ld of %ld "
                "numbers)",
                rd.name, lineno, glen, rd.n >= 0 ? rd.n : (long)group);
    if (rd.n < 0)
        cli_die(CLI_FAIL, "%s: no permutations in the input", rd.name);
    r->trials = fs_tally_trials(r->tally);
    if (!is_stdin)
        fclose(f);
    free(line);
    free(vals);
    free(g);
    free(rd.perm);
}
