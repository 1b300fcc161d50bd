/* progress.c -- one progress line on stderr (see progress.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"

#define INTERVAL 0.1 /* at most 10 drawings a second */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, int mode)
{
    memset(p, 0, sizeof *p);
    p->on = mode > 0 || (mode < 0 && isatty(2));
    p->delay = mode > 0 ? 0 : 0.5;
    p->t0 = now();
    p->next = p->t0 + p->delay;
}

/* 1234567 -> "1.23M" */
static void human(double v, char *buf, size_t len)
{
    const char *suffix = " kMGTP";
    int i = 0;
    while (v >= 1000 && i < 5)
        v /= 1000, i++;
    if (i == 0)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.*f%c", v < 10 ? 2 : v < 100 ? 1 : 0, v,
                 suffix[i]);
}

static void clock_text(double s, char *buf, size_t len)
{
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

void cli_progress_show(cli_progress *p, const char *what, uint64_t done,
                       uint64_t total, const char *unit)
{
    if (!p->on)
        return;
    double t = now();
    if (strncmp(p->what, what, sizeof p->what - 1) != 0) { /* new phase */
        /* it began about when the last one was last heard of */
        int first = p->what[0] == '\0' && p->tlast == 0;
        snprintf(p->what, sizeof p->what, "%s", what);
        p->base = first ? 0 : done;
        p->tphase = first ? p->t0 : p->tlast;
        if (!first && done > 0)
            p->base = 0;
        if (t >= p->t0 + p->delay) /* each phase is seen at least once */
            p->next = t;
    }
    p->tlast = t;
    if (t < p->next)
        return;
    p->next = t + INTERVAL;
    int bytes = strcmp(unit, "bytes") == 0;
    double scale = bytes ? 1.0 / 1048576.0 : 1.0;
    const char *u = bytes ? "MiB" : unit;
    double rate = t - p->tphase > 0.01
                      ? (double)(done - p->base) / (t - p->tphase)
                      : 0;
    char line[200], d[16], r[16], left[24];
    int k;
    if (bytes)
        snprintf(d, sizeof d, "%.1f", (double)done * scale);
    else
        human((double)done, d, sizeof d);
    if (rate > 0)
        human(rate * scale, r, sizeof r);
    else
        snprintf(r, sizeof r, "-");
    if (total) {
        char tt[16];
        if (bytes)
            snprintf(tt, sizeof tt, "%.1f", (double)total * scale);
        else
            human((double)total, tt, sizeof tt);
        if (rate > 0 && done < total)
            clock_text((double)(total - done) / rate, left, sizeof left);
        else
            snprintf(left, sizeof left, "-");
        k = snprintf(line, sizeof line, "%s: %s: %3.0f%% %s of %s %s, %s %s/s, "
                     "ETA %s", cli_prog, what,
                     100.0 * (double)done / (double)total, d, tt, u, r, u,
                     left);
    } else {
        k = snprintf(line, sizeof line, "%s: %s: %s %s, %s %s/s", cli_prog,
                     what, d, u, r, u);
    }
    if (k < 0)
        return;
    if (k > 79) { /* one terminal line: never wrap */
        k = 79;
        line[k] = '\0';
    }
    fprintf(stderr, "\r%s%*s", line, p->width > k ? p->width - k : 0, "");
    p->width = k;
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->width) {
        fprintf(stderr, "\r%*s\r", p->width, "");
        fflush(stderr);
    }
    p->width = 0;
}
