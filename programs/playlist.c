/* playlist.c -- `fairshuf playlist FILE`: shuffle play.  Prints K cycles
 * of the play order, or steps a persistent player kept in a state file
 * (next, prev, current, seek=I).  The order is the library's
 * (<fairshuf/playlist.h>); docs/playlist.md says what happens when FILE
 * changes. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fairshuf/weighted.h"
#include "out.h"
#include "playlist.h"

static const char usage_text[] =
    "Usage: fairshuf playlist [OPTION]... FILE [next|prev|current|seek=I]\n"
    "Shuffle play: print FILE's items in shuffled order, every item once per\n"
    "cycle, or step a player whose state is kept in a file.  FILE is a list\n"
    "with one item per line, an M3U/M3U8 playlist (#EXTINF lines travel with\n"
    "their entry), or a TSV file whose first line names the fields.\n"
    "\n"
    "  -s, --seed=S         reproducible order (without it: a key from the OS)\n"
    "  -c, --cycles=K       print K cycles (default 1); no item of the last w\n"
    "                       of a cycle is among the first w of the next\n"
    "  -w, --window=W       that w (default min(N/4, 10); at most N/3, 64)\n"
    "      --state=STATE    keep a player in the file STATE and do one step:\n"
    "                       next, prev, current or seek=I (position I of the\n"
    "                       current cycle, from 0); prints the item\n"
    "      --format=F       plain, m3u or tsv (default: by name and content)\n"
    "      --spread=FIELD   TSV: spread items sharing FIELD (e.g. artist) apart;\n"
    "                       deliberately not a uniform shuffle\n"
    "      --weights=FIELD  TSV: weighted order instead, item i first with\n"
    "                       probability w_i / sum w (Efraimidis-Spirakis)\n"
    "      --help           display this help and exit\n"
    "      --version        output version information and exit\n"
    "\n"
    "The state is replaced atomically.  Successive 'next' steps from a new\n"
    "state print the order --cycles prints; 'prev' walks back through it.\n"
    "If FILE changes mid-cycle, items already played are not played again in\n"
    "that cycle; added items come later in it, removed ones are skipped.\n"
    "Examples:\n"
    "  fairshuf playlist songs.m3u --seed=party --cycles=2\n"
    "  fairshuf playlist songs.m3u --state=~/.shuffle next\n";

static void print_entry(out_buf *o, const pl_list *l, uint64_t i)
{
    const pl_entry *e = &l->entry[i];
    out_bytes(o, l->text + e->start, e->end - e->start);
    out_byte(o, '\n');
}

static void new_player(fs_playlist *pl, const pl_list *l, const char *seed,
                       uint32_t window)
{
    char os_seed[65];
    if (seed == NULL) {
        uint8_t key[32];
        cli_check(fs_os_random(key, sizeof key), "seeding");
        fs_hex_encode(key, sizeof key, os_seed);
        sodium_memzero(key, sizeof key);
        seed = os_seed;
    }
    cli_check(fs_playlist_from_seed(pl, l->n, seed, window), "seed");
    memcpy(pl->fingerprint, l->fingerprint, 32);
}

/* The ids of the list's items (fs_playlist_item_id() of each item's line,
 * the k-th item with the same line getting occurrence k). */
typedef struct idx {
    uint64_t id, index;
} idx;

static int by_id(const void *x, const void *y)
{
    const idx *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The item's own line: the last line of its entry (M3U: the path after
 * its comments; TSV: the row; plain: the line). */
static void item_line(const pl_list *l, size_t i, const char **p, size_t *len)
{
    const pl_entry *e = &l->entry[i];
    size_t b = e->start, en = e->end;
    for (size_t k = en; k > b; k--)
        if (l->text[k - 1] == '\n') {
            b = k;
            break;
        }
    *p = l->text + b;
    *len = en - b;
}

typedef struct player {
    fs_playlist pl;
    pl_record r;
    const pl_list *l;
    uint64_t *ids;   /* ids[i]: item i of the list */
    idx *sorted;     /* (id, i) sorted by id, to find an item by its id */
    uint64_t *rest;  /* frozen cycle: fs_playlist_rest() */
    size_t nrest;
} player;

