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
#include <unistd.h>

#include "cli.h"
#include "fairshuf/weighted.h"
#include "out.h"
#include "playlist.h"

static const char usage_text[] =
    "Usage: fairshuf playlist [OPTION]... FILE [ACTION]\n"
    "Shuffle play: print FILE's items in shuffled order, every item once per\n"
    "cycle, or step a player whose state is kept in a file.  FILE is a list\n"
    "with one item per line, an M3U/M3U8 playlist (#EXTINF lines travel with\n"
    "their entry), or a TSV file whose first line names the fields.\n"
    "\n"
    "  -s, --seed=S         reproducible order (without it: a key from the OS)\n"
    "  -c, --cycles=K       print K cycles (default 1); no item of the last w\n"
    "                       of a cycle is among the first w of the next\n"
    "  -w, --window=W       that w (default min(N/4, 10); 0 to 64, lowered\n"
    "                       to N/3 when larger)\n"
    "      --state=STATE    keep a player in the file STATE and do ACTION:\n"
    "                         next, prev, current   step, print the item\n"
    "                         seek=I                position I of the cycle\n"
    "                         seek-item=ITEM        start a cycle at ITEM\n"
    "                         queue ITEM...         play ITEM(s) next\n"
    "      --force-new      with --state: start a new player over STATE\n"
    "      --format=F       plain, m3u or tsv (default: by name and content)\n"
    "      --spread=FIELD   spread items sharing FIELD (TSV; M3U: artist from\n"
    "                       #EXTINF) apart; deliberately not uniform\n"
    "      --weights=FIELD  TSV: weighted order instead, item i first with\n"
    "                       probability w_i / sum w (Efraimidis-Spirakis);\n"
    "                       weight 0: never played\n"
    "      --help           display this help and exit\n"
    "      --version        output version information and exit\n"
    "\n"
    "The state is replaced atomically, after the item is printed; players\n"
    "sharing a state take turns.  Successive 'next' steps from a new state\n"
    "print the order --cycles prints; 'prev' walks back through it.  If FILE\n"
    "changes mid-cycle, items already played are not played again in that\n"
    "cycle; added items come later in it, removed ones are skipped.  A state\n"
    "made for another FILE, by another version, or damaged is refused.\n"
    "ITEM is an item's own line (M3U: its path).\n"
    "Examples:\n"
    "  fairshuf playlist songs.m3u --seed=party --cycles=2\n"
    "  fairshuf playlist songs.m3u --state=~/.shuffle next\n"
    "  fairshuf playlist songs.m3u --state=~/.shuffle queue /music/a.mp3\n";

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

/* The list's index of the item whose own line is `text` (the first such),
 * or dies. */
static size_t find_item(const pl_list *l, const char *text)
{
    size_t len = strlen(text);
    for (size_t i = 0; i < l->n; i++) {
        const char *t;
        size_t tl;
        item_line(l, i, &t, &tl);
        if (tl == len && memcmp(t, text, len) == 0)
            return i;
    }
    cli_die(CLI_FAIL, "no item '%s' in the list", text);
}

/* The tag of the list a state is for: BLAKE2b-128 of its absolute path. */
static void file_tag(const char *file, uint8_t tag[16])
{
    char *real = strcmp(file, "-") == 0 ? NULL : realpath(file, NULL);
    const char *name = real ? real : file;
    crypto_generichash(tag, 16, (const unsigned char *)name, strlen(name),
                       NULL, 0);
    free(real);
}

/* Writes item i and flushes: the step is recorded only after that. */
static void deliver(const pl_list *l, size_t item)
{
    if (item == SIZE_MAX)
        return;
    const pl_entry *e = &l->entry[item];
    fwrite(l->text + e->start, 1, e->end - e->start, stdout);
    putc('\n', stdout);
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_die(CLI_FAIL, "write error: %s (the step is not recorded)",
                strerror(errno));
}

typedef struct step_opts {
    const char *state, *file, *seed;
    uint32_t window;
    int force_new;
    fs_player_order order;
    uint64_t field;
    const uint64_t *group;
    const double *weight;
    char **operands; /* queue's items */
    int noperands;
    const char *field_name; /* --spread/--weights FIELD */
    const char *format;     /* --format */
} step_opts;

static int list_field(const pl_list *l, const char *file, const char *opt,
                      const char *field);
static double *read_weights(const pl_list *l, const char *file, int f,
                            const char *field);
