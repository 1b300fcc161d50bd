/* perm_lazy.c -- `fairshuf perm N --lazy`, `--at=I`, `--inverse=J`,
 * `--range=A-B`: keyed random access, any N up to 2^64-1, streaming.  The
 * listing of a permutation is, by construction, the sequence of its --at
 * answers (docs/keyed.md). */
#include <string.h>

#include "cli.h"
#include "fairshuf/keyed.h"
#include "out.h"
#include "perm_lazy.h"

static uint64_t number(const char *what, const char *s)
{
    uint64_t v;
    int rc = cli_parse_u64(s, &v);
    if (rc != 0)
        cli_die(CLI_USAGE, "invalid %s: '%s'%s", what, s,
                rc == -2 ? ": value too large" : "");
    return v;
}

/* A position or item given on the command line, 1-based with --one-based,
 * checked against n. */
static uint64_t index_arg(const char *what, const char *s, uint64_t n,
                          int one_based)
{
    uint64_t v = number(what, s);
    if (one_based) {
        if (v == 0)
            cli_die(CLI_USAGE, "invalid %s: '%s': must be 1 to N", what, s);
        v--;
    }
    if (v >= n)
        cli_die(CLI_USAGE, "invalid %s: '%s': must be below N%s", what, s,
                one_based ? " + 1" : "");
    return v;
}

/* Positions first..last of p, space-separated, through the batch call
 * (the same values as fs_keyed_at, a chunk of positions at a time). */
static void list_range(out_buf *out, const fs_keyed *p, uint64_t first,
                       uint64_t last, uint64_t base)
{
    enum { CHUNK = 4096 };
    uint64_t pos[CHUNK];
    fs_keyed_batch *b;
    cli_check(fs_keyed_batch_new(&b, p, last - first + 1), "lazy permutation");
    for (uint64_t i = first;;) {
        size_t m = last - i < CHUNK - 1 ? (size_t)(last - i) + 1 : CHUNK;
        for (size_t k = 0; k < m; k++)
            pos[k] = i + k;
        fs_keyed_batch_at(b, pos, pos, m);
        for (size_t k = 0; k < m; k++) {
            if (i + k != first)
                out_byte(out, ' ');
            out_u64(out, pos[k] + base);
        }
        if (last - i < m)
            break;
        i += m;
    }
    fs_keyed_batch_free(b);
}

int perm_lazy_run(const perm_lazy_opts *o, const char *n_text, uint64_t count,
                  const char *seed, int one_based)
{
    int modes = (o->at != NULL) + (o->inverse != NULL) + (o->range != NULL);
    if (modes > 1)
        cli_die(CLI_USAGE, "--at, --inverse and --range exclude each other");
    uint64_t n = number("size", n_text);
    if (n == 0)
        cli_die(CLI_USAGE, "invalid size: '0': --lazy needs N >= 1");
    uint64_t first = 0, last = n - 1;
    if (o->range) {
        const char *dash = strchr(o->range, '-');
        char a[32];
        size_t len = dash ? (size_t)(dash - o->range) : 0;
        if (dash == NULL || len == 0 || len >= sizeof a)
            cli_die(CLI_USAGE, "invalid range: '%s': expected A-B", o->range);
        memcpy(a, o->range, len);
        a[len] = '\0';
        first = index_arg("range start", a, n, one_based);
        last = index_arg("range end", dash + 1, n, one_based);
        if (first > last)
            cli_die(CLI_USAGE, "invalid range: '%s': start after end",
                    o->range);
    }
    uint64_t at = o->at ? index_arg("position", o->at, n, one_based) : 0;
    uint64_t inv = o->inverse ? index_arg("item", o->inverse, n, one_based) : 0;

    char os_seed[65];
    if (seed == NULL) {
        uint8_t key[32];
        cli_check(fs_os_random(key, sizeof key), "seeding");
        fs_hex_encode(key, sizeof key, os_seed);
        seed = os_seed;
    }
    uint64_t base = one_based ? 1 : 0;
    out_buf out;
    out_init(&out, stdout);
    for (uint64_t k = 0; k < count; k++) {
        fs_keyed p;
        cli_check(fs_keyed_from_seed(&p, n, seed, k), "seed");
        if (o->at)
            out_u64(&out, fs_keyed_at(&p, at) + base);
        else if (o->inverse)
            out_u64(&out, fs_keyed_inverse(&p, inv) + base);
        else
            list_range(&out, &p, first, last, base);
        out_byte(&out, '\n');
        fs_keyed_wipe(&p);
    }
    out_flush(&out);
    return CLI_OK;
}
