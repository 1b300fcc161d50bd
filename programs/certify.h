/* certify.h -- `fairshuf certify`: what programs/certify.c gathers and
 * programs/certify_report.c writes (report.json, report.html). */
#ifndef FS_CERTIFY_H
#define FS_CERTIFY_H

#include <stdio.h>

#include "fairshuf.h"
#include "fairshuf/cards.h"
#include "fairshuf/certify.h"

/* A regulation's named test and which of fairshuf's tests answer it. */
typedef struct cert_named {
    const char *name;   /* as the text names it: "Chi-square test" */
    const char *covered; /* fairshuf's tests, or NULL: not run (why below) */
} cert_named;

typedef struct cert_profile {
    const char *id, *title, *source;
    double level;
    const char *note; /* where the text was not available, what was assumed */
    size_t nnamed;
    const cert_named *named;
} cert_profile;

typedef struct cert_run {
    const char *command; /* the exact command line, shell-quoted */
    const char *game, *rng, *algorithm, *seed;
    unsigned players, decks;
    size_t cards;
    unsigned long long trials, raw_bytes;
    double level;
    const cert_profile *profile; /* NULL: none */
    fs_entropy entropy;
    double power_eps;           /* max-cell detectable bias, NaN if none */
    size_t ntests;
    fs_cert_test *tests;
    int *rejected;              /* Holm at alpha = 1 - level */
    double *adjusted;           /* Holm-adjusted p */
    int pass;
    const char *why_fail;       /* NULL when pass */
    const char *seeding;        /* how the generator was keyed */
    double seconds;
} cert_run;

/* The profiles --profile takes; NULL if unknown. */
const cert_profile *cert_profile_find(const char *id);

/* The two reports into open streams; 0, or -1 on a write error. */
int cert_report_json(FILE *f, const cert_run *r);
int cert_report_html(FILE *f, const cert_run *r);

#endif
