/* playlist_list.c -- reads a playlist file: one item per line (blank lines
 * skipped), M3U/M3U8 (comment lines such as #EXTINF travel with the entry
 * that follows them; #EXTM3U is the header), or TSV (the first line names
 * the fields). */
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "playlist.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL)
        cli_die(CLI_FAIL, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (buf == NULL)
            cli_die(CLI_FAIL, "memory exhausted");
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        char *grown = realloc(buf, cap + 1);
        if (grown == NULL)
            free(buf);
        buf = grown;
    }
    if (ferror(f))
        cli_die(CLI_FAIL, "%s: read error: %s", path, strerror(errno));
    if (f != stdin)
        fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

static pl_format detect(const char *path, const char *text,
                        const char *format)
{
    if (format) {
        if (strcmp(format, "plain") == 0)
            return PL_PLAIN;
        if (strcmp(format, "m3u") == 0)
            return PL_M3U;
        if (strcmp(format, "tsv") == 0)
            return PL_TSV;
        cli_die(CLI_USAGE, "invalid format: '%s': expected plain, m3u or tsv",
                format);
    }
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3; /* a UTF-8 byte order mark */
    if (ends_with(path, ".m3u") || ends_with(path, ".m3u8") ||
        strncmp(text, "#EXTM3U", 7) == 0)
        return PL_M3U;
    if (ends_with(path, ".tsv"))
        return PL_TSV;
    return PL_PLAIN;
}

void pl_list_read(pl_list *l, const char *path, const char *format)
{
    memset(l, 0, sizeof *l);
    l->text = slurp(path, &l->len);
    crypto_hash_sha256(l->fingerprint, (const unsigned char *)l->text, l->len);
    l->format = detect(path, l->text, format);
    size_t cap = 64;
    l->entry = malloc(cap * sizeof *l->entry);
    /* A UTF-8 byte order mark is not part of the first line: it is kept
     * at the start of the header (printed once, first). */
    size_t bom = strncmp(l->text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    size_t pos = bom, line = 0, start = SIZE_MAX;
    l->header_end = l->first = bom;
    while (pos < l->len) {
        char *nl = memchr(l->text + pos, '\n', l->len - pos);
        size_t end = nl ? (size_t)(nl - l->text) + 1 : l->len;
        size_t body = end - (nl ? 1 : 0);
        if (body > pos && l->text[body - 1] == '\r')
            body--;
        line++;
        int blank = body == pos;
        if (line == 1 && ((l->format == PL_TSV) ||
                          (l->format == PL_M3U &&
                           strncmp(l->text + bom, "#EXTM3U", 7) == 0))) {
            l->header_end = end;
        } else if (l->format == PL_M3U && !blank && l->text[pos] == '#') {
            if (start == SIZE_MAX)
                start = pos; /* comments travel with the next entry */
        } else if (!blank) {
            if (l->n == cap) {
                cap *= 2;
                l->entry = realloc(l->entry, cap * sizeof *l->entry);
            }
            if (l->entry == NULL)
                cli_die(CLI_FAIL, "memory exhausted");
            l->entry[l->n].start = start == SIZE_MAX ? pos : start;
            l->entry[l->n].end = body;
            l->entry[l->n].line = line;
            l->n++;
            start = SIZE_MAX;
        }
        pos = end;
    }
    if (l->n == 0)
        cli_die(CLI_FAIL, "%s: no items", path);
}

void pl_list_free(pl_list *l)
{
    free(l->text);
    free(l->entry);
}

/* The tab-separated field k of text[b, e). */
static void nth_field(const char *t, size_t b, size_t e, int k, size_t *fb,
                      size_t *fe)
{
    for (int i = 0; i < k; i++) {
        const char *tab = memchr(t + b, '\t', e - b);
        if (tab == NULL) {
            *fb = *fe = 0;
            return;
        }
        b = (size_t)(tab - t) + 1;
    }
    const char *tab = memchr(t + b, '\t', e - b);
    *fb = b;
    *fe = tab ? (size_t)(tab - t) : e;
}

int pl_field_index(const pl_list *l, const char *name)
{
    size_t e = l->header_end;
    while (e > 0 && (l->text[e - 1] == '\n' || l->text[e - 1] == '\r'))
        e--;
    size_t len = strlen(name);
    for (int k = 0;; k++) {
        size_t fb, fe;
        nth_field(l->text, l->first, e, k, &fb, &fe);
        if (fb == 0 && fe == 0 && k > 0)
            return -1;
        if (fe - fb == len && memcmp(l->text + fb, name, len) == 0)
            return k;
        if (fe == e)
            return -1;
    }
}

void pl_field(const pl_list *l, size_t e, int field, size_t *b, size_t *en)
{
    nth_field(l->text, l->entry[e].start, l->entry[e].end, field, b, en);
}