static uint64_t *read_groups(const pl_list *l, int f);

/* The ids of the list's items under the player's key. */
static uint64_t *list_ids(const fs_player *p, const pl_list *l)
{
    const char **text = malloc(l->n * sizeof *text);
    size_t *len = malloc(l->n * sizeof *len);
    uint64_t *ids = malloc(l->n * sizeof *ids);
    if (text == NULL || len == NULL || ids == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    for (size_t i = 0; i < l->n; i++)
        item_line(l, i, &text[i], &len[i]);
    cli_check(fs_player_item_ids(p, l->n, text, len, ids), "state");
    free(text);
    free(len);
    return ids;
}

/* The copy of the list a state was saved with: STATE.list-HEX16 (the
 * first 16 hex digits of the list's SHA-256), beside the state. */
static char *copy_name(const char *state, const uint8_t fp[32])
{
    char hex[65];
    fs_hex_encode(fp, 32, hex);
    size_t len = strlen(state);
    char *name = malloc(len + 6 + 16 + 1);
    if (name == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    memcpy(name, state, len);
    memcpy(name + len, ".list-", 6);
    memcpy(name + len + 6, hex, 16);
    name[len + 22] = '\0';
    return name;
}

/* The list changed since the state was saved: gives the player the list
 * it was saved with (its copy), so that it can tell what was played. */
static void saved_list(fs_player *p, const step_opts *so, const char *state,
                       const pl_list *l, const uint8_t fp[32])
{
    char *name = copy_name(state, fp);
    if (access(name, F_OK) != 0) {
        free(name);
        return; /* fs_player_set_list() says whether it was needed */
    }
    static const char *const formats[] = {"plain", "m3u", "tsv"};
    pl_list old;
    pl_list_read(&old, name, formats[l->format]);
    if (memcmp(old.fingerprint, fp, 32) != 0)
        cli_die(CLI_FAIL, "%s: the copy of the list is damaged (its SHA-256 "
                "differs; --force-new starts over)", name);
    uint64_t *g = NULL;
    double *w = NULL;
    if (so->order != FS_PLAYER_PLAIN) {
        int f = list_field(&old, name, so->order == FS_PLAYER_WEIGHTS
                                           ? "weights" : "spread",
                           so->field_name);
        if (so->order == FS_PLAYER_WEIGHTS)
            w = read_weights(&old, name, f, so->field_name);
        else
            g = read_groups(&old, f);
    }
    uint64_t *ids = list_ids(p, &old);
    int rc = fs_player_set_list(p, old.n, ids, fp, g, w, NULL);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "%s: not a fairshuf playlist state (it does not "
                "fit its list; --force-new starts over)", so->state);
    cli_check(rc, "state");
    free(ids);
    free(g);
    free(w);
    pl_list_free(&old);
    free(name);
}


/* The player kept in so->state, fresh or loaded, checked against what
 * this run asks for. */
static fs_player *open_player(const step_opts *so, const char *state,
                              const pl_list *l, const uint8_t tag[16])
{
    fs_player *p = NULL;
    size_t len, limit = ((size_t)1 << 20) + 48 * l->n;
    char *text = so->force_new ? NULL : pl_state_read(state, limit, &len);
    if (text == NULL) {
        uint8_t key[32];
        if (so->seed == NULL)
            cli_check(fs_os_random(key, sizeof key), "seeding");
        else
            cli_check(fs_seed_to_key(so->seed, key), "seed");
        cli_check(fs_player_create(&p, key, so->window, so->order, so->field,
                                   tag),
                  "state");
        sodium_memzero(key, sizeof key);
        return p;
    }
    const char *why;
    int rc = fs_player_load(&p, text, len, &why);
    free(text);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "%s: %s (--force-new starts over)", so->state, why);
    cli_check(rc, "state");
    uint8_t want[32];
    if (so->seed)
        cli_check(fs_seed_to_key(so->seed, want), "seed");
    rc = fs_player_matches(p, so->seed ? want : NULL, tag, so->order,
                           so->field, &why);
    sodium_memzero(want, sizeof want);
    if (rc == FS_EINVAL) /* another seed, list, or --spread/--weights */
        cli_die(CLI_FAIL, "%s: the state was %s, not this one (--force-new "
                "starts over)", so->state, why);
    cli_check(rc, "state");
    return p;
}

