/* state.c -- the playlist state as one line of text, parsed strictly. */
#include <stdio.h>
#include <string.h>

#include "fairshuf/playlist.h"
#include "internal.h"

void fs_playlist_save(const fs_playlist *pl, char *out)
{
    char key[65], list[65];
    fs_hex_encode(pl->key, 32, key);
    fs_hex_encode(pl->fingerprint, 32, list);
    snprintf(out, FS_PLAYLIST_STATE_MAX,
             "fairshuf-playlist 1 n=%llu window=%u step=%llu key=%s list=%s",
             (unsigned long long)pl->n, (unsigned)pl->window,
             (unsigned long long)pl->step, key, list);
}

/* "NAME=" then digits up to a space or the end; advances *s. */
static int field_u64(const char **s, const char *name, uint64_t *out)
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0 || (*s)[len] != '=')
        return -1;
    const char *p = *s + len + 1;
    uint64_t v = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (*p != ' ' && *p != '\0' && *p != '\n')
        return -1;
    *s = *p == ' ' ? p + 1 : p;
    *out = v;
    return 0;
}

static int field_hex(const char **s, const char *name, uint8_t out[32])
{
    size_t len = strlen(name);
    if (strncmp(*s, name, len) != 0 || (*s)[len] != '=')
        return -1;
    char hex[65];
    const char *h = *s + len + 1;
    size_t k = 0;
    while (k < 64 && h[k] != '\0') /* never reads past the text's end */
        k++;
    if (k != 64)
        return -1;
    memcpy(hex, h, 64);
    hex[64] = '\0';
    if (fs_hex_decode(hex, out, 32) != FS_OK)
        return -1;
    const char *p = *s + len + 1 + 64;
    if (*p != ' ' && *p != '\0' && *p != '\n')
        return -1;
    *s = *p == ' ' ? p + 1 : p;
    return 0;
}

int fs_playlist_load(fs_playlist *pl, const char *text)
{
    static const char magic[] = "fairshuf-playlist 1 ";
    if (pl == NULL || text == NULL ||
        strncmp(text, magic, sizeof magic - 1) != 0)
        return FS_EINVAL;
    const char *s = text + sizeof magic - 1;
    fs_playlist t;
    uint64_t w;
    memset(&t, 0, sizeof t);
    if (field_u64(&s, "n", &t.n) || field_u64(&s, "window", &w) ||
        field_u64(&s, "step", &t.step) || field_hex(&s, "key", t.key) ||
        field_hex(&s, "list", t.fingerprint))
        return FS_EINVAL;
    if (*s == '\n')
        s++;
    if (*s != '\0' || t.n == 0 || w > t.n / 3 || w > FS_PLAYLIST_WINDOW_MAX)
        return FS_EINVAL;
    t.window = (uint32_t)w;
    *pl = t;
    return FS_OK;
}