static void list_ids(player *p)
{
    const pl_list *l = p->l;
    size_t n = l->n;
    p->ids = malloc(n * sizeof *p->ids);
    p->sorted = malloc(n * sizeof *p->sorted);
    if (p->ids == NULL || p->sorted == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t i = 0; i < n; i++) {
        const char *t;
        size_t len;
        item_line(l, i, &t, &len);
        cli_check(fs_playlist_item_id(&p->pl, t, len, 0, &p->sorted[i].id),
                  "state");
        p->sorted[i].index = i;
    }
    qsort(p->sorted, n, sizeof *p->sorted, by_id);
    uint64_t occ = 0;
    for (size_t k = 0; k < n; k++) {
        occ = k > 0 && p->sorted[k].id == p->sorted[k - 1].id ? occ + 1 : 0;
        size_t i = p->sorted[k].index;
        if (occ == 0) {
            p->ids[i] = p->sorted[k].id;
        } else {
            const char *t;
            size_t len;
            item_line(l, i, &t, &len);
            cli_check(fs_playlist_item_id(&p->pl, t, len, occ, &p->ids[i]),
                      "state");
        }
    }
    for (size_t i = 0; i < n; i++) {
        p->sorted[i].id = p->ids[i];
        p->sorted[i].index = i;
    }
    qsort(p->sorted, n, sizeof *p->sorted, by_id);
}