static int step(const step_opts *so, const char *action, const pl_list *l)
{
    char *state = pl_state_lock(so->state);
    uint8_t tag[16], saved[32];
    file_tag(so->file, tag);
    fs_player *p = open_player(so, state, l, tag);
    int version;
    fs_player_describe(p, NULL, NULL, NULL, NULL, saved, &version);
    if (version > 0 && memcmp(saved, l->fingerprint, 32) != 0)
        saved_list(p, so, state, l, saved);
    uint64_t *ids = list_ids(p, l);
    int changed, rc = fs_player_set_list(p, l->n, ids, l->fingerprint,
                                         so->group, so->weight, &changed);
    if (rc == FS_EINVAL)
        cli_die(CLI_FAIL, "%s: not a fairshuf playlist state (it does not "
                "fit the list; --force-new starts over)", so->state);
    if (rc == FS_ENOTFOUND) {
        char *name = copy_name(state, saved);
        cli_die(CLI_FAIL, "%s: the list changed and the copy of the list the "
                "state was saved with (%s) is missing: cannot tell what was "
                "played (--force-new starts over)", so->state, name);
    }
    cli_check(rc, "state");
    if (changed)
        cli_error("%s: the list changed: %zu items, the rest of this cycle "
                  "plays those not played yet", so->file, l->n);
    size_t item = SIZE_MAX;
    if (strcmp(action, "next") == 0) {
        rc = fs_player_next(p, &item);
        if (rc == FS_ERANGE)
            cli_die(CLI_FAIL, "next: no item can be played");
    } else if (strcmp(action, "prev") == 0) {
        rc = fs_player_prev(p, &item);
        if (rc == FS_ERANGE)
            cli_die(CLI_FAIL, "prev: nothing was played before this item "
                              "(that this player kept)");
    } else if (strcmp(action, "current") == 0) {
        rc = fs_player_current(p, &item);
        if (rc == FS_ERANGE)
            cli_die(CLI_FAIL, "current: nothing played yet");
        if (rc == FS_ENOTFOUND)
            cli_die(CLI_FAIL, "current: the item was removed from the list");
    } else if (strcmp(action, "queue") == 0) {
        for (int k = 0; k < so->noperands && rc == FS_OK; k++)
            rc = fs_player_queue(p, find_item(l, so->operands[k]));
    } else if (strncmp(action, "seek-item=", 10) == 0) {
        item = find_item(l, action + 10);
        rc = fs_player_seek_item(p, item);
    } else if (strncmp(action, "seek=", 5) == 0) {
        uint64_t pos, len = fs_player_cycle_length(p);
        if (cli_parse_u64(action + 5, &pos) != 0 || pos >= len)
            cli_die(CLI_USAGE, "invalid position: '%s': must be 0 to %llu",
                    action + 5, (unsigned long long)(len - 1));
        rc = fs_player_seek(p, pos, &item);
        if (rc == FS_ENOTFOUND)
            cli_die(CLI_FAIL, "seek: the item at %llu was removed from the "
                    "list", (unsigned long long)pos);
    } else {
        cli_error("invalid action '%s': expected next, prev, current, "
                  "seek=I, seek-item=ITEM or queue ITEM...", action);
        cli_try_help("playlist", CLI_USAGE);
    }
    cli_check(rc, action);
    deliver(l, item);
    size_t n;
    cli_check(fs_player_save(p, NULL, 0, &n), "state");
    char *text = malloc(n);
    if (text == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    cli_check(fs_player_save(p, text, n, &n), "state");
    /* the copy of the list first: a state never names a copy not there */
    char *copy = copy_name(state, l->fingerprint);
    if (access(copy, F_OK) != 0)
        pl_copy_write(copy, l->text, l->len);
    pl_state_write(state, text, n);
    pl_copies_prune(state, copy);
    free(copy);
    sodium_memzero(text, n);
    free(text);
    fs_player_free(p);
    free(ids);
    free(state);
    return CLI_OK;
}

/* The index of the list's field for --OPT, or dies: a TSV field named in
 * the header, or (M3U, --spread=artist only) PL_FIELD_EXTINF_ARTIST. */
#define PL_FIELD_EXTINF_ARTIST (-2)
static int list_field(const pl_list *l, const char *file, const char *opt,
                      const char *field)
{
    if (l->format == PL_M3U && strcmp(opt, "spread") == 0) {
        if (strcmp(field, "artist") != 0)
            cli_die(CLI_USAGE, "--spread=%s: an M3U list gives only "
                    "'artist' (from #EXTINF:SECS,ARTIST - TITLE)", field);
        return PL_FIELD_EXTINF_ARTIST;
    }
    if (l->format != PL_TSV)
        cli_die(CLI_USAGE, "--%s needs a TSV list with a header line%s", opt,
                strcmp(opt, "spread") == 0 ? " or an M3U list" : "");
    int f = pl_field_index(l, field);
    if (f < 0)
        cli_die(CLI_FAIL, "%s: no field '%s' in the header", file, field);
    return f;
}

/* The artist of an M3U entry: the text after the first comma of its last
 * #EXTINF line, up to " - " (the whole text if there is none); empty
 * without #EXTINF. */
static void extinf_artist(const pl_list *l, size_t i, size_t *b, size_t *e)
{
    const pl_entry *en = &l->entry[i];
    size_t pos = en->start;
    *b = *e = 0;
    while (pos < en->end) {
        const char *nl = memchr(l->text + pos, '\n', en->end - pos);
        size_t end = nl ? (size_t)(nl - l->text) : en->end;
        if (end - pos > 8 && memcmp(l->text + pos, "#EXTINF:", 8) == 0) {
            const char *comma = memchr(l->text + pos, ',', end - pos);
            size_t fb = comma ? (size_t)(comma - l->text) + 1 : end, fe = end;
            if (fe > fb && l->text[fe - 1] == '\r')
                fe--;
            for (size_t k = fb; k + 3 <= fe; k++)
                if (memcmp(l->text + k, " - ", 3) == 0) {
                    fe = k;
                    break;
                }
            *b = fb;
            *e = fe;
        }
        if (nl == NULL)
            break;
        pos = end + 1;
    }
}

static void entry_field(const pl_list *l, size_t i, int f, size_t *b,
                        size_t *e)
{
    if (f == PL_FIELD_EXTINF_ARTIST)
        extinf_artist(l, i, b, e);
    else
        pl_field(l, i, f, b, e);
}

/* The weights in field f of a TSV list, or dies naming the line.  A weight
 * is what strtod reads (docs/stream.md §6: decimal or hexadecimal), finite
 * and >= 0 (0: the item is never played). */
static double *read_weights(const pl_list *l, const char *file, int f,
                            const char *field)
{
    double *w = malloc(l->n * sizeof *w);
    if (w == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    int any = 0;
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
            !isfinite(w[i]) || !(w[i] >= 0))
            cli_die(CLI_FAIL, "%s:%zu: invalid weight '%s': must be a "
                    "number, 0 or more", file, l->entry[i].line, text);
        any |= w[i] > 0;
    }
    if (!any)
        cli_die(CLI_FAIL, "%s: every weight is 0: nothing to play", file);
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
        entry_field(l, i, f, &r[i].b, &r[i].e);
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

/* K orders by a field: weighted (w != NULL; items of weight 0 left out)
 * or spread (g), drawn from the seed's ChaCha20 stream. */
static int field_orders(const pl_list *l, const double *w, const uint64_t *g,
                        const char *seed, uint64_t cycles)
{
    uint64_t *order = malloc(l->n * sizeof *order);
    uint64_t *keep = malloc(l->n * sizeof *keep);
    double *wk = malloc(l->n * sizeof *wk);
    out_buf *o = malloc(sizeof *o);
    if (order == NULL || keep == NULL || wk == NULL || o == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++)
        if (w == NULL || w[i] > 0) {
            keep[m] = i;
            wk[m++] = w ? w[i] : 0;
        }
    fs_rng *rng = cli_rng(NULL, seed);
    out_init(o, stdout);
    out_bytes(o, l->text, l->header_end);
    for (uint64_t k = 0; k < cycles; k++) {
        cli_check(w ? fs_weighted_order(wk, m, order, NULL, rng)
                    : fs_spread_order(g, l->n, order, rng),
                  w ? "weights" : "spread");
        for (size_t i = 0; i < m; i++)
            print_entry(o, l, keep[order[i]]);
    }
    out_flush(o);
    fs_rng_free(rng);
    free(o);
    free(order);
    free(keep);
    free(wk);
    return CLI_OK;
}

/* A 64-bit tag of a field name, kept in the state (BLAKE2b-128's first 8
 * bytes, big-endian). */
static uint64_t name_tag(const char *name)
{
    uint8_t h[16];
    crypto_generichash(h, 16, (const unsigned char *)name, strlen(name), NULL,
                       0);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | h[i];
    return v;
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
        {"force-new", no_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *format = NULL, *weights = NULL, *spread = NULL;
    step_opts so;
    memset(&so, 0, sizeof so);
    so.window = FS_PLAYLIST_WINDOW_DEFAULT;
    uint64_t cycles = 1, w;
    int c, have_cycles = 0;
    while ((c = getopt_long(argc, argv, "s:c:w:", opts, NULL)) != -1) {
        switch (c) {
        case 's': so.seed = optarg; break;
        case 'c':
            if (cli_parse_u64(optarg, &cycles) != 0)
                cli_die(CLI_USAGE, "invalid number of cycles: '%s'", optarg);
            have_cycles = 1;
            break;
        case 'w':
            if (cli_parse_u64(optarg, &w) != 0 || w > FS_PLAYLIST_WINDOW_MAX)
                cli_die(CLI_USAGE, "invalid window: '%s': must be 0 to %d",
                        optarg, FS_PLAYLIST_WINDOW_MAX);
            so.window = (uint32_t)w;
            break;
        case 'S': so.state = optarg; break;
        case 'f': format = optarg; break;
        case 'W': weights = optarg; break;
        case 'P': spread = optarg; break;
        case 'N': so.force_new = 1; break;
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
    so.file = file;
    if (optind + 1 < argc)
        action = argv[optind + 1];
    int queue = action && strcmp(action, "queue") == 0;
    if (queue) {
        so.operands = argv + optind + 2;
        so.noperands = argc - optind - 2;
        if (so.noperands == 0)
            cli_die(CLI_USAGE, "queue needs at least one ITEM");
    } else if (optind + 2 < argc) {
        cli_error("extra operand '%s'", argv[optind + 2]);
        cli_try_help("playlist", CLI_USAGE);
    }
    if (action && so.state == NULL)
        cli_die(CLI_USAGE, "'%s' needs --state=STATE", action);
    if (so.state && action == NULL)
        cli_die(CLI_USAGE, "--state needs an action: next, prev, current, "
                           "seek=I, seek-item=ITEM or queue ITEM...");
    if (so.force_new && so.state == NULL)
        cli_die(CLI_USAGE, "--force-new needs --state=STATE");
    if (so.state && have_cycles)
        cli_die(CLI_USAGE, "--cycles and --state exclude each other");
    if (weights && spread)
        cli_die(CLI_USAGE, "--weights and --spread exclude each other");
    if (so.seed && *so.seed == '\0')
        cli_die(CLI_USAGE, "invalid seed: empty");

    pl_list l;
    pl_list_read(&l, file, format);
    double *wt = NULL;
    uint64_t *g = NULL;
    if (weights || spread) {
        const char *field = weights ? weights : spread;
        int f = list_field(&l, file, weights ? "weights" : "spread", field);
        if (weights)
            wt = read_weights(&l, file, f, field);
        else
            g = read_groups(&l, f);
        so.order = weights ? FS_PLAYER_WEIGHTS : FS_PLAYER_SPREAD;
        so.field = name_tag(field);
        so.field_name = field;
        so.weight = wt;
        so.group = g;
    }
    int rc;
    if (so.state) {
        rc = step(&so, action, &l);
    } else if (weights || spread) {
        rc = field_orders(&l, wt, g, so.seed, cycles);
    } else {
        fs_playlist pl;
        new_player(&pl, &l, so.seed, so.window);
        out_buf *o = malloc(sizeof *o);
        if (o == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        out_init(o, stdout);
        out_bytes(o, l.text, l.header_end);
        if (l.header_end > l.first && l.text[l.header_end - 1] != '\n')
            out_byte(o, '\n');
        /* A whole cycle at a time: the keyed batch call (same items as
         * fs_playlist_next() from step 0). */
        uint64_t *items = malloc(l.n * sizeof *items);
        if (items == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        for (uint64_t k = 0; k < cycles; k++) {
            cli_check(fs_playlist_items(&pl, k, 0, l.n, items), "playlist");
            for (size_t i = 0; i < l.n; i++)
                print_entry(o, &l, items[i]);
        }
        out_flush(o);
        free(items);
        free(o);
        rc = CLI_OK;
    }
    free(wt);
    free(g);
    pl_list_free(&l);
    return rc;
}
