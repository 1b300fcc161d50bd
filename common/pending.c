/* pending.c -- see pending.h. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pending.h"

/* The one piece of state a signal handler must reach. */
static char pending[4096];
static volatile sig_atomic_t have_pending;

/* Removes the file now, if any (async-signal-safe: for a handler that
 * then ends the process with _exit). */
static void pending_remove(void)
{
    if (have_pending) {
        have_pending = 0;
        unlink(pending);
    }
}

static void on_signal(int sig)
{
    pending_remove(); /* unlink is async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

void pending_set(const char *name)
{
    static int installed;
    if (!installed) {
        installed = 1;
        atexit(pending_remove);
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
        for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
            struct sigaction sa, old;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
                sigaction(sigs[i], &sa, NULL);
        }
    }
    have_pending = 0; /* the handler never sees a name half-copied */
    snprintf(pending, sizeof pending, "%s", name);
    have_pending = name[0] != '\0';
    if (getenv("FAIRSHUF_TEST_STOP_PENDING"))
        raise(SIGSTOP);
}

void pending_done(void)
{
    have_pending = 0;
}

void pending_on_temp(const char *name, void *arg)
{
    (void)arg;
    if (name)
        pending_set(name);
    else
        pending_done();
}
