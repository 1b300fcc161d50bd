/* player_state.c -- the fs_player state as text (<fairshuf/playlist.h>,
 * docs/playlist.md "The state file"): fs_playlist_save()'s line, the
 * record, and a BLAKE2b-128 checksum; parsed strictly. */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "player_internal.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* NAME then decimal digits then a space. */
static int num(const char **s, const char *name, uint64_t *out)
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0)
        return -1;
    const char *p = *s + len;
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (*p != ' ')
        return -1;
    *out = v;
    *s = p + 1;
    return 0;
}

/* NAME= then 16-hex-digit ids up to a space (more follows) or, when last,
 * the end of the line. */
static int id_list(const char **s, const char *name, fs_ids *v, int last)
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0)
        return -1;
    const char *p = *s + len;
    while (*p != ' ' && *p != '\0' && *p != '\n') {
        uint64_t x = 0;
        for (int k = 0; k < 16; k++) {
            int d = hexval(p[k]);
            if (d < 0)
                return -1;
            x = x << 4 | (uint64_t)d;
        }
        if (fs__ids_push(v, x) != FS_OK)
            return -2;
        p += 16;
    }
    if (last ? *p == ' ' : *p != ' ')
        return -1;
    *s = last ? p : p + 1;
    return 0;
}

static int hex_bytes(const char **s, const char *name, uint8_t *out,
                     size_t n)
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0)
        return -1;
    const char *p = *s + len;
    for (size_t i = 0; i < n; i++) {
        int a = hexval(p[2 * i]), b = a < 0 ? -1 : hexval(p[2 * i + 1]);
        if (b < 0)
            return -1;
        out[i] = (uint8_t)(a << 4 | b);
    }
    if (p[2 * n] != ' ')
        return -1;
    *s = p + 2 * n + 1;
    return 0;
}

static int order_field(const char **s, fs_player *p)
{
    static const char *const names[] = {"order=plain ", "order=spread-",
                                        "order=weights-"};
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(names[k]);
        if (strncmp(*s, names[k], len) != 0)
            continue;
        p->order = (fs_player_order)k;
        *s += len;
        if (k == 0)
            return 0;
        uint8_t b[8];
        if (hex_bytes(s, "", b, 8))
            return -1;
        p->field = 0;
        for (int i = 0; i < 8; i++)
            p->field = p->field << 8 | b[i];
        return 0;
    }
    return -1;
}

/* The second line; -1 if malformed, -2 out of memory. */
static int parse_record(const char *s, fs_player *p)
{
    int rc;
    if (strncmp(s, "player ", 7) == 0) {
        s += 7;
        uint64_t v;
        if (num(&s, "", &v) || v != 2 || hex_bytes(&s, "file=", p->tag, 16) ||
            order_field(&s, p))
            return -1;
        p->version = 2;
    } else {
        p->version = 1;
    }
    if (num(&s, "cycle=", &p->cycle) || num(&s, "at=", &p->at) ||
        num(&s, "frozen=", &p->frozen) || num(&s, "base=", &p->base))
        return -1;
    if (p->version == 2 && num(&s, "passed=", &p->passed))
        return -1;
    if (p->version == 2 && ((rc = id_list(&s, "avoid=", &p->avoid, 0)) ||
                            (rc = id_list(&s, "queue=", &p->queue, 0))))
        return rc;
    if ((rc = id_list(&s, "ids=", &p->ids, 1)))
        return rc;
    if (*s == '\n' && s[1] != '\0')
        return -1;
    if (*s != '\n' && *s != '\0')
        return -1;
    if (p->version == 1) /* format 1 recorded every position passed */
        p->passed = p->ids.len > p->at ? p->ids.len : p->at;
    if (p->frozen > p->ids.len || p->at > p->passed ||
        p->frozen > p->passed || p->avoid.len > FS_PLAYLIST_WINDOW_MAX)
        return -1;
    /* format 1 saved every position passed; format 2 only the frozen ones
     * (the others are worked out from the list) */
    if (p->version == 1 ? p->at > p->ids.len + 1 : p->ids.len != p->frozen)
        return -1;
    p->present = 1;
    return 0;
}

/* "MAGIC V" with a number V other than ours. */
static int other_version(const char *line, const char *magic, int ours)
{
    size_t len = strlen(magic);
    if (strncmp(line, magic, len) != 0 || line[len] < '0' || line[len] > '9')
        return 0;
    return atoi(line + len) != ours;
}

static const char not_state[] = "not a fairshuf playlist state";

