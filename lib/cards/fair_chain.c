/* fair_chain.c -- the hash chain of a provably-fair log (fairshuf/chain.h;
 * docs/provably-fair.md, "The hash chain"): linking a record, and the
 * chain's check in front of the record rules of fair_log.c. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "../internal.h"
#include "fairshuf/chain.h"

static const char key[] = ",\"prev\":\"";

void fs_chain_hash(const char *line, size_t len, uint8_t out[32])
{
    crypto_hash_sha256(out, (const unsigned char *)line, len);
}

int fs_chain_link(const uint8_t prev[32], const char *line, char *out,
                  size_t cap)
{
    if (line == NULL || out == NULL || prev == NULL)
        return FS_EINVAL;
    size_t n = strlen(line);
    if (n == 0 || line[n - 1] != '}')
        return FS_EINVAL;
    if (cap < n + FS_CHAIN_EXTRA + 1)
        return FS_ERANGE;
    memmove(out, line, n - 1);
    memcpy(out + n - 1, key, sizeof key - 1);
    fs_hex_encode(prev, 32, out + n - 1 + sizeof key - 1);
    memcpy(out + n - 1 + FS_CHAIN_EXTRA - 1, "\"}", 3);
    return FS_OK;
}

/* The line's prev, if it ends in ,"prev":"HEX" + '}' (HEX lowercase). */
static int prev_of(const char *line, size_t len, uint8_t prev[32])
{
    if (len < FS_CHAIN_EXTRA + 2 || line[len - 1] != '}' ||
        line[len - 2] != '"')
        return 0;
    const char *k = line + len - 1 - FS_CHAIN_EXTRA;
    if (memcmp(k, key, sizeof key - 1) != 0)
        return 0;
    char hex[65];
    memcpy(hex, k + sizeof key - 1, 64);
    hex[64] = '\0';
    for (int i = 0; i < 64; i++)
        if (!((hex[i] >= '0' && hex[i] <= '9') ||
              (hex[i] >= 'a' && hex[i] <= 'f')))
            return 0;
    return fs_hex_decode(hex, prev, 32) == FS_OK;
}

size_t fs_chain_unlink(char *line, size_t len)
{
    uint8_t prev[32];
    if (line == NULL || !prev_of(line, len, prev))
        return len;
    line[len - 1 - FS_CHAIN_EXTRA] = '}';
    return len - FS_CHAIN_EXTRA;
}

int fs_fair_log_check_chained(const char *text, size_t len,
                              const fs_fair_player *player,
                              fs_fair_note *note, void *ctx,
                              fs_fair_log_result *out, size_t *chained)
{
    if (text == NULL || out == NULL)
        return FS_EINVAL;
    char *plain = malloc(len + 1);
    if (plain == NULL)
        return FS_ENOMEM;
    plain[0] = '\0';
    size_t n = 0, line = 0, start = 0, bad = 0;
    const char *rule = NULL;
    char msg[256] = "";
    uint8_t last[32] = {0}, prev[32];
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len, l = end - i;
        line++;
        int has = prev_of(text + i, l, prev);
        size_t keep = has ? l - FS_CHAIN_EXTRA - 1 : l;
        memcpy(plain + n, text + i, keep);
        n += keep;
        if (has) /* the record's own '}' */
            plain[n++] = '}';
        if (nl)
            plain[n++] = '\n';
        if (has && !start)
            start = line;
        if (!bad && has && sodium_memcmp(prev, last, 32) != 0) {
            bad = line;
            rule = "chain-broken";
            if (line == 1)
                snprintf(msg, sizeof msg,
                         "the first record's prev is not 64 zeros: records "
                         "before it were dropped");
            else
                snprintf(msg, sizeof msg,
                         "prev is not the hash of line %zu: a record was "
                         "edited, dropped, inserted or moved before this "
                         "line", line - 1);
        } else if (!bad && !has && start) {
            bad = line;
            rule = "chain-missing";
            snprintf(msg, sizeof msg,
                     "no prev, but the log is chained from line %zu: a "
                     "record was edited or inserted here", start);
        }
        fs_chain_hash(text + i, l, last);
        i = nl ? end + 1 : len;
    }
    int rc = fs_fair_log_check(plain, n, player, note, ctx, out);
    free(plain);
    if (chained)
        *chained = start;
    if (rc != FS_OK || !bad)
        return rc;
    out->findings++;
    if (note)
        note(ctx, bad, FS_FAIR_DISHONEST, rule, msg);
    if (out->verdict != FS_FAIR_DISHONEST || out->line == 0 ||
        bad < out->line) {
        out->verdict = FS_FAIR_DISHONEST;
        out->rule = rule;
        out->line = bad;
        snprintf(out->message, sizeof out->message, "%s", msg);
    }
    return FS_OK;
}
