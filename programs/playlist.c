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
    uint64_t *rest;  /* array cycles: the positions after the frozen ones */
    size_t nrest;
    const uint64_t *group; /* --spread: group of item i */
    const double *weight;  /* --weights: weight of item i (0: never) */
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

/* Is the current cycle an array (frozen positions, then p->rest) rather
 * than the list's plain keyed order? */
static int array_cycle(const player *p)
{
    return p->r.frozen || p->r.order != PL_ORDER_PLAIN;
}

/* Length of the current cycle. */
static uint64_t cycle_len(const player *p)
{
    return array_cycle(p) ? p->r.frozen + p->nrest : p->pl.n;
}

/* Position k of the current cycle: the list index, or -1 if removed. */
static int64_t order_at(const player *p, uint64_t k)
{
    if (!array_cycle(p)) {
        uint64_t item;
        cli_check(fs_playlist_item_at(&p->pl, p->r.cycle, k, &item), "state");
        return (int64_t)item;
    }
    if (k < p->r.frozen)
        return find_id(p, p->r.ids.id[k]);
    return (int64_t)p->rest[k - p->r.frozen];
}

static uint64_t order_id(const player *p, uint64_t k)
{
    if (array_cycle(p) && k < p->r.frozen)
        return p->r.ids.id[k];
    return p->ids[order_at(p, k)];
}

/* Normal cycle: the cycle and position from the step; a record of another
 * cycle is dropped. */
static void sync_step(player *p)
{
    uint64_t c, pos;
    fs_playlist_position(&p->pl, &c, &pos);
    if (c != p->r.cycle)
        p->r.ids.len = 0;
    p->r.cycle = c;
    p->r.at = p->pl.step ? pos + 1 : 0;
}

static int by_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* The generator of an array cycle's spread or weighted order: ChaCha20
 * keyed by BLAKE2b-256, under the player's key, of "fairshuf playlist
 * order v1", the cycle, the list's fingerprint and the frozen count
 * (docs/playlist.md "Spread and weights in player mode"). */
static fs_rng *order_rng(const player *p)
{
    static const char label[] = "fairshuf playlist order v1";
    uint8_t in[sizeof label - 1 + 48], key[32];
    char hex[65];
    memcpy(in, label, sizeof label - 1);
    for (int i = 0; i < 8; i++) {
        in[sizeof label - 1 + i] = (uint8_t)(p->r.cycle >> (8 * i));
        in[sizeof label - 1 + 40 + i] = (uint8_t)(p->r.frozen >> (8 * i));
    }
    memcpy(in + sizeof label - 1 + 8, p->pl.fingerprint, 32);
    crypto_generichash(key, 32, in, sizeof in, p->pl.key, 32);
    fs_hex_encode(key, 32, hex);
    fs_rng *rng = cli_rng(NULL, hex);
    sodium_memzero(key, sizeof key);
    sodium_memzero(hex, sizeof hex);
    return rng;
}

/* Spread or weighted order of the items not among the frozen positions
 * (and, weights, of positive weight) into p->rest. */
static void field_rest(player *p)
{
    size_t n = p->l->n, nf = p->r.frozen, m = 0;
    uint64_t *seen = malloc((nf ? nf : 1) * sizeof *seen);
    uint64_t *cand = malloc(n * sizeof *cand), *g = malloc(n * sizeof *g);
    uint64_t *order = malloc(n * sizeof *order);
    double *w = malloc(n * sizeof *w);
    if (!seen || !cand || !g || !order || !w)
        cli_die(CLI_FAIL, "memory exhausted");
    if (nf)
        memcpy(seen, p->r.ids.id, nf * sizeof *seen);
    qsort(seen, nf, sizeof *seen, by_u64);
    for (size_t i = 0; i < n; i++) {
        if (nf && bsearch(&p->ids[i], seen, nf, sizeof *seen, by_u64))
            continue;
        if (p->weight && !(p->weight[i] > 0))
            continue; /* weight 0: never */
        cand[m] = i;
        if (p->weight)
            w[m] = p->weight[i];
        else
            g[m] = p->group[i];
        m++;
    }
    fs_rng *rng = order_rng(p);
    cli_check(p->weight ? fs_weighted_order(w, m, order, NULL, rng)
                        : fs_spread_order(g, m, order, rng),
              p->weight ? "weights" : "spread");
    fs_rng_free(rng);
    for (size_t i = 0; i < m; i++)
        p->rest[i] = cand[order[i]];
    p->nrest = m;
    free(seen);
    free(cand);
    free(g);
    free(order);
    free(w);
}

/* The window rule for an array cycle that starts afresh: of the first 2w
 * of the rest, those among the previous cycle's last w (r.avoid) go behind
 * the others, both groups keeping their order. */