int fs_player_load(fs_player **out, const char *text, size_t len,
                   const char **why)
{
    static const char *dummy;
    if (why == NULL)
        why = &dummy;
    *why = not_state;
    if (out == NULL || (text == NULL && len > 0))
        return FS_EINVAL;
    *out = NULL;
    if (len > 0 && memchr(text, '\0', len) != NULL) {
        *why = "not a fairshuf playlist state (it holds a NUL byte)";
        return FS_EINVAL;
    }
    char *t = malloc(len + 1);
    fs_player *p = calloc(1, sizeof *p);
    int rc = FS_ENOMEM;
    if (t == NULL || p == NULL)
        goto fail;
    if (len > 0)
        memcpy(t, text, len);
    t[len] = '\0';
    rc = FS_EINVAL;
    char *nl = strchr(t, '\n');
    if (other_version(t, "fairshuf-playlist ", 1) ||
        (nl && other_version(nl + 1, "player ", 2))) {
        *why = "made by another version of fairshuf (unknown state format)";
        goto fail;
    }
    char *second = nl ? nl + 1 : NULL;
    if (second && strncmp(second, "player ", 7) == 0) {
        /* format 2: the checksum covers the two lines */
        char *nl2 = strchr(second, '\n');
        const char *s = nl2 ? nl2 + 1 : "";
        if (nl2 == NULL || strncmp(s, "sum=", 4) != 0 ||
            strlen(s) != 4 + 32 + 1 || s[36] != '\n') {
            *why = "damaged (incomplete)";
            goto fail;
        }
        uint8_t sum[16], want[16];
        for (int i = 0; i < 16; i++) {
            int a = hexval(s[4 + 2 * i]), b = hexval(s[5 + 2 * i]);
            if (a < 0 || b < 0) {
                *why = "damaged (bad checksum line)";
                goto fail;
            }
            want[i] = (uint8_t)(a << 4 | b);
        }
        crypto_generichash(sum, 16, (const unsigned char *)t,
                           (size_t)(nl2 + 1 - t), NULL, 0);
        if (sodium_memcmp(sum, want, 16) != 0) {
            *why = "damaged (checksum mismatch)";
            goto fail;
        }
        nl2[1] = '\0';
    }
    if (nl != NULL) {
        *nl = '\0';
        if (nl[1] != '\0') {
            int r = parse_record(nl + 1, p);
            if (r == -2) {
                rc = FS_ENOMEM;
                goto fail;
            }
            if (r != 0)
                goto fail;
        }
    }
    if (fs_playlist_load(&p->pl, t) != FS_OK)
        goto fail;
    free(t);
    *out = p;
    return FS_OK;
fail:
    free(t);
    fs_player_free(p);
    return rc;
}

static size_t put_ids(char *text, size_t n, const char *name,
                      const fs_ids *v)
{
    static const char hex[] = "0123456789abcdef";
    memcpy(text + n, name, strlen(name));
    n += strlen(name);
    for (size_t i = 0; i < v->len; i++)
        for (int k = 15; k >= 0; k--)
            text[n++] = hex[(v->id[i] >> (4 * k)) & 15];
    return n;
}

int fs_player_save(const fs_player *p, char *out, size_t cap, size_t *len)
{
    if (p == NULL || len == NULL || (out == NULL && cap > 0) || p->n == 0)
        return FS_EINVAL;
    size_t need = FS_PLAYLIST_STATE_MAX + 256 +
                  16 * (p->frozen + p->avoid.len + p->queue.len) + 64;
    char *text = malloc(need);
    if (text == NULL)
        return FS_ENOMEM;
    fs_playlist_save(&p->pl, text);
    size_t n = strlen(text);
    char tag[33];
    fs_hex_encode(p->tag, 16, tag);
    n += (size_t)snprintf(text + n, need - n, "\nplayer 2 file=%s order=",
                          tag);
    if (p->order == FS_PLAYER_PLAIN)
        n += (size_t)snprintf(text + n, need - n, "plain");
    else
        n += (size_t)snprintf(text + n, need - n, "%s-%016llx",
                              p->order == FS_PLAYER_SPREAD ? "spread"
                                                           : "weights",
                              (unsigned long long)p->field);
    n += (size_t)snprintf(text + n, need - n,
                          " cycle=%llu at=%llu frozen=%llu base=%llu "
                          "passed=%llu ",
                          (unsigned long long)p->cycle,
                          (unsigned long long)p->at,
                          (unsigned long long)p->frozen,
                          (unsigned long long)p->base,
                          (unsigned long long)p->passed);
    n = put_ids(text, n, "avoid=", &p->avoid);
    n = put_ids(text, n, " queue=", &p->queue);
    fs_ids frozen = p->ids; /* only the frozen positions are saved */
    frozen.len = (size_t)p->frozen;
    n = put_ids(text, n, " ids=", &frozen);
    text[n++] = '\n';
    uint8_t sum[16];
    crypto_generichash(sum, 16, (const unsigned char *)text, n, NULL, 0);
    memcpy(text + n, "sum=", 4);
    fs_hex_encode(sum, 16, text + n + 4);
    n += 4 + 32;
    text[n++] = '\n';
    *len = n;
    int rc = FS_OK;
    if (n <= cap)
        memcpy(out, text, n);
    else if (cap > 0)
        rc = FS_ERANGE; /* cap 0: the caller asks for the length */
    sodium_memzero(text, n);
    free(text);
    return rc;
}
