/* fair_check.c -- `fairshuf fair check`: a whole log by the library's
 * rules (fs_fair_log_check) with what the player brings (commitment,
 * client seed, their deals), or one deal alone. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "fairshuf/chain.h"

#include "cli.h"
#include "deal_out.h"
#include "fair.h"

static void hex_arg(const char *what, const char *s, uint8_t out[32])
{
    if (strlen(s) != 64 || fs_hex_decode(s, out, 32) != FS_OK)
        cli_die(CLI_FAIL, "fair check: invalid %s: must be 64 hex digits",
                what);
}

static char *slurp(const char *what, const char *path, size_t *len)
{
    return fair_slurp(what, path, len, 0);
}

/* The player's deals: one a line, "NONCE<TAB>TSV" or a TSV alone (the
 * nonce after the previous line's; 0 for the first); blank lines skipped. */
static fs_fair_seen *my_deals(const char *path, char **keep, size_t *count)
{
    size_t len, n = 0, cap = 16;
    char *text = slurp("deals file", path, &len);
    fs_fair_seen *s = malloc(cap * sizeof *s);
    uint64_t next = 0;
    size_t no = 0;
    for (char *p = text; s && p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        char *end = nl ? nl : text + len;
        no++;
        /* blank: nothing but a CR; the TSV keeps its CR, which
         * fs_deal_parse ignores (one CR, as the spec says) */
        if (end > p && !(end == p + 1 && *p == '\r')) {
            size_t digits = strspn(p, "0123456789");
            uint64_t nonce = next;
            char *tsv = p;
            if (digits > 0 && p + digits < end && p[digits] == '\t') {
                p[digits] = '\0';
                if (cli_parse_u64(p, &nonce) != 0)
                    cli_die(CLI_FAIL, "fair check: deals file '%s' line %zu: "
                            "invalid nonce", path, no);
                tsv = p + digits + 1;
            }
            if (n == cap) {
                fs_fair_seen *ns = realloc(s, (cap *= 2) * sizeof *s);
                if (ns == NULL)
                    free(s);
                s = ns;
                if (s == NULL)
                    break;
            }
            s[n++] = (fs_fair_seen){nonce, tsv, (size_t)(end - tsv)};
            next = nonce + 1;
        }
        p = nl ? nl + 1 : text + len;
    }
    if (s == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    *keep = text;
    *count = n;
    return s;
}

const char *fair_verdict_name(fs_fair_verdict v)
{
    return v == FS_FAIR_HONEST ? "honest"
           : v == FS_FAIR_DISHONEST ? "dishonest" : "inconclusive";
}

int fair_verdict_status(fs_fair_verdict v)
{
    return v == FS_FAIR_HONEST      ? CLI_OK
           : v == FS_FAIR_DISHONEST ? FAIR_DISHONEST
                                    : FAIR_INCONCLUSIVE;
}

void fair_note(void *ctx, size_t line, fs_fair_verdict kind,
               const char *rule, const char *msg)
{
    fair_note_ctx *c = ctx;
    if (!c->json) {
        if (line)
            printf("line %zu: %s: %s\n", line, rule, msg);
        else
            printf("log: %s: %s\n", rule, msg);
        return;
    }
    out_str(c->o, c->n++ ? ",{\"line\":" : "{\"line\":");
    out_u64(c->o, line);
    out_str(c->o, ",\"verdict\":\"");
    out_str(c->o, fair_verdict_name(kind));
    out_str(c->o, "\",\"rule\":\"");
    out_str(c->o, rule);
    out_str(c->o, "\",\"message\":");
    deal_json_string(c->o, msg);
    out_byte(c->o, '}');
}

/* What the player's evidence showed, said only of what they gave:
 * "; what you gave: your commitment is period 2's, your client seed is its,
 * your 3 deals are in it, the same". */
static void player_said(const fair_args *a, size_t nmine,
                        const fs_fair_log_result *r)
{
    if (!a->commitment && !a->client && nmine == 0)
        return;
    printf("; what you gave: ");
    if (a->commitment || a->client) {
        printf("your %s is period %zu's", a->commitment ? "commitment"
                                                        : "client seed",
               r->player_period);
        if (a->commitment && a->client)
            printf(", your client seed is its");
        if (nmine)
            printf(", your %zu deal%s in it, the same", nmine,
                   nmine == 1 ? " is" : "s are");
    } else
        printf("your %zu deal%s in period %zu (the last with a deal), the "
               "same", nmine, nmine == 1 ? " is" : "s are", r->player_period);
}

/* The deals of the player's period they did not see (not a rule: other
 * players may have had them; a dealer who burns deals leaves them too). */
static void unseen_note(const fs_fair_log_result *r)
{
    if (r->unseen_before + r->unseen_between == 0)
        return;
    size_t n = r->unseen_before + r->unseen_between;
    printf("note: period %zu has %zu deal%s you did not see (%zu before "
           "your first, %zu between yours): if you played alone, the dealer "
           "dealt %s without showing you (a dealer may burn deals until one "
           "suits it)\n", r->player_period, n, n == 1 ? "" : "s",
           r->unseen_before, r->unseen_between, n == 1 ? "it" : "them");
}

static int check_log(const fair_args *a)
{
    uint8_t commitment[32];
    const char *why;
    if (a->commitment)
        hex_arg("commitment", a->commitment, commitment);
    if (a->client && !fs_fair_client_seed_ok(FS_FAIR_SCHEME_V1, a->client,
                                              &why))
        cli_die(CLI_USAGE, "fair check: invalid client seed: %s", why);
    enum deal_format fmt = deal_format_parse("fair", a->format);
    if (fmt != DEAL_TEXT && fmt != DEAL_JSON)
        cli_die(CLI_USAGE, "fair check: invalid format: '%s' (text or json)",
                a->format);
    size_t n, nmine = 0;
    char *text = fair_slurp("log", a->log, &n,
                            a->max_log ? a->max_log : FAIR_LOG_SIZE_MAX),
         *mine_text = NULL;
    fs_fair_seen *mine = NULL;
    if (a->my_deals)
        mine = my_deals(a->my_deals, &mine_text, &nmine);
    fs_fair_player pl = {a->commitment ? commitment : NULL, a->client, mine,
                         nmine, NULL};
    static out_buf found;
    char *buf = NULL;
    size_t blen = 0;
    FILE *mf = NULL;
    if (fmt == DEAL_JSON) {
        mf = open_memstream(&buf, &blen);
        if (mf == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        out_init(&found, mf);
    }
    fair_note_ctx ctx = {fmt == DEAL_JSON, &found, 0};
    fs_fair_log_result r;
    /* the record rules, and the hash chain of a chained log (chain.h) */
    cli_check(fs_fair_log_check_chained(text, n, &pl, fair_note, &ctx, &r,
                                        NULL),
              "fair check");
    free(text);
    free(mine);
    free(mine_text);
    int status = fair_verdict_status(r.verdict);
    if (fmt == DEAL_JSON) {
        out_flush(&found);
        if (fclose(mf) != 0 || buf == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        out_buf *o = &found;
        out_init(o, stdout);
        out_str(o, "{\"verdict\":\"");
        out_str(o, fair_verdict_name(r.verdict));
        out_str(o, "\",\"rule\":");
        if (r.rule) {
            deal_json_string(o, r.rule);
            out_str(o, ",\"line\":");
            out_u64(o, r.line);
            out_str(o, ",\"message\":");
            deal_json_string(o, r.message);
        } else
            out_str(o, "null,\"line\":null,\"message\":null");
        const struct {
            const char *key;
            size_t value;
        } counts[] = {{"periods", r.periods}, {"deals", r.deals},
                      {"checked", r.checked},
                      {"player_period", r.player_period},
                      {"unseen_before", r.unseen_before},
                      {"unseen_between", r.unseen_between}};
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            out_str(o, ",\"");
            out_str(o, counts[i].key);
            out_str(o, "\":");
            out_u64(o, counts[i].value);
        }
        out_str(o, ",\"findings\":[");
        out_str(o, buf);
        out_str(o, "]}\n");
        out_flush(o);
        free(buf);
    } else if (status == FAIR_DISHONEST)
        printf("DISHONEST: rule '%s' broken %s%.0zu (first of %zu "
               "finding%s; %zu period%s, %zu deal%s, %zu checked)\n", r.rule,
               r.line ? "at line " : "by the log as a whole", r.line,
               r.findings, r.findings == 1 ? "" : "s", r.periods,
               r.periods == 1 ? "" : "s", r.deals, r.deals == 1 ? "" : "s",
               r.checked);
    else {
        unseen_note(&r);
        if (status == FAIR_INCONCLUSIVE && strcmp(r.rule, "empty-log") == 0)
            printf("INCONCLUSIVE: the log has no deal: nothing was checked "
                   "(%zu period%s)\n", r.periods, r.periods == 1 ? "" : "s");
        else if (status == FAIR_INCONCLUSIVE &&
                 strcmp(r.rule, "no-commitment") == 0) {
            printf("INCONCLUSIVE: every rule of the log holds (%zu period%s, "
                   "%zu deal%s checked)", r.periods, r.periods == 1 ? "" : "s",
                   r.checked, r.checked == 1 ? "" : "s");
            player_said(a, nmine, &r);
            printf(", but without the commitment you were shown before you "
                   "chose your client seed nothing shows this log is your "
                   "table: a dealer that opens many tables with your client "
                   "seed can show you the one whose deals it likes; check "
                   "again with --commitment\n");
        } else if (status == FAIR_INCONCLUSIVE)
            printf("INCONCLUSIVE: no rule broken in %zu period%s, but the "
                   "last is not revealed yet: %zu deal%s not checked; %zu "
                   "deal%s checked\n", r.periods, r.periods == 1 ? "" : "s",
                   r.unrevealed, r.unrevealed == 1 ? "" : "s", r.checked,
                   r.checked == 1 ? "" : "s");
        else {
            printf("OK: %zu period%s, %zu deal%s: every rule of the scheme "
                   "holds, every seed is its commitment and every deal the "
                   "one the seeds give", r.periods, r.periods == 1 ? "" : "s",
                   r.checked, r.checked == 1 ? "" : "s");
            player_said(a, nmine, &r);
            printf("\n");
        }
    }
    return status;
}

/* The claimed deal: --deal or all of standard input. */
static char *claim_text(const fair_args *a, size_t *len)
{
    if (a->deal) {
        *len = strlen(a->deal);
        char *s = strdup(a->deal);
        if (s == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        return s;
    }
    return slurp("the deal", "-", len);
}

static void need(const char *value, const char *option)
{
    if (value == NULL) {
        cli_error("fair check: missing --%s", option);
        cli_try_help("fair", CLI_USAGE);
    }
}

int fair_check(const fair_args *a, fs_dealer *d)
{
    if (a->log) {
        if (a->seed_hex || a->nonce || a->deal || a->game || a->players ||
            a->decks || a->scheme) {
            cli_error("fair check: --log checks the whole log: --server-seed, "
                      "--nonce, --deal, --game, --players, --decks and "
                      "--scheme do not apply");
            cli_try_help("fair", CLI_USAGE);
        }
        return check_log(a);
    }
    if (a->my_deals) {
        cli_error("fair check: --my-deals needs --log");
        cli_try_help("fair", CLI_USAGE);
    }
    need(a->seed_hex, "server-seed");
    need(a->commitment, "commitment");
    need(a->client, "client-seed");
    need(a->nonce, "nonce");
    const char *scheme = a->scheme ? a->scheme : FS_FAIR_SCHEME, *why;
    if (!fs_fair_client_seed_ok(FS_FAIR_SCHEME_V1, a->client, &why))
        cli_die(CLI_USAGE, "fair check: invalid client seed: %s", why);
    uint8_t seed[32], commitment[32];
    hex_arg("server seed", a->seed_hex, seed);
    hex_arg("commitment", a->commitment, commitment);
    uint64_t nonce = fair_nonce_or_die("check", a->nonce);
    const fs_game *g = deal_game("fair check", a->game ? a->game : "doudizhu");
    deal_setup("fair check", d, g, a->players, a->decks, FS_ALG_DURSTENFELD);
    size_t len;
    char *text = claim_text(a, &len);
    fs_deal *claimed = malloc(sizeof *claimed);
    if (claimed == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    size_t where;
    int rc = fs_deal_parse(d, text, len, claimed, &why, &where);
    if (rc != FS_OK) {
        size_t show = where < len ? strcspn(text + where, " \t\n") : 0;
        char at[24] = "";
        memcpy(at, text + where, show > 16 ? 16 : show);
        free(text);
        free(claimed);
        cli_die(CLI_FAIL, "fair check: malformed deal at byte %zu%s%s%s: "
                "%s; a %s deal for %u players is %zu parts%s",
                where, show ? " ('" : "", at, show ? "')" : "",
                why ? why : fs_strerror(rc), g->name, d->players,
                d->layout.nparts, " (as 'fair deal --format=tsv' prints)");
    }
    free(text);
    int verdict;
    long part;
    cli_check(fs_fair_check_scheme(scheme, seed, commitment, d, a->client,
                                   nonce, claimed, &verdict, &part),
              "fair check");
    free(claimed);
    sodium_memzero(seed, sizeof seed);
    if (verdict & FS_FAIR_BAD_COMMITMENT)
        printf("FAILED: SHA-256 of the server seed is not the commitment\n");
    if (verdict & FS_FAIR_BAD_DEAL) {
        const fs_deal_part *p = &d->layout.part[part];
        if (p->seat >= 0 && (unsigned)p->seat < d->players)
            printf("FAILED: the deal is not the one these seeds and nonce "
                   "give (hand %d differs)\n", p->seat + 1);
        else
            printf("FAILED: the deal is not the one these seeds and nonce "
                   "give (%s differs)\n", p->key);
    }
    if (verdict == 0)
        printf("OK: the commitment matches the server seed and the deal is "
               "the one it gives (%s); to know the server could not choose "
               "it, check the period's log (--log)\n", scheme);
    return verdict == 0 ? CLI_OK : FAIR_DISHONEST;
}