static void avoid_rule(player *p)
{
    size_t w = p->r.avoid.len, span = 2 * w < p->nrest ? 2 * w : p->nrest;
    uint64_t front[2 * FS_PLAYLIST_WINDOW_MAX], back[2 * FS_PLAYLIST_WINDOW_MAX];
    size_t nf = 0, nb = 0;
    for (size_t k = 0; k < span; k++) {
        uint64_t x = p->rest[k];
        int in = 0;
        for (size_t t = 0; t < w; t++)
            in |= p->r.avoid.id[t] == p->ids[x];
        if (in)
            back[nb++] = x;
        else
            front[nf++] = x;
    }
    memcpy(p->rest, front, nf * sizeof *front);
    memcpy(p->rest + nf, back, nb * sizeof *back);
}

static void compute_rest(player *p)
{
    free(p->rest);
    p->rest = malloc((p->l->n ? p->l->n : 1) * sizeof *p->rest);
    if (p->rest == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    if (p->r.order == PL_ORDER_PLAIN)
        cli_check(fs_playlist_rest(&p->pl, p->r.cycle, p->r.ids.id,
                                   p->r.frozen, p->ids, p->l->n, p->rest,
                                   &p->nrest),
                  "state");
    else
        field_rest(p);
    if (p->r.frozen == 0 && p->r.avoid.len)
        avoid_rule(p);
}

/* Ends the current cycle where the player is (after position r.at) and
 * starts the next one, before its first item.  An array order remembers
 * the last w items played for the window rule. */
static void new_cycle(player *p)
{
    uint64_t c = p->r.cycle, at = p->r.at, w = p->pl.window;
    if (c + 1 > UINT64_MAX / p->pl.n)
        cli_check(FS_ERANGE, "next");
    p->r.avoid.len = 0;
    if (p->r.order != PL_ORDER_PLAIN)
        for (uint64_t k = at > w ? at - w : 0; k < at && k < p->r.ids.len; k++)
            pl_ids_push(&p->r.avoid, p->r.ids.id[k]);
    p->pl.step = (c + 1) * p->pl.n;
    p->r.cycle = c + 1;
    p->r.at = 0;
    p->r.frozen = 0;
    p->r.ids.len = 0;
    p->r.base = c + 1;
    if (array_cycle(p))
        compute_rest(p);
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
    if (p->r.ids.len == 0) { /* nothing passed yet: a normal start */
        p->pl.step = p->r.cycle * p->pl.n;
        p->r.frozen = 0;
    } else {
        p->r.frozen = p->r.ids.len;
        p->r.base = p->r.cycle;
    }
    if (array_cycle(p))
        compute_rest(p);
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

/* The next queued item still in the list, played at position r.at: the
 * cycle becomes its passed positions, the queued item, the positions
 * heard after a prev, then the rest without them.  -1: queue empty. */
static int64_t play_queued(player *p)
{
    while (p->r.queue.len) {
        uint64_t id = p->r.queue.id[0];
        memmove(p->r.queue.id, p->r.queue.id + 1,
                --p->r.queue.len * sizeof *p->r.queue.id);
        int64_t item = find_id(p, id);
        if (item < 0)
            continue; /* removed from the list since */
        while (p->r.ids.len < p->r.at)
            pl_ids_push(&p->r.ids, order_id(p, p->r.ids.len));
        if (!array_cycle(p))
            p->r.base = p->r.cycle;
        pl_ids_insert(&p->r.ids, p->r.at, id);
        p->r.frozen = p->r.ids.len;
        p->r.at++;
        compute_rest(p);
        return item;
    }
    return -1;
}

static int64_t do_next(player *p)
{
    int64_t q = play_queued(p);
    if (q >= 0)
        return q;
    if (array_cycle(p)) {
        for (int round = 0; round < 2; round++) {
            uint64_t len = cycle_len(p);
            for (uint64_t k = p->r.at; k < len; k++) {
                int64_t item = order_at(p, k);
                if (item >= 0) {
                    p->r.at = k + 1;
                    return item;
                }
            }
            new_cycle(p); /* this cycle is over */
            if (!array_cycle(p))
                break;
        }
        if (array_cycle(p))
            cli_die(CLI_FAIL, "next: no item can be played (every weight "
                              "is 0)");
    }
    uint64_t item;
    cli_check(fs_playlist_next(&p->pl, &item), "next");
    sync_step(p);
    return (int64_t)item;
}

static int64_t do_prev(player *p)
{
    if (array_cycle(p)) {
        for (uint64_t k = p->r.at > 1 ? p->r.at - 1 : 0; k > 0; k--) {
            int64_t item = order_at(p, k - 1);
            if (item >= 0) {
                p->r.at = k;
                return item;
            }
        }
        cli_die(CLI_FAIL, "prev: nothing was played before this item in "
                          "this cycle");
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

/* "Start from this song": a cycle that opens with item i (the current
 * one if nothing of it was played yet, else the next), then the rest. */
static void seek_item(player *p, size_t i)
{
    if (p->r.at > 0)
        new_cycle(p);
    p->r.ids.len = 0;
    pl_ids_push(&p->r.ids, p->ids[i]);
    p->r.frozen = 1;
    p->r.at = 1;
    p->r.base = p->r.cycle;
    compute_rest(p);
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
static void deliver(const pl_list *l, int64_t item)
{
    if (item < 0)
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
    pl_order order;
    uint64_t field;
    const uint64_t *group;
    const double *weight;
    char **operands; /* queue's items */
    int noperands;
} step_opts;

static int step(const step_opts *so, const char *action, const pl_list *l)
{
    player p;
    memset(&p, 0, sizeof p);
    p.l = l;
    p.group = so->group;
    p.weight = so->weight;
    char *state = pl_state_lock(so->state);
    size_t limit = ((size_t)1 << 20) + 48 * l->n;
    int fresh = so->force_new ? 1 : pl_state_load(state, limit, &p.pl, &p.r);
    int changed = 0;
    uint8_t tag[16];
    file_tag(so->file, tag);
    if (fresh) {
        pl_record_free(&p.r);
        new_player(&p.pl, l, so->seed, so->window);
        p.r.order = so->order;
        p.r.field = so->field;
    } else {
        if (so->seed) {
            uint8_t key[32];
            cli_check(fs_seed_to_key(so->seed, key), "seed");
            if (memcmp(key, p.pl.key, 32) != 0)
                cli_die(CLI_FAIL, "%s: the state was made with another seed",
                        so->state);
        }
        if (p.r.version == 2 && memcmp(p.r.file, tag, 16) != 0)
            cli_die(CLI_FAIL, "%s: the state was made for another list, not "
                    "%s (--force-new starts over)", so->state, so->file);
        if (p.r.present && (p.r.order != so->order || p.r.field != so->field))
            cli_die(CLI_FAIL, "%s: the state was made with another order "
                    "(--spread or --weights differ; --force-new starts "
                    "over)", so->state);
        changed = p.pl.n != l->n ||
                  memcmp(p.pl.fingerprint, l->fingerprint, 32) != 0;
    }
    memcpy(p.r.file, tag, 16);
    if (!p.r.present) { /* a new state, or one from an older fairshuf */
        if (changed)
            start_over(&p, so->file);
        changed = 0;
        p.r.present = 1;
        p.r.order = so->order;
        p.r.field = so->field;
        p.r.cycle = UINT64_MAX; /* sync_step() drops the record */
        sync_step(&p);
    }
    if (changed) {
        list_changed(&p, so->file);
    } else {
        list_ids(&p);
        if (array_cycle(&p))
            compute_rest(&p);
        else
            sync_step(&p);
    }
    if (p.r.at > cycle_len(&p))
        cli_die(CLI_FAIL, "%s: not a fairshuf playlist state", so->state);
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
    } else if (strcmp(action, "queue") == 0) {
        for (int k = 0; k < so->noperands; k++)
            pl_ids_push(&p.r.queue, p.ids[find_item(l, so->operands[k])]);
    } else if (strncmp(action, "seek-item=", 10) == 0) {
        size_t i = find_item(l, action + 10);
        seek_item(&p, i);
        item = (int64_t)i;
    } else if (strncmp(action, "seek=", 5) == 0) {
        uint64_t pos, len = cycle_len(&p);
        if (cli_parse_u64(action + 5, &pos) != 0 || pos >= len)
            cli_die(CLI_USAGE, "invalid position: '%s': must be 0 to %llu",
                    action + 5, (unsigned long long)(len - 1));
        if (array_cycle(&p)) {
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
        cli_error("invalid action '%s': expected next, prev, current, "
                  "seek=I, seek-item=ITEM or queue ITEM...", action);
        cli_try_help("playlist", CLI_USAGE);
    }
    while (p.r.ids.len < p.r.at) /* the positions passed, by identity */
        pl_ids_push(&p.r.ids, order_id(&p, p.r.ids.len));
    deliver(l, item);
    pl_state_save(state, &p.pl, &p.r);
    pl_record_free(&p.r);
    free(state);
    free(p.ids);
    free(p.sorted);
    free(p.rest);
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
 * is a decimal number >= 0 (0: the item is never played). */
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
        /* decimal only: strtod also takes hex (0x10), inf and nan */
        if (end == text || *end != '\0' || e - b >= sizeof text ||
            strspn(text, "0123456789.eE+-") != len || !isfinite(w[i]) ||
            !(w[i] >= 0))
            cli_die(CLI_FAIL, "%s:%zu: invalid weight '%s': must be a "
                    "decimal number, 0 or more", file, l->entry[i].line,
                    text);
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
        so.order = weights ? PL_ORDER_WEIGHTS : PL_ORDER_SPREAD;
        so.field = name_tag(field);
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
        for (uint64_t k = 0; k < cycles; k++)
            for (size_t i = 0; i < l.n; i++) {
                uint64_t item;
                cli_check(fs_playlist_next(&pl, &item), "playlist");
                print_entry(o, &l, item);
            }
        out_flush(o);
        free(o);
        rc = CLI_OK;
    }
    free(wt);
    free(g);
    pl_list_free(&l);
    return rc;
}
