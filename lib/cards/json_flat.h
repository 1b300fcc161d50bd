/* json_flat.h -- the log's JSON reader and string writer (fair_record.c),
 * shared by the records of every scheme (fairshuf-pf-*, fairshuf-vrf-1).
 * Internal: users never see it. */
#ifndef FS_JSON_FLAT_H
#define FS_JSON_FLAT_H

#include <stddef.h>
#include <stdint.h>

/* One key a flat object may hold: a string (str[0..cap), NUL-terminated, no
 * NUL inside) or, when str is NULL, a plain non-negative integer (num). */
typedef struct fs__jfield {
    const char *name;
    char *str;
    size_t cap;
    uint64_t num;
    int seen;
} fs__jfield;

/* Reads line[0..len) as one JSON object whose keys are among f[0..nf),
 * each at most once (valid UTF-8, the escapes and whitespace of
 * docs/provably-fair.md "Records").  Sets f[i].seen for the keys present;
 * the caller checks that the right ones are.  FS_OK, or FS_EINVAL with a
 * static English *why (may be NULL). */
int fs__json_flat(const char *line, size_t len, fs__jfield *f, size_t nf,
                  const char **why);

/* s as a JSON string, quotes included, escaped as fs_fair_record_write
 * does, at out[0..cap) NUL-terminated: its length, or -1 if cap is too
 * small. */
long fs__json_string(const char *s, char *out, size_t cap);

#endif
