/* finding.c -- the finding recorder the log checkers share (finding.h). */
#include <stdio.h>
#include <string.h>

#include "finding.h"

void fs__finding(fs__finder *f, size_t line, fs_fair_verdict kind,
                 const char *rule, const char *fmt, va_list ap)
{
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    (*f->findings)++;
    size_t rk = 0;
    while (rk < f->nrank && strcmp(f->rank[rk], rule) != 0)
        rk++;
    size_t l = line ? line : SIZE_MAX, rl = *f->line ? *f->line : SIZE_MAX;
    int better = *f->rule == NULL      ? 1
                 : kind != *f->verdict ? kind == FS_FAIR_DISHONEST
                 : l != rl             ? l < rl
                                       : rk < f->first_rank;
    if (better) {
        *f->verdict = kind;
        *f->rule = f->rank[rk < f->nrank ? rk : 0];
        *f->line = line;
        f->first_rank = rk;
        memcpy(f->message, f->msg, FS__FINDING_MSG);
    }
    if (f->note)
        f->note(f->ctx, line, kind, rule, f->msg);
}

const char *fs__escape(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (n + 5 >= cap)
            break;
        if (*p >= 0x20 && *p < 0x7f && *p != '\\')
            out[n++] = (char)*p;
        else
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", *p);
    }
    out[n] = '\0';
    return out;
}