/* The list's index of an id, or -1: the item was removed. */
static int64_t find_id(const player *p, uint64_t id)
{
    size_t lo = 0, hi = p->l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->sorted[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->l->n && p->sorted[lo].id == id
               ? (int64_t)p->sorted[lo].index
               : -1;
}

/* Length of the current cycle. */
static uint64_t cycle_len(const player *p)
{
    return p->r.frozen ? p->r.frozen + p->nrest : p->pl.n;
}

/* Position k of the current cycle: the list index, or -1 if removed. */
static int64_t order_at(const player *p, uint64_t k)
{
    if (p->r.frozen == 0) {
        uint64_t item;
        cli_check(fs_playlist_item_at(&p->pl, p->r.cycle, k, &item), "state");
        return (int64_t)item;
    }
    if (k < p->r.frozen)
        return find_id(p, p->r.id[k]);
    return (int64_t)p->rest[k - p->r.frozen];
}

static uint64_t order_id(const player *p, uint64_t k)
{
    if (p->r.frozen && k < p->r.frozen)
        return p->r.id[k];
    return p->ids[order_at(p, k)];
}

/* Normal cycle: the cycle and position from the step; a record of another
 * cycle is dropped. */
static void sync_step(player *p)
{
    uint64_t c, pos;
    fs_playlist_position(&p->pl, &c, &pos);
    if (c != p->r.cycle)
        p->r.len = 0;
    p->r.cycle = c;
    p->r.at = p->pl.step ? pos + 1 : 0;
}

static void compute_rest(player *p)
{
    free(p->rest);
    p->rest = malloc((p->l->n ? p->l->n : 1) * sizeof *p->rest);
    if (p->rest == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_check(fs_playlist_rest(&p->pl, p->r.cycle, p->r.id, p->r.frozen,
                               p->ids, p->l->n, p->rest, &p->nrest),
              "state");
}

/* FILE changed since the state was saved: the positions of this cycle the
 * player has passed stay as they were (by identity); the rest of the cycle
 * is the new list's items not among them, in a keyed order. */
static void list_changed(player *p, const char *path)
{
    uint32_t window = p->pl.window;
    if (window == (p->pl.n / 4 < 10 ? p->pl.n / 4 : 10))
        window = FS_PLAYLIST_WINDOW_DEFAULT;
    uint8_t key[32];
    memcpy(key, p->pl.key, 32);
    cli_check(fs_playlist_init(&p->pl, p->l->n, key, window), "state");
    sodium_memzero(key, sizeof key);
    memcpy(p->pl.fingerprint, p->l->fingerprint, 32);
    free(p->ids);
    free(p->sorted);
    list_ids(p);
    if (p->r.len == 0) { /* nothing passed yet: a normal start */
        p->pl.step = p->r.cycle * p->pl.n;
        p->r.frozen = 0;
    } else {
        p->r.frozen = p->r.len;
        p->r.base = p->r.cycle;
        compute_rest(p);
    }
    cli_error("%s: the list changed: %llu items, the rest of this cycle "
              "plays those not played yet", path,
              (unsigned long long)p->l->n);
}

/* Old behaviour, for a state without a record (made by an older
 * fairshuf): start over on the new list with a key derived from the old
 * one and the new list. */
static void start_over(player *p, const char *path)
{
    uint8_t key[32];
    crypto_auth_hmacsha256(key, p->l->fingerprint, 32, p->pl.key);
    uint32_t window = p->pl.window;
    if (window == (p->pl.n / 4 < 10 ? p->pl.n / 4 : 10))
        window = FS_PLAYLIST_WINDOW_DEFAULT;
    cli_check(fs_playlist_init(&p->pl, p->l->n, key, window), "state");
    memcpy(p->pl.fingerprint, p->l->fingerprint, 32);
    sodium_memzero(key, sizeof key);
    cli_error("%s: the list changed: starting over on its %llu items", path,
              (unsigned long long)p->l->n);
}

static int64_t do_next(player *p)
{
    if (p->r.frozen) {
        uint64_t len = cycle_len(p);
        for (uint64_t k = p->r.at; k < len; k++) {
            int64_t item = order_at(p, k);
            if (item >= 0) {
                p->r.at = k + 1;
                return item;
            }
        }
        /* The changed cycle is over: cycle c+1 of the list, normally. */
        uint64_t c = p->r.cycle;
        if (c + 1 > UINT64_MAX / p->pl.n)
            cli_check(FS_ERANGE, "next");
        p->pl.step = (c + 1) * p->pl.n;
        p->r.frozen = 0;
        p->r.len = 0;
        p->r.base = c + 1;
    }
    uint64_t item;
    cli_check(fs_playlist_next(&p->pl, &item), "next");
    sync_step(p);
    return (int64_t)item;
}

static int64_t do_prev(player *p)
{
    if (p->r.frozen) {
        for (uint64_t k = p->r.at > 1 ? p->r.at - 1 : 0; k > 0; k--) {
            int64_t item = order_at(p, k - 1);
            if (item >= 0) {
                p->r.at = k;
                return item;
            }
        }
        cli_die(CLI_FAIL, "prev: nothing was played before this item");
    }
    uint64_t item;
    if (p->r.at <= 1 && p->r.cycle <= p->r.base && p->pl.step > 1)
        cli_die(CLI_FAIL, "prev: nothing was played before this item on "
                          "this list (it changed in the cycle before)");
    if (fs_playlist_prev(&p->pl, &item) == FS_ERANGE)
        cli_die(CLI_FAIL, "prev: nothing was played before this item");
    sync_step(p);
    return (int64_t)item;
}

static int step(const char *state, const char *action, const pl_list *l,
                const char *file, const char *seed, uint32_t window)
{
    player p;
    memset(&p, 0, sizeof p);
    p.l = l;
    int fresh = pl_state_load(state, &p.pl, &p.r);
    int changed = 0;
    if (fresh) {
        new_player(&p.pl, l, seed, window);
    } else {
        if (seed) {
            uint8_t key[32];
            cli_check(fs_seed_to_key(seed, key), "seed");
            if (memcmp(key, p.pl.key, 32) != 0)
                cli_die(CLI_FAIL, "%s: the state was made with another seed",
                        state);
        }
        changed = p.pl.n != l->n ||
                  memcmp(p.pl.fingerprint, l->fingerprint, 32) != 0;
    }
    if (!p.r.present) { /* a new state, or one from an older fairshuf */
        if (changed)
            start_over(&p, file);
        changed = 0;
        p.r.present = 1;
        p.r.cycle = UINT64_MAX; /* sync_step() drops the record */
        sync_step(&p);
    }
    if (changed) {
        list_changed(&p, file);
    } else {
        list_ids(&p);
        if (p.r.frozen)
            compute_rest(&p);
        else
            sync_step(&p);
    }
    if (p.r.at > cycle_len(&p))
        cli_die(CLI_FAIL, "%s: not a fairshuf playlist state", state);
    int64_t item = -1;
    if (strcmp(action, "next") == 0) {
        item = do_next(&p);
    } else if (strcmp(action, "prev") == 0) {
        item = do_prev(&p);
    } else if (strcmp(action, "current") == 0) {
        if (p.r.at == 0)
            cli_die(CLI_FAIL, "current: nothing played yet");
        item = order_at(&p, p.r.at - 1);
        if (item < 0)
            cli_die(CLI_FAIL, "current: the item was removed from the list");
    } else if (strncmp(action, "seek=", 5) == 0) {
        uint64_t pos, len = cycle_len(&p);
        if (cli_parse_u64(action + 5, &pos) != 0 || pos >= len)
            cli_die(CLI_USAGE, "invalid position: '%s': must be 0 to %llu",
                    action + 5, (unsigned long long)(len - 1));
        if (p.r.frozen) {
            item = order_at(&p, pos);
            if (item < 0)
                cli_die(CLI_FAIL, "seek: the item at %llu was removed from "
                        "the list", (unsigned long long)pos);
            p.r.at = pos + 1;
        } else {
            uint64_t it;
            cli_check(fs_playlist_seek(&p.pl, pos, &it), action);
            sync_step(&p);
            item = (int64_t)it;
        }
    } else {
        cli_error("invalid action '%s': expected next, prev, current or "
                  "seek=I", action);
        cli_try_help("playlist", CLI_USAGE);
    }
    while (p.r.len < p.r.at) /* the positions passed, by identity */
        pl_record_push(&p.r, order_id(&p, p.r.len));
    pl_state_save(state, &p.pl, &p.r);
    out_buf *o = malloc(sizeof *o);
    if (o == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    out_init(o, stdout);
    print_entry(o, l, (uint64_t)item);
    out_flush(o);
    free(o);
    pl_record_free(&p.r);
    free(p.ids);
    free(p.sorted);
    free(p.rest);
    return CLI_OK;
}

/* The index of a TSV list's field, or dies: --OPT needs it. */
static int tsv_field(const pl_list *l, const char *file, const char *opt,
                     const char *field)
{
    if (l->format != PL_TSV)
        cli_die(CLI_USAGE, "--%s needs a TSV list with a header line", opt);
    int f = pl_field_index(l, field);
    if (f < 0)
        cli_die(CLI_FAIL, "%s: no field '%s' in the header", file, field);
    return f;
}

/* The weights in field f of a TSV list, or dies naming the line. */
static double *read_weights(const pl_list *l, const char *file, int f,
                            const char *field)
{
    double *w = malloc(l->n * sizeof *w);
    if (w == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t i = 0; i < l->n; i++) {
        size_t b, e;
        pl_field(l, i, f, &b, &e);
        char text[64];
        if (b == e)
            cli_die(CLI_FAIL, "%s:%zu: missing weight '%s'", file,
                    l->entry[i].line, field);
        size_t len = e - b < sizeof text - 1 ? e - b : sizeof text - 1;
        memcpy(text, l->text + b, len);
        text[len] = '\0';
        char *end;
        errno = 0;
        w[i] = strtod(text, &end);
        if (end == text || *end != '\0' || e - b >= sizeof text ||
            !isfinite(w[i]) || !(w[i] > 0))
            cli_die(CLI_FAIL, "%s:%zu: invalid weight '%s': must be a "
                    "positive number", file, l->entry[i].line, text);
    }
    return w;
}

typedef struct field_ref {
    const char *text;
    size_t b, e, i;
} field_ref;

static int by_text(const void *x, const void *y)
{
    const field_ref *a = x, *b = y;
    size_t la = a->e - a->b, lb = b->e - b->b;
    int c = memcmp(a->text + a->b, b->text + b->b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* Group ids by the value of field f (rows without it form one group). */
static uint64_t *read_groups(const pl_list *l, int f)
{
    field_ref *r = malloc(l->n * sizeof *r);
    uint64_t *g = malloc(l->n * sizeof *g);
    if (r == NULL || g == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t i = 0; i < l->n; i++) {
        r[i].text = l->text;
        r[i].i = i;
        pl_field(l, i, f, &r[i].b, &r[i].e);
    }
    qsort(r, l->n, sizeof *r, by_text);
    uint64_t id = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0 && by_text(&r[i], &r[i - 1]) != 0)
            id++;
        g[r[i].i] = id;
    }
    free(r);
    return g;
}

/* K orders by a field: weighted (weights = 1) or spread (weights = 0),
 * drawn from the seed's ChaCha20 stream. */
static int field_orders(const pl_list *l, const char *file, int weights,
                        const char *field, const char *seed, uint64_t cycles)
{
    int f = tsv_field(l, file, weights ? "weights" : "spread", field);
    double *w = weights ? read_weights(l, file, f, field) : NULL;
    uint64_t *g = weights ? NULL : read_groups(l, f);
    uint64_t *order = malloc(l->n * sizeof *order);
    out_buf *o = malloc(sizeof *o);
    if (order == NULL || o == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    fs_rng *rng = cli_rng(NULL, seed);
    out_init(o, stdout);
    out_bytes(o, l->text, l->header_end);
    for (uint64_t k = 0; k < cycles; k++) {
        cli_check(w ? fs_weighted_order(w, l->n, order, NULL, rng)
                    : fs_spread_order(g, l->n, order, rng),
                  weights ? "weights" : "spread");
        for (size_t i = 0; i < l->n; i++)
            print_entry(o, l, order[i]);
    }
    out_flush(o);
    fs_rng_free(rng);
    free(o);
    free(order);
    free(w);
    free(g);
    return CLI_OK;
}

int cmd_playlist(int argc, char **argv)
{
    static const struct option opts[] = {
        {"seed", required_argument, NULL, 's'},
        {"cycles", required_argument, NULL, 'c'},
        {"window", required_argument, NULL, 'w'},
        {"state", required_argument, NULL, 'S'},
        {"format", required_argument, NULL, 'f'},
        {"weights", required_argument, NULL, 'W'},
        {"spread", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *seed = NULL, *state = NULL, *format = NULL, *weights = NULL,
               *spread = NULL;
    uint64_t cycles = 1, w;
    uint32_t window = FS_PLAYLIST_WINDOW_DEFAULT;
    int c, have_cycles = 0;
    while ((c = getopt_long(argc, argv, "s:c:w:", opts, NULL)) != -1) {
        switch (c) {
        case 's': seed = optarg; break;
        case 'c':
            if (cli_parse_u64(optarg, &cycles) != 0)
                cli_die(CLI_USAGE, "invalid number of cycles: '%s'", optarg);
            have_cycles = 1;
            break;
        case 'w':
            if (cli_parse_u64(optarg, &w) != 0 || w > FS_PLAYLIST_WINDOW_MAX)
                cli_die(CLI_USAGE, "invalid window: '%s': must be 0 to %d",
                        optarg, FS_PLAYLIST_WINDOW_MAX);
            window = (uint32_t)w;
            break;
        case 'S': state = optarg; break;
        case 'f': format = optarg; break;
        case 'W': weights = optarg; break;
        case 'P': spread = optarg; break;
        case 'h': cli_usage(usage_text);
        case 'V': cli_version("playlist");
        default: cli_try_help("playlist", CLI_USAGE);
        }
    }
    if (optind >= argc) {
        cli_error("missing FILE");
        cli_try_help("playlist", CLI_USAGE);
    }
    const char *file = argv[optind], *action = NULL;
    if (optind + 1 < argc)
        action = argv[optind + 1];
    if (optind + 2 < argc) {
        cli_error("extra operand '%s'", argv[optind + 2]);
        cli_try_help("playlist", CLI_USAGE);
    }
    if (action && state == NULL)
        cli_die(CLI_USAGE, "'%s' needs --state=STATE", action);
    if (state && action == NULL)
        cli_die(CLI_USAGE, "--state needs an action: next, prev, current or "
                           "seek=I");
    if (state && have_cycles)
        cli_die(CLI_USAGE, "--cycles and --state exclude each other");
    if ((weights || spread) && state)
        cli_die(CLI_USAGE, "--%s and --state exclude each other",
                weights ? "weights" : "spread");
    if (weights && spread)
        cli_die(CLI_USAGE, "--weights and --spread exclude each other");
    if (seed && *seed == '\0')
        cli_die(CLI_USAGE, "invalid seed: empty");

    pl_list l;
    pl_list_read(&l, file, format);
    if (state) {
        int rc = step(state, action, &l, file, seed, window);
        pl_list_free(&l);
        return rc;
    }
    if (weights || spread) {
        int rc = field_orders(&l, file, weights != NULL,
                              weights ? weights : spread, seed, cycles);
        pl_list_free(&l);
        return rc;
    }
    fs_playlist pl;
    new_player(&pl, &l, seed, window);
    out_buf *o = malloc(sizeof *o);
    if (o == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    out_init(o, stdout);
    out_bytes(o, l.text, l.header_end);
    if (l.header_end && l.text[l.header_end - 1] != '\n')
        out_byte(o, '\n');
    for (uint64_t k = 0; k < cycles; k++)
        for (size_t i = 0; i < l.n; i++) {
            uint64_t item;
            cli_check(fs_playlist_next(&pl, &item), "playlist");
            print_entry(o, &l, item);
        }
    out_flush(o);
    free(o);
    pl_list_free(&l);
    return CLI_OK;
}
