/* serve_exec.c -- `fairshuf serve` and `fairshuf mpd`: run fairshuf-serve
 * (service/) or fairshuf-mpd (mpd/), found beside this binary, with the
 * same arguments.  Each is its own program so that the other subcommands
 * do not load the libraries it needs (HTTP, TLS, JSON and SQLite;
 * libmpdclient), and fairshuf builds without them. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static _Noreturn void exec_beside(const char *sub, const char *name,
                                  char **argv, const char *hint)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        cli_die(CLI_FAIL, "%s: cannot find this program (/proc/self/exe): "
                          "%s", sub, strerror(errno));
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    size_t dir = slash ? (size_t)(slash - exe) + 1 : 0;
    if (dir + strlen(name) + 1 > sizeof exe)
        cli_die(CLI_FAIL, "%s: path too long: %s", sub, exe);
    memcpy(exe + dir, name, strlen(name) + 1);
    argv[0] = exe;
    execv(exe, argv);
    cli_die(CLI_FAIL, "%s: %s: %s (%s)", sub, exe, strerror(errno), hint);
}

int cmd_serve(int argc, char **argv)
{
    (void)argc;
    exec_beside("serve", "fairshuf-serve", argv,
                "it is built and installed beside fairshuf");
}

int cmd_mpd(int argc, char **argv)
{
    (void)argc;
    exec_beside("mpd", "fairshuf-mpd", argv,
                "it is built beside fairshuf where libmpdclient is found: "
                "apt install libmpdclient-dev, then make");
}
